"""Times the package's launches where the one policy (lib/Policy) changed
what the package's own copy of the rules chose, each against the old choice
and cuBLAS f32acc in the same process: kernels replayed from a CUDA graph,
weights rotated beyond L2, median of many replays (gpupoor.bench's timing).

  python benchmarks/bench_policy_changes.py [--reps 200] [--json out.json]

Each row: the shape (M x N x K, B as nn.Linear's weight.T), the family and
slices the policy launches, those the package launched before, and µs of
each. The old choice is forced by replacing gpupoor._C.choose_launch's
family (and passing its slice count)."""

from __future__ import annotations

import argparse
import json
import sys
import types

import torch
import torch.nn.functional as F

from gpupoor import _mlir_backend as mb
from gpupoor.bench import _time_graph
from gpupoor.kernels import split_k_sequential

# (M, N, K, old family, old slices): the package's choice before the policy.
CHANGED = [
    (1, 2048, 1280, "s16", 4),      # swapped: one slice below K = 2048 now
    (1, 1024, 1280, "s16", 8),
    (512, 4224, 4096, "large", 0),  # 128-wide tiles in one wave: mid now
    (1024, 4224, 4096, "pl", 0),    # mid now (wideTileColumns)
    (256, 2048, 4096, "large", 0),  # few wide tiles, short slices: m64 now
    (256, 4096, 4096, "large", 0),
    (384, 4096, 4096, "large", 0),
    (130, 256, 4096, "large", 0),
    (200, 11008, 4096, "large", 0),  # unchanged: a control
    (100, 9000, 4096, "m64", 0),    # 128-row tiles in one wave: mid now
]


class _Forced:
    """gpupoor._C with choose_launch's family replaced."""

    def __init__(self, real, family):
        self._real, self._family = real, family

    def __getattr__(self, name):
        return getattr(self._real, name)

    def choose_launch(self, *args):
        launch = dict(self._real.choose_launch(*args))
        launch["family"] = self._family
        return launch


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    real = mb._C
    props = torch.cuda.get_device_properties(0)
    rows = []
    print(f"{torch.cuda.get_device_name(0)}, {props.multi_processor_count} SMs")
    for m, n, k, old_family, old_slices in CHANGED:
        rotate = max(2, min(16, (64 << 20) // (2 * n * k)))
        xs = [torch.randn(m, k, device="cuda", dtype=torch.float16) for _ in range(rotate)]
        ws = [torch.randn(n, k, device="cuda", dtype=torch.float16) / k**0.5
              for _ in range(rotate)]
        sms = props.multi_processor_count
        new = real.choose_launch("sm_90a", m, n, k, "nk", 0, 32, sms)
        mb._plans.clear()
        t_new = _time_graph(lambda i: split_k_sequential(xs[i], ws[i].T, backend="mlir"),
                            args.reps, rotate)
        mb._plans.clear()
        mb._C = _Forced(real, old_family)
        try:
            t_old = _time_graph(lambda i: split_k_sequential(xs[i], ws[i].T, slices=old_slices,
                                                             backend="mlir"), args.reps, rotate)
        finally:
            mb._C = real
            mb._plans.clear()
        t_cublas = _time_graph(lambda i: F.linear(xs[i], ws[i]), args.reps, rotate)
        row = {"shape": [m, n, k], "new": {"family": new["family"], "slices": new["slices"],
                                           "us": t_new},
               "old": {"family": old_family, "slices": old_slices or "auto", "us": t_old},
               "cublas_f32acc_us": t_cublas}
        rows.append(row)
        print(f"{m}x{n}x{k}: policy {new['family']}/{new['slices']} {t_new:.1f} us, "
              f"before {old_family}/{old_slices or 'auto'} {t_old:.1f} us "
              f"(policy {t_old / t_new:.2f}x before), cuBLAS {t_cublas:.1f} us "
              f"(policy {t_cublas / t_new:.2f}x cuBLAS)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0), "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
