"""A byte count in words a person reads at a glance: 512 B, 3.4 KiB, 1.96 MiB, 2.10 GiB (no torch, for the GUI)."""

from __future__ import annotations


def byte_size(n: int | float | None) -> str:
    """``n`` bytes in B, KiB, MiB or GiB (powers of 1024; the larger unit from 1000 of the smaller: 0.98 MiB, not
    1,002 KiB); "—" for None (not known)."""
    if n is None:
        return "—"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= scale * 1000 / 1024:
            return f"{n / scale:,.2f} {unit}"
    return f"{int(n)} B"
