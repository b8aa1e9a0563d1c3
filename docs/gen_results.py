#!/usr/bin/env python3
"""Writes the pages of results from the committed measurements, so that
every figure on them is the data's, device and date included:

- README.md's results block (between `<!-- results:begin -->` and
  `<!-- results:end -->`): the package's sweep per operand layout and a
  training step;
- docs/results/sweep.md: the sweep by layout and shape class, the worst
  shapes, the plot (benchmarks/data/sweep_package_sm_90a.json, from
  benchmarks/bench_sweep.py);
- docs/results/training.md: training steps and final losses against stock
  autocast (benchmarks/data/training*_sm_90a.json, from
  benchmarks/bench_training.py).

  python3 docs/gen_results.py          # rewrite them
  python3 docs/gen_results.py --check  # exit 1 if one is not the data's

ctest runs --check (docs-results), and --check on a README whose block is
stale (test/Docs/stale_results.md, docs-results-catches).
"""

import argparse
import json
import math
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
SWEEP = "benchmarks/data/sweep_package_sm_90a.json"
STATIC = "benchmarks/data/sweep_sm_90a.json"
ATTENTION = "benchmarks/data/sweep_attention_sm_90a.json"
TRAINING = "benchmarks/data/training_x8_sm_90a.json"
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
LAYOUTS = (("nk", "`x @ W.T` (B as N x K, nn.Linear's weight)"),
           ("kn", "`x @ W` (B as K x N)"),
           ("km", "`x.T @ W` (A as K x M, B as K x N)"))


def load(path: str) -> dict:
    with open(os.path.join(ROOT, path)) as f:
        return json.load(f)


def shape(s) -> str:
    """M x N x K, or batch x M x N x K."""
    if len(s) == 4:
        return "x".join(map(str, s))
    m, n, k = s
    return f"{m}³" if m == n == k else f"{m}x{n}x{k}"


def classes(sweep: dict) -> list[str]:
    """The sweep's classes, as its summaries name them: llm and square, and
    odd where it ran it (bench_sweep.py's ODD; sweeps before it have none)."""
    odd = any(key.endswith("/odd") for key in sweep["summaries"])
    return ["llm", "square"] + (["odd"] if odd else [])


def shapes_text(sweep: dict, between: str) -> str:
    """The sweep's shapes in words, after its LLM projections; `between`:
    how a range is written (".." or " .. ")."""
    squares = f"squares 128{between}8192"
    return (f", {squares} and odd sizes drawn at random" if "odd" in classes(sweep)
            else f" and {squares}")


def block() -> str:
    """The results block's markdown."""
    sweep, training = load(SWEEP), load(TRAINING)
    rows = [f"Measured on an {sweep['device']}, {sweep['date']}: kernel time by CUDA-graph "
            "replay, as a ratio to cuBLAS with f32 accumulation in the same run "
            f"([{os.path.basename(SWEEP)}]({SWEEP}), LLM projections at M = 1..4096"
            f"{shapes_text(sweep, '..')}).",
            "",
            "| product | shapes | geomean | worst | below 0.95 |",
            "|---|---|---|---|---|"]
    for layout, what in LAYOUTS:
        s = sweep["summaries"][f"{layout}/all"]
        rows.append(f"| {what} | {s['shapes']} | {s['geomean']:.2f}x | {s['worst']:.2f}x "
                    f"({shape(s['worst_shape'])}) | {s['below_0.95']} |")
    runs = training["models"]
    speed = [runs[m]["stock"]["step_us"] / runs[m]["gpupoor"]["step_us"] for m in ("mlp", "block")]
    loss = [runs[m]["gpupoor"]["loss"][-1] / runs[m]["stock"]["loss"][-1] for m in ("mlp", "block")]
    rows.append(f"| training step against stock autocast, MLP / transformer block "
                f"([{os.path.basename(TRAINING)}]({TRAINING}), {training['device']}, "
                f"{training['date']}) | 2 | {math.sqrt(speed[0] * speed[1]):.2f}x | "
                f"{min(speed):.2f}x | final loss {max(loss):.3f}x stock's |")
    rows += ["", f"![sweep](benchmarks/data/{os.path.basename(SWEEP).replace('.json', '.png')})"]
    return "\n".join(rows)


def fmt(value) -> str:
    """A ratio, or a dash where the sweep did not measure it (a sweep run
    without --rules has no rules-alone column)."""
    return "—" if value is None else f"{value:.3f}"


def ratio_table(sweep: dict) -> list[str]:
    rows = ["| layout | shapes | geomean | worst | below 0.85 | below 0.95 | rules alone: geomean |",
            "|---|---|---|---|---|---|---|"]
    for layout, what in LAYOUTS:
        for cls in classes(sweep) + ["all"]:
            s = sweep["summaries"][f"{layout}/{cls}"]
            rows.append(f"| {what}, {cls} | {s['shapes']} | {s['geomean']:.3f} | "
                        f"{s['worst']:.3f} ({shape(s['worst_shape'])}) | {s['below_0.85']} | "
                        f"{s['below_0.95']} | {fmt(s['rules_geomean'])} |")
    return rows


def sweep_page() -> str:
    """docs/results/sweep.md."""
    sweep = load(SWEEP)
    # (Merged sweeps may hold rows of different pass counts.)
    counts = sorted({len(t) for r in sweep["rows"] for t in r.get("passes", {}).values()})
    passes = counts[-1] if counts else 1
    passes_text = " or ".join(map(str, counts)) if counts else "1"
    out = ["# Results: the sweep",
           "",
           "<!-- Generated by docs/gen_results.py from "
           f"{SWEEP} and {STATIC}; do not edit. -->",
           "",
           f"The package's default call (`split_k_sequential(x, w)`), {sweep['device']}, "
           f"{sweep['date']}: kernel time by CUDA-graph replay, weights rotated beyond the L2, "
           "as a ratio to cuBLAS with f32 accumulation timed in the same process (above 1: "
           "faster). Shapes: the projections of Llama 2 7B/13B, Llama 3 8B/70B at M = 1 .. 4096"
           f"{shapes_text(sweep, ' .. ')}. 'Rules alone' is the same call with the tuned table "
           "off. "
           + (f"Each shape's time is the median of {passes_text} passes over the whole sweep. "
              if passes > 1 else "") +
           f"Command: benchmarks/data/README.md; data: [{os.path.basename(SWEEP)}](../../{SWEEP}).",
           "",
           *ratio_table(sweep),
           "",
           "## The worst shapes",
           "",
           "| layout | M x N x K | gpupoor us | cuBLAS f32acc us | cuBLAS f16acc us | ratio |",
           "|---|---|---|---|---|---|"]
    rows = sorted(sweep["rows"], key=lambda r: r["ratio"])[:12]
    for r in rows:
        us = r["us"]
        out.append(f"| {r['layout']} | {'x'.join(map(str, r['shape']))} | {us['gpupoor']:.1f} | "
                   f"{us['cublas_f32acc']:.1f} | {us.get('cublas_f16acc', float('nan')):.1f} | "
                   f"{r['ratio']:.3f} |")
    static = load(STATIC)
    out += ["", "## The compiler's static path",
            "",
            f"gpupoor-opt's kernel built for each static shape (`build_kernels.py --sweep-static`), "
            f"timed beside the package and cuBLAS ({static['device']}, {static['date']}; data: "
            f"[{os.path.basename(STATIC)}](../../{STATIC})). Where the package's dynamic-shape "
            "kernels run below 0.95 of the static one: "
            + ", ".join(f"{r['layout']} {'x'.join(map(str, r['shape']))}"
                        for r in static["rows"] if r.get("static_ratio")
                        and r["ratio"] < 0.95 * r["static_ratio"]) + ".",
            "",
            "| layout | static over cuBLAS f32acc, geomean | worst | package over static, geomean "
            "| worst | shapes below 0.95 |",
            "|---|---|---|---|---|---|"]
    for key, v in static["summaries"].items():
        if key.endswith("/all") and v.get("static_geomean"):
            out.append(f"| {key.split('/')[0]} | {v['static_geomean']:.3f} | "
                       f"{v['static_worst']:.3f} | {v['package_over_static_geomean']:.3f} | "
                       f"{v['package_over_static_worst']:.3f} | "
                       f"{v['package_below_0.95_of_static']} |")
    out += newer_static(sweep, static)
    out += ["", f"![the sweep](../../{SWEEP.replace('.json', '.png')})", ""]
    return "\n".join(out + attention_section())


def newer_static(sweep: dict, static: dict) -> list[str]:
    """The static path as the package's sweep timed it beside the package,
    class by class, where that sweep is another run than STATIC's and timed
    static kernels of some classes only (bench_sweep.py --static with a
    KDIR of those classes)."""
    if sweep["rows"] == static["rows"]:
        return []
    rows = [(key, v) for key, v in sweep["summaries"].items()
            if not key.endswith("/all") and v.get("static_geomean")]
    if not rows:
        return []
    out = ["", f"The package's sweep above ({sweep['date']}) timed the static kernels of these "
           f"classes beside it, a later run than the table above (data: "
           f"[{os.path.basename(SWEEP)}](../../{SWEEP})):",
           "",
           "| layout, class | static over cuBLAS f32acc, geomean | worst | package over static, "
           "geomean | worst | shapes below 0.95 |",
           "|---|---|---|---|---|---|"]
    for key, v in rows:
        out.append(f"| {key.replace('/', ', ')} | {v['static_geomean']:.3f} | "
                   f"{v['static_worst']:.3f} | {v['package_over_static_geomean']:.3f} | "
                   f"{v['package_over_static_worst']:.3f} | "
                   f"{v['package_below_0.95_of_static']} |")
    return out


def attention_section() -> list[str]:
    """sweep.md's batched attention products (bench_sweep.py --classes
    attention)."""
    att = load(ATTENTION)
    out = ["## Batched attention products",
           "",
           f"Batches of products as attention's heads make them (`torch.bmm`'s: Q K^T and P V "
           f"at prefill and decode, grouped-query decode), one launch each through the "
           f"package and through the compiler's static kernel of `linalg.batch_matmul`, "
           f"{att['device']}, {att['date']} (data: "
           f"[{os.path.basename(ATTENTION)}](../../{ATTENTION})); B as N x K is Q K^T's "
           "`k.transpose(1, 2)`, B as K x N P V's V, A as K x M the P^T of dV = P^T dO.",
           "",
           "| layout | shapes | geomean | worst | below 0.95 | static: geomean | worst | "
           "package over static: geomean | worst |",
           "|---|---|---|---|---|---|---|---|---|"]
    for layout, what in LAYOUTS:
        v = att["summaries"].get(f"{layout}/attention")
        if not v or not v["shapes"]:
            continue
        out.append(f"| {what} | {v['shapes']} | {v['geomean']:.3f} | {v['worst']:.3f} "
                   f"({shape(v['worst_shape'])}) | {v['below_0.95']} | "
                   f"{fmt(v['static_geomean'])} | {fmt(v['static_worst'])} | "
                   f"{fmt(v['package_over_static_geomean'])} | "
                   f"{fmt(v['package_over_static_worst'])} |")
    out += ["", "| layout | batch x M x N x K | gpupoor us | static us | cuBLAS f32acc us | "
            "ratio |", "|---|---|---|---|---|---|"]
    for r in att["rows"]:
        us = r["us"]
        out.append(f"| {r['layout']} | {shape([r['batch'], *r['shape']])} | "
                   f"{us['gpupoor']:.1f} | {us.get('static', float('nan')):.1f} | "
                   f"{us['cublas_f32acc']:.1f} | {r['ratio']:.3f} |")
    return out + [""]


TRAININGS = (("benchmarks/data/training_sm_90a.json", "the issue's sizes, GradScaler"),
             ("benchmarks/data/training_x8_sm_90a.json", "eight times the batch, GradScaler"),
             ("benchmarks/data/training_noscaler_sm_90a.json", "the issue's sizes, no loss scaling"))


def training_page() -> str:
    """docs/results/training.md."""
    out = ["# Results: training",
           "",
           "<!-- Generated by docs/gen_results.py from benchmarks/data/training*_sm_90a.json; "
           "do not edit. -->",
           "",
           "benchmarks/bench_training.py: a teacher-student regression (MSE, fused Adam, f32 master "
           "weights under `torch.autocast` to float16), stock nn.Linear against every nn.Linear "
           "swapped for LowPrecisionLinear, from the same initialisation on the same inputs. "
           "Models: an MLP 1024 -> 4096 -> 4096 -> 1024 with GELU (batch 512), a pre-norm "
           "transformer block (d = 1024, 16 heads, 8 sequences of 512 tokens). Step time: the "
           "median over windows of ten steps, stock and gpupoor taking turns window by window.",
           "",
           "| run | device, date | model | stock step us | gpupoor step us | speed | "
           "final loss, gpupoor over stock |",
           "|---|---|---|---|---|---|---|"]
    for path, what in TRAININGS:
        t = load(path)
        for model, runs in t["models"].items():
            s, g = runs["stock"], runs["gpupoor"]
            out.append(f"| [{what}](../../{path}) | {t['device']}, {t['date']} | {model} | "
                       f"{s['step_us']:.0f} | {g['step_us']:.0f} | "
                       f"{s['step_us'] / g['step_us']:.2f}x | "
                       f"{g['loss'][-1] / s['loss'][-1]:.3f} |")
    out += ["", "With loss scaling the curves agree to five digits; without it f16 inner sums "
            "lose small gradients sooner than f32 accumulation, and the final loss stays higher.",
            "", "![loss curves, eight times the batch](../../benchmarks/data/training_x8_sm_90a.png)",
            ""]
    return "\n".join(out)


HOST = "benchmarks/data/host_sm_90a.json"
ACCURACY = "benchmarks/data/accuracy_sm_90a.json"


def host_and_accuracy_page() -> str:
    """docs/results/host-and-accuracy.md."""
    h, a = load(HOST), load(ACCURACY)
    m, n, k = a["shape"]
    out = ["# Results: host time and accuracy",
           "",
           "<!-- Generated by docs/gen_results.py from benchmarks/data/host_sm_90a.json and "
           "accuracy_sm_90a.json; do not edit. -->",
           "",
           f"Host time per call ([data](../../{HOST}), {h['device']}, {h['date']}): "
           "`python -m gpupoor.bench --overhead`, medians over batches of 200 calls of 16 x 4096 x "
           "4096 queued behind a GPU kept busy (`torch.cuda._sleep`), so that neither kernel time "
           "nor a full launch queue enters the figure.",
           "",
           "| call | host us |",
           "|---|---|"]
    out += [f"| {name} | {us:.1f} |" for name, us in h["host_us"].items()]
    out += ["",
            f"Accuracy ([data](../../{ACCURACY}), {a['device']}, {a['date']}): "
            f"`python -m gpupoor.accuracy --trials {a['trials']} --backend {a['backend']}`, "
            f"{m} x {n} x {k}, relative error ||C - C64|| / ||C64|| against a float64 product on "
            "fresh random normal inputs, median, min and max over the trials; S <= s is "
            "max_k_splits = s, and 'S run' the split count the kernel ran.",
            "",
            "| product | S run | median | min | max |",
            "|---|---|---|---|---|"]
    for label, errs in a["errors"].items():
        out.append(f"| {label} | {a['splits_run'].get(label, '')} | "
                   f"{statistics.median(errs):.2e} | {min(errs):.2e} | {max(errs):.2e} |")
    out += ["", "![error against split count](../../benchmarks/data/accuracy_sm_90a.png)", ""]
    return "\n".join(out)


PAGES = (("docs/results/sweep.md", sweep_page), ("docs/results/training.md", training_page),
         ("docs/results/host-and-accuracy.md", host_and_accuracy_page))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 if README.md's block differs")
    p.add_argument("--readme", default=README, help="the file to check or rewrite")
    args = p.parse_args(argv)
    with open(args.readme) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        print(f"gen_results.py: {os.path.basename(args.readme)} has no {BEGIN} ... {END} "
              "block", file=sys.stderr)
        return 1
    head, rest = text.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    new = f"\n{block()}\n"
    # The results pages go with the repository's own README only.
    pages = [(os.path.join(ROOT, path), make()) for path, make in PAGES] \
        if os.path.abspath(args.readme) == README else []
    if args.check:
        stale = [os.path.basename(args.readme) + "'s results block"] if old != new else []
        for path, want in pages:
            have = open(path).read() if os.path.isfile(path) else None
            if have != want:
                stale.append(os.path.relpath(path, ROOT))
        if stale:
            print(f"gen_results.py: {', '.join(stale)} not the data's; run "
                  "python3 docs/gen_results.py", file=sys.stderr)
            return 1
        print(f"gen_results.py: {os.path.basename(args.readme)}'s results block and "
              f"{len(pages)} pages are the data's")
        return 0
    with open(args.readme, "w") as f:
        f.write(head + BEGIN + new + END + tail)
    for path, want in pages:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(want)
    return 0


if __name__ == "__main__":
    sys.exit(main())
