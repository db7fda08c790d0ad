"""Colours distinguishable for colour-blind viewers (Okabe & Ito 2008)."""

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]


def run_colour(index: int) -> str:
    return OKABE_ITO[index % len(OKABE_ITO)]
