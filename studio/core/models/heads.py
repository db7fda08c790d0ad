"""The one rule on attention heads, torch-free so it is checked before any process starts."""

from __future__ import annotations


def check_heads(d_model: int, heads: int) -> None:
    """One sentence when ``heads`` does not divide ``d_model`` (each head gets ``d_model / heads`` dimensions)."""
    if heads < 1 or d_model % heads:
        from studio.core.errors import ConfigError

        raise ConfigError(f"heads ({heads}) must divide d_model ({d_model}): each head gets d_model / heads "
                          f"dimensions; try heads = {_divisors_hint(d_model)}")


def _divisors_hint(d_model: int) -> str:
    return ", ".join(str(h) for h in range(1, min(d_model, 16) + 1) if d_model % h == 0)
