"""The model registry. Every builder has the signature ``build(input_shape, num_classes, **params)``;
``num_classes`` is the number of outputs (1 for a regression target)."""

from __future__ import annotations

from studio.core.contracts.registry import Entry, Param, Registry, Suggested

MODELS = Registry("model")

ACTIVATIONS = ("relu", "gelu", "tanh", "sigmoid")
_B = "studio.core.models.builders:"

# transfer learning from a Studio run (core/models/from_run.py; the parent is checked by core/runs/lineage.py)
FROM_RUN = (
    Param("init_from", "str", "", "a finished run of this model (id) whose weights to start from, all but the "
          "last layer; empty: random weights"),
    Param("frozen_epochs", "int", 0, "with init_from: epochs that train only the new last layer, then the rest is "
          "unfrozen", 0, 100_000),
    Param("base_lr_factor", "float", 1.0, "with init_from: the layers below the new last one learn at the learning "
          "rate × this", 0.0, 1.0, log=True),
)
FROM_RUN_INFO = (" With init_from: a finished run's weights (trained by Studio, e.g. on another dataset) for every "
                 "layer but the last, which is new; frozen_epochs, then fine-tuning (Yosinski et al. 2014).")

MODELS.add(Entry(
    "linear_neuron",
    "Linear neuron for regression: y = w·x + b, fitted to a number with mean squared error",
    (Param("bias", "bool", True, "learn the offset b"),),
    builder=_B + "build_linear",
    info="ŷ = w·x + b;  loss = mean (ŷ − y)². Fit it to the noisy-line dataset and compare w, b with the line "
         "that made the data (Legendre 1805, Gauss 1809: least squares).",
    tags=("regression",),
))
MODELS.add(Entry(
    "linear",
    "Logistic (softmax) regression: one linear layer from the flattened input to the class scores",
    (Param("bias", "bool", True, "add a bias to each class score"),),
    builder=_B + "build_linear",
    info="p(y|x) = softmax(Wx + b), trained with cross-entropy; with two classes this is logistic regression "
         "(Cox 1958). On a regression dataset the same layer is a linear neuron.",
))
MODELS.add(Entry(
    "mlp",
    "Multi-layer perceptron: fully connected layers with a non-linearity between them",
    (
        Param("widths", "ints", [512, 512], "hidden layer widths, one per layer: depth = how many, e.g. 512,512",
              1, 16384),
        Param("activation", "choice", "relu", "the non-linearity after each hidden layer", choices=ACTIVATIONS),
        Param("dropout", "float", 0.0, "probability of zeroing a hidden unit while training", 0.0, 0.95),
        Param("batch_norm", "bool", False, "batch normalisation after each hidden layer"),
        *FROM_RUN,
    ),
    builder=_B + "build_mlp",
    info="h_{l+1} = act(BN(W_l h_l + b_l)); the last layer gives class scores for softmax cross-entropy "
         "(Rumelhart, Hinton & Williams 1986; dropout: Srivastava et al. 2014; batch norm: Ioffe & Szegedy 2015)."
         + FROM_RUN_INFO,
))
MODELS.add(Entry(
    "cnn",
    "The classic convolutional stack: (conv 3×3, batch norm, max-pool) ×3, dense 512, dropout",
    (
        Param("filters", "ints", [75, 50, 25], "filters of each conv block", 1, 1024),
        Param("kernel", "int", 3, "convolution kernel size", 1, 11),
        Param("dense", "int", 512, "width of the dense layer", 1, 8192),
        Param("dropout", "float", 0.2, "dropout before the dense layers", 0.0, 0.95),
        *FROM_RUN,
    ),
    builder=_B + "build_cnn",
    info="LeCun et al. 1998 in spirit; the conv-BN-pool stack popular in Keras courses (Sign Language MNIST)."
         + FROM_RUN_INFO,
    tags=("image",),
))
MODELS.add(Entry(
    "lenet5",
    "LeNet-5: two 5×5 convolutions with pooling, then dense layers of 120 and 84 units",
    (
        Param("activation", "choice", "tanh", "the non-linearity (the original used tanh)", choices=ACTIVATIONS),
        Param("pooling", "choice", "avg", "sub-sampling: average (original) or max", choices=("avg", "max")),
        Param("dropout", "float", 0.0, "dropout before the output layer", 0.0, 0.95),
        *FROM_RUN,
    ),
    builder=_B + "build_lenet5",
    info="conv 6@5×5 → pool 2 → conv 16@5×5 → pool 2 → 120 → 84 → classes   (LeCun, Bottou, Bengio & Haffner "
         "1998, 'Gradient-Based Learning Applied to Document Recognition'). 28 px inputs get 2 px of padding."
         + FROM_RUN_INFO,
    tags=("image",),
))
MODELS.add(Entry(
    "resnet18",
    "ResNet-18: 8 residual blocks of two 3×3 convolutions with skip connections (torchvision)",
    (
        Param("small_input", "choice", "auto", "3×3 stride-1 stem without max-pool: auto uses it up to 64 px",
              choices=("auto", "yes", "no")),
        Param("zero_init_residual", "bool", False, "start each block as the identity (last BN scale = 0)"),
        *FROM_RUN,
    ),
    builder=_B + "build_resnet18",
    info="y = relu(x + F(x)), F = conv-BN-relu-conv-BN   (He, Zhang, Ren & Sun 2016, 'Deep Residual Learning'). "
         "The small-image stem follows the CIFAR variant of the paper; torchvision.models.resnet18."
         + FROM_RUN_INFO,
    tags=("image",),
    suggested=Suggested(
        {"train.epochs": 2, "train.batch_size": 32, "train.epoch_steps": 30},
        "the shared defaults take about 45 minutes on a 2-core CPU, these about 2 (epoch steps is under Advanced "
        "settings; 0 trains whole epochs)"),
))
MODELS.add(Entry(
    "transfer",
    "Transfer learning: a torchvision model pretrained on ImageNet with a new head; base frozen, then fine-tuned",
    (
        Param("arch", "str", "resnet18", "any torchvision classification model, e.g. resnet18, mobilenet_v3_small, "
              "efficientnet_b0"),
        Param("pretrained", "bool", True, "start from the ImageNet weights (downloaded once into the torch hub "
              "cache; offline, put the file there)"),
        Param("frozen_epochs", "int", 3, "epochs that train only the new head; then the base is unfrozen "
              "(0: fine-tune everything from the start)", 0, 100_000),
        Param("base_lr_factor", "float", 0.01, "the unfrozen base learns at the learning rate × this", 0.0, 1.0,
              log=True),
        Param("resize", "int", 0, "resample images to this size first (0: keep; ViTs need 224)", 0, 1024),
    ),
    builder="studio.core.models.transfer:build_transfer",
    info="Stage 1: features f(x) of a pretrained network stay fixed, a new linear head learns p(y|f(x)). "
         "Stage 2: everything learns, the base at a much lower rate (Yosinski et al. 2014; Howard & Ruder 2018). "
         "Weights are read from $TORCH_HOME/hub/checkpoints, downloaded there the first time.",
    tags=("image",),
))

GENERATES = "generates"  # a next-token model: it can continue a text (Generate, `studio generate`); bert_mlm fills
# in masked words from both sides instead, and left to right it writes "the the the…" (issue 33)
_LM_PARAMS = (
    Param("embedding", "int", 64, "size of each word's learned vector", 2, 4096),
    Param("hidden", "int", 128, "units of the recurrent state", 2, 8192),
    Param("layers", "int", 1, "stacked recurrent layers", 1, 8),
    Param("dropout", "float", 0.2, "dropout between recurrent layers and before the softmax", 0.0, 0.95),
)
# Next-word models on a corpus as small as the bundled fortunes: the window's shared defaults (5 epochs at batch 128,
# Adam 0.001, constant rate) give them 25–230 steps, and they barely beat the words' frequencies ("a a a …"). Smaller
# batches, more steps and a rate annealed to zero show the point in under a minute on a 2-core CPU, where the
# validation perplexity is at its lowest (measured: docs/developer/benchmarks.md, "the defaults a newcomer meets").
_RNN_SUGGESTED = Suggested(
    {"train.epochs": 6, "train.batch_size": 32, "optimizer.name": "adam", "optimizer.lr": 0.003,
     "schedule.name": "cosine"},
    "the shared defaults leave it near the words' frequencies (it writes “a a a …”)")
MODELS.add(Entry(
    "lstm_lm",
    "Next-word LSTM: word embedding → LSTM → softmax over the vocabulary (text datasets)",
    _LM_PARAMS,
    builder="studio.core.models.language:build_lstm_lm",
    info="e_t = E[w_t];  h_t, c_t = LSTM(e_t, h_{t−1}, c_{t−1});  p(w_{t+1} | w_1…w_t) = softmax(W h_t + b). "
         "Trained with cross-entropy; perplexity = exp(loss). (Hochreiter & Schmidhuber 1997; Bengio et al. 2003.)",
    tags=("text", GENERATES),
    suggested=_RNN_SUGGESTED,
))
MODELS.add(Entry(
    "gru_lm",
    "Next-word GRU: word embedding → GRU → softmax over the vocabulary (fewer gates than the LSTM)",
    _LM_PARAMS,
    builder="studio.core.models.language:build_gru_lm",
    info="h_t = GRU(E[w_t], h_{t−1});  p(w_{t+1} | w_1…w_t) = softmax(W h_t + b)   (Cho et al. 2014).",
    tags=("text", GENERATES),
    suggested=_RNN_SUGGESTED,
))
MODELS.add(Entry(
    "vit",
    "Vision Transformer: image patches as tokens, a [CLS] token, self-attention blocks, a linear head",
    (
        Param("patch", "int", 7, "side of the square patches the image is cut into (must divide its size)", 1, 64),
        Param("d_model", "int", 64, "width of each patch token", 4, 2048),
        Param("depth", "int", 4, "Transformer blocks", 1, 48),
        Param("heads", "int", 4, "attention heads per block (must divide d_model)", 1, 64),
        Param("pool", "choice", "cls", "what the head reads: the [CLS] token's output or the mean over patches",
              choices=("cls", "mean")),
        Param("dropout", "float", 0.0, "dropout on the embeddings, attention and MLP branches", 0.0, 0.95),
        *FROM_RUN,
    ),
    builder="studio.core.models.vit:build_vit",
    info="z₀ = [x_cls; E·p₁; …; E·p_N] + E_pos;  z_l = z + MSA(LN(z)), then z + MLP(LN(z));  "
         "y = W·LN(z_L)[cls] (or the mean over patches). Dosovitskiy et al. 2021, 'An Image is Worth 16x16 "
         "Words'; mean pooling and small-data settings: Zhai et al. 2022, 'Scaling Vision Transformers'."
         + FROM_RUN_INFO,
    tags=("image", "attention"),
))

_BERT_PARAMS = (
    Param("layers", "int", 2, "Transformer blocks (bidirectional self-attention + MLP each)", 1, 48),
    Param("heads", "int", 4, "attention heads per block; must divide d_model", 1, 64),
    Param("d_model", "int", 128, "width of every token's vector (embeddings, blocks)", 8, 4096),
    Param("context", "int", 64, "position embeddings: the longest row ([CLS] + data.max_len words)", 2, 4096),
    Param("dropout", "float", 0.1, "dropout on the embeddings, attention weights and residual branches", 0.0, 0.95),
)
MODELS.add(Entry(
    "bert_mlm",
    "BERT pretraining: a bidirectional Transformer encoder predicting masked words (the masked_lm dataset)",
    _BERT_PARAMS,
    builder="studio.core.models.bert:build_bert_mlm",
    info="h⁰_t = E[w_t] + P[t], w_0 = [CLS];  h^l = h^{l−1} + Attn(LN(h^{l−1})), then + MLP(LN(·)); every token "
         "attends to every real token (padding masked). 15 % of the words are chosen: 80 % → [MASK], 10 % → a "
         "random word, 10 % kept;  loss = −Σ_chosen log softmax(Eᵀ·LN(GELU(W h^L_t)) + b)[w_t] (tied to E), "
         "accuracy over the chosen. (Devlin, Chang, Lee & Toutanova 2019, 'BERT: Pre-training of Deep "
         "Bidirectional Transformers for Language Understanding'; Vaswani et al. 2017.) Masks are static: drawn "
         "once from the run's seed, data.copies per line (RoBERTa, Liu et al. 2019, redraws them every batch).",
    tags=("text", "bert", "attention"),
))
MODELS.add(Entry(
    "bert_classifier",
    "BERT fine-tuning: classify labelled text from the encoder's final [CLS] vector, pretrained or from scratch",
    (
        *_BERT_PARAMS,
        Param("init_from", "str", "", "a finished bert_mlm run (id) whose encoder to start from; empty: random "
              "initial weights (train from scratch). Its encoder shape must match"),
        Param("frozen_epochs", "int", 0, "with init_from: epochs that train only the new head, then the encoder "
              "is unfrozen (0: fine-tune everything from the start)", 0, 100_000),
        Param("base_lr_factor", "float", 1.0, "with init_from: the encoder learns at the learning rate × this",
              0.0, 1.0, log=True),
    ),
    builder="studio.core.models.bert:build_bert_classifier",
    info="p(y | line) = softmax(W · dropout(h^L_[CLS]) + b): the encoder's final vector at the [CLS] position, "
         "which attends to every word, summarises the line (Devlin et al. 2019, §4). With init_from, the encoder "
         "starts from a bert_mlm run and the labelled text is tokenized with that run's vocabulary (data."
         "vocab_from, filled in); frozen then unfrozen as transfer learning does (Howard & Ruder 2018). Train one "
         "with init_from and one without on the same labels to see what pretraining buys.",
    tags=("text", "bert", "vocab", "attention"),
))

MODELS.add(Entry(
    "gpt_lm",
    "GPT: a decoder-only Transformer predicting the next token at every position (words or characters)",
    (
        Param("layers", "int", 2, "Transformer blocks (causal self-attention + MLP each)", 1, 48),
        Param("heads", "int", 4, "attention heads per block; must divide d_model", 1, 64),
        Param("d_model", "int", 128, "width of every token's vector (embeddings, blocks)", 8, 4096),
        Param("context", "int", 24, "tokens the model sees at once: the training windows' length (in words, at "
              "most the longest line's length − 1; characters: any)", 2, 4096),
        Param("dropout", "float", 0.1, "dropout on the embeddings, attention weights and residual branches",
              0.0, 0.95),
        Param("tie_weights", "bool", True, "the output layer reuses the token embedding matrix"),
    ),
    builder="studio.core.models.gpt:build_gpt_lm",
    info="h⁰_t = E[w_t] + P[t];  h^l = h^{l−1} + Attn_causal(LN(h^{l−1})), then + MLP(LN(·)) (GELU, 4× wide);  "
         "p(w_{t+1} | w_1…w_t) = softmax(W LN(h^L_t)), W = Eᵀ when tied. Attention(Q,K,V) = softmax(QKᵀ/√d + "
         "mask) V, token t attending to tokens ≤ t only. Trained on windows of `context` tokens with every "
         "position predicting the next one; perplexity = exp(loss per token). (Vaswani et al. 2017, 'Attention Is "
         "All You Need'; Radford et al. 2018, 'Improving Language Understanding by Generative Pre-Training'; "
         "Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners' (GPT-2: pre-LN); Press & "
         "Wolf 2017: tied embeddings.) data.tokenizer = char gives a character-level model.",
    tags=("text", "sequence", "attention", GENERATES),
    suggested=Suggested(
        {"train.epochs": 12, "train.batch_size": 8, "optimizer.name": "adam", "optimizer.lr": 0.0005,
         "schedule.name": "cosine", "model.dropout": 0.2},
        "the shared defaults give it 25 steps on the fortunes (it writes “the the the …”)"),
))

# --- the user's own models and the libraries' backbones (docs/user-guide/own-model-and-data.md) -------------
MODELS.add(Entry(
    "python",
    "Your own model: an nn.Module class (or a function returning one) from a Python file, its arguments as settings",
    (
        Param("path", "str", "", "the .py file that defines the model (copied into the run folder when it starts)"),
        Param("class", "str", "", "the nn.Module subclass or factory function to build (Zoo.Net for a nested one)"),
        Param("args", "args", {}, "its keyword arguments: [model.args] width = 64, or --set model.args.width=64; "
              "input_shape, num_classes, in_channels, in_chans, in_features, vocab_size come from the dataset"),
    ),
    builder="studio.core.models.user_model:build_python",
    info="Studio reads the file's classes and their __init__ arguments without running it (ast); the training "
         "processes import it by path. Each run keeps a copy of the file and its SHA-256 (code/ in the run folder).",
    tags=("file", "usercode"),
))
MODELS.add(Entry(
    "timm",
    "A timm backbone (PyTorch Image Models): any of its ~1,000 architectures with a head for your classes",
    (
        Param("arch", "str", "resnet18", "the timm model name, e.g. resnet18, convnext_atto, vit_tiny_patch16_224 "
              "(studio list models --timm '*resnet*')"),
        Param("pretrained", "bool", False, "start from timm's pretrained weights (its own cache; timm downloads "
              "them when online)"),
        Param("in_chans", "int", 0, "input channels (0: the dataset's)", 0, 64),
        Param("num_classes", "int", 0, "outputs of the new head (0: the dataset's classes)", 0, 100_000),
    ),
    builder="studio.core.models.library_models:build_timm",
    info="timm.create_model(arch, pretrained, in_chans, num_classes) (Wightman 2019, github.com/huggingface/"
         "pytorch-image-models). Needs the timm extra: pip install 'studio[timm]'.",
    tags=("image", "timm"),
))
MODELS.add(Entry(
    "hf",
    "A Hugging Face transformers model from a folder or the local hub cache: sequence classification on labelled "
    "text, a causal LM on a corpus",
    (
        Param("path", "str", "", "a folder with config.json (and weights), or a hub id already in the local cache"),
        Param("context", "int", 32, "tokens per training window on a text corpus (causal LM)", 2, 8192),
    ),
    builder="studio.core.models.library_models:build_hf",
    info="AutoModelForSequenceClassification (num_labels = the dataset's classes) on labelled text; "
         "AutoModelForCausalLM on a corpus, every position predicting the next token. Weights are read when the "
         "folder has them, else the model starts from random weights of its config. Tokens are Studio's "
         "vocabulary, which must fit the model's embedding (vocab_size). Needs pip install 'studio[hf]'.",
    tags=("text", "sequence", "hf", "folder_or_id", "attention", "vocab"),
))


def sequence_context(model: str, params: dict[str, object]) -> int:
    """Windows of how many tokens the model trains on (models tagged ``sequence``: the data is built as
    shifted-by-one token windows, ``meta["task"] = "tokens"``); 0 for a model that reads prefixes."""
    if "sequence" not in MODELS.get(model).tags:
        return 0
    return int(params.get("context", MODELS.get(model).param("context").default))  # type: ignore[call-overload]


def builder_extras(model: str, meta: dict) -> dict:
    """What a model tagged ``vocab`` needs from its dataset besides the input shape: the vocabulary's size."""
    out: dict = {}
    tags = MODELS.get(model).tags
    if "vocab" in tags and "vocabulary" in meta:
        out["vocab_size"] = len(meta["vocabulary"])
    if "hf" in tags and "pad_id" in meta:  # text tokenized by the model folder's own tokenizer (hf_text.py)
        out.update(pad_id=int(meta["pad_id"]), tokens=str(meta.get("tokens", "")))
    return out


def build_kwargs(model: str, params: dict, input_shape: tuple[int, ...], num_classes: int, meta: dict) -> dict:
    """What ``MODELS.build(model, **…)`` takes for a dataset: its input shape and classes, the model's settings
    (a setting that names a dataset value and is 0, as timm's ``num_classes``, leaves the dataset's), and what a
    ``vocab`` model reads from the dataset (:func:`builder_extras`)."""
    given = {"input_shape": input_shape, "num_classes": num_classes}
    own = {k: v for k, v in params.items() if not (k in given and not v)}
    return {**given, **own, **builder_extras(model, meta)}
