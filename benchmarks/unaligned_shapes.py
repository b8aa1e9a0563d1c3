"""Products whose operands' rows lie off 16 bytes, for the unaligned-copy rule.

  python benchmarks/unaligned_shapes.py --set fit        # 240 specs
  python benchmarks/unaligned_shapes.py --set heldout    # 160 specs
  python benchmarks/unaligned_shapes.py --set heldout2   # 200 specs
  python benchmarks/unaligned_shapes.py --set heldout --choices nopad,pad
  python benchmarks/unaligned_shapes.py --summarize benchmarks/data/element_pieces_sm_90a.txt

Prints LAYOUT:MxNxK specs (nk: B stored N x K, kn: B as K x N; A as M x K),
seeded: mostly narrow products (the lesser of M and N of 2 to 128 for
`fit`, 2 to 32 for `heldout`, 2 to 63 for `heldout2`; the other 1024 to
about 18000) and, but for `heldout2`, some wider ones. K is 8-byte rows
(K % 8 == 4) in 55-60% of them, 4-byte rows (K % 4 == 2) in 25-30%, odd
in 15%; a kn product's N may lie off 16 bytes too.
policy::copiesUnalignedOperands's narrow-product rules were fitted on `fit`
(8-byte pieces) and on `fit` and `heldout` (the launch's blocks), and
checked on `heldout` and `heldout2`
(benchmarks/data/element_pieces_sm_90a.txt). With --choices, each spec
carries them for benchmarks/force_choice.py (`nopad`: as they lie, `pad`:
copied; its `default` is the policy's). --summarize reads a file of such
runs (lines `SPEC cublas T [policy R] padded R as they lie R`, blocks headed
`## [NAME]`) and prints geomeans over the products that the package's rule
(gpupoor._C.copies_unaligned_operands, CPU, for an H200's 132 SMs) leaves
as they lie, and over those of 16 rows or columns at most (the lesser of M
and N):
"rule" takes each product's as-they-lie or padded time as the rule says
("its 8-byte part alone": without the launch's blocks),
"the default as measured" the run's `policy` column (the package's default
when the file was taken).
"""

from __future__ import annotations

import argparse
import math
import random
import re


def _k(r: random.Random) -> int:
    u = r.random()
    base = int(2 ** r.uniform(10, 14)) // 8 * 8
    return base + (4 if u < 0.6 else r.choice([2, 6]) if u < 0.85 else r.choice([1, 3, 5, 7]))


def specs(which: str) -> list[str]:
    """The set's specs, in the order they were measured."""
    out = []
    if which == "fit":
        r = random.Random(46)
        for _ in range(200):
            layout = r.choice(["nk", "kn"])
            s = r.choice([2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128])
            big = int(2 ** r.uniform(10, 14.2)) // 4 * 4
            m, n = (s, big) if r.random() < 0.5 else (big, s)
            out.append(f"{layout}:{m}x{n}x{_k(r)}")
        wide = 40
        m_range = (7.5, 11)
    elif which == "heldout2":
        r = random.Random(48)
        for _ in range(200):
            layout = r.choice(["nk", "kn"])
            s = int(2 ** r.uniform(1, 6))
            big = int(2 ** r.uniform(10, 14.2)) // 2 * 2
            m, n = (s, big) if r.random() < 0.5 else (big, s)
            u = r.random()
            base = int(2 ** r.uniform(10, 14)) // 8 * 8
            k = base + (4 if u < 0.55 else r.choice([2, 6]) if u < 0.85 else r.choice([1, 3, 5, 7]))
            out.append(f"{layout}:{m}x{n}x{k}")
        return out
    else:
        r = random.Random(47)
        for _ in range(130):
            layout = r.choice(["nk", "kn"])
            s = r.randint(2, 32)
            big = int(2 ** r.uniform(10, 14.2)) // 2 * 2
            m, n = (s, big) if r.random() < 0.5 else (big, s)
            out.append(f"{layout}:{m}x{n}x{_k(r)}")
        wide = 30
        m_range = (6, 11)
    for _ in range(wide):
        layout = r.choice(["nk", "kn"])
        m = int(2 ** r.uniform(*m_range))
        n = int(2 ** r.uniform(7.5, 13))
        out.append(f"{layout}:{m}x{n}x{_k(r)}")
    return out


_LINE = re.compile(r"(\w+):(\d+)x(\d+)x(\d+)\s+cublas\s+[\d.]+us\s+(?:policy ([\d.]+)\s+)?"
                   r"padded ([\d.]+)\s+as they lie ([\d.]+)")


def _geomean(values: list[float]) -> float:
    return math.exp(sum(map(math.log, values)) / len(values))


def summarize(path: str) -> None:
    """Prints each block's geomeans (x cuBLAS f32acc) by the package's rule."""
    from gpupoor._native import C
    blocks: dict[str, list[dict]] = {}
    name = ""
    for line in open(path):
        if line.startswith("## ["):
            name = line[3:].strip()
            blocks[name] = []
        elif (m := _LINE.match(line)) and name:
            layout, (mm, n, k) = m[1], map(int, m.groups()[1:4])
            b_cols = k if layout == "nk" else n
            def left_by(sm_count: int) -> bool:
                return layout != "km" and not C.copies_unaligned_operands(
                    mm, n, k, C.row_align_bytes(0, k), C.row_align_bytes(0, b_cols),
                    chip="sm_90a", b_layout=layout, sm_count=sm_count)
            # Past any grid's blocks, the launch's part never leaves rows:
            # the 8-byte rule of 16 rows alone.
            blocks[name].append(dict(narrow=min(mm, n) <= 16, left=left_by(132),
                                     left8=left_by(2**40),
                                     policy=float(m[5]) if m[5] else None,
                                     padded=float(m[6]), lie=float(m[7])))
    for name, rows in blocks.items():
        for what, sel in (("left as they lie by the rule", [r for r in rows if r["left"]]),
                          ("of 16 rows or columns at most", [r for r in rows if r["narrow"]]),
                          ("all", rows)):
            if not sel:
                continue
            chosen = [r["lie"] if r["left"] else r["padded"] for r in sel]
            alone = [r["lie"] if r["left8"] else r["padded"] for r in sel]
            measured = [r["policy"] for r in sel if r["policy"] is not None]
            default = (f"the default as measured {_geomean(measured):.3f} "
                       f"(worst {min(measured):.3f}), " if len(measured) == len(sel) else "")
            print(f"# {name} {what}: {len(sel)} products, geomean x cuBLAS f32acc: "
                  f"rule {_geomean(chosen):.3f} (worst {min(chosen):.3f}), "
                  f"its 8-byte part alone {_geomean(alone):.3f}, {default}"
                  f"padded {_geomean([r['padded'] for r in sel]):.3f} "
                  f"(worst {min(r['padded'] for r in sel):.3f}), "
                  f"as they lie {_geomean([r['lie'] for r in sel]):.3f} "
                  f"(worst {min(r['lie'] for r in sel):.3f}), "
                  f"the better of the two {_geomean([max(r['padded'], r['lie']) for r in sel]):.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=["fit", "heldout", "heldout2"])
    ap.add_argument("--choices", default="", help="appended as =CHOICES (force_choice.py)")
    ap.add_argument("--summarize", metavar="FILE")
    args = ap.parse_args()
    if args.summarize:
        summarize(args.summarize)
        return
    if not args.set:
        ap.error("--set or --summarize is required")
    tail = f"={args.choices}" if args.choices else ""
    print(" ".join(spec + tail for spec in specs(args.set)))


if __name__ == "__main__":
    main()
