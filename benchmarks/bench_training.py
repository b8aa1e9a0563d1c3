"""A training step, stock against gpupoor: step time and loss curves.

  python benchmarks/bench_training.py [--models mlp,block] [--steps 400]
                                      [--scale 1] [--no-scaler] --json OUT.json
                                      [--plot OUT.png]

Each model trains a student to match a frozen teacher of the same shape
(teacher-student regression, MSE, Adam, f32 master weights), from the same
initialisation and on the same inputs, twice: stock (nn.Linear under
torch.autocast to float16) and gpupoor (every nn.Linear swapped for
LowPrecisionLinear with its weights, under the same autocast). Models:
- mlp: 1024 -> 4096 -> 4096 -> 1024 with GELU, batch 512;
- block: a pre-norm transformer block (d = 1024, 16 heads, causal
  attention, 4d MLP with GELU) on 8 sequences of 512 tokens.
--scale multiplies the batch (the MLP's rows, the block's sequences): at
the sizes above an H200's step is bound by the host (Python, the optimizer's
launches), and only larger batches time the products. Adam is the fused
one (one launch a step). With torch.amp.GradScaler unless --no-scaler (f16
inner sums lose small gradients sooner than f32 accumulation: the
loss-scaling question of issue #50). Step time: the median, over windows of
ten consecutive steps after training, of a window's CUDA-event time over
ten (the host runs ahead of the GPU within a window, as in training), the
two models taking turns window by window. Writes every loss and timing to --json
(device and date included) and, with --plot, the loss curves.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from gpupoor import LowPrecisionLinear  # noqa: E402


class Block(nn.Module):
    """Pre-norm transformer block: attention's projections and the MLP are
    the nn.Linear layers a swap replaces."""

    def __init__(self, d: int = 1024, heads: int = 16) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.up, self.down = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).unbind(2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                           v.transpose(1, 2), is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


def make(model: str, scale: int = 1) -> tuple[nn.Module, tuple[int, ...]]:
    """The model (f32 parameters, on the GPU) and its input's shape, its
    batch `scale` times the base one."""
    if model == "mlp":
        net = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 4096), nn.GELU(),
                            nn.Linear(4096, 1024))
        return net.cuda(), (512 * scale, 1024)
    if model == "block":
        return Block().cuda(), (8 * scale, 512, 1024)
    raise ValueError(f"model must be mlp or block, got {model!r}")


def swapped(net: nn.Module) -> nn.Module:
    """A copy of `net` whose nn.Linear layers are LowPrecisionLinear with
    the same parameters."""
    net = copy.deepcopy(net)
    for name, child in list(net.named_children()):
        if isinstance(child, nn.Linear):
            low = LowPrecisionLinear(child.in_features, child.out_features,
                                     child.bias is not None, device=child.weight.device)
            low.load_state_dict(child.state_dict())
            setattr(net, name, low)
        else:
            setattr(net, name, swapped(child))
    return net


class Trainer:
    """One network's training: its optimizer, scaler and step."""

    def __init__(self, net: nn.Module, inputs: list[torch.Tensor], targets: list[torch.Tensor],
                 scaler_on: bool) -> None:
        self.net, self.inputs, self.targets = net, inputs, targets
        self.opt = torch.optim.Adam(net.parameters(), lr=1e-4, fused=True)
        self.scaler = torch.amp.GradScaler("cuda", enabled=scaler_on)
        self.i = 0

    def step(self) -> torch.Tensor:
        x = self.inputs[self.i % len(self.inputs)]
        target = self.targets[self.i % len(self.inputs)]
        self.i += 1
        with torch.autocast("cuda", dtype=torch.float16):
            y = self.net(x)
        loss = F.mse_loss(y.float(), target)
        self.opt.zero_grad(set_to_none=True)
        self.scaler.scale(loss).backward()
        self.scaler.step(self.opt)
        self.scaler.update()
        return loss.detach()

    def window(self, steps: int) -> float:
        """µs a step over `steps` consecutive steps, by CUDA events."""
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(steps):
            self.step()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1e3 / steps


def timed_windows(trainers: dict[str, Trainer], timed: int, window: int = 10) -> dict:
    """Each trainer's window times, the trainers taking turns window by
    window (the first of a turn rotating), so that both see the same host
    and clock: at the base sizes a step is bound by the host, whose speed
    drifts within a run."""
    times: dict[str, list[float]] = {name: [] for name in trainers}
    names = list(trainers)
    for w in range(max(1, timed // window)):
        for name in names[w % len(names):] + names[:w % len(names)]:
            times[name].append(trainers[name].window(window))
    return times


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="mlp,block")
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--timed", type=int, default=50, help="steps timed after training")
    p.add_argument("--scale", type=int, default=1, help="batch multiplier")
    p.add_argument("--no-scaler", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", required=True)
    p.add_argument("--plot")
    args = p.parse_args(argv)
    results = {}
    for model in [m for m in args.models.split(",") if m]:
        torch.manual_seed(args.seed)
        student, shape = make(model, args.scale)
        teacher, _ = make(model, args.scale)
        teacher.requires_grad_(False)
        inputs = [torch.randn(shape, device="cuda") for _ in range(16)]
        # The frozen teacher's outputs, once: a step times the student alone.
        with torch.no_grad():
            targets = [teacher(x) for x in inputs]
        runs, trainers = {}, {}
        for name, net in (("stock", copy.deepcopy(student)), ("gpupoor", swapped(student))):
            trainer = Trainer(net, inputs, targets, not args.no_scaler)
            try:
                runs[name] = {"loss": torch.stack([trainer.step()
                                                   for _ in range(args.steps)]).tolist()}
            except (TypeError, ValueError, RuntimeError) as e:
                # Recorded, not raised: e.g. an f16 activation (attention's
                # output under autocast) meeting an f32 weight.
                runs[name] = {"error": f"{type(e).__name__}: {e}"}
                print(f"{model} {name}: {runs[name]['error']}", flush=True)
                continue
            trainers[name] = trainer
        for name, times in timed_windows(trainers, args.timed).items():
            runs[name].update(step_us=statistics.median(times), step_us_all=times)
            print(f"{model} {name}: step {runs[name]['step_us']:.0f} us, final loss "
                  f"{runs[name]['loss'][-1]:.3g}", flush=True)
        if all("error" not in r for r in runs.values()):
            speed = runs["stock"]["step_us"] / runs["gpupoor"]["step_us"]
            ratio = runs["gpupoor"]["loss"][-1] / runs["stock"]["loss"][-1]
            print(f"{model}: gpupoor at {speed:.2f}x stock's speed, final loss "
                  f"{ratio:.3f}x stock's")
        results[model] = runs
    with open(args.json, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "date": datetime.date.today().isoformat(),
                   "steps": args.steps, "scale": args.scale, "scaler": not args.no_scaler, "models": results}, f)
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4), squeeze=False)
        for ax, (model, runs) in zip(axes[0], results.items()):
            for name, run in runs.items():
                if "error" in run:
                    continue
                ax.semilogy(run["loss"], label=f"{name} ({run['step_us']:.0f} us a step)")
            ax.set_title(model)
            ax.set_xlabel("step")
            ax.set_ylabel("MSE")
            ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
