//===- Splits.h - how K is cut and how the cuts meet ------------*- C++ -*-===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// The split count S (how many chunks K is summed in) and the slice count P'
// (how many blocks along grid y share a C tile's chunks). The compiler
// evaluates these where the sizes are static, the emitted host code and the
// loop form generate them as IR from the same functions' definitions
// (SplitKUtils.cpp, checked against these by test/Policy), and the PyTorch
// package calls them through its native extension.
//
//===----------------------------------------------------------------------===//

#ifndef GPUPOOR_POLICY_SPLITS_H
#define GPUPOOR_POLICY_SPLITS_H

#include "gpupoor/Policy/Chips.h"

#include <array>
#include <vector>

namespace mlir::gpupoor::policy {

/// A tile [BM, BN, BK] of C rows, C columns and K.
using Tile = std::array<int64_t, 3>;

inline constexpr int64_t kMaxSplits = 65536;
/// Slices run along grid y, which has at most 65535 blocks.
inline constexpr int64_t kMaxSlices = 65535;

/// The K step that the default split rule counts K in: gpu_poor's BK. The
/// rule counts in these blocks whatever the tile's own K step, so that S,
/// and with it the error depend on K alone (the chunk lengths too where S
/// divides the tiles; elsewhere the balanced chunks are whole tiles of the
/// kernel's BK, so their lengths follow BK by at most a tile): a wgmma tile
/// (BK = 64) or a decode tile (BK = 128) would otherwise halve or quarter S
/// and raise the error (docs/design/Numerics.md).
inline constexpr int64_t kSplitRuleBlock = 32;

/// From this many rule blocks on (K > 2016) the default takes at least
/// kMinLongKSplits chunks. gpu_poor's rule gives S between sqrt(blocks) and
/// twice it, and its error against a plain f16 sum's goes as 1/sqrt(S):
/// where the root is a power of two it is at its worst, and at 64 to 80
/// blocks (K in (2016, 2560]) gpu_poor's 8 chunks measured 0.38 of cuBLAS
/// f16acc's error, 12 balanced chunks 0.33 at 1.4-2.3% of speed, 16 chunks
/// 0.29 at up to 12% (H100,
/// docs/design/decisions.md#twelve-balanced-chunks-for-k-near-2048). From 81
/// blocks on the rule gives 16 or more; below 64, a third of f16acc's error
/// would take chunks of one or two wgmma K tiles, which the handover makes
/// 10-35% slower.
inline constexpr int64_t kLongKRuleBlocks = 64;
inline constexpr int64_t kMinLongKSplits = 12;

/// The default upper clamp of S (max-splits, the package's max_k_splits):
/// high enough that a decode tile's chunks stay at kDecodeChunk up to K =
/// 32768 (tileNumSplits). Elsewhere the rule reaches 32 only for K past
/// 9216 and 64 past 34816, so up to there S is what gpu_poor's clamp of 32
/// gave, but for the tiles with a longest chunk (longestChunk: past K =
/// 4096 for the 32-row tile, 8192 for the 128 x 256 one). On an H200, the 225
/// decode products of the LLM projections in every layout ran at the same speed
/// under 256 as under 32 (geomean of the speed against cuBLAS f32acc 0.989 /
/// 0.983 / 1.115 against 0.988 / 0.983 / 1.116, B as N x K / K x N / A as K x
/// M) at an error of 4.87e-4 / 4.86e-4 / 4.86e-4 against 6.1e-4 / 6.08e-4
/// / 6.09e-4 (geomean; benchmarks/bench_splits.py --max-splits 32,256,
/// benchmarks/data/max_splits_decode_sm_90a.json).
inline constexpr int64_t kDefaultMaxSplits = 256;

/// The default number of K splits for a reduction of `k` elements:
/// gpu_poor's next_pow2(floor(sqrt(ceil(k / kSplitRuleBlock)))), at least
/// kMinLongKSplits from kLongKRuleBlocks blocks on, clamped to
/// [1, maxSplits].
int64_t defaultNumSplits(int64_t k, int64_t maxSplits);

/// The longest chunk of the default S (tileNumSplits) of a decode tile and
/// of sm_90a's 32-row tile whose K step is no longer.
inline constexpr int64_t kDecodeChunk = 128;

/// The longest chunk of sm_90a's 128 x 256 tile's default S (tileNumSplits).
/// gpu_poor's rule lets a chunk grow with K (512 at K = 8192, 896 at 28672)
/// and the error with it; on that tile a chunk's n256 wgmma chain is long
/// beside its handover. On an H200 (package, forced S, CUDA-graph replay,
/// weights beyond L2, the sweep's 98 products of K past 4096 that the tile
/// runs, every layout), chunks of at most 256 ran at 1.001x the rule's speed
/// (geomean; the slowest 0.967x) for an error of 6.4e-4 whatever K against
/// up to 1.13e-3. Every tile measured so: 0.996x (the slowest 0.919x) over
/// 216 products, the 64-row and filling tiles and 128 x 160 below one wave
/// losing most (benchmarks/data/chunks_of_256_sm_90a.json): the others keep
/// the rule.
inline constexpr int64_t kWideTileChunk = 256;

/// The longest chunk of the default S of a kernel of `chip` and `tile`, or
/// 0 for none: a decode tile (16 C rows, the m16 family's mma.sync tile;
/// or 16 C columns, the swapped tiles and the narrow tile kNarrowTile) of
/// the kernels Hopper runs (sm_90,
/// sm_90a), and on sm_90a the 32-row tile, takes chunks of kDecodeChunk,
/// or of one K tile where that is longer (the 32-row swapped tile's BK =
/// 256: selectSwappedTile takes it where those chunks are at least the
/// rule's); sm_90a's 128 x 256 tile takes chunks of kWideTileChunk.
///
/// The 32-row wgmma tile (kThinTile: 17 to 32 rows, A read as M x K)
/// streams the weights and defers its handovers, and at 32 rows cuBLAS
/// f16acc splits K itself (its error there is about half its error at M >=
/// 128), so the rule's chunks (256 at K = 4096, up to 896) erred by more
/// than a third of cuBLAS f16acc's at 11 of the sweep's 30 such products. On an
/// H200 (package, CUDA-graph replay, weights beyond L2, those 30 products in
/// both B layouts), chunks of 128 (of one f16 sum, before kThinTileSets) ran
/// at 0.985x the rule's speed (geomean; the slowest 0.973x) for an error of
/// 4.8e-4 to 4.9e-4 against 6.4e-4 to
/// 1.13e-3, within that third at 25 of them against 19
/// (benchmarks/data/chunks_rows32_sm_90a.json). The swapped tile of 32
/// columns (A as K x M), whose four f16 sums a chunk keep it within the
/// third at 13 of 14 already, paid 0.975x (the slowest 0.934x), and the
/// 64-row tiles more (64 x 64: 0.976x, the slowest 0.956x; 64 x 128:
/// 0.908x; benchmarks/data/chunks_thin_sm_90a.json): they keep the rule.
int64_t longestChunk(Chip chip, const Tile &tile);

/// The f16 sums a decode tile's chunk keeps on the wgmma kernel
/// (accumulatorSets). On an H200 (the compiler's static kernels, 130 decode
/// products of 1, 4 and 16 rows in every layout, CUDA-graph replay, weights
/// beyond L2, x the same kernel with one sum), 4 sums ran at 0.998x
/// (geomean; the slowest 0.989x) for an error of 3.3e-4 against 4.9e-4,
/// and 8 sums at 0.984x (the slowest 0.963x; 0.973x below 20 us) for
/// 2.9e-4: each sum's conversions and adds into the f32 sums are the
/// consumer warpgroup's work every K tile
/// (benchmarks/data/decode_sets_sm_90a.json).
inline constexpr int64_t kDecodeSets = 4;

/// The f16 sums a chunk the swapped decode tile keeps where A, stored K x M,
/// is copied M x K first (copiesKMajorA: rows not a multiple of 8, and 8 or
/// 16 past the tiles the swapped kernels read them as they lie on): one k16
/// step of its 128 of K a sum. cuBLAS f16acc errs least on those products
/// (8.9e-4 to 9.6e-4 at 2 and 4 rows, about a third of its error with A as
/// M x K), where four sums erred 0.34 to 0.37 of it. Through the package on
/// an H100 (40 products of 2 to 15 rows, x four sums), eight sums ran at
/// 0.991x (geomean; the slowest 0.978x, each still above cuBLAS f32acc)
/// for 2.9e-4 to 3.0e-4 against 3.2e-4 to 3.3e-4, at most 0.336 of cuBLAS
/// f16acc's error against 0.371
/// (benchmarks/data/km_decode_eight_sums_h100_sm_90a.json).
inline constexpr int64_t kCopiedDecodeSets = 8;

/// The f16 sums a chunk of sm_90a's 32-row tile (kThinTile) keeps: two, as
/// many as its 64 columns leave registers for beside the next chunk's
/// (KernelSpec::kDeferredHandoverMaxBN). Its chunks of kDecodeChunk erred
/// 4.9e-4, more than a third of cuBLAS f16acc's at 32 x 4096 x 4096 (1.23e-3)
/// and 32 x 4096 x 11008 (1.45e-3). On an H200 (the compiler's static
/// kernels, six products of 32 rows, CUDA-graph replay, weights beyond L2)
/// two sums erred 3.9e-4 on every one for 0.975x the speed of one sum
/// (0.956x to 0.990x; benchmarks/data/chunk_sets_sm_90a.txt). The 64 x 64
/// tile's two sums (0.979x) left its error above that third (5.4e-4 to
/// 6.1e-4 at K <= 14336), and with chunks of 128 as well (3.9e-4) ran at
/// 0.908x: it keeps one.
inline constexpr int64_t kThinTileSets = 2;

/// The f16 sums a chunk of sm_90's 16-row decode tiles keeps (16 x 128 and
/// kWideDecodeTile, the mma.sync kernel sm_90a runs them on:
/// accumulatorSets), alternating over a K tile's k16 steps. Their chunks of
/// kDecodeChunk in one sum erred 4.8e-4 to 4.9e-4, more than a third of
/// cuBLAS f16acc's at A as K x M of 2 and 4 rows x 28672 x 8192. On an H100
/// (the compiler's static kernels, the six decode products of 1 to 16 rows
/// x 13824 x 5120 and x 28672 x 8192 that the tiles ran, B as K x N and N x
/// K, CUDA-graph replay, weights beyond L2, x the same kernel with one sum),
/// 4 sums ran at 0.995x to 1.009x (level within the run's noise) for an
/// error of 3.2e-4 to 3.3e-4, 2 sums at 0.990x to 1.010x for 3.9e-4
/// (benchmarks/data/mma_decode_sets_h100_sm_90a.json).
inline constexpr int64_t kMmaDecodeSets = 4;

/// One parameter of the default split rule (tileNumSplits) as a kernel's
/// manifest names it in `split_rule`.
struct SplitRuleParam {
  const char *name;
  int64_t value;
};

/// The parameters of the default split rule a kernel of `chip`, `tile` and
/// `maxSplits` evaluates: rule_block, long_k_rule_blocks, min_long_k_splits,
/// max_splits and, where the tile has one, longest_chunk. The compiler
/// writes them into the manifest, the package refuses a kernel whose
/// manifest says another rule.
std::vector<SplitRuleParam> splitRuleParams(Chip chip, const Tile &tile,
                                            int64_t maxSplits);

/// The f16 sums a chunk of a kernel of `chip` and `tile` keeps (#gpupoor.
/// split_k's `sets`): on sm_90a's wgmma kernel a tile of one consumer
/// warpgroup and at most 32 columns (the swapped tiles and the narrow
/// tile, kNarrowTile) keeps
/// min(kDecodeSets, BK / 16), so that the 64 x 16 x 128 tile's chunks of
/// kDecodeChunk are 4 sums of 32 products each (the 32 x 16 x 256 tile's
/// of 64; the 64 x 32 x 128 tile's chunks of the default rule, 256 at K =
/// 4096, 4 of 64: on an H200 0.995x the speed of one sum, the slowest
/// 0.986x, error 4.4e-4 against 7.5e-4 over 14 products of A as K x M of
/// 32 rows, benchmarks/data/decode_sets_sm_90a.json); sm_90a's 32-row tile
/// (kThinTile) kThinTileSets; sm_90's 16 x 128 and 16 x 256 decode tiles of
/// at least 64 of K a stage kMmaDecodeSets; every other kernel one.
int64_t accumulatorSets(Chip chip, const Tile &tile);

/// The shortest chunk (K / S, rounded up) from which sm_90a's 64 x 64 x 64
/// tile keeps kLongChunkSets f16 sums a chunk (chunkSets). On an H100 (the
/// compiler's static kernels, CUDA-graph replay, weights beyond L2, x the
/// same kernel with one sum) two sums ran at 0.994x to 1.006x in chunks of
/// 320 to 896 (K = 5120 to 28672, 64 and 128 rows, every layout) for an
/// error 0.73x to 0.76x one sum's; in chunks of 256 (K = 4096) at 0.977x
/// to 0.993x, in chunks of 128 at 0.913x to 0.988x
/// (benchmarks/data/n64_sets_h100_sm_90a.txt). A chunk's second sum costs
/// its conversions and adds at the handover, which a long chunk hides.
/// Through the package (the n64s and n64sw families against n64 and n64w,
/// same H100, benchmarks/data/n64s_h100_sm_90a.json): the sweep's 17
/// products this moves ran at 0.997x (geomean; the slowest 0.989x, chunks
/// of 320), 51 held-out products of 33 to 128 rows in chunks of at least
/// 320 at 0.996x (0.984x), for an error 0.73x to 0.76x; 21 in chunks of
/// 257 to 319 would have run at 0.992x (0.978x).
inline constexpr int64_t kLongChunkSetsMinChunk = 320;
inline constexpr int64_t kLongChunkSets = 2;

/// The f16 sums a chunk keeps for a product of K = `k` in `splits` chunks
/// by a kernel of `chip` and `tile`: accumulatorSets, but kLongChunkSets
/// for sm_90a's 64 x 64 x 64 tile where K and S are known and the chunks
/// are at least kLongChunkSetsMinChunk long, unbatched (the products
/// measured; the package's library has no batched kernel of two sums); the
/// transposed product's 64 x 64 tile too (x64sq: with two sums its 33 to
/// 64 rows ran as fast as with one, for the unswapped tile's error:
/// swappedFewRowsTile). A dynamic K or S keeps the tile's: the kernel's
/// sums are fixed when it is compiled.
int64_t chunkSets(Chip chip, const Tile &tile, int64_t k, int64_t splits,
                  bool batched);

/// The default S of a product of K = `k` run by a kernel of `chip` and
/// `tile`: defaultNumSplits, but at least ceil(K / longestChunk) where the
/// tile has one, at most `maxSplits`. The host code and the loop form
/// evaluate it for a dynamic K (SplitKUtils.cpp). Such products stream
/// the weights, and the chunk ends cost nothing measurable there: on an
/// H200 (package, forced S, CUDA-graph replay, weights beyond L2, 72
/// shapes of M <= 16 in every layout at K = 4096 to 28672), chunks of 128
/// ran at 0.996x the rule's S with the swapped tile (geomean, the slowest
/// 0.979x), 1.000x with its two-blocks-an-SM variant and 1.002x with the
/// 16-row tile, while the error fell from the rule's 6.4e-4 to 8.7e-4
/// (by K) to 4.9e-4 (chunks of 64: 3.9e-4 at 0.988x, the slowest 0.968x;
/// benchmarks/data/splits_decode_sm_90a.json). Wider tiles pay more
/// (longestChunk).
int64_t tileNumSplits(Chip chip, const Tile &tile, int64_t k,
                      int64_t maxSplits);

/// T, the C tiles of BM x BN over `batch` elements of M x N:
/// batch * ceil(M / BM) * ceil(N / BN), saturating at INT64_MAX (static
/// sizes may be any int64; the op's verifier refuses counts beyond a grid).
int64_t tileCount(int64_t batch, int64_t m, int64_t n, int64_t bm, int64_t bn);

/// The slice count P' that runs: min(slices, S) for a strategy that names
/// `slices` > 0. For 0 (automatic), the fewest slices that minimize the
/// work of the busiest SM, ceil(T P / SMs) / P, over P in [1, S] with all
/// T P blocks in one wave of B blocks an SM (sliceBlocksPerSM): with
/// P1 = clamp(floor(SMs / T), 1, S) (one block an SM) and
/// PB = clamp(floor(B SMs / T), 1, S), PB if PB > 2 P1, else P1; but
/// where Q T >= SMs for a tile share Q > 0 (sliceOneSliceShare), 1, or P1
/// where `longK` (kLongKShareK).
/// Measured on an H100 (docs/design/decisions.md): more slices than that only
/// add slice sums to meet; 224 blocks of 112 tiles ran slower than 112, and 240
/// blocks of the wgmma kernel (one an SM) ran at 0.8x of 96.
int64_t numSlices(int64_t slices, int64_t tiles, int64_t splits,
                  int64_t smCount, int64_t blocksPerSM,
                  int64_t oneSliceShare = 0, bool longK = false);

/// B, the blocks an SM the automatic slice count plans for: 1 for tiles
/// whose kernel takes 256 threads of up to 255 registers, which fill the
/// 64K-register file (the wgmma kernel's BM >= 128: two warpgroups; 128 x
/// 256 and 256 x 128 mma.sync tiles: eight warps); 2 for the rest. A
/// function of the strategy alone, so that the CPU loop form counts the
/// same slices as the kernels. `chip`: the kernel's (sm_90 for an sm_90a
/// product that runs the mma.sync kernel).
int64_t sliceBlocksPerSM(Chip chip, const Tile &tile);

/// The most sum_slots (T P', Checks.h) an automatic slice count gives
/// where P' > 1 slices run: numSlices keeps all T P' blocks in one wave of
/// sliceBlocksPerSM blocks an SM.
int64_t mostSumSlots(Chip chip, const Tile &tile, int64_t smCount);

/// Q, the share of the SMs from which tiles run one slice (T Q >= SMs), or
/// 0 for none: 3 for sm_90a's one-warpgroup wgmma tiles (64 rows, and the
/// 32-row swapped tile), whose memory-bound products stream the weights as
/// fast from a third of the SMs. Measured on an H200 (2026-11-28, forced
/// slices, CUDA-graph replay): 40 tiles of 64 x 128 (A as K x M, 32 and 48
/// x 5120 x 13824) ran 59.2 and 60.8 us in one slice, 46.4 and 46.8 in
/// three; 64 tiles (s16, m32, n64 at N = 4096, K = 11008 and 14336, eight
/// shapes) ran fastest in one slice, by 0-12%. Measured on an H100
/// (docs/design/decisions.md#one-slice-from-a-third-of-the-sms): at 64 x 4096 x
/// 4096 and 64 x 4096 x 14336 (64 tiles of 64 x 64) one slice ran 1.13x and
/// 1.03x the two of the rule without it; at 128 x 2048 x 5120 (64 tiles) 0.93x,
/// still 1.03x cuBLAS; with 32 tiles (64 x 2048 x 5120) four slices ran 1.04x
/// one; 32-row swapped tiles at N = 2048 (64 tiles) run without slices (1 x
/// 2048 x 5120 10.4 us against 11.1 for 64-row tiles in four slices).
int64_t sliceOneSliceShare(Chip chip, const Tile &tile);

/// The least K from which tiles of a one-slice share that fill under half
/// the SMs take P1 = floor(SMs / T) slices instead of one: a block's weight
/// rows then take longer to stream from one SM than the meeting of the
/// slices costs. Measured on an H200 (forced slices, CUDA-graph replays,
/// weights beyond L2) with the swapped 64 x 16 x 64 tile (the decode tile
/// then) at M = 1 and 8, N =
/// 3584 and 4096 (56 and 64 tiles), both B layouts: at K = 28672 two slices
/// ran 1.05-1.17x one (8 shapes, geomean 1.115); at K = 8192 0.91-0.99x, at
/// 11008 and 14336 0.96-1.10x (the tuned table decides there). 80 tiles (N
/// = 5120) keep one slice, P1 = 1: three ran 0.93x at K = 28672.
inline constexpr int64_t kLongKShareK = 16384;

/// The least K at which sm_90a's wgmma kernels take slices where the count
/// is chosen: the meeting of the slices costs microseconds (the workspace's
/// sums written and read back, a counter, the last block's reads; measured
/// when a CUDA graph also zeroed the counters before each launch, now once
/// a capture), which a short K does not win back.
/// Measured on an H100, graph replays: the swapped decode tile
/// (bench_skinny.py) at 1 x 2048 x 1280 in four slices ran 7.2 us against
/// 6.4 in one, while 1 x 2048 x 5120 (four), 1 x 1024 x 4096 (eight) and 1 x
/// 512 x 4096 (sixteen) ran 1.15x, 1.47x and 1.65x one slice; 64-row tiles
/// (2026-11-27) at 128^3, 256^3 and 512^3 ran 2.5, 3.2 and 4.7 us in one
/// slice against 5.2, 6.1 and 8.7 in two to four (cuBLAS 2.4, 2.8, 3.9),
/// while 512 x 512 x 8192 ran 14.8 us in four against 24.9 in one.
inline constexpr int64_t kMinWgmmaSliceK = 2048;

/// Whether a kernel of `chip` takes one slice below kMinWgmmaSliceK.
inline bool slicesNeedLongK(Chip chip) { return chip == Chip::SM90a; }

/// P' for a launch whose sizes are known: numSlices with the kernel's B
/// and Q (its chip and tile), K long from kLongKShareK, and one slice for
/// sm_90a's kernels with a static K < kMinWgmmaSliceK where the count is
/// automatic (`slices` = 0). `tiles`: T of the kernel's C (C^T for a swapped
/// product).
int64_t launchSlices(int64_t slices, Chip chip, const Tile &tile, int64_t k,
                     int64_t tiles, int64_t splits, int64_t smCount);

} // namespace mlir::gpupoor::policy

#endif // GPUPOOR_POLICY_SPLITS_H
