"""Random products that the policy launches a given way, as force_choice.py specs.

  python benchmarks/draw_products.py --seed S --count N [--layouts nk,kn,km,kmnk]
      [--m LO:HI] [--n LO:HI] [--k LO:HI] [--align A] [--family REGEX]
      [--tile BMxBN] [--tiles LO:HI] [--slices LO:HI] [--swapped yes|no]
      [--choices default,FAMILY,...]

A held-out set for a rule: products drawn at random (M, N and K uniform in
their ranges; N and K, and M where A is stored K x M, rounded down to a
multiple of --align, 1 for none) and kept where the launch the policy gives
them here (gpupoor._C.choose_launch, on --chip with --sms SMs) meets every
filter given: its family matches --family (a regular expression matched
whole), its tile's rows and columns are --tile, its tiles and slices lie in
--tiles and --slices (inclusive), it is or is not the transposed product.
Prints one line of LAYOUT:MxNxK=CHOICES specs for benchmarks/force_choice.py
(layouts as there: nk, kn, km, kmnk); CHOICES may name `{family}`, the
family the policy gives the product. Exits non-zero where too few products
meet the filters in --tries draws.

Run it where the rules under test are built (before a change, for the
family a rule replaces; after it, for the products the rule takes), then
time the specs on the device with force_choice.py.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "python")]

# (A's layout, B's layout) of each spec layout, as force_choice.py reads them.
LAYOUTS = {"nk": ("mk", "nk"), "kn": ("mk", "kn"), "km": ("km", "kn"), "kmnk": ("km", "nk")}


def int_range(text: str) -> tuple[int, int]:
    """LO:HI, inclusive, LO <= HI, both >= 0."""
    try:
        lo, hi = (int(v) for v in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a range is LO:HI, got {text!r}")
    if lo < 0 or hi < lo:
        raise argparse.ArgumentTypeError(f"a range needs 0 <= LO <= HI, got {text!r}")
    return lo, hi


def tile_shape(text: str) -> tuple[int, int]:
    """BMxBN."""
    try:
        bm, bn = (int(v) for v in text.split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a tile is BMxBN, got {text!r}")
    return bm, bn


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--layouts", default="nk,kn,km")
    p.add_argument("--m", type=int_range, default=(1, 4096))
    p.add_argument("--n", type=int_range, default=(16, 16384))
    p.add_argument("--k", type=int_range, default=(16, 16384))
    p.add_argument("--align", type=int, default=16)
    p.add_argument("--family")
    p.add_argument("--tile", type=tile_shape)
    p.add_argument("--tiles", type=int_range)
    p.add_argument("--slices", type=int_range)
    p.add_argument("--swapped", choices=("yes", "no"))
    p.add_argument("--choices", default="default")
    p.add_argument("--chip", default="sm_90a")
    p.add_argument("--sms", type=int, default=132)
    p.add_argument("--max-splits", type=int, default=32)
    p.add_argument("--tries", type=int, default=200000)
    args = p.parse_args(argv)
    layouts = [l for l in args.layouts.split(",") if l]
    bad = [l for l in layouts if l not in LAYOUTS]
    if bad or not layouts:
        p.error(f"--layouts takes {', '.join(LAYOUTS)}, got {args.layouts!r}")
    args.layouts = layouts
    if args.count < 1 or args.align < 1 or args.tries < 1:
        p.error("--count, --align and --tries must be >= 1")
    return args


def draw(rng: random.Random, args: argparse.Namespace) -> tuple[str, int, int, int]:
    """One layout and M, N, K in the ranges, aligned as asked (at least 1)."""
    layout = rng.choice(args.layouts)

    def size(bounds: tuple[int, int], aligned: bool) -> int:
        v = rng.randint(*bounds)
        if aligned:
            v -= v % args.align
        return max(v, 1)

    m = size(args.m, LAYOUTS[layout][0] == "km")
    return layout, m, size(args.n, True), size(args.k, True)


def keeps(launch: dict, args: argparse.Namespace) -> bool:
    """Whether a launch (choose_launch's dict) meets every filter."""
    if args.family and not re.fullmatch(args.family, launch["family"]):
        return False
    if args.tile and tuple(launch["tile"][:2]) != args.tile:
        return False
    for name in ("tiles", "slices"):
        bounds = getattr(args, name)
        if bounds and not bounds[0] <= launch[name] <= bounds[1]:
            return False
    if args.swapped and launch["swapped"] != (args.swapped == "yes"):
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from gpupoor._native import C

    rng = random.Random(args.seed)
    specs: list[str] = []
    seen: set[tuple[str, int, int, int]] = set()
    for _ in range(args.tries):
        if len(specs) == args.count:
            break
        product = draw(rng, args)
        if product in seen:
            continue
        seen.add(product)
        layout, m, n, k = product
        a_layout, b_layout = LAYOUTS[layout]
        launch = C.choose_launch(args.chip, m, n, k, b_layout, 0, args.max_splits, args.sms,
                                 a_layout=a_layout)
        if keeps(launch, args):
            choices = args.choices.replace("{family}", launch["family"])
            specs.append(f"{layout}:{m}x{n}x{k}={choices}")
    print(" ".join(specs))
    if len(specs) < args.count:
        print(f"draw_products: {len(specs)} of {args.count} products met the filters "
              f"in {args.tries} draws", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
