"""An independent numpy model of gpupoor's split-k numerics.

Written from the specification, not from the compiler's code:
- K is cut into B = ceil(K / BK) blocks; with C = min(S, B) chunks and
  B = q * C + r, chunk s < C takes q + 1 blocks if s < r, else q, in order,
  clipped to K, and chunks s >= C are empty;
- in a chunk, the f16 accumulator takes one 16-wide k step at a time: the
  step's products and the accumulator are summed in f64 and rounded once to
  f16 (m16n8k16 mma with f16 accumulators); with `sets` accumulators a
  chunk, k step t of the chunk goes to accumulator t mod sets;
- chunk results (each chunk's accumulators in turn) are summed in the outer
  type (f16: f64 sum rounded once);
- with P slices (parallel split-k), P' = min(P, S) (P = 0: num_slices's
  rule for T C tiles of BM x BN over the batch):
  slice p sums chunks
  [p * S // P', (p + 1) * S // P') from zero in the outer type, and the slice
  sums are added in the outer type in the order p = 0 .. P' - 1;
- the epilogue runs in f32 and rounds to the output type.
"""

import math

import numpy as np


SPLIT_RULE_BK = 32  # the rule counts K in gpu_poor's 32-element blocks, any tile
DEFAULT_MAX_SPLITS = 256  # policy::kDefaultMaxSplits (gpu_poor's clamp: 32)
LONG_K_RULE_BLOCKS = 64  # from 64 rule blocks (K > 2016) on ...
MIN_LONG_K_SPLITS = 12  # ... at least 12 chunks


def default_splits(k, max_splits=DEFAULT_MAX_SPLITS):
    blocks = -(-k // SPLIT_RULE_BK)
    root = math.isqrt(blocks)
    splits = 1 if root <= 1 else 1 << (root - 1).bit_length()
    if blocks >= LONG_K_RULE_BLOCKS:
        splits = max(splits, MIN_LONG_K_SPLITS)
    return max(1, min(splits, max_splits))


DECODE_CHUNK = 128
WIDE_TILE_CHUNK = 256  # policy::kWideTileChunk


def longest_chunk(chip, tile):
    """policy::longestChunk: the most K a chunk of `tile` ([BM, BN, BK])
    sums, 0 for none: 128 (or one K tile where longer) for a decode tile
    (16 rows or 16 columns) of an sm_90 or sm_90a kernel and sm_90a's
    32-row tile (32 x 64 x 128); 256 for sm_90a's 128 x 256 tile."""
    thin = chip == "sm_90a" and list(tile) == [32, 64, 128]
    if chip in ("sm_90", "sm_90a") and (min(tile[0], tile[1]) <= 16 or thin):
        return max(DECODE_CHUNK, tile[2])
    if chip == "sm_90a" and list(tile[:2]) == [128, 256]:
        return max(WIDE_TILE_CHUNK, tile[2])
    return 0


def split_rule(chip, tile, max_splits):
    """policy::splitRuleParams: the parameters of the rule tile_splits
    evaluates, as a manifest's split_rule names them."""
    rule = {"rule_block": SPLIT_RULE_BK, "long_k_rule_blocks": LONG_K_RULE_BLOCKS,
            "min_long_k_splits": MIN_LONG_K_SPLITS, "max_splits": max_splits}
    if longest_chunk(chip, tile):
        rule["longest_chunk"] = longest_chunk(chip, tile)
    return rule


def tile_splits(chip, tile, k, max_splits=DEFAULT_MAX_SPLITS):
    """policy::tileNumSplits: default_splits, at least ceil(K / chunk)
    where the tile has a longest chunk (longest_chunk)."""
    splits = default_splits(k, max_splits)
    chunk = longest_chunk(chip, tile)
    if not chunk:
        return splits
    return max(1, min(max(splits, -(-k // chunk)), max_splits))


def chunk_bounds(k, splits, bk=32):
    blocks = -(-k // bk)
    chunks = min(splits, blocks)

    q, r = divmod(blocks, chunks) if chunks else (0, 0)

    def start(s):
        s = min(s, chunks)
        return s * q + min(s, r)

    return [(min(start(s) * bk, k), min(start(s + 1) * bk, k)) for s in range(splits)]


def _add_outer(acc, x, outer):
    if outer == "f16":
        return (acc.astype(np.float64) + x.astype(np.float64)).astype(np.float16)
    return acc + x.astype(np.float32)


def slice_blocks_per_sm(chip, tile_mn):
    """B, the blocks an SM the automatic slice count plans for: 1 where a
    block fills the SM's registers (sm_90a's wgmma kernel with BM >= 128, or
    tiles of BM * BN >= 128 * 256), else 2."""
    bm, bn = tile_mn
    return 1 if (chip == "sm_90a" and bm >= 128) or bm * bn >= 128 * 256 else 2


def slice_one_share(chip, tile_mn):
    """Q, the share of the SMs from which tiles run one slice (0: none): 3
    for sm_90a's one-warpgroup tiles (64 rows, and the 32-row swapped
    tile)."""
    return 3 if chip == "sm_90a" and tile_mn[0] <= 64 else 0


#: The least K at which sm_90a's kernels take slices where they are chosen
#: (below it: one).
MIN_WGMMA_SLICE_K = 2048


def short_k_one_slice(chip, k):
    """Whether an automatic slice count is one for K alone: sm_90a's kernels
    below MIN_WGMMA_SLICE_K."""
    return chip == "sm_90a" and k < MIN_WGMMA_SLICE_K


# From this K on, a one-slice share's tiles take P1 (policy::kLongKShareK).
LONG_K_SHARE_K = 16384


def num_slices(slices, tiles, splits, sm_count, blocks_per_sm=2, one_share=0, k=0):
    """P', the slices that run: min(P, S), or for P = 0 the fewest that
    minimize the busiest SM's work ceil(T P / SMs) / P within one wave of B
    blocks an SM: P2 = clamp(B SMs // T, 1, S) if it exceeds twice
    P1 = clamp(SMs // T, 1, S), else P1; but where Q T >= SMs (Q > 0), 1,
    or P1 from K = LONG_K_SHARE_K on."""
    splits = min(splits, 65535)  # grid y
    if slices > 0:
        return max(1, min(slices, splits))
    tiles = max(tiles, 1)
    one = max(1, min(sm_count // tiles, splits))
    if one_share > 0 and tiles * one_share >= sm_count:
        return one if k >= LONG_K_SHARE_K else 1
    two = max(1, min(blocks_per_sm * sm_count // tiles, splits))
    return two if two > 2 * one else one


def split_k_matmul(a, b, splits, outer="f32", bk=32, b_layout="kn", slices=1,
                   tile_mn=(128, 128), sm_count=132, chip="sm_90", sets=1):
    """C = A @ op(B) with gpupoor's rounding, as float64 holding the outer sum.
    `tile_mn`, `sm_count` and `chip` matter only to slices = 0. Each chunk
    keeps `sets` f16 sums: k16 step t of the chunk goes to sum t mod sets
    (chunks start on K tiles of `bk`, a multiple of 16 * sets), and the
    sums enter the outer sum in turn."""
    a64 = a.astype(np.float64)
    b64 = b.astype(np.float64)
    if b_layout == "nk":
        b64 = np.swapaxes(b64, -1, -2)
    k = a.shape[-1]
    shape = a.shape[:-1] + b64.shape[-1:]
    zero = np.zeros(shape, np.float16 if outer == "f16" else np.float32)
    chunks = []
    for lo, hi in chunk_bounds(k, splits, bk):
        inner = [np.zeros(shape, np.float16) for _ in range(sets)]
        for t, k0 in enumerate(range(lo, hi, 16)):
            k1 = min(k0 + 16, hi)
            step = a64[..., k0:k1] @ b64[..., k0:k1, :]
            inner[t % sets] = (inner[t % sets].astype(np.float64) + step).astype(np.float16)
        chunks.append(inner)

    def sum_chunks(cs):
        acc = zero
        for c in cs:
            for part in c:
                acc = _add_outer(acc, part, outer)
        return acc

    m, n = shape[-2], shape[-1]
    batch = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    tiles = batch * -(-m // tile_mn[0]) * -(-n // tile_mn[1])
    p = num_slices(slices, tiles, splits, sm_count, slice_blocks_per_sm(chip, tile_mn),
                   slice_one_share(chip, tile_mn), k)
    if p <= 1:
        return sum_chunks(chunks).astype(np.float32)
    total = zero
    for s in range(p):
        total = _add_outer(total, sum_chunks(chunks[s * splits // p:(s + 1) * splits // p]), outer)
    return total.astype(np.float32)


def epilogue(v, bias=None, act="none", out=np.float16):
    """v (f32) + bias, activation, in f32, rounded to `out` after the matmul,
    the bias add and the activation, as the fused linalg ops round theirs."""
    def round_out(x):
        return x.astype(out).astype(np.float32) if out == np.float16 else x

    v = v.astype(np.float32)
    if bias is not None or act != "none":
        v = round_out(v)
    if bias is not None:
        v = round_out(v + bias.astype(np.float32))
    if act == "relu":
        v = np.maximum(v, np.float32(0))
    elif act == "gelu":
        erf = np.vectorize(math.erf)
        v = (np.float32(0.5) * v * (1 + erf(v.astype(np.float64) / math.sqrt(2)))).astype(np.float32)
    return v.astype(out)


def rel_error(c, ref):
    c = c.astype(np.float64)
    return float(np.linalg.norm(c - ref) / np.linalg.norm(ref))
