"""A deterministic grid of matmul problems for the policy tests: every chip,
both B layouts (and A transposed), decode to large M, odd and power-of-two
sizes, batched and dynamic shapes, with and without named splits and
slices. Each problem is a dict of the keys gpupoor-policy reads."""

from __future__ import annotations

import random

CHIPS = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a")
MS = (1, 2, 3, 4, 8, 15, 16, 17, 24, 32, 33, 48, 64, 65, 96, 100, 127, 128, 129, 192, 256,
      300, 384, 512, 640, 1000, 1024, 1536, 2048, 3000, 4096, 8192, 16384, 32768)
NS = (16, 64, 96, 128, 130, 256, 512, 768, 1024, 1280, 2048, 2560, 3072, 4096, 5120, 6144,
      8192, 10240, 11008, 13824, 14336, 16384, 28672, 32000)
KS = (16, 64, 100, 128, 129, 256, 512, 1000, 1024, 1280, 2016, 2048, 2049, 2560, 3000, 4096,
      5120, 8192, 11008, 14336, 28672)


def problems(count: int, seed: int = 0) -> list[dict]:
    """`count` problems: the products of LLM projections and squares first,
    then random combinations of the lists above."""
    rng = random.Random(seed)
    out: list[dict] = []
    for chip in CHIPS:
        for b in ("nk", "kn"):
            for m in (1, 16, 64, 128, 512, 2048):
                for n, k in ((4096, 4096), (11008, 4096), (4096, 11008), (14336, 4096),
                             (2048, 1280), (2048, 5120), (1024, 4096)):
                    out.append({"chip": chip, "m": m, "n": n, "k": k, "b": b})
            for s in (128, 256, 384, 512, 768, 1000, 1024, 1536, 2048, 3000, 4096, 6000, 8192):
                out.append({"chip": chip, "m": s, "n": s, "k": s, "b": b})
        # Persistent grids whose last wave is short (stream-K on sm_90a):
        # 128 x 256, 128 x 192 (B as K x N, its last row tile partial), 128
        # x 160 and (the tuned table's) 128 x 128 tiles, A as K x M too.
        for m, n, k, b in ((512, 13824, 4096, "nk"), (448, 9216, 5120, "kn"),
                           (392, 8784, 4096, "nk"), (128, 20000, 8192, "nk")):
            out.append({"chip": chip, "m": m, "n": n, "k": k, "b": b})
        out.append({"chip": chip, "m": 1024, "n": 5120, "k": 5120, "b": "kn", "a": "km"})
        # The three-warpgroup 192 x 192 tile where its waves cost less
        # (wideTile): one wave a block a tile, two persistent.
        # (552 x 12808 x 4096: a last wave that would take stream-K in
        # 128-row tiles, never in these.)
        for m, n, k, b in ((1624, 2568, 744, "kn"), (2100, 4360, 1000, "nk"),
                           (552, 12808, 4096, "nk")):
            out.append({"chip": chip, "m": m, "n": n, "k": k, "b": b})
        # 128 x 128 tiles whose clusters spill a wave, the transposed
        # product's fitting it (swappedMidTile): without and in clusters.
        for m, n, k, b in ((1040, 1720, 1536, "nk"), (1040, 1712, 1512, "kn")):
            out.append({"chip": chip, "m": m, "n": n, "k": k, "b": b})
        # Persistent 128 x 128 tiles in clusters (K off 32-byte sectors) of
        # up to two tiles an SM: the split handover.
        out.append({"chip": chip, "m": 1024, "n": 4100, "k": 1032, "b": "kn"})
        # One wave of 128 x 256 tiles in clusters (K off sectors): a block a
        # tile past K = 3072 (largec), persistent up to it
        # (oneWavePersistentPays: plch).
        out.append({"chip": chip, "m": 1024, "n": 4096, "k": 4100, "b": "nk"})
        out.append({"chip": chip, "m": 1024, "n": 4096, "k": 2052, "b": "nk"})
        # B as N x K in 128-row tiles of 176 and 224 columns (their waves
        # cost least: wideTile), in clusters where K is off 32-byte
        # sectors, persistent past a wave (with the split handover up to
        # two tiles an SM), stream-K where the last is short.
        for m, n, k in ((256, 10640, 4100), (256, 12752, 4100), (256, 21200, 4100),
                        (512, 26480, 4096), (6784, 672, 4096), (512, 17024, 4100),
                        # Chunks of one K tile: no split handover.
                        (384, 14336, 128), (384, 14160, 136), (384, 16976, 128),
                        (384, 16976, 136)):
            out.append({"chip": chip, "m": m, "n": n, "k": k, "b": "nk"})
        # Products of A as K x M of few rows: swapped, reading it as their
        # B as K x N where its rows fill a box of 8, 16 or 32 columns (M =
        # 8, 16, 32; in clusters of four at one block an SM and of two at
        # two, and of two at one where clusters of four would not fit at
        # once: policy::clusterBlocks), else copied (M = 4); past two swapped
        # tiles an SM unswapped.
        for m, n, k, b in ((8, 4096, 4096, "nk"), (8, 14336, 4096, "kn"),
                           (8, 20480, 4096, "nk"), (4, 4096, 4096, "kn"),
                           (8, 8192, 8192, "nk"), (32, 8192, 8192, "kn"),
                           (16, 4096, 4096, "kn"),
                           (16, 4096, 4096, "nk"), (24, 4096, 4096, "kn"),
                           (32, 4096, 4096, "kn"), (32, 14336, 4096, "nk"),
                           (16, 14336, 4096, "kn"), (16, 8192, 8192, "nk"),
                           (16, 5120, 5120, "kn"), (16, 6144, 4096, "nk"),
                           (32, 5120, 5120, "nk"), (32, 6144, 4096, "kn"),
                           (32, 12288, 4096, "kn"),
                           (16, 17024, 1024, "nk"), (32, 17024, 8208, "kn")):
            out.append({"chip": chip, "m": m, "n": n, "k": k, "b": b, "a": "km"})
        # Slices asked for: no clusters (s32w, s16w, s8, s8w).
        out.append({"chip": chip, "m": 32, "n": 14336, "k": 4096, "b": "kn", "a": "km",
                    "slices": 2})
        out.append({"chip": chip, "m": 16, "n": 14336, "k": 4096, "b": "nk", "a": "km",
                    "slices": 2})
        out.append({"chip": chip, "m": 8, "n": 4096, "k": 4096, "b": "nk", "a": "km",
                    "slices": 2})
        out.append({"chip": chip, "m": 8, "n": 14336, "k": 4096, "b": "kn", "a": "km",
                    "slices": 2})
        # 56 to 64 rows in 64 x 32 tiles (policy::kRows64Tile) over the
        # tuned table's row, one slice and, two asked for, two blocks an SM.
        out.append({"chip": chip, "m": 56, "n": 4096, "k": 4096, "b": "kn"})
        out.append({"chip": chip, "m": 64, "n": 4096, "k": 4096, "b": "nk", "slices": 2})
        # One wave of 64 x 96 tiles (ninetySixFills), both B layouts and A
        # as K x M; with slices asked, 64 x 128 (no m64n96 twin of two
        # blocks an SM).
        for m, n, k, b, a, slices in ((304, 1920, 512, "nk", "mk", 0),
                                      (304, 1920, 512, "kn", "km", 0),
                                      (756, 832, 1920, "nk", "mk", 0),
                                      (304, 1920, 512, "nk", "mk", 2)):
            out.append({"chip": chip, "m": m, "n": n, "k": k, "b": b, "a": a,
                        **({"slices": slices} if slices else {})})
        # 193 to 384 rows whose 64-row tiles leave SMs idle: the transposed
        # product in clusters of four (swappedFillTile), every layout (A as K
        # x M with B as K x N in 64 x 64 tiles where their clusters fit, else
        # 64 x 96); with two slices asked, not.
        for m, n, k, b, a, slices in ((288, 2144, 2408, "nk", "mk", 0),
                                      (288, 2144, 2408, "kn", "mk", 0),
                                      (352, 1224, 3560, "kn", "km", 0),
                                      (288, 2144, 2408, "kn", "km", 0),
                                      (250, 2152, 2408, "nk", "km", 1),
                                      (288, 2144, 2408, "nk", "mk", 2)):
            out.append({"chip": chip, "m": m, "n": n, "k": k, "b": b, "a": a,
                        **({"slices": slices} if slices else {})})
        # At most 16 columns (sm_90a's narrow tile): a block a tile, two an
        # SM, and with B as K x N in clusters of four and two.
        for m, n, k, b, a in ((4096, 16, 4096, "nk", "mk"), (4096, 16, 4096, "kn", "km"),
                              (9000, 5, 520, "nk", "mk"), (9000, 16, 520, "kn", "mk"),
                              (1000, 9, 1000, "kn", "mk"), (7000, 16, 520, "kn", "km")):
            out.append({"chip": chip, "m": m, "n": n, "k": k, "b": b, "a": a})
    while len(out) < count:
        p = {"chip": rng.choice(CHIPS), "m": rng.choice(MS), "n": rng.choice(NS),
             "k": rng.choice(KS), "b": rng.choice(("nk", "kn"))}
        r = rng.random()
        if r < 0.05:
            p["a"] = "km"
        elif r < 0.12:
            p["batch"] = rng.choice((1, 2, 8, 32))
        elif r < 0.18:
            p[rng.choice(("m", "n", "k"))] = "?"
        if rng.random() < 0.1:
            p["slices"] = rng.choice((1, 2, 4, 64))
        if rng.random() < 0.05:
            p["splits"] = rng.choice((1, 2, 3, 8, 16))
        if rng.random() < 0.05:
            p["max-splits"] = rng.choice((1, 8, 64))
        out.append(p)
    return out[:count]


def line(problem: dict) -> str:
    """The problem as a gpupoor-policy input line."""
    return " ".join(f"{key}={value}" for key, value in problem.items())
