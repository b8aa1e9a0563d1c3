"""The kernel variants the package launches, and the linalg source of each.

A variant is one `gpupoor.matmul` configuration: B's layout (and A's), the
outer sum's type, the fused epilogue, C's type, the tile family and the
largest split count. Every variant is compiled with `slices=0`, so one kernel serves both
split modes: launched with one slice along grid y it is the sequential
kernel (its workspace untouched), with P' > 1 slices the parallel one.

Which family a call launches, its splits and slices are the compiler's
policy's (gpupoor._C.choose_launch, lib/Policy): this module only names the
families and how the library compiles each.
"""

from __future__ import annotations

import dataclasses

from ._native import C as _C

LAYOUTS = ("kn", "nk")
# A as M x K, or K x M (a transposed activation: sm_90a's wgmma families,
# family_info's "km").
A_LAYOUTS = ("mk", "km")
OUTER_TYPES = ("f32", "f16")
EPILOGUES = ("none", "bias", "bias_relu", "bias_gelu")
OUT_TYPES = ("f16", "f32")
# The kernel families: the policy's (gpupoor/Policy/Policy.h, Family), which
# decides which one a call takes (gpupoor._C.choose_launch) and knows each
# one's tile (gpupoor._C.family_tile, which the library compiles each with):
# large: the dynamic default (sm_90a: the 128x256x64 wgmma tile);
# m16, m64: 16- and 64-row tiles with warps along N;
# n64 (64x64x64), mid (128x128x64): sm_90a's one- and two-warpgroup tiles;
# s16, s16w: sm_90a's 64x16x128 tile of the swapped product C^T = W x^T
# (launched with W as A, read along K or, for W as K x N, along N; x as
# B), one and two blocks an SM; s32, s32w: the same of 64x32x128 (17 to 32
# rows of x stored K x M); s8, s8w: of 64x8x128 (8 rows of x stored
# K x M, rows 16-byte aligned);
# pl: sm_90a's 128x256x64 TMA tile with persistent blocks (one K slice; C
# stored by TMA where its tensor map describes C);
# w192, w160 and pl192, pl160: sm_90a's narrower 128-row tiles (the
# compiler's wideTile), a block a tile and persistent; w224, w176 and
# pl224, pl176: the same of 224 and 176 columns (B as N x K only); pl128: mid
# with persistent blocks; m32: sm_90a's 32x64x128 tile for 17 <= M <= 32
# (B as N x K); n32, n32w: sm_90a's 64x32x64 tile of 56 to 64 rows (four
# f16 sums a chunk, policy::kRows64Tile), one and two blocks an SM; n64s,
# n64sw: n64 and n64w with two f16 sums a chunk, for chunks of at least
# 320 (policy::chunkSets); m32w, m64w, n64w: m32,
# m64 and n64 two blocks an SM (sm_90a), where their grid exceeds the SMs;
# m64c, midc, pl128c, largec, plc, w192c, pl192c, w160c, pl160c, w224c,
# pl224c, w176c, pl176c: those
# families in clusters of two along M sharing B's tile by TMA multicast
# (sm_90a), where operand rows start off 32-byte sectors; s16q, s16wc,
# s32q, s32wc, s8q, s8wc: s16, s32 and s8 in clusters of four and s16w,
# s32w and s8w of two, s16c, s32c, s8c: s16, s32 and s8 in clusters of two,
# for A as K x M only, sharing the activation read along N
# (policy::clusterBlocks); m64q: m64 in clusters of four along M,
# persistent, where they all run at once (policy::quadClusterPays); plk, pl192k,
# pl160k, pl128k, pl224k, pl176k: the persistent families with stream-K (sm_90a), where the
# last wave is short (policy::streamKPays); plh, pl192h, pl160h, pl128h,
# pl224h, pl176h and plch, pl192ch, pl160ch, pl128ch, pl224ch, pl176ch: the
# persistent families and their clusters with the split handover (sm_90a;
# 192 and 160 columns B as N x K only), on grids of up to two tiles an SM
# or in tiles narrower than 256 columns (policy::splitHandoverPays); m64n160, m64n192, m64n256:
# sm_90a's one-warpgroup tiles of 64 rows and 160-256 columns (160 for B as
# N x K only), where their tiles fill one wave with less work an SM than
# the 128-row tiles (policy's filling tiles, M > 64; not over one wave of
# 128 x 128 tiles from M = 512); m64n96: sm_90a's
# 64x96x64 tile, where the rules give 64-row tiles over M > 128 and those
# of 96 columns fit one wave in more blocks than of 128 (rows on 32-byte
# sectors, K <= 2048, 1024 with B as K x N or A as K x M: policy's
# ninetySixFills); m192n96: sm_90a's
# 192x96x64 tile over three consumer warpgroups, a filling tile from K =
# 1536 on in one slice for M > 192 (policy::kThreeWarpgroupTile); m16n256: sm_90's
# 16x256x128 mma.sync tile (sm_90a's library) for decode products of up
# to 8 rows and a weight stored K x N of about one SM's worth of 256-row
# tiles (policy::wideDecodeTileFits); n16, n16w: sm_90a's decode tile unswapped
# for products of at most 16 columns (policy::kNarrowTile), one and two
# blocks an SM, and n16q, n16c, n16wc in clusters (B as K x N only);
# x96q: sm_90a's 64x96x64 tile of the transposed product in clusters of
# four, for products of 193 to 384 rows whose 64-row tiles leave SMs idle
# (policy::swappedFillTile), and x64q its 64x64x64 tile for A stored K x M
# with B stored K x N where those clusters fit the chip's at once, and for
# 33 to 64 rows from K = 2048, every layout, whose transposed product's
# 64-row tiles fill from half the SMs (policy::swappedFewRowsTile); t192, plt192: sm_90a's 192x192x64 tile over
# three consumer warpgroups, a block a tile and persistent, where its waves
# cost less than the 128-row tiles' (policy::wideTile); x128, x128c: sm_90a's
# 128x128x64 tile of the transposed product, a block a tile, and in clusters
# of two, where the product's 128x128 tiles in clusters spill a wave and the
# transposed product's fit it (policy::swappedMidTile); x64n128q: sm_90a's
# 64x128x64 tile of the transposed product in clusters of four, persistent,
# for 65 to 128 rows from K = 4096 whose transposed product's 64-row tiles
# fill from a third of the SMs (policy::swappedRowsTile); x64sq: x64q with two
# f16 sums a chunk where its chunks are long (policy::chunkSets); s16e, s16we:
# s16 and s16w with eight f16 sums a chunk, for an x stored K x M copied M x K
# first (policy::kCopiedDecodeSets).
TILES = tuple(_C.FAMILIES)
_INFO = {f: _C.family_info(f) for f in _C.FAMILIES}
# The families only sm_90a's library holds (some for B as N x K only:
# builds_for).
SM90A_TILES = tuple(f for f in _C.FAMILIES if _INFO[f]["sm90a_only"])
# The families whose blocks loop over C tiles: one K slice.
PERSISTENT_TILES = tuple(f for f in _C.FAMILIES if _INFO[f]["persistent"])
# The families whose kernels compute C^T = B^T A^T (W x^T for nn.Linear):
# the launcher passes B as the kernel's A, A as its B and C's transpose.
SWAPPED_TILES = tuple(f for f in _C.FAMILIES if _INFO[f]["swapped"])


def family_options(family: str, chip: str, batched: bool = False) -> str:
    """The family's `--gpupoor-to-cubin` tile and configuration options on
    `chip` (the policy's: gpupoor._C.family_config), of its batched variants
    with `batched`: no tile for large (the compiler's dynamic-shape choice),
    else its tile."""
    config = _C.family_config(family, chip, batched)
    opts = [] if family == "large" else [
        "tile=" + ",".join(map(str, _C.family_tile(family, "sm_90a", "nk")))]
    if config["stages"]:
        opts.append(f"stages={config['stages']}")
    if config["blocks_per_sm"]:
        opts.append(f"blocks-per-sm={config['blocks_per_sm']}")
    if config["persistent"]:
        opts.append("persistent=true")
    if config["split_handover"]:
        opts.append("split-handover=true")
    if config["cluster_m"] > 1:
        opts.append(f"cluster-m={config['cluster_m']}")
    if config["stream_k"]:
        opts.append("stream-k=true")
    if config["column_stores"]:
        opts.append("column-stores=true")
    if config["sets"]:
        opts.append(f"sets={config['sets']}")
    return " ".join(opts)


# The default max_k_splits (policy::kDefaultMaxSplits), and the one the
# library's variants are named and built with: they take S from the launch,
# so one variant serves every max_k_splits.
DEFAULT_MAX_SPLITS: int = _C.DEFAULT_MAX_SPLITS
LIBRARY_MAX_SPLITS: int = _C.LIBRARY_MAX_SPLITS
# sm_90a: Hopper's arch-specific target (H100, H200: compute capability 9.0
# only), whose variants of 64 rows and more are the wgmma kernel; its m16
# variants are the sm_90 mma.sync kernels. sm_90 is buildable on request.
CHIPS = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a")
# What build_library builds by default.
DEFAULT_CHIPS = ("sm_80", "sm_86", "sm_89", "sm_90a")


@dataclasses.dataclass(frozen=True)
class VariantKey:
    """What a kernel computes and how it is tiled."""

    b_layout: str = "kn"
    outer: str = "f32"
    epilogue: str = "none"
    out: str = "f16"
    tile: str = "large"
    max_splits: int = LIBRARY_MAX_SPLITS
    a_layout: str = "mk"
    # A batch of products (linalg.batch_matmul): the families the policy
    # takes for one (family_info's "batched"), without an epilogue.
    batched: bool = False
    name: str = dataclasses.field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        for field, allowed in (("b_layout", LAYOUTS), ("a_layout", A_LAYOUTS),
                               ("outer", OUTER_TYPES),
                               ("epilogue", EPILOGUES), ("out", OUT_TYPES),
                               ("tile", tuple(TILES))):
            if getattr(self, field) not in allowed:
                raise ValueError(f"{field} must be one of {allowed}, got {getattr(self, field)!r}")
        if not 1 <= self.max_splits <= _C.MAX_SPLITS:
            raise ValueError(f"max_splits must be in [1, {_C.MAX_SPLITS}], got {self.max_splits}")
        if self.a_layout == "km" and not _INFO[self.tile]["km"]:
            raise ValueError(f"family {self.tile!r} has no kernels for A as K x M")
        if self.a_layout == "mk" and not _INFO[self.tile]["mk"]:
            raise ValueError(f"family {self.tile!r} has no kernels for A as M x K")
        if self.batched and not _INFO[self.tile]["batched"]:
            raise ValueError(f"family {self.tile!r} has no batched kernels")
        if self.batched and self.epilogue != "none":
            raise ValueError(f"batched variants have no epilogue, got {self.epilogue!r}")
        # Launch caches key on the name: a str hashes once. A as K x M
        # prefixes B's layout (kmkn, kmnk), a batch both (bkn, bkmnk).
        layouts = (("b" if self.batched else "") + ("km" if self.a_layout == "km" else "")
                   + self.b_layout)
        object.__setattr__(self, "name", f"{layouts}_{self.outer}_{self.epilogue}_"
                                         f"{self.out}_{self.tile}_s{self.max_splits}")

    @classmethod
    def from_name(cls, name: str) -> "VariantKey":
        parts = name.split("_")
        if len(parts) < 6 or not parts[-1].startswith("s"):
            raise ValueError(f"not a variant name: {name!r}")
        layouts, outer, *epilogue, out, tile, splits = parts
        batched = layouts.startswith("b")
        layouts = layouts.removeprefix("b")
        a_layout = "km" if layouts.startswith("km") else "mk"
        return cls(layouts.removeprefix("km"), outer, "_".join(epilogue), out, tile,
                   int(splits[1:]), a_layout, batched)

    def builds_for(self, chip: str) -> bool:
        """Whether the library holds this variant for `chip`: the
        SM90A_TILES only for sm_90a, some of them (m64n160, the 128-row tiles
        of 176 and 224 columns) for B as N x K only, the narrow
        tile's clusters for B as K x N only; A as K x M only for sm_90a's
        wgmma families."""
        return _C.family_builds(self.tile, chip, self.b_layout, self.a_layout, self.batched)

    def pipeline_options(self, chip: str) -> str:
        """`--gpupoor-to-cubin` options (without dump-dir). The kernels take
        S from the launch (splits-arg), which passes the policy's."""
        slices = "slices=1" if self.tile in PERSISTENT_TILES else "slices=0"
        opts = [f"chip={chip}", f"outer-type={self.outer}", f"max-splits={self.max_splits}",
                slices, "splits-arg=true", family_options(self.tile, chip, self.batched)]
        return " ".join(o for o in opts if o)

    def source(self) -> str:
        """`func.func @<name>(A, B[, bias], C)` on dynamic shapes: an f16 x f16
        -> f32 linalg.matmul (gpupoor-split-k relaxes it to f16 inner sums),
        the bias added and the activation applied in f32, one rounding to C's
        type; the rewrite fuses all of it into the kernel's epilogue. A
        swapped family's kernel is the transposed product's: its bias is
        indexed by row (the launcher passes B^T as A, A^T as B: A as K x M
        where B is K x N, B as N x K where A is M x K, as K x N where A is
        K x M). A batched variant's is `linalg.batch_matmul` on rank-3
        operands (batched_source)."""
        if self.batched:
            return self.batched_source()
        bshape = "tensor<?x?xf16>"
        if self.tile in SWAPPED_TILES:
            km, nk = self.b_layout == "kn", self.a_layout != "km"
        else:
            km, nk = self.a_layout == "km", self.b_layout == "nk"
        out = self.out
        params = ["%a: tensor<?x?xf16>", f"%b: {bshape}"]
        has_bias = self.epilogue != "none"
        if has_bias:
            params.append(f"%bias: tensor<?x{out}>")
        params.append(f"%c: memref<?x?x{out}>")
        maps = ""
        if nk or km:
            maps = (f" indexing_maps = [affine_map<(m, n, k) -> ({'k, m' if km else 'm, k'})>, "
                    f"affine_map<(m, n, k) -> ({'n, k' if nk else 'k, n'})>, "
                    "affine_map<(m, n, k) -> (m, n)>]")
        lines = [
            f"func.func @{self.name}({', '.join(params)}) {{",
            "  %c0 = arith.constant 0 : index",
            "  %c1 = arith.constant 1 : index",
            f"  %m = tensor.dim %a, {'%c1' if km else '%c0'} : tensor<?x?xf16>",
            f"  %n = tensor.dim %b, {'%c0' if nk else '%c1'} : {bshape}",
            "  %zero = arith.constant 0.0 : f32",
            "  %e = tensor.empty(%m, %n) : tensor<?x?xf32>",
            "  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>",
            f"  %p = linalg.matmul{maps} ins(%a, %b : tensor<?x?xf16>, {bshape}) "
            "outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>",
        ]
        result = "%p"
        body = []
        args = ["%x: f32"]
        ins = ["%p"]
        in_types = ["tensor<?x?xf32>"]
        maps2 = ["affine_map<(i, j) -> (i, j)>"]
        v = "%x"
        if has_bias:
            args.append(f"%y: {out}")
            ins.append("%bias")
            in_types.append(f"tensor<?x{out}>")
            # A swapped family's kernel computes C^T: the bias (one per
            # output feature) runs along its rows.
            maps2.append("affine_map<(i, j) -> (i)>" if self.tile in SWAPPED_TILES
                         else "affine_map<(i, j) -> (j)>")
            if out != "f32":
                body.append(f"    %yf = arith.extf %y : {out} to f32")
            body.append(f"    %s = arith.addf %x, {'%yf' if out != 'f32' else '%y'} : f32")
            v = "%s"
        if self.epilogue == "bias_relu":
            body.append(f"    %r = arith.maximumf {v}, %zero : f32")
            v = "%r"
        elif self.epilogue == "bias_gelu":
            # Exact (erf) GELU, torch.nn.GELU's default.
            body += [
                "    %k = arith.constant 0.70710678118654752 : f32",
                "    %h = arith.constant 0.5 : f32",
                "    %one = arith.constant 1.0 : f32",
                f"    %g0 = arith.mulf {v}, %k : f32",
                "    %g1 = math.erf %g0 : f32",
                "    %g2 = arith.addf %g1, %one : f32",
                f"    %g3 = arith.mulf {v}, %h : f32",
                "    %g4 = arith.mulf %g3, %g2 : f32",
            ]
            v = "%g4"
        if out != "f32":
            body.append(f"    %t = arith.truncf {v} : f32 to {out}")
            v = "%t"
        if body:
            maps2.append("affine_map<(i, j) -> (i, j)>")
            lines += [
                f"  %eo = tensor.empty(%m, %n) : tensor<?x?x{out}>",
                f"  %q = linalg.generic {{indexing_maps = [{', '.join(maps2)}], "
                "iterator_types = [\"parallel\", \"parallel\"]} "
                f"ins({', '.join(ins)} : {', '.join(in_types)}) outs(%eo : tensor<?x?x{out}>) {{",
                f"  ^bb0({', '.join(args)}, %o: {out}):",
                *body,
                f"    linalg.yield {v} : {out}",
                f"  }} -> tensor<?x?x{out}>",
            ]
            result = "%q"
        lines += [
            f"  bufferization.materialize_in_destination {result} in restrict writable %c "
            f": (tensor<?x?x{out}>, memref<?x?x{out}>) -> ()",
            "  return",
            "}",
        ]
        return "\n".join(lines) + "\n"


    def batched_source(self) -> str:
        """`func.func @<name>(A, B, C)`: an f16 `linalg.batch_matmul` on
        dynamic shapes into C's type (gpupoor-split-k relaxes its sums to f16
        inner sums and the outer type), A batch x M x K or batch x K x M, B
        batch x K x N or batch x N x K."""
        km, nk = self.a_layout == "km", self.b_layout == "nk"
        t3 = "tensor<?x?x?xf16>"
        tc = f"tensor<?x?x?x{self.out}>"
        maps = ""
        if nk or km:
            maps = (f" indexing_maps = [affine_map<(b, m, n, k) -> (b, {'k, m' if km else 'm, k'})>, "
                    f"affine_map<(b, m, n, k) -> (b, {'n, k' if nk else 'k, n'})>, "
                    "affine_map<(b, m, n, k) -> (b, m, n)>]")
        lines = [
            f"func.func @{self.name}(%a: {t3}, %b: {t3}, %c: memref<?x?x?x{self.out}>) {{",
            "  %c0 = arith.constant 0 : index",
            "  %c1 = arith.constant 1 : index",
            "  %c2 = arith.constant 2 : index",
            f"  %bt = tensor.dim %a, %c0 : {t3}",
            f"  %m = tensor.dim %a, {'%c2' if km else '%c1'} : {t3}",
            f"  %n = tensor.dim %b, {'%c1' if nk else '%c2'} : {t3}",
            f"  %zero = arith.constant 0.0 : {self.out}",
            f"  %e = tensor.empty(%bt, %m, %n) : {tc}",
            f"  %f = linalg.fill ins(%zero : {self.out}) outs(%e : {tc}) -> {tc}",
            f"  %p = linalg.batch_matmul{maps} ins(%a, %b : {t3}, {t3}) outs(%f : {tc}) -> {tc}",
            f"  bufferization.materialize_in_destination %p in restrict writable %c "
            f": ({tc}, memref<?x?x?x{self.out}>) -> ()",
            "  return",
            "}",
        ]
        return "\n".join(lines) + "\n"


def library_variants(tiles=tuple(TILES)) -> list[VariantKey]:
    """Every variant the prebuilt library holds (for some chip:
    VariantKey.builds_for says which): every combination of layouts, outer
    type, epilogue and C type; batched, those without an epilogue of the
    families that have batched kernels."""
    return [VariantKey(b, o, e, c, t, a_layout=a, batched=batched)
            for batched in (False, True) for a in A_LAYOUTS for b in LAYOUTS
            for o in OUTER_TYPES for e in EPILOGUES for c in OUT_TYPES for t in tiles
            if (b == "nk" or not _INFO[t]["nk_only"]) and (b == "kn" or not _INFO[t]["kn_only"])
            and _INFO[t][a] and (not batched or (_INFO[t]["batched"] and e == "none"))]


