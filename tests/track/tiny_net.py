"""A model defined in a module of its own, as a user's would be (tests/track/test_attached_analyses.py)."""

import torch


class TinyNet(torch.nn.Module):
    def __init__(self, hidden: int = 16, classes: int = 3) -> None:
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(4, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)
