#!/usr/bin/env python3
"""Builds the GPU suite's kernels with gpupoor-opt --gpupoor-to-cubin.

Each variant is a linalg function (from ../Numerics/cpu_kernel.py) compiled
to a cubin plus its JSON manifest in OUT_DIR. Runs on a machine with MLIR and
ptxas; the cubins then travel to the GPU machine.

  GPUPOOR_OPT=build/bin/gpupoor-opt python3 test/GPU/build_kernels.py OUT_DIR [--chip sm_90]

With `--formats isa` the kernels stay PTX (no ptxas; the manifests name the
.ptx): run_gpu_suite.py then loads them through the driver's JIT, which
compiles them for the GPU at hand. That is how the kernels of sm_80, sm_86
and sm_89 (their own tiles, stages and shared-memory limits) run on an H100
(docs/guide/Testing.md, "Older chips' kernels on a newer GPU").
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Numerics"))
from cpu_kernel import GPUPOOR_OPT, matmul_source  # noqa: E402
from skinny_shapes import ATTENTION, SKINNY_SHAPES  # noqa: E402

# name -> (source options, pipeline options)
VARIANTS = {
    "kn_f32": (dict(), "outer-type=f32"),
    "kn_f16": (dict(), "outer-type=f16"),
    "nk_f32": (dict(b_layout="nk"), "outer-type=f32"),
    "nk_bias_relu": (dict(b_layout="nk", bias="f16", epilogue="relu"), "outer-type=f32"),
    "kn_bias_gelu_f32out": (dict(bias="f32", epilogue="gelu", out_type="f32"), "outer-type=f32"),
    "kn_f16_s1": (dict(), "outer-type=f16 splits=1"),
    "kn_f32_s2": (dict(), "outer-type=f32 splits=2"),
    "kn_f32_s3": (dict(), "outer-type=f32 splits=3"),
    "kn_f32_s32": (dict(), "outer-type=f32 splits=32"),
    "kn_f32_s33": (dict(), "outer-type=f32 splits=33"),
    "kn_f32_st3": (dict(), "outer-type=f32 stages=3"),
    "kn_f32_pf0": (dict(), "outer-type=f32 fragment-prefetch=0"),
    "kn_f32_pf2": (dict(), "outer-type=f32 fragment-prefetch=2"),
    "kn_f16_w2x4": (dict(), "outer-type=f16 warps-m=2 warps-n=4"),
    # f32 outer sums: all in registers (2x4 warps of 64x32), all in shared
    # memory; f16 outer sums half in shared memory.
    "kn_f32_w2x4": (dict(), "outer-type=f32 warps-m=2 warps-n=4"),
    "kn_f32_so4": (dict(), "outer-type=f32 warps-m=2 warps-n=2 shared-outer-rows=4 stages=3"),
    "kn_f16_so2": (dict(), "outer-type=f16 shared-outer-rows=2"),
    # Stores straight from the fragments instead of through shared memory;
    # 8 warps of 64 x 64 (one block an SM); f32 C in two shared-memory
    # passes (its 64 rows do not fit the stages at once).
    "kn_f16_direct": (dict(), "outer-type=f16 shared-epilogue=false"),
    "kn_f32_mma_handover": (dict(), "outer-type=f32 mma-handover=true"),
    "kn_f16_256x128": (dict(), "outer-type=f16 tile=256,128,64 stages=3 warps-m=4 warps-n=2"),
    "kn_f32_256x128": (dict(), "outer-type=f32 tile=256,128,64 stages=3 warps-m=4 warps-n=2"),
    "nk_f16": (dict(b_layout="nk"), "outer-type=f16"),
    # The split counts and epilogues again with B as N x K: on sm_90a these
    # are the wgmma kernel's (--chip sm_90a), which takes only that layout.
    "nk_f16_s1": (dict(b_layout="nk"), "outer-type=f16 splits=1"),
    "nk_f32_s2": (dict(b_layout="nk"), "outer-type=f32 splits=2"),
    "nk_f32_s3": (dict(b_layout="nk"), "outer-type=f32 splits=3"),
    "nk_f32_s32": (dict(b_layout="nk"), "outer-type=f32 splits=32"),
    "nk_f32_s33": (dict(b_layout="nk"), "outer-type=f32 splits=33"),
    "nk_bias_gelu_f32out": (dict(b_layout="nk", bias="f32", epilogue="gelu", out_type="f32"),
                            "outer-type=f32"),
    # 64-bit indices and sizes: operands of 2^31 elements and more
    # (run_gpu_suite.py --big).
    "kn_f16_wide": (dict(), "outer-type=f16 index-bitwidth=64"),
    "nk_f16_wide": (dict(b_layout="nk"), "outer-type=f16 index-bitwidth=64"),
    "gen_nk_f16_wide": (dict(b_layout="nk"), "outer-type=f16 index-bitwidth=64 async-copies=false"),
    # Element-wise tile loads: any alignment and strides.
    "gen_kn_f32": (dict(), "outer-type=f32 async-copies=false"),
    "gen_kn_f16_s3": (dict(), "outer-type=f16 splits=3 async-copies=false"),
    "gen_nk_bias_relu": (dict(b_layout="nk", bias="f16", epilogue="relu"),
                         "outer-type=f32 async-copies=false"),
    # C += A*B: the kernel reads C.
    "kn_acc_f32": (dict(accumulate=True, out_type="f32"), "outer-type=f32"),
    "gen_nk_acc_f16": (dict(b_layout="nk", accumulate=True), "outer-type=f16 async-copies=false"),
    # Epilogue regions with four operands (C_in, a bias per column, a scale
    # per row, a full-size residual), read through strides; f32 C stored
    # straight from the fragments.
    "kn_full_epilogue": (dict(accumulate=True, bias="f16", epilogue="relu", row_scale=True,
                              residual=True), "outer-type=f32"),
    "nk_full_epilogue_f32_direct": (dict(b_layout="nk", bias="f32", epilogue="gelu",
                                         row_scale=True, residual=True, out_type="f32"),
                                    "outer-type=f32 shared-epilogue=false"),
    # Parallel split-k: P' slices in grid y, met in a workspace by the
    # tile's last block. P = 0 chooses P' at run time from the shape; 65535
    # clamps to S (every chunk its own slice). Small-M tiles (BM = 16, 32,
    # 64) as decode shapes take them.
    "kn_f32_p0": (dict(), "outer-type=f32 slices=0"),
    "kn_f16_p3": (dict(), "outer-type=f16 slices=3"),
    "nk_f32_p2": (dict(b_layout="nk"), "outer-type=f32 slices=2"),
    "nk_f16_p7": (dict(b_layout="nk"), "outer-type=f16 slices=7"),
    # S fixed (splits=), so P' too: the mma.sync kernel (kn; 16-row tiles in
    # eight slices, f16 outer sums in two) and the TMA kernel (nk, 128 x
    # 256, three slices).
    "kn_f16_s4_p2": (dict(), "outer-type=f16 splits=4 slices=2"),
    "kn_f32_m16_s16_p8": (dict(), "outer-type=f32 splits=16 slices=8 tile=16,128,128"),
    "nk_f32_s8_p3": (dict(b_layout="nk"), "outer-type=f32 splits=8 slices=3"),
    "kn_f32_pmax": (dict(), "outer-type=f32 slices=65535"),
    # S from the launch (splits-arg): the mma.sync kernel in automatic
    # slices, and the TMA kernels (128 x 128 in slices, 64 x 128, the
    # swapped decode tile's 64 x 16) -- run_gpu_suite's splits_arg_suite
    # passes several S.
    "kn_f32_sarg_p0": (dict(), "outer-type=f32 slices=0 splits-arg=true"),
    "nk_f16_sarg_p3": (dict(b_layout="nk"),
                       "outer-type=f16 slices=3 tile=128,128,64 splits-arg=true"),
    "nk_f32_sarg_m64": (dict(b_layout="nk"), "outer-type=f32 tile=64,128,64 splits-arg=true"),
    "nk_f32_sarg_n16": (dict(b_layout="nk"), "outer-type=f32 tile=64,16,128 splits-arg=true"),
    "nk_f32_m16_p0": (dict(b_layout="nk"), "outer-type=f32 slices=0 tile=16,128,64"),
    "nk_f16_m32_p7": (dict(b_layout="nk"), "outer-type=f16 slices=7 tile=32,128,64"),
    "kn_f32_m64_p2": (dict(), "outer-type=f32 slices=2 tile=64,128,64"),
    # With B as N x K the 64-row tiles are sm_90a's one-warpgroup wgmma
    # kernel (192 KiB of stages for dynamic shapes: 8 of 64 x 128, 12 of
    # 64 x 64).
    "nk_f32_m64_p0": (dict(b_layout="nk"), "outer-type=f32 slices=0 tile=64,128,64"),
    "nk_f16_m64_p3": (dict(b_layout="nk"), "outer-type=f16 slices=3 tile=64,128,64"),
    "nk_bias_gelu_m64": (dict(b_layout="nk", bias="f16", epilogue="gelu"),
                         "outer-type=f32 tile=64,128,64"),
    "nk_f32_m64n64_p0": (dict(b_layout="nk"), "outer-type=f32 slices=0 tile=64,64,64"),
    "nk_f16_m64n64_s3": (dict(b_layout="nk"), "outer-type=f16 splits=3 tile=64,64,64"),
    "nk_bias_relu_m64n64_p2": (dict(b_layout="nk", bias="f16", epilogue="relu"),
                               "outer-type=f32 slices=2 tile=64,64,64"),
    # sm_90a's warp-specialized kernel: a producer warpgroup loads the
    # tiles by TMA into an mbarrier ring (tensor maps among the parameters).
    # It is sm_90a's default, so the nk variants above build it there where
    # it applies (2-D, 32-bit index); these pin it, the 128 x 128 tile of
    # one-wave mid-size products, and the cp.async wgmma kernel (tma=false).
    "nk_f32_tma": (dict(b_layout="nk"), "outer-type=f32 tma=true"),
    "nk_f16_tma_s3": (dict(b_layout="nk"), "outer-type=f16 splits=3 tma=true"),
    "nk_f32_tma_p0": (dict(b_layout="nk"), "outer-type=f32 slices=0 tma=true"),
    "nk_bias_gelu_tma": (dict(b_layout="nk", bias="f16", epilogue="gelu"),
                         "outer-type=f32 tma=true"),
    "nk_f32_tma_m64_p2": (dict(b_layout="nk"),
                          "outer-type=f32 slices=2 tile=64,128,64 tma=true"),
    "nk_f32_tma_128x128": (dict(b_layout="nk"), "outer-type=f32 tile=128,128,64 tma=true"),
    # The decode products' swapped tile (C^T = B A^T by the 64 x 16 x 128
    # kernel, policy::kSwappedDecodeTile, gpupoor-swap-operands): the kernel
    # itself at every shape, in one and in three slices, and at BK = 64;
    # and static decode products that gpupoor-split-k swaps (the suite
    # launches them with B, A and C's transposed view, as their manifest
    # says).
    "nk_f32_tma_n16": (dict(b_layout="nk"), "outer-type=f32 tile=64,16,128"),
    "nk_f16_tma_n16_p3": (dict(b_layout="nk"), "outer-type=f16 slices=3 tile=64,16,128"),
    "nk_f32_tma_n16_k64": (dict(b_layout="nk"), "outer-type=f32 tile=64,16,64"),
    # The 32-row tile (wgmma's m64 computes 32 rows it does not store; BK =
    # 256, four atoms a stage) at every shape, in one and in three slices.
    "nk_f32_tma_t32": (dict(b_layout="nk"), "outer-type=f32 tile=32,16,256"),
    "nk_f16_tma_t32_p3": (dict(b_layout="nk"), "outer-type=f16 slices=3 tile=32,16,256"),
    # K tiles of two or four atoms (BK = 128, 256) on other tiles and on the
    # cp.async wgmma kernel, whose copies lay out the same atoms.
    "nk_f32_tma_bk128": (dict(b_layout="nk"), "outer-type=f32 tile=128,128,128"),
    "nk_f16_tma_n16_bk256_p3": (dict(b_layout="nk"), "outer-type=f16 slices=3 tile=64,16,256"),
    "nk_f32_cpa_bk128": (dict(b_layout="nk"), "outer-type=f32 tile=64,128,128 tma=false"),
    "nk_f32_cpa_t32": (dict(b_layout="nk"), "outer-type=f32 tile=32,16,256 tma=false"),
    # Clusters of two along M sharing B's tile by TMA multicast (cluster-m=2,
    # B as N x K): one and two consumer warpgroups, persistent pairs, an f16
    # outer sum in three chunks, a fused epilogue and A as K x M.
    "nk_f32_c2": (dict(b_layout="nk"), "outer-type=f32 tma=true persistent=false cluster-m=2"),
    "nk_f32_pc2": (dict(b_layout="nk"), "outer-type=f32 tma=true persistent=true cluster-m=2"),
    "nk_f16_c2_m64_s3": (dict(b_layout="nk"),
                         "outer-type=f16 splits=3 tile=64,128,64 tma=true cluster-m=2"),
    "nk_bias_gelu_pc2": (dict(b_layout="nk", bias="f16", epilogue="gelu"),
                         "outer-type=f32 tile=128,192,64 tma=true persistent=true cluster-m=2"),
    "km_f32_c2": (dict(a_layout="km", b_layout="nk"),
                  "outer-type=f32 tma=true persistent=false cluster-m=2"),
    "kn_f32_c2": (dict(), "outer-type=f32 tma=true persistent=false cluster-m=2"),
    "kn_f32_pc2": (dict(), "outer-type=f32 tma=true persistent=true cluster-m=2"),
    "kn_f16_c2_m64_s3": (dict(), "outer-type=f16 splits=3 tile=64,128,64 tma=true cluster-m=2"),
    "km_kn_f32_pc2": (dict(a_layout="km"), "outer-type=f32 tma=true persistent=true cluster-m=2"),
    # Clusters of four (each block loads a quarter of B's box rows into all
    # four) and clusters at two blocks an SM: the 128 x 256 tile, the
    # swapped decode tile's B of 16 columns read along N (A as K x M, B as
    # K x N: policy::clusterBlocks) in one block an SM, persistent, and two
    # blocks an SM with an f16 outer sum in three chunks; and static decode
    # products whose A is stored K x M, which the policy runs in clusters of
    # four (80 tiles, one block an SM) and of two (224, two blocks an SM),
    # with 16 and 32 rows (B's rows of 32 and 64 bytes).
    "nk_f32_c4": (dict(b_layout="nk"), "outer-type=f32 tma=true persistent=false cluster-m=4"),
    "km_kn_f32_n16_c4": (dict(a_layout="km"), "outer-type=f32 tile=64,16,128 cluster-m=4"),
    "km_kn_f32_n16_pc4": (dict(a_layout="km"),
                          "outer-type=f32 tile=64,16,64 persistent=true cluster-m=4"),
    "km_kn_f16_n16_c2_b2_s3": (dict(a_layout="km"),
                               "outer-type=f16 splits=3 tile=64,16,128 cluster-m=2 blocks-per-sm=2"),
    "km_swap_f32_16x5120x5120": (dict(shape=(16, 5120, 5120), a_layout="km"),
                                 "outer-type=f32 slices=0"),
    "km_kn_f32_n32_c4": (dict(a_layout="km"), "outer-type=f32 tile=64,32,128 cluster-m=4"),
    "km_swap_f32_32x6144x4096": (dict(shape=(32, 6144, 4096), a_layout="km", b_layout="nk"),
                                 "outer-type=f32 slices=0"),
    "km_swap_f16_32x12288x4096": (dict(shape=(32, 12288, 4096), a_layout="km"),
                                  "outer-type=f16 slices=0"),
    "km_swap_bias_relu_16x14336x4096": (dict(shape=(16, 14336, 4096), a_layout="km", bias="f16",
                                             epilogue="relu"), "outer-type=f32 slices=0"),
    # 8-column tiles of B as K x N (one unswizzled atom of 16-byte rows,
    # m64n8k16): alone, in parallel slices, with cp.async copies, in
    # clusters of four (also persistent) and of two at two blocks an SM
    # with an f16 outer sum in three chunks, and of two at one; and static
    # decode products of 8 rows whose A is stored K x M, which the policy
    # runs swapped on them (kSwappedKM8Tile) in clusters of four (80 tiles),
    # of two at two blocks an SM (224 and 160, a bias + ReLU epilogue and an
    # f16 outer sum) and of two at one (128).
    "kn_f32_n8": (dict(), "outer-type=f32 tile=64,8,128"),
    "kn_f32_n8_p3": (dict(), "outer-type=f32 slices=3 tile=64,8,128"),
    "kn_f32_n8_cpa": (dict(), "outer-type=f32 tile=64,8,128 tma=false"),
    "km_kn_f32_n8_c4": (dict(a_layout="km"), "outer-type=f32 tile=64,8,128 cluster-m=4"),
    "km_kn_f32_n8_pc4": (dict(a_layout="km"),
                         "outer-type=f32 tile=64,8,128 persistent=true cluster-m=4"),
    "km_kn_f32_n8_c2": (dict(a_layout="km"), "outer-type=f32 tile=64,8,128 cluster-m=2"),
    "km_kn_f16_n8_c2_b2_s3": (dict(a_layout="km"),
                              "outer-type=f16 splits=3 tile=64,8,128 cluster-m=2 blocks-per-sm=2"),
    "km_swap_f32_8x5120x5120": (dict(shape=(8, 5120, 5120), a_layout="km"),
                                "outer-type=f32 slices=0"),
    "km_swap_bias_relu_8x14336x4096": (dict(shape=(8, 14336, 4096), a_layout="km", b_layout="nk",
                                            bias="f16", epilogue="relu"), "outer-type=f32 slices=0"),
    "km_swap_f16_8x10240x8192": (dict(shape=(8, 10240, 8192), a_layout="km"),
                                 "outer-type=f16 slices=0"),
    "km_swap_f32_8x8192x8192": (dict(shape=(8, 8192, 8192), a_layout="km", b_layout="nk"),
                                "outer-type=f32 slices=0"),
    "nk_swap_f32_1x4096x14336": (dict(shape=(1, 4096, 14336), b_layout="nk"), "outer-type=f32"),
    # The 16 x 256 x 128 mma.sync decode tile (policy::kWideDecodeTile):
    # dynamic, with S from the launch and in slices; the swapped tile that a
    # 28672-row weight stored N x K takes past two tiles an SM (448 tiles,
    # two blocks an SM), and the 16 x 128 tile that 16 rows of a
    # 32000-column weight stored K x N take (bias and ReLU after).
    "nk_f32_m16n256_p0": (dict(b_layout="nk"), "outer-type=f32 slices=0 tile=16,256,128"),
    "kn_f16_m16n256_p3": (dict(), "outer-type=f16 slices=3 tile=16,256,128"),
    "nk_f32_m16n256_sarg": (dict(b_layout="nk"),
                            "outer-type=f32 tile=16,256,128 splits-arg=true"),
    "nk_swap_wide_f32_4x28672x8192": (dict(shape=(4, 28672, 8192), b_layout="nk"),
                                      "outer-type=f32 slices=0"),
    # The same past two tiles an SM (297) with N and K tails, a bias and f16
    # outer sums.
    "nk_swap_wide_bias_f16_16x19000x1000": (dict(shape=(16, 19000, 1000), b_layout="nk",
                                                 bias="f16"), "outer-type=f16 slices=0"),
    "kn_wide_decode_bias_relu_16x32000x4096": (dict(shape=(16, 32000, 4096), bias="f16",
                                                    epilogue="relu"), "outer-type=f32 slices=0"),
    # B as K x N: the 16 x 256 tile up to 8 rows (policy::wideDecodeTileFits)
    # and the 16 x 128 one from 8 rows where its tiles take one slice
    # (policy::kMmaDecodeKNRows), as the rules take them.
    "kn_wide_decode_f32_4x28672x8192": (dict(shape=(4, 28672, 8192)), "outer-type=f32 slices=0"),
    "kn_wide_decode_bias_f16_7x25600x4096": (dict(shape=(7, 25600, 4096), bias="f16"),
                                             "outer-type=f16 slices=0"),
    "kn_mma_decode_f32_8x13824x5120": (dict(shape=(8, 13824, 5120)), "outer-type=f32 slices=0"),
    "kn_mma_decode_gelu_13x11392x8192": (dict(shape=(13, 11392, 8192), bias="f16",
                                              epilogue="gelu"), "outer-type=f32 slices=0"),
    # Several f16 sums a chunk on the mma.sync kernel (sets): the decode
    # tiles in automatic and fixed slices, f16 outer sums, S from the
    # launch, the tensor-core handover, the element copies, a 32-row tile,
    # a static decode product.
    "nk_f32_m16_sets4_p0": (dict(b_layout="nk"), "outer-type=f32 slices=0 tile=16,128,64 sets=4"),
    "kn_f16_m16n256_sets4_p3": (dict(), "outer-type=f16 slices=3 tile=16,256,128 sets=4"),
    "kn_f32_m16_sets2_sarg": (dict(), "outer-type=f32 tile=16,128,128 splits-arg=true sets=2"),
    "nk_f32_m16_sets4_mmah": (dict(b_layout="nk"),
                              "outer-type=f32 tile=16,128,64 sets=4 mma-handover=true"),
    "gen_kn_f32_m16_sets4_p3": (dict(), "outer-type=f32 slices=3 tile=16,128,64 sets=4 "
                                "async-copies=false"),
    "nk_f16_m32_sets2_p0": (dict(b_layout="nk"), "outer-type=f16 slices=0 tile=32,128,64 sets=2"),
    "kn_mma_decode_sets4_f32_8x13824x5120": (dict(shape=(8, 13824, 5120)),
                                             "outer-type=f32 slices=0 sets=4"),
    # Odd products transposed on request (swap=true) in tile widths that
    # fill whole waves, and such a width as the product stands (B as N x K).
    "kn_swap208_f32_1032x5976x1648": (dict(shape=(1032, 5976, 1648)),
                                      "outer-type=f32 swap=true tile=128,208,64 persistent=false"),
    "kn_swap144_bias_848x7432x1720": (dict(shape=(848, 7432, 1720), bias="f16"),
                                      "outer-type=f32 swap=true tile=128,144,64 persistent=false"),
    "nk_f16_208_p0": (dict(b_layout="nk"), "outer-type=f16 slices=0 tile=128,208,64"),
    "kn_f32_swap144": (dict(), "outer-type=f32 swap=true tile=128,144,64"),
    # Two sums where a warp's outer sums are half in shared memory (32 x
    # 256: warps of 32 x 64), and fragments loaded 0 and 2 steps ahead.
    "nk_f32_m32n256_sets2_so": (dict(b_layout="nk"), "outer-type=f32 tile=32,256,64 sets=2"),
    "kn_f32_m16_sets4_pf0": (dict(), "outer-type=f32 slices=2 tile=16,128,128 sets=4 "
                             "fragment-prefetch=0"),
    "nk_f16_m16_sets2_pf2": (dict(b_layout="nk"), "outer-type=f16 tile=16,128,64 sets=2 "
                             "fragment-prefetch=2"),
    # 192-row tiles over three consumer warpgroups, and 96 columns (B as K x
    # N: three 32-column atoms of 64-byte swizzled rows): alone, in
    # slices, persistent with stream-K, in clusters of two, batched, with
    # a bias and GELU; A as K x M; 96 columns over two warpgroups.
    "nk_f32_192x96": (dict(b_layout="nk"), "outer-type=f32 tile=192,96,64"),
    "kn_f16_192x96_p3": (dict(), "outer-type=f16 slices=3 tile=192,96,64"),
    "kn_f32_192x96_sk": (dict(), "outer-type=f32 tile=192,96,64 persistent=true stream-k=true"),
    "kn_f32_192x96_c2": (dict(), "outer-type=f32 tile=192,96,64 cluster-m=2"),
    "nk_bat_f32_192x96": (dict(batched=True, b_layout="nk"), "outer-type=f32 tile=192,96,64"),
    "kn_bias_gelu_192x96": (dict(bias="f16", epilogue="gelu"), "outer-type=f32 tile=192,96,64"),
    "km_kn_f32_192x96": (dict(a_layout="km"), "outer-type=f32 tile=192,96,64"),
    "kn_f32_128x96": (dict(), "outer-type=f32 tile=128,96,64"),
    # 64 x 96 tiles over one consumer warpgroup (policy's ninetySixFills):
    # B either way, in slices, with a bias and ReLU, A as K x M.
    "nk_f32_64x96": (dict(b_layout="nk"), "outer-type=f32 tile=64,96,64"),
    "kn_f16_64x96_p3": (dict(), "outer-type=f16 slices=3 tile=64,96,64"),
    "kn_bias_relu_64x96": (dict(bias="f16", epilogue="relu"), "outer-type=f32 tile=64,96,64"),
    "km_kn_f32_64x96": (dict(a_layout="km"), "outer-type=f32 tile=64,96,64"),
    "km_nk_f16_64x96": (dict(a_layout="km", b_layout="nk"), "outer-type=f16 tile=64,96,64"),
    # 160 columns of B as K x N: five 32-column atoms of 64-byte swizzled
    # rows, over one and two consumer warpgroups, in slices, persistent
    # (with stream-K), in clusters of two, batched, with a bias and GELU,
    # f32 out; A as K x M.
    "kn_f32_128x160": (dict(), "outer-type=f32 tile=128,160,64"),
    "kn_f16_128x160_p3": (dict(), "outer-type=f16 slices=3 tile=128,160,64"),
    "kn_f32out_128x160_sk": (dict(out_type="f32"),
                             "outer-type=f32 tile=128,160,64 persistent=true stream-k=true"),
    "kn_f32_128x160_c2": (dict(), "outer-type=f32 tile=128,160,64 cluster-m=2"),
    "kn_bat_f32_128x160": (dict(batched=True), "outer-type=f32 tile=128,160,64"),
    "kn_bias_gelu_64x160": (dict(bias="f16", epilogue="gelu"), "outer-type=f32 tile=64,160,64"),
    "km_kn_f32_128x160_pers": (dict(a_layout="km"),
                               "outer-type=f32 tile=128,160,64 persistent=true"),
    "km_kn_f16_64x160": (dict(a_layout="km"), "outer-type=f16 tile=64,160,64"),
    # 176 and 224 columns of B as N x K (wideTile): a block a tile,
    # in slices, persistent (with stream-K), in clusters of two,
    # batched (176: the cp.async kernel of a shared B too), with a bias and
    # ReLU, f32 out; A as K x M; the element-copy fallback's last round of
    # 176 columns (1408 chunks over 256 threads) where the rows are not
    # 16-byte aligned, and the cp.async kernel's.
    "nk_f32_128x176": (dict(b_layout="nk"), "outer-type=f32 tile=128,176,64"),
    "nk_f16_128x176_p3": (dict(b_layout="nk"), "outer-type=f16 slices=3 tile=128,176,64"),
    "nk_f32_128x176_pers": (dict(b_layout="nk"), "outer-type=f32 tile=128,176,64 persistent=true"),
    "nk_f32_128x176_sk": (dict(b_layout="nk"),
                          "outer-type=f32 tile=128,176,64 persistent=true stream-k=true"),
    "nk_f32_128x176_c2": (dict(b_layout="nk"), "outer-type=f32 tile=128,176,64 cluster-m=2"),
    "nk_bat_f32_128x176": (dict(batched=True, b_layout="nk"), "outer-type=f32 tile=128,176,64"),
    "nk_f32_128x176_cpa": (dict(b_layout="nk"), "outer-type=f32 tile=128,176,64 tma=false"),
    "km_nk_bias_relu_128x176": (dict(a_layout="km", b_layout="nk", bias="f16", epilogue="relu"),
                                "outer-type=f32 tile=128,176,64"),
    "nk_f32_128x224": (dict(b_layout="nk"), "outer-type=f32 tile=128,224,64"),
    "nk_f16_128x224_p3": (dict(b_layout="nk"), "outer-type=f16 slices=3 tile=128,224,64"),
    "nk_f32out_128x224_sk": (dict(out_type="f32", b_layout="nk"),
                             "outer-type=f32 tile=128,224,64 persistent=true stream-k=true"),
    "nk_f32_128x224_c2": (dict(b_layout="nk"), "outer-type=f32 tile=128,224,64 cluster-m=2"),
    "km_nk_f32_128x224_pers": (dict(a_layout="km", b_layout="nk"),
                               "outer-type=f32 tile=128,224,64 persistent=true"),
    # 224 columns of B as K x N: seven 32-column atoms of 64-byte swizzled
    # rows, a block a tile, in slices, persistent (with stream-K), in
    # clusters of two (also persistent), batched, with a bias and GELU, f32
    # out; A as K x M; the cp.async kernel's copies.
    "kn_f32_128x224": (dict(), "outer-type=f32 tile=128,224,64"),
    "kn_f16_128x224_p3": (dict(), "outer-type=f16 slices=3 tile=128,224,64"),
    "kn_f32out_128x224_sk": (dict(out_type="f32"),
                             "outer-type=f32 tile=128,224,64 persistent=true stream-k=true"),
    "kn_f32_128x224_c2": (dict(), "outer-type=f32 tile=128,224,64 cluster-m=2"),
    "kn_f32_128x224_pc2": (dict(), "outer-type=f32 tile=128,224,64 persistent=true cluster-m=2"),
    "kn_bat_f32_128x224": (dict(batched=True), "outer-type=f32 tile=128,224,64"),
    "kn_bias_gelu_128x224_pers": (dict(bias="f16", epilogue="gelu"),
                                  "outer-type=f32 tile=128,224,64 persistent=true"),
    "km_kn_f32_128x224_pers": (dict(a_layout="km"),
                               "outer-type=f32 tile=128,224,64 persistent=true"),
    "kn_f32_128x224_cpa": (dict(), "outer-type=f32 tile=128,224,64 tma=false"),
    "nk_swap_bias_relu_16x4096x4096": (dict(shape=(16, 4096, 4096), b_layout="nk", bias="f16",
                                            epilogue="relu"), "outer-type=f32 slices=0"),
    # Fewer swapped 64-row tiles than a quarter of the SMs: 32-row tiles,
    # 64 in one slice, 32 in 4 (the epilogue after the meeting of the
    # slices).
    "nk_swap_bias_gelu_1x2048x5120": (dict(shape=(1, 2048, 5120), b_layout="nk", bias="f16",
                                           epilogue="gelu"), "outer-type=f32 slices=0"),
    "nk_swap_f16_16x1024x4096": (dict(shape=(16, 1024, 4096), b_layout="nk"),
                                 "outer-type=f16 slices=0"),
    # Two blocks an SM (half the registers at launch, a consumer warpgroup
    # of 232): chosen where a static grid of 64-row tiles exceeds the SMs
    # (14336 / 64 = 224 swapped tiles), pinned at every shape.
    "nk_swap_f32_16x14336x4096": (dict(shape=(16, 14336, 4096), b_layout="nk"),
                                  "outer-type=f32"),
    # B as K x N on the swapped decode kernel: its A is B read along N
    # (a_layout = km), its B is A.
    "kn_swap_f32_1x4096x14336": (dict(shape=(1, 4096, 14336)), "outer-type=f32"),
    "kn_swap_bias_relu_16x4096x4096": (dict(shape=(16, 4096, 4096), bias="f16", epilogue="relu"),
                                       "outer-type=f32 slices=0"),
    "kn_swap_bias_gelu_1x2048x5120": (dict(shape=(1, 2048, 5120), bias="f16", epilogue="gelu"),
                                      "outer-type=f32 slices=0"),
    # Two blocks an SM (172 tiles), where the 16 x 128 tile would take
    # slices (86 tiles: policy::kMmaDecodeKNRows).
    "kn_swap_f16_16x11008x4096": (dict(shape=(16, 11008, 4096)), "outer-type=f16"),
    # Past two swapped tiles an SM (17024 / 64 = 266): 8 rows still swapped
    # below K = 2048 (policy::kWideSwappedKNRows, kMmaDecodeKNMinK), two
    # blocks an SM; K = 1000 ends in a part of a K tile.
    "kn_swap_wide_f32_8x17024x1000": (dict(shape=(8, 17024, 1000)), "outer-type=f32 slices=0"),
    # A as K x M (a transposed activation, as in a weight gradient): sm_90a's
    # wgmma kernel reads it M-major, by TMA and by cp.async, with B either
    # way; one and two consumer warpgroups, BK = 128, slices, persistent
    # blocks, stream-K, the split handover and batched operands.
    "km_f32_tma": (dict(a_layout="km", b_layout="nk"), "outer-type=f32 tma=true"),
    "km_kn_f16_tma_s3": (dict(a_layout="km"), "outer-type=f16 splits=3 tma=true"),
    "km_kn_bias_gelu_tma": (dict(a_layout="km", bias="f16", epilogue="gelu"),
                            "outer-type=f32 tma=true"),
    "km_f32_tma_m64_p2": (dict(a_layout="km", b_layout="nk"),
                          "outer-type=f32 slices=2 tile=64,128,64 tma=true"),
    "km_kn_f32_tma_bk128": (dict(a_layout="km"), "outer-type=f32 tile=128,128,128 tma=true"),
    "km_f32_cpa": (dict(a_layout="km", b_layout="nk"), "outer-type=f32 tma=false"),
    "km_kn_bias_relu_cpa_bk128": (dict(a_layout="km", bias="f16", epilogue="relu"),
                                  "outer-type=f32 tile=64,128,128 tma=false"),
    "km_kn_f32_tma_pers": (dict(a_layout="km"), "outer-type=f32 tma=true persistent=true"),
    "km_f32_tma_pers_sk": (dict(a_layout="km", b_layout="nk"),
                           "outer-type=f32 tma=true persistent=true stream-k=true"),
    "km_kn_f32_tma_split": (dict(a_layout="km"), "outer-type=f32 split-handover=true"),
    "km_kn_f32_batched_tma_pers": (dict(batched=True, a_layout="km"),
                                   "outer-type=f32 tma=true persistent=true"),
    "km_f16_batched_p0": (dict(batched=True, a_layout="km", b_layout="nk"),
                          "outer-type=f16 slices=0"),
    "gen_km_kn_f32": (dict(a_layout="km"), "outer-type=f32 async-copies=false"),
    "nk_f32_tma_n16_b2": (dict(b_layout="nk"), "outer-type=f32 tile=64,16,128 blocks-per-sm=2"),
    # Deferred handovers (KernelSpec::defersHandover) where a block takes
    # several work tiles.
    "nk_f32_tma_n16_pers": (dict(b_layout="nk"), "outer-type=f32 tile=64,16,64 persistent=true"),
    "nk_bias_gelu_m64_b2_p2": (dict(b_layout="nk", bias="f16", epilogue="gelu"),
                               "outer-type=f32 slices=2 tile=64,128,64 blocks-per-sm=2"),
    # Tiles whose row vectors do not split the warp (192 and 160 f16
    # columns: 24 and 20 lanes a row) read the shared-memory epilogue back
    # in rounds of a row and a part.
    "nk_f32_tma_n192": (dict(b_layout="nk"), "outer-type=f32 tile=128,192,64"),
    "nk_bias_gelu_n160_p2": (dict(b_layout="nk", bias="f16", epilogue="gelu"),
                             "outer-type=f32 slices=2 tile=128,160,64"),
    "nk_f32out_n160_pers": (dict(b_layout="nk", out_type="f32"),
                            "outer-type=f32 tile=128,160,64 persistent=true"),
    "nk_f32_cpa": (dict(b_layout="nk"), "outer-type=f32 tma=false"),
    "nk_f16_m64_p3_cpa": (dict(b_layout="nk"), "outer-type=f16 slices=3 tile=64,128,64 tma=false"),
    "nk_bias_gelu_cpa": (dict(b_layout="nk", bias="f16", epilogue="gelu"),
                         "outer-type=f32 tma=false"),
    # Persistent blocks: the suite launches them on 3 blocks, so that each
    # loops over tiles and the ring runs on across them.
    "nk_f32_tma_pers": (dict(b_layout="nk"), "outer-type=f32 tma=true persistent=true"),
    # Chosen for a static grid beyond a wave (8 x 18 = 144 tiles of 128 x
    # 256), with a K tail.
    "nk_bias_relu_1024x4608x328": (dict(shape=(1024, 4608, 328), b_layout="nk", bias="f16",
                                        epilogue="relu"), "outer-type=f32"),
    "nk_bias_gelu_tma_pers": (dict(b_layout="nk", bias="f16", epilogue="gelu"),
                              "outer-type=f32 tma=true persistent=true"),
    # Its shared-memory epilogue in column passes through a buffer of its
    # own: f32 C (8 passes), one consumer warpgroup, and from the fragments.
    "nk_f32out_tma_pers": (dict(b_layout="nk", out_type="f32"),
                           "outer-type=f32 tma=true persistent=true"),
    "nk_f16_tma_m64_pers": (dict(b_layout="nk"),
                            "outer-type=f16 tile=64,128,64 tma=true persistent=true"),
    # Stream-K: the suite's three blocks share the tiles past whole waves
    # (every launch of T > 3 tiles, T mod 3 > 0): whole tiles, pieces that
    # leave their sums, owners that add them; deferred handovers (64 x 16)
    # and f32 C too.
    "nk_f32_tma_pers_sk": (dict(b_layout="nk"),
                           "outer-type=f32 tma=true persistent=true stream-k=true"),
    "nk_bias_gelu_tma_pers_sk": (dict(b_layout="nk", bias="f16", epilogue="gelu"),
                                 "outer-type=f32 tma=true persistent=true stream-k=true"),
    "nk_f32_tma_n16_pers_sk": (dict(b_layout="nk"),
                               "outer-type=f32 tile=64,16,64 persistent=true stream-k=true"),
    "nk_f32out_n160_pers_sk": (dict(b_layout="nk", out_type="f32"),
                               "outer-type=f32 tile=128,160,64 persistent=true stream-k=true"),
    # The split handover (two column halves, no order barrier): its chunks
    # of two or more K tiles and, where a chunk has one (short K, many
    # splits), the convert handover it falls back to at run time; with f16
    # outer sums, slices, persistent blocks, 160 columns (halves of 80) and
    # f32 C; chosen by default for a static product of few tiles.
    "nk_f32_tma_split": (dict(b_layout="nk"), "outer-type=f32 split-handover=true"),
    "nk_f16_tma_split_s3": (dict(b_layout="nk"),
                            "outer-type=f16 splits=3 split-handover=true"),
    "nk_f32_tma_128x128_split_p2": (dict(b_layout="nk"),
                                    "outer-type=f32 slices=2 tile=128,128,64 "
                                    "split-handover=true"),
    "nk_bias_gelu_tma_pers_split": (dict(b_layout="nk", bias="f16", epilogue="gelu"),
                                    "outer-type=f32 persistent=true split-handover=true"),
    "nk_f32out_n160_pers_split": (dict(b_layout="nk", out_type="f32"),
                                  "outer-type=f32 tile=128,160,64 persistent=true "
                                  "split-handover=true"),
    "nk_bias_relu_1024x4096x1024": (dict(shape=(1024, 4096, 1024), b_layout="nk", bias="f16",
                                         epilogue="relu"), "outer-type=f32"),
    "nk_f32_tma_pers_frag": (dict(b_layout="nk"),
                             "outer-type=f32 tma=true persistent=true shared-epilogue=false"),
    "nk_f32_m16_p0_so": (dict(b_layout="nk"),
                         "outer-type=f32 slices=0 tile=16,128,64 shared-outer-rows=1 "
                         "shared-epilogue=false"),
    "gen_nk_f32_m16_p3": (dict(b_layout="nk"),
                          "outer-type=f32 slices=3 tile=16,128,64 async-copies=false"),
    "nk_f16_wide_p0": (dict(b_layout="nk"), "outer-type=f16 index-bitwidth=64 slices=0"),
    "nk_bias_relu_p0": (dict(b_layout="nk", bias="f16", epilogue="relu"),
                        "outer-type=f32 slices=0"),
    "kn_full_epilogue_p3": (dict(accumulate=True, bias="f16", epilogue="relu", row_scale=True,
                                 residual=True), "outer-type=f32 slices=3"),
    "gen_nk_acc_f16_p2": (dict(b_layout="nk", accumulate=True),
                          "outer-type=f16 async-copies=false slices=2"),
    # Batched products in one launch (batch strides in the ABI), sequential
    # and parallel.
    # (bench_skinny.py --batched times the f32 ones against cuBLAS.)
    "kn_f32_batched": (dict(batched=True), "outer-type=f32"),
    "kn_f32_batched_p0": (dict(batched=True), "outer-type=f32 slices=0"),
    # The short-K tile of sm_90 (selectTile: a K of 512 or less whose 128 x
    # 128 tiles leave SMs idle).
    "kn_f32_batched_128x64": (dict(batched=True), "outer-type=f32 tile=128,64,32"),
    "kn_f16_128x64_p3": (dict(), "outer-type=f16 slices=3 tile=128,64,32"),
    "nk_f32_batched": (dict(batched=True, b_layout="nk"), "outer-type=f32"),
    "nk_f32_batched_p0": (dict(batched=True, b_layout="nk"), "outer-type=f32 slices=0"),
    "nk_f16_batched_p0": (dict(batched=True, b_layout="nk"), "outer-type=f16 slices=0"),
    # sm_90a's TMA kernel on batched operands (rank-3 tensor maps): its
    # persistent blocks loop over every element's tiles, two consumer
    # warpgroups storing C by TMA, and one; with their _async fallback.
    "nk_f32_batched_tma_pers": (dict(batched=True, b_layout="nk"),
                                "outer-type=f32 tma=true persistent=true"),
    "nk_f16_batched_tma_m64_pers": (dict(batched=True, b_layout="nk"),
                                    "outer-type=f16 tile=64,128,64 tma=true persistent=true"),
    # The split handover where it is asked for (auto leaves batched products
    # alone).
    "nk_f32_batched_tma_pers_split": (dict(batched=True, b_layout="nk"),
                                      "outer-type=f32 tma=true persistent=true "
                                      "split-handover=true"),
    # An epilogue operand after the batch count: a bias the batch shares.
    "nk_bias_relu_batched_tma_pers": (dict(batched=True, b_layout="nk", bias="f16",
                                           epilogue="relu"),
                                      "outer-type=f32 tma=true persistent=true"),
    "kn_bias_relu_batched": (dict(batched=True, bias="f16", epilogue="relu"), "outer-type=f32"),
    # B as K x N on sm_90a's wgmma kernel (N-major B, atoms of 64 N
    # columns): the TMA kernel's tiles, slices, persistent blocks, stream-K,
    # the split handover and batches, and the cp.async kernel (the kn_*
    # variants above take it too where their options fit it).
    "kn_f32_tma": (dict(), "outer-type=f32 tma=true"),
    "kn_f16_tma_s3": (dict(), "outer-type=f16 splits=3 tma=true"),
    "kn_f32_tma_p0": (dict(), "outer-type=f32 slices=0 tma=true"),
    "kn_bias_gelu_tma": (dict(bias="f16", epilogue="gelu"), "outer-type=f32 tma=true"),
    "kn_f32_tma_m64_p2": (dict(), "outer-type=f32 slices=2 tile=64,128,64 tma=true"),
    "kn_f32_tma_n64": (dict(), "outer-type=f32 tile=64,64,64 tma=true"),
    "kn_f32_tma_128x128": (dict(), "outer-type=f32 tile=128,128,64 tma=true"),
    "kn_f32_tma_bk128": (dict(), "outer-type=f32 tile=128,128,128"),
    "kn_f16_tma_bk256_p3": (dict(), "outer-type=f16 slices=3 tile=64,64,256"),
    "kn_f32_tma_n192": (dict(), "outer-type=f32 tile=128,192,64"),
    "kn_f32_cpa": (dict(), "outer-type=f32 tma=false"),
    "kn_f32_tma_pers": (dict(), "outer-type=f32 tma=true persistent=true"),
    "kn_f32out_tma_pers": (dict(out_type="f32"), "outer-type=f32 tma=true persistent=true"),
    "kn_f32_tma_pers_sk": (dict(), "outer-type=f32 tma=true persistent=true stream-k=true"),
    "kn_f32_tma_split": (dict(), "outer-type=f32 split-handover=true"),
    "kn_f16_tma_128x128_split_p2": (dict(), "outer-type=f16 slices=2 tile=128,128,64 "
                                    "split-handover=true"),
    "kn_f32_batched_tma_pers": (dict(batched=True), "outer-type=f32 tma=true persistent=true"),
    "kn_f16_batched_tma_m64": (dict(batched=True), "outer-type=f16 tile=64,128,64 tma=true"),
    # Decode-sized products with B as K x N: 64-row tiles (rows past M read
    # as TMA's zero fill) and the 32-row tile (wgmma's m64 reads 32 rows
    # past A's), in parallel slices.
    "kn_f32_tma_n64_p0": (dict(), "outer-type=f32 slices=0 tile=64,64,64"),
    "kn_f32_tma_m64_p0": (dict(), "outer-type=f32 slices=0 tile=64,128,64"),
    "kn_f32_tma_t32_p0": (dict(), "outer-type=f32 slices=0 tile=32,64,128"),
    # The 32-row tile's two f16 sums a chunk (policy::kThinTileSets) with B
    # as N x K and f16 outer sums, in its chunks (S from the rule) or S.
    "nk_f32_tma_m32": (dict(b_layout="nk"), "outer-type=f32 tile=32,64,128"),
    "nk_f16_tma_m32_s9": (dict(b_layout="nk"), "outer-type=f16 splits=9 tile=32,64,128"),
}

# The variants the suite runs for the older chips (--older-chips; sm_80,
# sm_86 and sm_89 as PTX on an H100, test/GPU/run_ptx_chips.sh): the
# mma.sync ones of VARIANTS that sm_90 runs too, without the sm_90a-only TMA
# and wgmma variants. A chip skips those its shared memory cannot hold
# (--skip-rejected).
OLDER_CHIPS = (
    "kn_f32", "kn_f16", "nk_f32", "nk_f16", "nk_bias_relu", "kn_bias_gelu_f32out",
    "nk_bias_gelu_f32out", "kn_f16_s1", "kn_f32_s3", "kn_f32_s33", "kn_f32_st3", "kn_f32_pf0",
    "kn_f16_w2x4", "kn_f32_w2x4", "kn_f32_so4", "kn_f16_so2", "kn_f16_direct",
    "kn_f32_mma_handover", "kn_f16_256x128", "kn_f32_256x128", "kn_f16_wide", "gen_kn_f32",
    "gen_nk_bias_relu", "gen_nk_acc_f16", "kn_acc_f32", "kn_full_epilogue",
    "nk_full_epilogue_f32_direct", "kn_f32_p0", "kn_f16_p3", "nk_f16_p7", "kn_f32_m16_s16_p8",
    "nk_f32_m16_p0", "nk_f16_m32_p7", "kn_f32_m64_p2", "nk_f32_m64_p0", "nk_bias_gelu_m64",
    "kn_f32_batched_p0", "nk_f16_batched_p0", "kn_bias_relu_batched", "kn_f16_128x64_p3",
)

# Tile and pipeline configurations for benchmarks/bench_matmul.py --sweep.
SWEEP = {
    # The default configurations with the epilogue storing straight from
    # the fragments, against the shared-memory epilogue of kn_f32/kn_f16.
    "sweep_f32_direct": (dict(), "outer-type=f32 shared-epilogue=false"),
    "sweep_f16_direct": (dict(), "outer-type=f16 shared-epilogue=false"),
    # f32 outer sums added by mma.sync instead of conversions and adds.
    "sweep_f32_mma_handover": (dict(), "outer-type=f32 mma-handover=true"),
    "sweep_f32_256x128x64_s3_mma_handover": (dict(), "outer-type=f32 tile=256,128,64 stages=3 warps-m=4 warps-n=2 mma-handover=true"),
    "sweep_f32_128x128x32_s3": (dict(), "outer-type=f32 tile=128,128,32 stages=3"),
    "sweep_f16_128x128x32_s3": (dict(), "outer-type=f16 tile=128,128,32 stages=3"),
    "sweep_f16_128x128x64_s3": (dict(), "outer-type=f16 tile=128,128,64 stages=3"),
    # One block of 8 warps (64 x 64 each) an SM.
    "sweep_f32_128x256x32_s4": (dict(), "outer-type=f32 tile=128,256,32 stages=4 warps-m=2 warps-n=4"),
    "sweep_f32_128x256x64_s3": (dict(), "outer-type=f32 tile=128,256,64 stages=3 warps-m=2 warps-n=4"),
    "sweep_f32_256x128x32_s3": (dict(), "outer-type=f32 tile=256,128,32 stages=3 warps-m=4 warps-n=2"),
    "sweep_f32_256x128x64_s3": (dict(), "outer-type=f32 tile=256,128,64 stages=3 warps-m=4 warps-n=2"),
    "sweep_f16_128x256x32_s3": (dict(), "outer-type=f16 tile=128,256,32 stages=3 warps-m=2 warps-n=4"),
    "sweep_f16_128x256x64_s3": (dict(), "outer-type=f16 tile=128,256,64 stages=3 warps-m=2 warps-n=4"),
    "sweep_f16_256x128x32_s3": (dict(), "outer-type=f16 tile=256,128,32 stages=3 warps-m=4 warps-n=2"),
    "sweep_f16_256x128x64_s3": (dict(), "outer-type=f16 tile=256,128,64 stages=3 warps-m=4 warps-n=2"),
    "sweep_f16_256x128x64_s4": (dict(), "outer-type=f16 tile=256,128,64 stages=4 warps-m=4 warps-n=2"),
}




def skinny_variants(configs=(), shapes=None):
    """skinny_{seq,par}_MxNxK: the static shape with the pipeline's defaults
    (its tile choice), one slice (sequential split-k) or the slice count the
    pipeline chooses (slices=0); skinny_TAG_MxNxK for each (TAG, options) of
    `configs` (bench_skinny.py times every skinny_* kernel it finds)."""
    out = {}
    for m, n, k in shapes or SKINNY_SHAPES:
        src = dict(shape=(m, n, k), b_layout="nk")
        if not configs:
            out[f"skinny_seq_{m}x{n}x{k}"] = (src, "outer-type=f32 slices=1")
            out[f"skinny_par_{m}x{n}x{k}"] = (src, "outer-type=f32 slices=0")
        for tag, opts in configs:
            out[f"skinny_{tag}_{m}x{n}x{k}"] = (src, opts)
    return out


def sweep_static_variants(layouts, classes=None):
    """sweep_LAYOUT_MxNxK (sweep_LAYOUT_BxMxNxK of a batch): each shape of
    benchmarks/bench_sweep.py's sweep classes, static, with the pipeline's
    defaults (outer f32, slices chosen: what the package's call asks for),
    which bench_sweep.py --static times beside the package. Layouts: nk (B
    as N x K), kn, km (A as K x M, B as K x N)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "..", "..", "benchmarks"),
                 os.path.join(here, "..", "..", "python")):
        if path not in sys.path:
            sys.path.insert(0, path)
    from bench_sweep import DEFAULT_CLASSES, shape_name, shapes

    out = {}
    for layout in layouts:
        src = dict(b_layout="kn" if layout == "km" else layout,
                   a_layout="km" if layout == "km" else "mk")
        for _, m, n, k, batch in shapes(list(classes or DEFAULT_CLASSES)):
            shape = (batch, m, n, k) if batch else (m, n, k)
            out[shape_name(layout, m, n, k, batch)] = (
                dict(src, shape=shape, batched=bool(batch)), "outer-type=f32 slices=0")
    return out


#: Split counts of the speed/error frontier (bench_matmul.py --frontier).
FRONTIER_SPLITS = (1, 2, 4, 8, 16, 32, 64)


def frontier_variants(shapes):
    """frontier_{f32,f16}_s{S}_MxNxK: the static shape (B as N x K, the
    wgmma kernels' layout) with the pipeline's defaults but S chunks and the
    outer type: the points of bench_matmul.py --frontier."""
    out = {}
    for m, n, k in shapes:
        for outer in ("f32", "f16"):
            for splits in FRONTIER_SPLITS:
                out[f"frontier_{outer}_s{splits}_{m}x{n}x{k}"] = (
                    dict(shape=(m, n, k), b_layout="nk"), f"outer-type={outer} splits={splits}")
    return out


def attention_variants(configs=(), names=None):
    """attn_{seq,par}_NAME: the static batched products of ATTENTION with
    the pipeline's defaults, one slice or the chosen count; attn_TAG_NAME
    for each (TAG, options) of `configs` instead (on the products `names`,
    default all; bench_skinny.py --batched times every attn_* kernel)."""
    out = {}
    for name, bt, m, n, k, layout in ATTENTION:
        if names and name not in names:
            continue
        src = dict(shape=(bt, m, n, k), batched=True, b_layout=layout)
        if not configs:
            out[f"attn_seq_{name}"] = (src, "outer-type=f32 slices=1")
            out[f"attn_par_{name}"] = (src, "outer-type=f32 slices=0")
        for tag, opts in configs:
            out[f"attn_{tag}_{name}"] = (src, opts)
    return out


def build_variant(args, name: str, src_kw: dict, opts: str):
    """Builds one variant into args.out_dir/NAME in each of args.formats:
    its manifest with ptxas's register and spill lines, the PTX's
    instruction counts and the variant's options (also in variant.json);
    None where gpupoor-opt rejected it and args.skip_rejected allows."""
    src = os.path.join(args.out_dir, name + ".mlir")
    with open(src, "w") as f:
        f.write(matmul_source(**src_kw).replace("@kernel", "@" + name))
    kdir = os.path.join(args.out_dir, name)
    formats = args.formats.split(",")
    # A variant that names no slices is the sequential kernel (one
    # slice), as it was before gpupoor-opt's default became slices=0.
    if "slices=" not in opts:
        opts += " slices=1"
    rejected = False
    for fmt in formats:
        pipeline = (f"--gpupoor-to-cubin=chip={args.chip} {opts} cubin-format={fmt} "
                    f"dump-dir={kdir}")
        res = subprocess.run([GPUPOOR_OPT, src, pipeline, "-o", os.devnull],
                             capture_output=True, text=True)
        if res.returncode:
            if not args.skip_rejected:
                head = "\n".join(res.stderr.splitlines()[:20])
                sys.exit(f"{name}: gpupoor-opt failed:\n{head}")
            print(f"{name}: rejected: {(res.stderr.splitlines() or [''])[0]}")
            rejected = True
            break
    if rejected:
        return None
    with open(os.path.join(kdir, "gpupoor_matmul_0.json")) as f:
        manifest = json.load(f)
    if "bin" in formats:
        ptxas = subprocess.run(["ptxas", f"-arch={args.chip}", "-v",
                                os.path.join(kdir, "gpupoor_matmul_0.ptx"), "-o", os.devnull],
                               capture_output=True, text=True)
        manifest["ptxas"] = [l.split("info    : ")[-1] for l in ptxas.stderr.splitlines()
                             if "registers" in l or "spill" in l]
    else:
        # PTX only: the manifests name the .ptx (`ptx`), which
        # run_gpu_suite.py loads through the driver's JIT.
        manifest["ptxas"] = "PTX only"
    with open(os.path.join(kdir, "gpupoor_matmul_0.ptx")) as f:
        ptx = f.read()
    manifest["counts"] = {op: ptx.count(op) for op in
                          ("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
                           "ldmatrix", "cp.async.cg", "st.shared.v4")}
    manifest["variant_options"] = {"source": src_kw, "pipeline": opts}
    # What the source computes after the matmul, for the GPU suite's
    # references (the manifest has the epilogue's operands, not what
    # each one is).
    with open(os.path.join(kdir, "variant.json"), "w") as f:
        json.dump(manifest["variant_options"], f, indent=1)
    return manifest


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--older-chips", action="store_true",
                        help="only the OLDER_CHIPS variants (sm_80/86/89 as PTX on a newer GPU)")
    parser.add_argument("--sweep", action="store_true", help="build the tile sweep too")
    parser.add_argument("--static", default="", metavar="MxNxK,...",
                        help="also build static_f32_MxNxK and static_f16_MxNxK: C = A*B of that "
                             "static shape with the pipeline's defaults (its tile choice)")
    parser.add_argument("--skip-rejected", action="store_true",
                        help="skip variants gpupoor-opt rejects (e.g. more shared memory than "
                             "the chip has) instead of stopping")
    parser.add_argument("--formats", default="isa,bin",
                        help="gpu-module-to-binary formats to build (isa: PTX only, no ptxas)")
    parser.add_argument("--config", action="append", default=[], metavar="NAME=OPTIONS",
                        help="an extra sweep kernel (kn, no bias), e.g. "
                             "'sweep_x=outer-type=f16 tile=128,128,64 stages=3'")
    parser.add_argument("--skinny", action="store_true",
                        help="also build the static decode-shape kernels of bench_skinny.py")
    parser.add_argument("--skinny-config", action="append", default=[], metavar="TAG=OPTIONS",
                        help="build skinny_TAG_MxNxK with these pipeline options instead, "
                             "e.g. 'st4=outer-type=f32 slices=0 stages=4'")
    parser.add_argument("--skinny-shapes", metavar="MxNxK,...",
                        help="--skinny-config on these shapes (default: all of bench_skinny's)")
    parser.add_argument("--attention", action="store_true",
                        help="build only the static batched kernels of bench_skinny.py --batched")
    parser.add_argument("--attention-config", action="append", default=[],
                        metavar="TAG=OPTIONS",
                        help="with --attention: build attn_TAG_NAME with these pipeline options "
                             "instead, e.g. 't64=outer-type=f32 slices=0 tile=64,128,64'")
    parser.add_argument("--attention-names", metavar="NAME,...",
                        help="with --attention: only these products of ATTENTION")
    parser.add_argument("--frontier", metavar="MxNxK,...",
                        help="build only the frontier_* kernels of bench_matmul.py --frontier "
                             "on these static shapes")
    parser.add_argument("--sweep-static", metavar="LAYOUTS",
                        help="build only sweep_LAYOUT_MxNxK (LAYOUTS of nk, kn, km): "
                             "bench_sweep.py's shapes, static, with the pipeline's defaults, "
                             "which bench_sweep.py --static times beside the package")
    parser.add_argument("--sweep-classes", metavar="CLASSES",
                        help="with --sweep-static: bench_sweep.py's classes to build "
                             "(llm, square, odd, narrow, attention; default: its "
                             "DEFAULT_CLASSES)")
    args = parser.parse_args()
    variants = dict(VARIANTS, **(SWEEP if args.sweep else {}))
    if args.sweep_static:
        extra = sweep_static_variants(
            args.sweep_static.split(","),
            args.sweep_classes.split(",") if args.sweep_classes else None)
        variants.update(extra)
        # --only names some of them (a rebuild of a few), or all.
        args.only = [n for n in extra if not args.only or n in args.only]
    if args.older_chips:
        args.only = list(OLDER_CHIPS) + (args.only or [])
    if args.frontier:
        extra = frontier_variants(tuple(map(int, s.split("x"))) for s in args.frontier.split(","))
        variants.update(extra)
        args.only = list(extra)
    if args.attention:
        configs = [c.partition("=")[::2] for c in args.attention_config]
        names = args.attention_names.split(",") if args.attention_names else None
        unknown = sorted(set(names or ()) - {a[0] for a in ATTENTION})
        if unknown:
            parser.error(f"--attention-names: not in ATTENTION: {', '.join(unknown)}")
        # bench_skinny.py reads the tag back as the name's second field.
        bad = [tag for tag, _ in configs if not tag or "_" in tag]
        if bad:
            parser.error(f"--attention-config: tags must be non-empty, without '_': {bad}")
        extra = attention_variants(configs, names)
        variants.update(extra)
        args.only = list(extra)
    if args.skinny_config:
        configs = [c.partition("=")[::2] for c in args.skinny_config]
        shapes = [tuple(map(int, s.split("x"))) for s in args.skinny_shapes.split(",")] \
            if args.skinny_shapes else None
        extra = skinny_variants(configs, shapes)
        variants.update(extra)
        args.only = list(extra) + (args.only or [])
    if args.skinny:
        variants.update(skinny_variants())
        # --only names some of them, or (naming none) adds them all.
        if args.only is not None and not any(n in skinny_variants() for n in args.only):
            args.only.extend(skinny_variants())
    for spec in args.config:
        name, _, opts = spec.partition("=")
        variants[name] = (dict(), opts)
        if args.only is not None:
            args.only.append(name)
    for shape in filter(None, args.static.split(",")):
        for outer in ("f32", "f16"):
            name = f"static_{outer}_{shape}"
            variants[name] = (dict(shape=tuple(map(int, shape.split("x")))),
                              f"outer-type={outer}")
            if args.only is not None:
                args.only.append(name)
    os.makedirs(args.out_dir, exist_ok=True)
    index = {}
    for name, (src_kw, opts) in variants.items():
        if args.only and name not in args.only:
            continue
        manifest = build_variant(args, name, src_kw, opts)
        if manifest is None:
            continue
        index[name] = manifest
        print(f"{name}: {manifest['ptxas']} {manifest['counts']}")
    with open(os.path.join(args.out_dir, "index.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
