"""The demo registry (torch-free): each demo's parameters and the text of its explanation panel.

``DEMOS.build(name, progress=..., emit=..., **params)`` runs a demo (see ``studio/core/demos/__init__``);
``EXPLANATIONS[name]`` holds the claim, the formula, the paper and what to watch, and ``basic`` names the
parameters a presentation shows (the others are advanced and hidden there).
"""

from __future__ import annotations

from dataclasses import dataclass

from studio.core.contracts.registry import Entry, Param, Registry

DEMOS = Registry("demo")

POINT_SETS = ("spiral", "moons", "circles", "xor", "gaussian", "custom")  # custom: your own (``points``)
FUNCTIONS = ("quadratic", "rosenbrock", "beale", "himmelblau", "saddle", "rastrigin")
ACTIVATIONS = ("relu", "gelu", "tanh", "sigmoid")


@dataclass(frozen=True)
class Explanation:
    claim: str
    formula: str
    paper: str
    watch: str  # what the audience should look at
    basic: tuple[str, ...] = ()  # parameters shown in presentation mode

    def text(self) -> str:
        return f"{self.claim}\n\n{self.formula}\n\nWatch: {self.watch}\n\n{self.paper}"


EXPLANATIONS: dict[str, Explanation] = {}

# The live playground (tag "steerable"): a change of these restarts the training from new weights; these have no
# effect on a live run (it trains until paused); every other parameter acts on the running training.
PLAYGROUND_RESTART = ("seed",)
PLAYGROUND_IDLE = ("steps",)


def _add(entry: Entry, explanation: Explanation) -> None:
    DEMOS.add(Entry(entry.name, entry.description, entry.params, entry.builder, explanation.text(), entry.tags))
    EXPLANATIONS[entry.name] = explanation


SEED = Param("seed", "int", 0, "random seed: the same seed gives the same demo", 0, 2**31 - 1)
DEVICE = Param("device", "choice", "auto", "where to train: auto picks a CUDA GPU when there is one",
               choices=("auto", "cpu", "cuda"))
THREADS = Param("threads", "int", 0, "CPU threads for PyTorch (0: its default)", 0, 256)
# one thread: small MLPs gain little from a second (idle) and lose several times on a busy machine
ONE_THREAD = Param("threads", "int", 1, "CPU threads for PyTorch (0: its default; one is fastest for these small "
                   "MLPs, several times so on a busy machine)", 0, 256)
DATASET = Param("dataset", "str", "fashion_mnist_small", "a classification dataset of the dataset registry "
                "(studio list datasets), e.g. fashion_mnist_small, moons")

_add(Entry(
    "optimizer_race",
    "Optimizer race: catalog optimizers on a 2-D function, their paths on the contour",
    (
        Param("function", "choice", "quadratic", "the 2-D test function", choices=FUNCTIONS),
        Param("condition", "float", 10.0, "the quadratic bowl's condition number κ = λ_max/λ_min (λ_max = 1)",
              1.0, 1e4, log=True),
        Param("optimizers", "str", "auto", "optimizers and settings separated by ';', e.g. "
              "gd(lr=1.9); gd(lr=2.1); adam(lr=0.3); newton — 'auto' picks a set for the function"),
        Param("steps", "int", 200, "steps each optimizer takes", 1, 100_000),
        Param("tolerance", "float", 1e-6, "a racer has arrived when f − f* falls below this", 1e-15, 1.0, log=True),
        Param("start", "str", "auto", "start point 'x, y' ('auto': the function's usual start)"),
    ),
    builder="studio.core.demos.race:run",
    tags=("2d", "steerable"),
), Explanation(
    "On the quadratic f = ½ wᵀHw gradient descent converges exactly when η < 2/λ_max; above it the steepest "
    "direction overshoots more every step. Newton's method rescales by H⁻¹ and lands on the minimum of a "
    "quadratic in one step. Momentum overshoots and settles; Adam steps per coordinate, so the bowl's "
    "stretching matters less.",
    "GD: w ← w − η∇f(w); on the quadratic each eigen-direction scales by (1 − ηλ_i) per step.\n"
    "Newton: w ← w − H⁻¹∇f(w).  Momentum: v ← βv + ∇f, w ← w − ηv.",
    "Cauchy 1847; Polyak 1964 (momentum); Kingma & Ba 2015 (Adam); Nocedal & Wright, Numerical Optimization, "
    "ch. 2–3. Test functions: Rosenbrock 1960, Beale 1958, Himmelblau 1972, Rastrigin 1974.",
    "gd(lr=1.9) zig-zags in and arrives, gd(lr=2.1) zig-zags out; Newton jumps to the centre. On the saddle and "
    "Himmelblau, Newton is drawn to stationary points that are not minima.",
    basic=("function", "condition", "optimizers"),
))

_add(Entry(
    "linear_neuron",
    "The linear neuron: full-batch GD vs mini-batch SGD on the (w, b) loss contour of a noisy line",
    (
        Param("batch_size", "int", 4, "SGD's mini-batch size: smaller is noisier", 1, 100_000),
        Param("lr", "float", 0.3, "learning rate η of both", 1e-5, 10.0, log=True),
        Param("steps", "int", 200, "steps of each", 1, 100_000),
        Param("noise", "float", 0.3, "noise ε added to x before the line: y = w_gen·(x + ε) + b_gen", 0.0, 5.0),
        Param("tolerance", "float", 1e-6, "GD stops when the loss changes by less than this (0: never)", 0.0, 1.0,
              log=True),
        Param("n_samples", "int", 200, "points on the line", 2, 100_000),
        Param("w_gen", "float", 2.0, "slope of the line that made the data", -100.0, 100.0),
        Param("b_gen", "float", -1.0, "offset of the line that made the data", -100.0, 100.0),
        Param("start_w", "float", -2.0, "starting slope", -100.0, 100.0),
        Param("start_b", "float", 2.0, "starting offset", -100.0, 100.0),
        SEED,
    ),
    builder="studio.core.demos.linear_neuron:run",
    tags=("2d",),
), Explanation(
    "Full-batch gradient descent follows the loss surface's steepest path smoothly and stops when the loss "
    "stops changing; mini-batch SGD follows a noisy estimate of the gradient, so its path jitters around the "
    "least-squares solution, and the jitter grows as the batch shrinks (its variance ∝ η/B).",
    "ŷ = w·x + b;  L(w, b) = mean (ŷ − y)²;  GD: θ ← θ − η∇L(θ);  SGD: the mean over B random points.\n"
    "Convergence check: stop when |L_t − L_{t−1}| < tol.",
    "Legendre 1805, Gauss 1809 (least squares); Widrow & Hoff 1960 (LMS); Robbins & Monro 1951 (SGD).",
    "the SGD path's cloud around the optimum: move the batch-size slider down and it spreads.",
    basic=("batch_size", "lr", "noise"),
))

_add(Entry(
    "playground",
    "Classification playground: an MLP on 2-D points with its decision boundary as it trains",
    (
        Param("dataset", "choice", "spiral", "the 2-D point set; custom: your own points (clicked in the picture, "
              "or a CSV of x, y, class)", choices=POINT_SETS),
        Param("points", "str", "", "your own points for dataset custom: x,y,class separated by ';', e.g. "
              "0,0,0;1,1,1;0,1,1;1,0,0"),
        Param("noise", "float", 0.1, "how much the classes blur into each other", 0.0, 2.0),
        Param("widths", "str", "16,16", "hidden layer widths: depth = how many, e.g. 16,16"),
        Param("activation", "choice", "tanh", "the non-linearity", choices=ACTIVATIONS),
        Param("dropout", "float", 0.0, "dropout on the hidden units", 0.0, 0.9),
        Param("weight_decay", "float", 0.0, "L2 regularisation λ", 0.0, 1.0),
        Param("train_ratio", "float", 0.5, "share of the points used for training (the rest test)", 0.05, 0.95),
        Param("n_samples", "int", 400, "points in all", 20, 100_000),
        Param("optimizer", "choice", "adam", "the optimizer", choices=("sgd", "momentum", "adam", "rmsprop")),
        Param("lr", "float", 0.03, "learning rate", 1e-5, 10.0, log=True),
        Param("batch_size", "int", 16, "mini-batch size (0: the whole training set)", 0, 100_000),
        Param("steps", "int", 1500, "training steps of a fixed run (the CLI); the Teaching lab trains live until "
              "paused", 1, 1_000_000),
        Param("frame_every", "int", 25, "steps between two pictures of the boundary (live: at most 15 a second)",
              1, 100_000),
        Param("resolution", "int", 64, "grid points per axis of the boundary picture", 8, 400),
        SEED,
    ),
    builder="studio.core.demos.playground:run",
    tags=("2d", "live", "steerable"),
), Explanation(
    "A network of a few layers of neurons bends its decision boundary to fit data no straight line separates; "
    "depth and width decide how curved the boundary can be, regularisation how smooth it stays. The test loss "
    "tells whether it learnt the shape or the noise.",
    "h₁ = act(W₁x + b₁), …, p(y|x) = softmax(W_L h + b_L); loss = cross-entropy (+ λ‖W‖²).",
    "Rumelhart, Hinton & Williams 1986; Smilkov & Carter, TensorFlow Playground (2016).",
    "the colour under the points reshaping itself; train and test loss parting when the model overfits.",
    basic=("dataset", "noise", "widths", "activation", "lr"),
))

_add(Entry(
    "large_batch",
    "Large-batch lab: a batch-size sweep — steps to target, sharpness, train–test gap, interpolation",
    (
        DATASET,
        Param("batch_sizes", "str", "32,64,128,256,400", "the batch sizes to compare; Keskar's large batch is 10 % "
              "of the training samples (400 of 4000)"),
        Param("linear_scaling", "bool", False, "linear-scaling rule: lr = lr × batch / base_batch"),
        Param("warmup", "bool", False, "linear warm-up of the learning rate over warmup_epochs"),
        Param("epochs", "float", 200.0, "the most epochs a batch size trains (all of them with until_train_acc 0)",
              0.01, 10_000.0),
        Param("until_train_acc", "float", 1.0, "train each batch size until its training accuracy reaches this "
              "(Keskar et al.: to convergence); 0: the same epochs for all", 0.0, 1.0),
        Param("target_acc", "float", 0.8, "test accuracy whose first crossing counts as 'steps to target'", 0.0, 1.0),
        Param("model", "choice", "mlp", "the model", choices=("mlp", "linear", "lenet5", "cnn")),
        Param("widths", "str", "128,128", "the MLP's hidden widths"),
        Param("batch_norm", "bool", False, "batch normalisation after each hidden layer of the MLP (Goyal et al.'s "
              "ResNets have it; large learning rates need it)"),
        Param("optimizer", "choice", "adam", "the optimizer (Keskar et al. used Adam)",
              choices=("sgd", "momentum", "nesterov", "adam", "adamw", "rmsprop", "lamb", "lars")),
        Param("lr", "float", 1e-3, "learning rate (for base_batch when linear scaling is on)", 1e-6, 10.0, log=True),
        Param("base_batch", "int", 32, "batch size the learning rate is meant for (linear scaling)", 1, 1_000_000),
        Param("warmup_epochs", "float", 1.0, "warm-up length in epochs", 0.0, 1000.0),
        Param("train_samples", "int", 4000, "training samples (0: all)", 0, 10_000_000),
        Param("test_samples", "int", 2000, "test samples (0: all)", 0, 10_000_000),
        Param("hessian_samples", "int", 1000, "training samples both sharpness measures are taken on", 16,
              1_000_000),
        Param("sharpness_eps", "float", 1e-3, "ε of Keskar's box sharpness (their Table: 1e-3); 0: skip it", 0.0,
              0.1),
        Param("interpolation", "bool", True, "the loss between the smallest- and the largest-batch solutions"),
        Param("evals", "int", 200, "evaluations over `epochs` epochs (the resolution of 'steps to target' and of "
              "the stop)", 2, 100_000),
        SEED, DEVICE, ONE_THREAD,
    ),
    builder="studio.core.demos.large_batch:run",
    tags=("sweep", "live"),
), Explanation(
    "Doubling the batch halves the steps needed — up to a critical batch size, beyond which the returns "
    "diminish (Shallue et al.). Each batch size trained until it fits the training set, the large batches end in "
    "sharper minima and generalise worse: a lower test accuracy, a larger train–test gap (Keskar et al.). Scaling "
    "the learning rate with the batch, with a warm-up, keeps large batches on track (Goyal et al.).",
    "steps to target S(B) ≈ S_min(1 + B_noise/B);  gap = train acc − test acc;\n"
    "sharpness φ = 100·max_{|z_i| ≤ ε(|θ_i|+1)} [L(θ+z) − L(θ)] / (1 + L(θ))  and  λ_max(∇²L(θ));\n"
    "linear scaling η = η₀·B/B₀;  1-D interpolation L((1 − α)θ_small + αθ_large).",
    "Keskar et al. 2017, 'On Large-Batch Training for Deep Learning: Generalization Gap and Sharp Minima'; "
    "Goyal et al. 2017, 'Accurate, Large Minibatch SGD'; Shallue et al. 2019, 'Measuring the Effects of Data "
    "Parallelism on Neural Network Training'.",
    "each batch size's accuracy curves while it trains, until its training accuracy reaches 100 %; then both "
    "sharpness measures climbing with the batch (batch 400, 10 % of the set, ends about 20× sharper than batch "
    "32), the test accuracy falling and the gap widening by about a point; steps to target halving at first, then "
    "less; in the interpolation the large-batch end (α = 1) sits in the narrower valley.",
    basic=("batch_sizes", "linear_scaling", "warmup", "until_train_acc"),
))

_add(Entry(
    "noise_scale",
    "Gradient noise scale: B_simple = tr(Σ)/|G|², the critical batch size, estimated while training",
    (
        DATASET,
        Param("batch_size", "int", 128, "the training batch (the 'big' batch of the estimate)", 2, 1_000_000),
        Param("small_batch", "int", 16, "the 'small' batch: the training batch is split into chunks of it", 1,
              1_000_000),
        Param("epochs", "float", 10.0, "epochs to train", 0.01, 10_000.0),
        Param("lr", "float", 0.1, "learning rate", 1e-6, 10.0, log=True),
        Param("optimizer", "choice", "sgd", "the optimizer", choices=("sgd", "momentum", "adam")),
        Param("widths", "str", "128", "the MLP's hidden widths"),
        Param("decay", "float", 0.95, "moving-average decay of the two estimates", 0.0, 0.9999),
        Param("train_samples", "int", 0, "training samples (0: all)", 0, 10_000_000),
        Param("frame_every", "int", 2, "steps between two points of the curve", 1, 100_000),
        SEED, DEVICE, THREADS,
    ),
    builder="studio.core.demos.noise_scale:run",
    tags=("live",),
), Explanation(
    "Below the gradient noise scale, a batch twice as large is worth almost two steps; above it, almost one. "
    "B_simple — the noise of one sample's gradient over the signal — predicts that critical batch size, and "
    "it grows as training goes on and the gradient shrinks.",
    "E|G_B|² = |G|² + tr(Σ)/B  ⇒  |G|² ≈ (B_big|G_big|² − B_small|G_small|²)/(B_big − B_small),\n"
    "tr(Σ) ≈ (|G_small|² − |G_big|²)/(1/B_small − 1/B_big),  B_simple = tr(Σ)/|G|².",
    "McCandlish, Kaplan, Amodei & OpenAI Dota Team 2018, 'An Empirical Model of Large-Batch Training', "
    "appendix A.1.",
    "the B_simple curve climbing above the training batch size: from then on, larger batches would still pay.",
    basic=("batch_size", "small_batch", "epochs"),
))

_add(Entry(
    "regularisation",
    "Overfitting and regularisation: the same model with and without dropout, weight decay, augmentation",
    (
        DATASET,
        Param("variants", "str", "none,dropout,weight_decay,augmentation",
              "which to train, from none, dropout, weight_decay, augmentation"),
        Param("train_samples", "int", 1000, "training samples: few, so the model can overfit", 10, 10_000_000),
        Param("epochs", "int", 30, "epochs", 1, 100_000),
        Param("dropout", "float", 0.6, "dropout probability of the dropout variant", 0.0, 0.95),
        Param("weight_decay", "float", 3e-2, "L2 penalty λ of the weight-decay variant (λw added to the gradient)",
              0.0, 1.0, log=True),
        Param("widths", "str", "256,256", "the MLP's hidden widths"),
        Param("optimizer", "choice", "adam", "the optimizer", choices=("sgd", "momentum", "adam", "rmsprop")),
        Param("lr", "float", 1e-3, "learning rate", 1e-6, 10.0, log=True),
        Param("batch_size", "int", 64, "mini-batch size", 1, 1_000_000),
        Param("val_samples", "int", 1000, "validation samples (from the test split)", 10, 10_000_000),
        Param("label_noise", "float", 0.0, "share of the training labels changed to another class: noisy "
              "targets, which the unregularised model memorises (validation labels stay clean)", 0.0, 0.9),
        SEED, DEVICE, THREADS,
    ),
    builder="studio.core.demos.regularisation:run",
    tags=("live",),
), Explanation(
    "With few examples a big network memorises them: training loss falls to zero while validation loss turns "
    "back up. Dropout, weight decay and data augmentation each make memorising harder and narrow the gap.",
    "dropout: h ← h·m/(1 − p), m ~ Bernoulli(1 − p);  weight decay: L + (λ/2)‖w‖²;\n"
    "augmentation: train on random shifts and flips of each image (points: small random jitter).",
    "Srivastava et al. 2014 (dropout); Krogh & Hertz 1992 (weight decay); Simard, Steinkraus & Platt 2003 "
    "(augmentation); Zhang et al. 2017, 'Understanding deep learning requires rethinking generalization'.",
    "the shaded gap between each variant's train and validation curves.",
    basic=("variants", "train_samples", "epochs"),
))

_add(Entry(
    "edge_of_stability",
    "Edge of stability: full-batch gradient descent drives the sharpness up to 2/η and holds it there",
    (
        DATASET,
        Param("n_samples", "int", 2000, "training samples, all of them in every step (the paper: 5,000)", 10,
              1_000_000),
        Param("lr", "float", 0.05, "learning rate η: the sharpness settles at 2/η (0.05 → 40)", 1e-5, 10.0, log=True),
        Param("momentum", "float", 0.0, "heavy-ball momentum β: the threshold becomes (2 + 2β)/η", 0.0, 0.99),
        Param("steps", "int", 1000, "gradient-descent steps", 1, 1_000_000),
        Param("sharpness_every", "int", 20, "steps between two measurements of the sharpness (each costs about "
              "30 steps)", 1, 100_000),
        Param("widths", "str", "200,200", "the MLP's hidden widths (the paper's fc-tanh: 200,200)"),
        Param("activation", "choice", "tanh", "the non-linearity (the paper's fc-tanh: tanh)", choices=ACTIVATIONS),
        Param("lanczos_iters", "int", 20, "Lanczos iterations (Hessian-vector products) per sharpness measurement",
              2, 500),
        SEED, DEVICE, ONE_THREAD,
    ),
    builder="studio.core.demos.edge_of_stability:run",
    tags=("live",),
), Explanation(
    "Gradient descent on a quadratic is stable only while the sharpness — the largest eigenvalue of the loss's "
    "Hessian — stays below 2/η. Training a network with full-batch gradient descent, the sharpness rises "
    "(progressive sharpening) until it reaches 2/η, then hovers at or just above it: instead of diverging, "
    "training regulates its own curvature, and the loss keeps falling, though not monotonically.",
    "sharpness S(θ) = λ_max(∇²L(θ));  GD: θ ← θ − η∇L(θ) is stable on a quadratic iff S < 2/η;\n"
    "heavy-ball momentum v ← βv + ∇L, θ ← θ − ηv: iff S < (2 + 2β)/η.  L = mean ½‖f(x) − onehot(y)‖².",
    "Cohen, Kaur, Li, Kolter & Talwalkar 2021, 'Gradient Descent on Neural Networks Typically Occurs at the "
    "Edge of Stability' (ICLR), Fig. 1 (fc-tanh, square loss, 5,000 CIFAR-10 images) and appendix (momentum).",
    "the sharpness climbing to the dashed 2/η line and staying on it; the loss still falling beside it, with "
    "small spikes once the sharpness is at the line. Raise η and the line — and the sharpness — come down.",
    basic=("lr", "momentum", "steps", "n_samples"),
))
