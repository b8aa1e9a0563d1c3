"""Fills the policy's tuned table for the device's chip from measurements.

  python benchmarks/tune_policy.py --def OUT.def --json OUT.json [--layouts nk,kn,km]
                                   [--reps 20] [--margin 0.05]

The table (lib/Policy/Tuned/<CHIP>.def, read by lib/Policy/Tuned.cpp) maps a
class of products -- the chip, A's and B's layouts and the size classes of
M, N and K (ceil(log2(size)), gpupoor._C.size_class) -- to the family whose
tile runs it and the slices it is asked for. Both the compiler
(gpupoor-split-k on static shapes) and the package's launcher take it; the
hand-written rules decide every class without a row.

For each class the sweep's tuned shapes fall in (benchmarks/bench_sweep.py's
TUNED_CLASSES: its odd class is held out; every layout asked for), this
times three tuning shapes of the class -- its largest sizes, its largest M
with its smallest N and K, and all three drawn (multiples of 64 where the
class spans them) -- through the package, CUDA-graph replays with the
weights rotated beyond L2, for:
- the rules' choice (the table's rows for the chip ignored: gpupoor._C
  ._force_choice of what the rules give),
- each family the class's layouts have a kernel of (persistent and two-
  blocks-an-SM variants follow from the rules, as for the compiler), with
  the rules' slices,
- the two fastest of those with 1, 2, 4 and 8 slices;
each twice, the second time in reverse order, keeping the faster, a product
of 50 µs or more after 0.2 s of sustained load (bench_sweep.settle).
A class gets a row for the candidate of the best geometric mean over its
shapes where that beats the rules' choice by more than --margin and is not
slower than the rules' on any of them by more than --margin. The policy reads a
row only where N and K are multiples of 16 (policy::rowsSectorAligned), as
the tuning shapes' sizes are. Everything measured goes to --json (device, date, each
class's shape and candidates' µs, cuBLAS f32acc's µs for scale).

--verify (after the table is built in) checks the rows on the shapes users
run: each sweep shape whose class has a row and whose launch under the table
differs from the rules' is timed both ways (three rounds, alternating, the
faster kept); a row that loses to the rules by more than --margin on any of
them is dropped. The timings go to --json's "verified" (with the row they
checked), beside the earlier runs' of what this one did not time again,
which --from-json applies too.

To tune a new chip: build the package's library for it, run this there
with --def lib/Policy/Tuned/<CHIP>.def (a new chip's file also needs its
#include in lib/Policy/Tuned.cpp), commit the .def and the JSON, rebuild,
and judge the result on bench_sweep.py (docs/guide/Python.md, "Tuning").
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import random
import sys

import torch

from gpupoor import split_k_sequential
from gpupoor._native import C
from gpupoor.bench import cublas, time_graph

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import bench_sweep  # noqa: E402

# The families a row may name: those of a tile; the persistent and two-
# blocks-an-SM ones follow from the rules (familyOf, chooseLaunch). Each is tried where M
# is in its range (16-row and swapped tiles for few rows, 128-row tiles for
# more).
CANDIDATES = {"m16": (1, 64), "s16": (1, 64), "m64": (1, 2048), "n64": (1, 1024),
              "mid": (17, 1 << 62), "large": (65, 1 << 62), "w192": (65, 1 << 62),
              "w160": (65, 1 << 62), "w176": (65, 1 << 62), "w224": (65, 1 << 62),
              "m32": (17, 32), "s32": (17, 32)}
# The .def's spelling of each (Family's enumerators).
ENUM = {"large": "Large", "m16": "M16", "m64": "M64", "n64": "N64", "mid": "Mid",
        "s16": "S16", "w192": "W192", "w160": "W160", "w176": "W176", "w224": "W224",
        "m32": "M32", "s32": "S32"}
SLICES = (1, 2, 4, 8)
# The candidate each of the rules' families stands for: the one of its tile,
# swapped or not as it is (the persistent, two-blocks-an-SM and cluster
# variants of a candidate; the narrow tile's n16 families, s16's tile
# unswapped, stand for none). The
# filling tiles' families (m64n160, m64n192, m64n256) are no table choice
# (policy::tunedChoice): the rules take them within one wave, and forcing one
# times the rules' choice.
TILE_OF = {f: next((c for c in CANDIDATES
                    if C.family_tile(c, "sm_90a", "nk") == C.family_tile(f, "sm_90a", "nk")
                    and C.family_info(c)["swapped"] == C.family_info(f)["swapped"]), f)
           for f in C.FAMILIES}


def class_of(m: int, n: int, k: int) -> tuple[int, int, int]:
    return C.size_class(m), C.size_class(n), C.size_class(k)


def draw(c: int, rng: random.Random) -> int:
    """A size of class c (2^(c-1) < size <= 2^c): a multiple of 64 inside
    it where there is one, else any."""
    lo, hi = (1 << (c - 1)) + 1 if c else 1, 1 << c
    step = 64 if hi - lo >= 64 else 1
    first = -(-lo // step) * step
    return rng.randrange(first, hi + 1, step)


def lowest(c: int) -> int:
    """The smallest size of class c, a multiple of 64 where it has one:
    the class's end where its grids have the fewest tiles."""
    lo, hi = (1 << (c - 1)) + 1 if c else 1, 1 << c
    return -(-lo // 64) * 64 if hi - lo >= 64 else lo


def timed(family: str | None, slices: int, x, bs, rotate: int, reps: int) -> float | None:
    """µs of the package's call with `family` forced (None: the rules')."""
    C._force_choice(family, slices)
    try:
        return time_graph(lambda i: split_k_sequential(x, bs[i]), reps, rotate)
    except Exception as e:  # noqa: BLE001 - a candidate that cannot run
        print(f"    {family} P={slices}: {type(e).__name__}: {str(e)[:120]}", file=sys.stderr)
        return None
    finally:
        C._force_choice(None)


def tune_shape(layout: str, m: int, n: int, k: int, chip: str, sms: int, reps: int,
               also: tuple[str, ...] = ()) -> dict:
    """µs of each candidate on one shape: the rules' choice, every family
    with the rules' slices, and the two fastest families (and those of
    `also`) with more slices."""
    a, b = ("km", "kn") if layout == "km" else ("mk", layout)
    x, bs, rotate = bench_sweep.operands(layout, m, n, k, pad=True)
    rules = C.choose_launch(chip, m, n, k, b, 0, C.DEFAULT_MAX_SPLITS, sms, a, tuned=False)
    rules_family = TILE_OF[rules["family"]]
    bench_sweep.settle(lambda i: split_k_sequential(x, bs[i]), rotate)
    us = {"rules": timed(rules_family, 0, x, bs, rotate, reps)}
    fams = [f for f, (lo, hi) in CANDIDATES.items()
            if lo <= m <= hi and C.family_builds(f, chip, b, a)]
    for f in fams:
        us[f"{f}/0"] = us["rules"] if f == rules_family else timed(f, 0, x, bs, rotate, reps)
    best = [key.split("/")[0] for _, key in
            sorted((t, key) for key, t in us.items() if key != "rules" and t)[:2]]
    for f in dict.fromkeys(best + [f for f in also if f in fams]):
        for p in SLICES:
            if p <= C.default_splits(k, C.DEFAULT_MAX_SPLITS):
                us[f"{f}/{p}"] = timed(f, p, x, bs, rotate, reps)
    # Each candidate again, in reverse order, keeping the faster time: one
    # timing of a launch drifts by up to 15% between the first and the last
    # of a shape's (the rules' own family timed as two candidates).
    for key in reversed([key for key, t in us.items() if t is not None]):
        f, p = ("rules", 0) if key == "rules" else key.split("/")
        again = timed(rules_family if f == "rules" else f, int(p), x, bs, rotate, reps)
        if again is not None:
            us[key] = min(us[key], again)
    us["cublas_f32acc"] = time_graph(lambda i: cublas(False, torch.matmul)(x, bs[i]), reps,
                                     rotate)
    return {"shape": [m, n, k], "rules": rules["family"], "rules_slices": rules["slices"],
            "us": us, "sliced": best}


def tune_class(layout: str, cls: tuple[int, int, int], chip: str, sms: int, reps: int,
               rng: random.Random) -> dict:
    """The class's tuning shapes -- its largest sizes, its largest M with
    its smallest N and K (a row's fixed slices must also serve the class's
    fewest tiles: a row of m64 in one slice, tuned on N of 7424 to 8192,
    left km 32 x 5120 x 13824 at 0.69 of cuBLAS), and all three drawn --
    each candidate's µs on each (the families timed with more slices on one
    shape, on all)."""
    mc, nc, kc = cls
    shapes = [(1 << mc, 1 << nc, 1 << kc), (1 << mc, lowest(nc), lowest(kc)),
              (draw(mc, rng), draw(nc, rng), draw(kc, rng))]
    done: list[dict] = []
    for shape in shapes:
        sliced = tuple(dict.fromkeys(f for d in done for f in d["sliced"]))
        done.append(tune_shape(layout, *shape, chip, sms, reps, sliced))
    families = {f for d in done for f in d["sliced"]}
    for d, shape in zip(done, shapes):
        missing = [f for f in families
                   if f"{f}/{SLICES[0]}" not in d["us"] and f"{f}/0" in d["us"]]
        if missing:
            x, bs, rotate = bench_sweep.operands(layout, *shape, pad=True)
            bench_sweep.settle(lambda i: split_k_sequential(x, bs[i]), rotate)
            for f in missing:
                for p in SLICES:
                    if p <= C.default_splits(shape[2], C.DEFAULT_MAX_SPLITS):
                        d["us"][f"{f}/{p}"] = timed(f, p, x, bs, rotate, reps)
    return {"layout": layout, "class": list(cls), "shapes": done}


def best_of(r: dict, margin: float) -> tuple[str, float] | None:
    """The class's candidate of the best geometric mean of its speed-up over
    the rules' choice, where it beats them by more than `margin` and loses to
    them by no more than `margin` on either shape; with that mean. A family
    with a fixed slice count stands only where it beats the same family with
    the rules' slices by more than `margin`: the rules' slices follow each
    shape's tile count, a fixed count only the tuning shapes'; and where the
    two are one launch (both one slice) only noise parts them (1024 x 8320 x
    3264: pl 80.7 us as the rules' choice, 73.4 as large/0, 73.3 as
    large/1, all three one launch, benchmarks/data/tune_sm_90a.json)."""
    gains: dict[str, list[float]] = {}
    for sh in r["shapes"]:
        base = sh["us"].get("rules")
        for key, t in sh["us"].items():
            if "/" in key:
                gains.setdefault(key, []).append(base / t if base and t else 0.0)
    means = {key: math.exp(sum(map(math.log, g)) / len(g))
             for key, g in gains.items()
             if len(g) == len(r["shapes"]) and min(g) >= 1 / (1 + margin)}
    best = None
    for key, mean in means.items():
        family, slices = key.split("/")
        own = means.get(f"{family}/0")
        if slices != "0" and own is not None and mean <= own * (1 + margin):
            continue
        if mean > 1 + margin and (best is None or mean > best[1]):
            best = (key, mean)
    return best


def refuted(verified: list[dict], layout: str, cls: list[int], key: str,
            margin: float) -> bool:
    """Whether --verify timed the row `key` (family/slices) of the class
    slower than the rules by more than `margin` on a sweep shape."""
    return any(v["layout"] == layout and v["class"] == list(cls) and v["row"] == key and
               v["us"]["table"] > v["us"]["rules"] * (1 + margin) for v in verified)


def rows_of(results: list[dict], chip: str, margin: float,
            verified: list[dict] | None = None) -> list[str]:
    enum_chip = {"sm_90a": "SM90a"}[chip]
    out = []
    for r in results:
        best = best_of(r, margin)
        if best is None:
            continue
        key, gain = best
        if refuted(verified or [], r["layout"], r["class"], key, margin):
            continue
        mc, nc, kc = r["class"]
        if r["layout"] == "km" and C.choose_launch(
                chip, 1 << mc, 1 << nc, 1 << kc, "kn", 0, C.DEFAULT_MAX_SPLITS, 132, "km",
                tuned=False)["a_layout"] == "mk":
            # The policy copies such an A M x K first (policy::copiesKMajorA):
            # the product is then an M x K one, which never reads this row.
            continue
        family, slices = key.split("/")
        a, b = ("KM", "KN") if r["layout"] == "km" else ("MK", r["layout"].upper())
        shapes = ", ".join("x".join(map(str, sh["shape"])) for sh in r["shapes"])
        out.append(f"GPUPOOR_TUNED({enum_chip}, {a}, {b}, {mc}, {nc}, {kc}, {ENUM[family]}, "
                   f"{slices}) // x{gain:.2f} on {shapes}")
    return out


def write_def(path: str, chip: str, device: str, date: str, rows: list[str]) -> None:
    with open(path, "w") as f:
        f.write(f"// The tuned table of {chip} (H100, H200): written by\n"
                f"// benchmarks/tune_policy.py from measurements on {device}, "
                f"{date}, not by hand.\n"
                "// GPUPOOR_TUNED(chip, A layout, B layout, class of M, of N, of K, family,\n"
                "//               slices)\n")
        f.writelines(r + "\n" for r in rows)


def write(args, props, chip: str, results: list[dict],
          verified: list[dict] | None = None) -> list[str]:
    """The table and the measurements so far (rewritten after each class:
    a run cut short keeps what it measured)."""
    rows = rows_of(results, chip, args.margin, verified)
    write_def(args.def_path, chip, props.name, datetime.date.today().isoformat(), rows)
    data = {"device": props.name, "chip": chip, "date": datetime.date.today().isoformat(),
            "margin": args.margin, "reps": args.reps, "classes": results}
    if verified is not None:
        data["verified"] = verified
    with open(args.json, "w") as f:
        json.dump(data, f, indent=1)
    return rows


def launch_of(launch: dict) -> tuple:
    """What a launch runs: its family, slices and grid."""
    return launch["family"], launch["slices"], tuple(launch["grid"])


def time_table_and_rules(layout: str, m: int, n: int, k: int, reps: int) -> dict[str, float]:
    """µs of the package's call under the built-in table and under the rules
    alone: three rounds, alternating which goes first, the faster kept."""
    x, bs, rotate = bench_sweep.operands(layout, m, n, k)
    call = lambda i: split_k_sequential(x, bs[i])  # noqa: E731
    bench_sweep.settle(call, rotate)
    us: dict[str, float] = {}
    for order in (("table", "rules"), ("rules", "table"), ("table", "rules")):
        for name in order:
            C._force_choice(None, table=name == "table")
            try:
                t = time_graph(call, reps, rotate)
            finally:
                C._force_choice(None)
            us[name] = min(us.get(name, t), t)
    return us


def verify(args, props, chip: str, sms: int) -> int:
    """--verify: the built-in table's rows against the rules on the sweep's
    shapes of their classes (the table must be the one --json gives)."""
    with open(args.json) as f:
        data = json.load(f)
    results, margin = data["classes"], data["margin"]
    rows = {}
    for r in results:
        best = best_of(r, margin)
        if best is not None:
            rows[(r["layout"], tuple(r["class"]))] = best[0]
    verified = []
    for layout in [s for s in args.layouts.split(",") if s]:
        a, b = ("km", "kn") if layout == "km" else ("mk", layout)
        for _, m, n, k, _ in bench_sweep.shapes(list(bench_sweep.TUNED_CLASSES)):
            cls = class_of(m, n, k)
            key = rows.get((layout, cls))
            if key is None:
                continue
            table = C.choose_launch(chip, m, n, k, b, 0, C.DEFAULT_MAX_SPLITS, sms, a)
            rules = C.choose_launch(chip, m, n, k, b, 0, C.DEFAULT_MAX_SPLITS, sms, a, tuned=False)
            # (Where the policy reads no row, as for rows off 32-byte
            # sectors, the two are one launch.)
            if launch_of(table) == launch_of(rules):
                continue
            family, slices = key.split("/")
            if TILE_OF[table["family"]] != family or table["asked_slices"] != int(slices):
                print(f"tune_policy: the built-in table gives {layout} {m}x{n}x{k} "
                      f"{table['family']}/{table['asked_slices']}, not the row {key} of "
                      f"{args.json}: rebuild gpupoor._C from that table", file=sys.stderr)
                return 2
            us = time_table_and_rules(layout, m, n, k, args.reps)
            verified.append({"layout": layout, "class": list(cls), "row": key,
                             "shape": [m, n, k], "table": table["family"],
                             "rules": rules["family"], "us": us})
            print(f"{layout} {m}x{n}x{k} row {key}: table {table['family']} "
                  f"{us['table']:.1f} us, rules {rules['family']} {us['rules']:.1f} us",
                  flush=True)
    # The earlier runs' timings of what this one did not time again (rows
    # they refuted are out of the built-in table, so no launch of theirs
    # differs from the rules' now): without them those rows would return.
    timed = {(v["layout"], tuple(v["class"]), v["row"], tuple(v["shape"])) for v in verified}
    verified += [v for v in data.get("verified", [])
                 if (v["layout"], tuple(v["class"]), v["row"], tuple(v["shape"])) not in timed]
    args.margin = margin
    rows_now = write(args, props, chip, results, verified)
    dropped = sorted({(v["layout"], tuple(v["class"]), v["row"]) for v in verified
                      if (v["layout"], tuple(v["class"]), v["row"], tuple(v["shape"])) in timed
                      and refuted(verified, v["layout"], v["class"], v["row"], margin)})
    print(f"{len(rows_now)} rows; this run dropped {len(dropped)}: {dropped}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--layouts", default="nk,kn,km")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--margin", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--def", dest="def_path", required=True, help="the table to write")
    p.add_argument("--json", required=True, help="every measurement")
    p.add_argument("--from-json", action="store_true",
                   help="measure nothing: write the table from --json's measurements (with "
                        "their margin), as the rules of choosing a row now read them")
    p.add_argument("--verify", action="store_true",
                   help="time the built-in table's rows against the rules on the sweep's "
                        "shapes of their classes; drop the rows that lose (see above)")
    p.add_argument("--resume", action="store_true",
                   help="keep the classes --json already holds (a run cut short, as by a "
                        "device's time limit, or one whose stale classes were deleted to be "
                        "measured again) and their --verify timings; measure the rest")
    args = p.parse_args(argv)
    if args.from_json:
        with open(args.json) as f:
            data = json.load(f)
        rows = rows_of(data["classes"], data["chip"], data["margin"], data.get("verified"))
        write_def(args.def_path, data["chip"], data["device"], data["date"], rows)
        print(f"{len(rows)} rows of {len(data['classes'])} classes")
        return 0
    props = torch.cuda.get_device_properties(0)
    chip = f"sm_{props.major}{props.minor}" + ("a" if (props.major, props.minor) == (9, 0) else "")
    if chip != "sm_90a":
        print(f"tune_policy: the tuned table is sm_90a's only, not {chip}", file=sys.stderr)
        return 2
    sms = props.multi_processor_count
    if args.verify:
        return verify(args, props, chip, sms)
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)
    results = []
    kept: dict[tuple, dict] = {}
    # --verify's timings of the kept classes' rows (a class measured again
    # is verified again).
    verified: list[dict] | None = None
    if args.resume:
        with open(args.json) as f:
            data = json.load(f)
        kept = {(r["layout"], tuple(r["class"])): r for r in data["classes"]}
        if "verified" in data:
            verified = [v for v in data["verified"] if (v["layout"], tuple(v["class"])) in kept]
    for layout in [s for s in args.layouts.split(",") if s]:
        tuned = bench_sweep.shapes(list(bench_sweep.TUNED_CLASSES))
        classes = sorted({class_of(m, n, k) for _, m, n, k, _ in tuned})
        for cls in classes:
            if (layout, cls) in kept:
                # Draw its shape as the run that measured it did, so that
                # the classes after it get the same shapes as in one run.
                for c in cls:
                    draw(c, rng)
                results.append(kept[(layout, cls)])
                continue
            r = tune_class(layout, cls, chip, sms, args.reps, rng)
            results.append(r)
            best = best_of(r, args.margin)
            print(f"{layout} {cls}: " + "; ".join(
                f"{'x'.join(map(str, sh['shape']))} rules {sh['rules']} "
                f"{sh['us']['rules'] or math.nan:.1f} us (cuBLAS {sh['us']['cublas_f32acc']:.1f})"
                for sh in r["shapes"]) +
                (f"; row {best[0]} x{best[1]:.2f}" if best else ""), flush=True)
            write(args, props, chip, results, verified)
    rows = write(args, props, chip, results, verified)
    gains = [best_of(r, args.margin) for r in results]
    gain = [math.log(g[1]) if g else 0.0 for g in gains]
    print(f"{len(rows)} rows of {len(results)} classes; geomean gain over the rules on the "
          f"tuning shapes {math.exp(sum(gain) / max(len(gain), 1)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
