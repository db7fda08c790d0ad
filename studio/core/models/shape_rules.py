"""Shape rules of the Transformers (heads divide d_model, patches tile the image), torch-free so the launcher
checks them before any process starts and the builders check them again."""

from __future__ import annotations


def check_heads(d_model: int, heads: int) -> None:
    """One sentence when ``heads`` does not divide ``d_model`` (each head gets ``d_model / heads`` dimensions)."""
    if heads < 1 or d_model % heads:
        from studio.core.errors import ConfigError

        raise ConfigError(f"heads ({heads}) must divide d_model ({d_model}): each head gets d_model / heads "
                          f"dimensions; try heads = {_divisors_hint(d_model)}")


def _divisors_hint(d_model: int) -> str:
    return ", ".join(str(h) for h in range(1, min(d_model, 16) + 1) if d_model % h == 0)


def check_patch(input_shape: tuple[int, ...], patch: int) -> tuple[int, int, int]:
    """(channels, patches down, patches across); one sentence when ``patch`` does not divide the image size."""
    from studio.core.errors import ConfigError

    if len(input_shape) != 3:
        raise ConfigError("the vit model needs image data (channels × height × width); pick gpt_lm or lstm_lm for "
                          "text and mlp for point data")
    channels, height, width = input_shape
    if patch < 1 or height % patch or width % patch:
        fits = [p for p in range(1, min(height, width) + 1) if height % p == 0 and width % p == 0]
        raise ConfigError(f"patch ({patch}) must divide the image size ({height}×{width}) so the patches tile it; "
                          f"try patch = {', '.join(map(str, fits))}")
    return channels, height // patch, width // patch
