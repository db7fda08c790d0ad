"""torchvision, imported only by the models that need it, with a clear message where it is absent."""

from __future__ import annotations

from types import ModuleType

from studio.core.errors import ConfigError


def torchvision_module(model: str) -> ModuleType:
    """``import torchvision``, or a ConfigError naming the model and the fix (e.g. in the slim bundle)."""
    try:
        import torchvision
    except ImportError:
        raise ConfigError(
            f"the {model} model needs torchvision, which is not installed here; install it "
            "(pip install torchvision) or pick another model (mlp, cnn, lenet5)"
        ) from None
    return torchvision
