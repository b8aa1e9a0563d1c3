"""A kernel directory of gpupoor-opt's (a manifest and its cubin or PTX)
launched from Python as the emitted host code launches it: the Triton-style
parameters, the workspace, the tensor maps and the checks that choose among
the variant's kernels (the GPU suite's, and the benchmarks' static path).
Needs torch, cupy, numpy."""

import json
import os
import sys

import cupy as cp
import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Numerics"))
import split_k_model as model  # noqa: E402
import tensor_maps  # noqa: E402

DEPENDENT_LAUNCH = os.environ.get("GPUPOOR_DEPENDENT_LAUNCH", "1") != "0"


def m_major(a):
    """A's values stored K x M (what a km kernel reads along M), in rows of
    a multiple of 8 elements; a batched A keeps what its batch stride has
    beyond a dense element (and a shared A stays shared)."""
    m, k = a.shape[-2:]
    mp = -(-m // 8) * 8
    if a.dim() == 2:
        store = a.new_empty(k, mp)
        store[:, :m] = a.t()
        return store[:, :m].t()
    if a.stride(0) == 0:
        return m_major(a[0]).expand(a.shape)
    bs = k * mp + max(a.stride(0) - m * k, 0)
    out = a.new_empty(a.shape[0] * bs).as_strided(a.shape, (bs, 1, mp))
    out.copy_(a)
    return out


class GpupoorKernel:
    def __init__(self, kdir, manifest="gpupoor_matmul_0.json"):
        self.kdir, self.manifest = kdir, manifest
        with open(os.path.join(kdir, manifest)) as f:
            self.meta = json.load(f)
        if "splits" not in self.meta["params"]:
            check_split_rule(self.meta)
        checks = self.meta.get("checks", {})
        if "max_offset" in checks and "bounds" not in checks:
            # A 32-bit kernel whose bounds only the launcher would know.
            raise ValueError(f"{self.meta['kernel']}: a 32-bit kernel's manifest without "
                             "checks.bounds (an older gpupoor-opt's): rebuild the kernels")
        # A cubin, or PTX (build_kernels.py --formats isa: the manifest's
        # `ptx`), which the driver compiles for this GPU when it loads it: an
        # older chip's kernels (sm_80, sm_86, sm_89) run on a newer GPU so.
        image = self.meta["cubin"] if "cubin" in self.meta else self.meta["ptx"]
        self.module = cp.RawModule(path=os.path.join(kdir, image))
        self.fn = self.module.get_function(self.meta["kernel"])
        self.smem = self.meta["dynamic_shared_memory"]
        self.fn.max_dynamic_shared_size_bytes = self.smem
        self.bm, self.bn, _ = self.meta["tile"]
        # The kernel's operand layouts; a km kernel reads A along M (A's
        # stride_am == 1). `nk` is the call's B layout: a swapped kernel's
        # (gpupoor-swap-operands) A is the call's B, K x M where B is K x N.
        self.kernel_nk = self.meta["b_layout"] == "nk"
        self.km = self.meta.get("a_layout", "mk") == "km"
        self.nk = not self.km if self.meta.get("swapped_operands") else self.kernel_nk
        self.aligned = bool(self.meta.get("async_copies", True))
        variant = os.path.join(kdir, "variant.json")
        self.source = {}
        if os.path.isfile(variant):
            with open(variant) as f:
                self.source = json.load(f)["source"]
        # Parallel split-k: grid y = P' slices, and a workspace whose
        # counters start zeroed (each launch leaves them so): one buffer,
        # grown as needed.
        # Stream-K (persistent blocks sharing the last wave's tiles): the
        # same four workspace parameters, G slots and G flags.
        self.stream_k = bool(self.meta.get("stream_k"))
        self.takes_workspace = "ws_ptr" in self.meta["params"]
        self.parallel = self.takes_workspace and not self.stream_k
        # One launch for every batch element (batch strides among the
        # parameters); A, B and C are then 3-D.
        self.batched = bool(self.meta.get("batched"))
        self.workspace = self.locks = None
        # C = A*B, nothing after: what the exact and model suites check.
        self.plain = (not self.meta["epilogue_inputs"] and not self.meta["epilogue"]
                      and not self.meta["reads_c"])
        # A persistent kernel's blocks loop over the tiles: any grid computes
        # C. None: one block an SM, as the host code launches it; the suite
        # sets a few blocks, so that each loops over several tiles.
        self.persistent = bool(self.meta.get("persistent"))
        self.persistent_blocks = None
        # Launched with programmatic stream serialization where the kernel
        # waits for the previous one (manifest dependent_launch), as the
        # package launches it; GPUPOOR_DEPENDENT_LAUNCH=0 launches plainly.
        self.dependent = bool(self.meta.get("dependent_launch")) and DEPENDENT_LAUNCH
        # S where the kernel takes it (parameter `splits`, kernel_config
        # splits_arg): None passes the manifest's rule, as the host code does.
        self.takes_splits = "splits" in self.meta["params"]
        self.splits = None

    def splits_for(self, k):
        """S of a launch over K: the one passed where the kernel takes it
        and the suite sets it, else the manifest's."""
        if self.takes_splits and self.splits is not None:
            return self.splits
        return splits_for(self.meta, k)

    def check_requires(self, args, a, b):
        """Raises ValueError when the operands break the manifest's `checks`
        (its conditions and a 32-bit kernel's bounds, read as data as a
        launcher outside MLIR must read them; the MLIR host code checks the
        same). args: the launch's parameter values by ABI name, T (tiles)
        and sum_slots (T * P' where P' > 1 slices run, else 0)."""
        checks = self.meta.get("checks", {})
        why = violation(checks, args) if a.numel() and b.numel() else None
        why = why or bounds_violation(checks.get("bounds", []), args)
        if not why and args["tiles"] > checks.get("max_work_tiles", args["tiles"]):
            why = f"{args['tiles']} work tiles pass the persistent kernel's {checks['max_work_tiles']}"
        if why:
            raise ValueError(f"{self.meta['kernel']}: {why}")

    def __call__(self, a, b, c, ins=()):
        """C = epilogue(A*B, ...) with `ins` the epilogue's operands, each
        (tensor, stride along C's rows, stride along C's columns), in the
        manifest's order; C must hold C_in where the manifest says reads_c.
        A batched kernel takes 3-D A, B and C, and each epilogue operand's
        batch stride fourth (tensor, stride_m, stride_n, stride_b), the
        tensor at batch element 0."""
        if self.meta.get("swapped_operands"):
            # gpupoor-swap-operands' kernel computes C^T = B^T A^T: B^T (N x
            # K: B as N x K, or B as K x N read along its N) is its A, A its
            # B (M x K as its N x K, or K x M as its K x N), C^T a view, and
            # every epilogue operand's strides swap with the indices. A
            # stored K x M (the kernel's B as K x N) is read along M.
            if not self.kernel_nk and a.stride(-1) == 1:
                a = m_major(a)
            return self._launch(b if self.nk else b.t(), a if self.kernel_nk else a.t(), c.t(),
                                [(t, sn, sm, *rest) for t, sm, sn, *rest in ins])
        if self.km and a.stride(-1) == 1:
            a = m_major(a)
        return self._launch(a, b, c, ins)

    def _launch(self, a, b, c, ins):
        batch = 1
        outer = (a, b, c)
        if self.batched:
            if a.dim() != 3 or b.dim() != 3 or c.dim() != 3 or any(len(i) != 4 for i in ins):
                raise ValueError("the batched launcher takes 3-D A, B and C and epilogue "
                                 "operands (tensor, stride_m, stride_n, stride_b)")
            batch = a.shape[0]
            if b.shape[0] != batch or c.shape[0] != batch:
                raise ValueError("A, B and C disagree on the batch")
            if batch == 0:
                return
            a, b, c = a[0], b[0], c[0]
        m, k = a.shape
        n = c.shape[1]
        if self.kernel_nk:
            stride_bk, stride_bn = b.stride(1), b.stride(0)
        else:
            stride_bk, stride_bn = b.stride(0), b.stride(1)
        if len(ins) != len(self.meta["epilogue_inputs"]):
            raise ValueError(f"the kernel takes {len(self.meta['epilogue_inputs'])} epilogue "
                             f"operands, got {len(ins)}")
        abi = dict(M=m, N=n, K=k, a_ptr=a.data_ptr(), b_ptr=b.data_ptr(), c_ptr=c.data_ptr(),
                   stride_am=a.stride(0), stride_ak=a.stride(1), stride_bk=stride_bk,
                   stride_bn=stride_bn, stride_cm=c.stride(0), stride_cn=c.stride(1))
        if self.batched:
            abi.update(batch=batch, stride_ab=outer[0].stride(0), stride_bb=outer[1].stride(0),
                       stride_cb=outer[2].stride(0))
        for i, (_, sm, sn, *_) in enumerate(ins):
            abi.update({f"stride_in{i}m": sm, f"stride_in{i}n": sn})
        # Clusters along M (manifest cluster_m) take whole clusters of row
        # tiles, and a persistent grid of whole clusters (one at least).
        pair = self.meta.get("cluster_m", 1)
        grid = (-(-m // (self.bm * pair)) * pair) * (-(-n // self.bn)) * batch
        slices = self.num_slices(m, n, k, batch)
        abi.update(tiles=grid, sum_slots=grid * slices if slices > 1 else 0)
        self.check_requires(abi, a, b)
        if grid == 0:
            return
        if grid >= 2**31:
            raise ValueError("batch * ceil(M/BM) * ceil(N/BN) exceeds the grid")
        if self.persistent:
            blocks = self.persistent_blocks or torch.cuda.get_device_properties(
                c.device).multi_processor_count
            grid = min(grid, max(blocks // pair, 1) * pair)
        ptr = lambda t: np.uint64(t.data_ptr())
        size = np.int64 if self.meta.get("size_type") == "i64" else np.int32
        args = (ptr(a), ptr(b), ptr(c), size(m), size(n), size(k),
                size(a.stride(0)), size(a.stride(1)), size(stride_bk), size(stride_bn),
                size(c.stride(0)), size(c.stride(1)))
        if self.batched:
            args += tuple(np.int64(t.stride(0)) for t in outer) + (size(batch),)
        for t, sm, sn, *sb in ins:
            args += (ptr(t), size(sm), size(sn))
            if self.batched:
                args += (np.int64(sb[0]),)
        if self.takes_workspace:
            ws, locks = (self.stream_k_workspace(grid) if self.stream_k
                         else self.workspace_for(grid, slices))
            args += (np.uint64(ws.data_ptr() if ws is not None else 0),
                     np.int64(ws.numel() * 4 if ws is not None else 0),
                     np.uint64(locks.data_ptr() if locks is not None else 0),
                     np.int64(locks.numel() if locks is not None else 0))
        types = self.meta["param_types"]
        if "tensormap" in types:
            # The TMA kernel: A's and B's tensor maps, as the manifest says.
            # A batched kernel's maps: rank 3, the batch third.
            maps = self.meta["tensor_maps"]
            if maps["a_desc"]["rank"] != (3 if self.batched else 2):
                raise ValueError(f"manifest: tensor maps of rank {maps['a_desc']['rank']}")
            bat = lambda i: dict(batch=batch, batch_stride=outer[i].stride(0)) if self.batched else {}
            ap = dict(l2_promotion=maps["a_desc"]["l2_promotion"],
                      box_k=maps["a_desc"]["box_dim"][0])
            bp = dict(l2_promotion=maps["b_desc"]["l2_promotion"],
                      box_k=maps["b_desc"]["box_dim"][0])
            args += (tensor_maps.encode(a.data_ptr(), m, k, a.stride(1), maps["a_desc"]["box_dim"][1],
                                        **ap, **bat(0))
                     # A as K rows of M (the M-major kernel, its map's
                     # innermost dimension M), or as M rows of K.
                     if maps["a_desc"]["global_dim"][0] == "M" else
                     tensor_maps.encode(a.data_ptr(), k, m, a.stride(0), maps["a_desc"]["box_dim"][1],
                                        **ap, **bat(0)),
                     # B as N rows of K, or (the N-major kernel, its map's
                     # innermost dimension N) as K rows of N.
                     tensor_maps.encode(b.data_ptr(), n, k, stride_bk, maps["b_desc"]["box_dim"][1],
                                        **bp, **bat(1))
                     if maps["b_desc"]["global_dim"][0] == "N" else
                     tensor_maps.encode(b.data_ptr(), k, n, stride_bn, maps["b_desc"]["box_dim"][1],
                                        **bp, **bat(1)))
            if "c_desc" in maps:
                # The kernel stores C by TMA where the map describes C (the
                # manifest's encode_if), from its lanes otherwise.
                described = violation(maps["c_desc"]["encode_if"], abi) is None
                args += (tensor_maps.encode(c.data_ptr(), n, m, c.stride(0),
                                            maps["c_desc"]["box_dim"][1],
                                            l2_promotion=maps["c_desc"]["l2_promotion"],
                                            box_k=maps["c_desc"]["box_dim"][0], **bat(2))
                         if described else bytes(128),)
        if self.takes_splits:
            # The last parameter (getKernelParams).
            args += (size(self.splits_for(k)),)
        if "tensormap" in types or self.dependent:
            tensor_maps.launch(self.fn.kernel.ptr, (grid, slices), self.meta["block_size"], self.smem,
                               torch.cuda.current_stream().cuda_stream, args, types,
                               dependent=self.dependent)
            return
        with cp.cuda.Stream.from_external(torch.cuda.current_stream()):
            self.fn((grid, slices), (self.meta["block_size"],), args, shared_mem=self.smem)

    def num_slices(self, m, n, k, batch=1):
        """P', by the manifest's slice_rule (1 for a sequential kernel), in
        the numpy model's spelling of the policy's rule."""
        if not self.parallel:
            return 1
        rule = self.meta["slice_rule"]
        tiles = (-(-m // self.bm)) * (-(-n // self.bn)) * batch
        splits = self.splits_for(k)
        if rule["slices"] == 0 and model.short_k_one_slice(self.meta["chip"], k):
            return 1
        return model.num_slices(rule["slices"], tiles, splits, rule["sm_count"],
                                rule["blocks_per_sm"], rule["one_slice_share"], k)

    def buffers(self, sum_bytes, counters):
        """The workspace of at least `sum_bytes` and `counters` zeroed
        counters (each launch leaves them zero): one pair, grown as needed,
        counters zeroed when (re)allocated."""
        if self.workspace is None or self.workspace.numel() * 4 < sum_bytes:
            self.workspace = torch.empty(-(-sum_bytes // 4), dtype=torch.int32, device="cuda")
        if self.locks is None or self.locks.numel() < counters:
            self.locks = torch.zeros(counters, dtype=torch.int32, device="cuda")
        return self.workspace, self.locks

    def stream_k_workspace(self, blocks):
        """A stream-K kernel's buffers for a grid of `blocks`: a slot of a
        tile's sums and a flag a block."""
        return self.buffers(blocks * self.meta["workspace_bytes_per_block"], blocks)

    def workspace_for(self, tiles, slices):
        """The workspace's buffers, (sums, zeroed counters), as
        workspace_bytes_per_tile_slice sizes them, or (None, None) for one
        slice."""
        if slices <= 1:
            return None, None
        return self.buffers(tiles * slices * self.meta["workspace_bytes_per_tile_slice"], tiles)


def violation(checks, args):
    """Why the parameter values `args` (by ABI name) break `checks` (a
    manifest's `checks` or a tensor map's `encode_if`, read as data as a
    launcher outside MLIR reads them), or None. The bounds (`bounds`,
    max_work_tiles) are bounds_violation's and check_requires'."""
    if not isinstance(checks, dict):
        raise ValueError(f"manifest: checks as data expected, got {checks!r} "
                         "(a manifest of an older gpupoor-opt: rebuild the kernels)")
    for name in checks.get("unit_stride", []):
        if args[name] != 1:
            return f"{name} = {args[name]}, not 1"
    for name in checks.get("stride_multiple_of_8", []):
        if args[name] % 8:
            return f"{name} = {args[name]} is not a multiple of 8"
    for name in checks.get("pointer_aligned_16", []):
        if args[name] % 16:
            return f"{name} is not 16-byte aligned"
    for stride, rows in checks.get("positive_row_stride", []):
        if args[stride] <= 0 and args[rows] > 1:
            return f"{stride} = {args[stride]} with {rows} = {args[rows]} rows (a tensor map steps forward)"
    return None


def bounds_violation(bounds, args):
    """Why the parameter values `args` (by ABI name, and sum_slots) break a
    32-bit kernel's bounds (a manifest's checks.bounds, read as data), or
    None."""
    for bound in bounds:
        most = bound["at_most"]
        if "range" in bound:
            name, least = bound["range"], bound["at_least"]
            if not least <= args[name] <= most:
                return f"{name} = {args[name]} is outside [{least}, {most}] (32-bit kernel)"
        elif "last_offset" in bound:
            rows, row_stride, cols, col_stride = (args[name] for name in bound["view"])
            if (rows - 1) * row_stride + (cols - 1) * col_stride > most:
                return f"{bound['last_offset']}'s last element offset passes {most} (32-bit kernel)"
        elif "ceil_div" in bound:
            name = bound["ceil_div"]
            if -(-args[name] // bound["by"]) * bound["times"] > most:
                return f"ceil({name} / {bound['by']}) * {bound['times']} passes {most} (32-bit kernel)"
        else:
            raise ValueError(f"manifest: a bound of no known kind: {bound}")
    return None


def model_slices(kern):
    """The model's parallel split-k arguments for `kern`'s manifest."""
    return dict(slices=kern.meta.get("slices", 1), tile_mn=(kern.bm, kern.bn),
                sm_count=kern.meta.get("slice_rule", {}).get("sm_count", 132),
                chip=kern.meta.get("chip", "sm_90"))


def check_split_rule(meta):
    """A kernel that evaluates S itself runs its manifest's split_rule; the
    suite checks it bit for bit against the model at the model's S
    (splits_for), so the two rules must be one, or a stale kernel would
    fail (or pass) against another S than its own. (A kernel taking S from
    the launch is given the model's S, whatever its manifest says.)"""
    if meta["splits"] != "default":
        return
    rule = meta["split_rule"]
    want = model.split_rule(meta["chip"], meta["tile"], meta["max_splits"])
    if rule != want:
        raise ValueError(f"{meta['kernel']}: manifest split_rule {rule}, the model's {want}: "
                         "rebuild the kernels")


def splits_for(meta, k):
    s = meta["splits"]
    if s != "default":
        return s
    return model.tile_splits(meta["chip"], meta["tile"], k, meta["max_splits"])


def bk_of(meta):
    """The K step of the kernel's tile: the split geometry counts in it."""
    return meta["tile"][2]
