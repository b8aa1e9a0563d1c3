"""What the command-line tools share: a GPU and matplotlib, checked before a
long run starts, and saving a figure."""

from __future__ import annotations

import sys


def pyplot(tool: str):
    """matplotlib.pyplot on the Agg backend, or None (with a message naming
    `tool`) when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{tool}: --plot needs matplotlib (pip install matplotlib)", file=sys.stderr)
        return None
    return plt


def preflight(tool: str, plot: str | None):
    """(exit code or None, pyplot or None): 2 without a CUDA GPU, 1 when
    --plot asks for matplotlib and it is missing."""
    import torch
    plt = pyplot(tool) if plot else None
    if plot and plt is None:
        return 1, None
    if not torch.cuda.is_available():
        print(f"{tool}: needs a CUDA GPU", file=sys.stderr)
        return 2, None
    return None, plt


def save(fig, path: str) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")
