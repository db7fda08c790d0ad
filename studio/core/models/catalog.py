"""The model registry. Every builder has the signature ``build(input_shape, num_classes, **params)``."""

from __future__ import annotations

from studio.core.registry import Entry, Param, Registry

MODELS = Registry("model")

ACTIVATIONS = ("relu", "gelu", "tanh", "sigmoid")

MODELS.add(Entry(
    "linear",
    "Softmax regression: one linear layer from the flattened input to the class scores",
    (Param("bias", "bool", True, "add a bias to each class score"),),
    builder="studio.core.models.builders:build_linear",
    info="p(y|x) = softmax(Wx + b), trained with cross-entropy.",
))
MODELS.add(Entry(
    "mlp",
    "Multi-layer perceptron: fully connected layers with a non-linearity between them",
    (
        Param("widths", "ints", [512, 512], "hidden layer widths, e.g. 512,512", 1, 16384),
        Param("activation", "choice", "relu", "the non-linearity after each hidden layer", choices=ACTIVATIONS),
        Param("dropout", "float", 0.0, "probability of zeroing a hidden unit while training", 0.0, 0.95),
        Param("batch_norm", "bool", False, "batch normalisation after each hidden layer"),
    ),
    builder="studio.core.models.builders:build_mlp",
    info="h_{l+1} = act(W_l h_l + b_l); the last layer gives class scores for softmax cross-entropy.",
))
MODELS.add(Entry(
    "cnn",
    "The classic convolutional stack: (conv 3×3, batch norm, max-pool) ×3, dense 512, dropout",
    (
        Param("filters", "ints", [75, 50, 25], "filters of each conv block", 1, 1024),
        Param("kernel", "int", 3, "convolution kernel size", 1, 11),
        Param("dense", "int", 512, "width of the dense layer", 1, 8192),
        Param("dropout", "float", 0.2, "dropout before the dense layers", 0.0, 0.95),
    ),
    builder="studio.core.models.builders:build_cnn",
    info="LeCun et al. 1998 in spirit; the conv-BN-pool stack popular in Keras courses (Sign Language MNIST).",
))
