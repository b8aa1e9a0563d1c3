"""Builds gpupoor's compiled launch path for this Python and PyTorch ahead of
first use (it is otherwise built in the background by the first call).

  python -m gpupoor.build_fastpath
"""

from __future__ import annotations

import sys

from . import _fastpath


def main(argv: list[str] | None = None) -> int:
    if argv:
        print(f"build_fastpath: takes no arguments, got {argv}", file=sys.stderr)
        return 2
    try:
        path = _fastpath.build()
    except RuntimeError as e:
        print(f"build_fastpath: {e}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
