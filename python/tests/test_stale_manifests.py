"""The package refuses a kernel whose manifest says another gpupoor built it
(another split rule, other f16 sums a chunk than its family's): checked
on plans of manifests that are never launched, without a GPU."""

import pytest
import torch

from gpupoor._native import C

def _plan_on_manifest(manifest, m, family=None, exact=False):
    """The package's plan of an m x 4096 x 4096 product (B as N x K) whose
    variant is the one kernel `manifest` (never launched), `family`'s tile
    forced (with `exact`, the family itself)."""
    def find(*args):
        return [(manifest, "unused.cubin")]
    a = torch.empty(m, 4096, dtype=torch.float16)
    b = torch.empty(4096, 4096, dtype=torch.float16).T
    c = torch.empty(m, 4096, dtype=torch.float16)
    if family:
        C._force_choice(family, 0, exact=exact)
    try:
        C.describe_plan(a, b, None, c, "none", "f32", 32, 0, ["sm_90a"], 132, find_variant=find)
    finally:
        C._force_choice(None)


def test_stale_split_rule_is_refused():
    """A kernel that evaluates S itself runs the rule it was built with,
    while the launcher plans its slices with this package's S: a manifest
    whose split_rule is another (a kernel directory from an older gpupoor:
    the 128 x 256 tile before its chunks of 256) or whose S is fixed is
    refused by name, never launched with slices planned for another S."""
    rule = {"rule_block": 32, "long_k_rule_blocks": 64, "min_long_k_splits": 12,
            "max_splits": 32, "longest_chunk": 256}
    base = {"kernel": "gpupoor_matmul_0", "chip": "sm_90a", "params": [], "param_types": [],
            "dynamic_shared_memory": 0, "block_size": 384, "tile": [128, 256, 64],
            "splits": "default", "max_splits": 32, "split_rule": rule}

    def plan(manifest):
        _plan_on_manifest(manifest, 4096)

    older = {k: v for k, v in rule.items() if k != "longest_chunk"}
    for manifest, message in (
            ({**base, "split_rule": older},
             r"split_rule.longest_chunk 0 \(this package's: 256\)"),
            ({**base, "split_rule": {**rule, "min_long_k_splits": 8}},
             r"split_rule.min_long_k_splits 8 \(this package's: 12\)"),
            ({**base, "split_rule": {**rule, "max_splits": 16}},
             r"split_rule.max_splits 16 \(this package's: 32\)"),
            ({**base, "split_rule": {**rule, "chunk_sets": 4}},
             r"split_rule.chunk_sets 4 \(this package's rule has no chunk_sets\)"),
            ({**base, "splits": 16}, "S fixed at 16"),
            ({k: v for k, v in base.items() if k != "split_rule"},
             r"split_rule.rule_block 0 \(this package's: 32\)")):
        with pytest.raises(ValueError, match="gpupoor_matmul_0: " + message):
            plan(manifest)
    # The package's rule passes (the plan may still fail later on the fake
    # manifest, but not on its rule), and a kernel taking S from the launch
    # is not held to the manifest's rule.
    for manifest in (base, {**base, "params": ["splits"], "param_types": ["i32"],
                            "split_rule": older}):
        try:
            plan(manifest)
        except (ValueError, RuntimeError) as e:
            assert "split rule" not in str(e), e


def test_stale_sets_are_refused():
    """A kernel keeps the f16 sums a chunk the policy gave its tile when it
    was built (its manifest's sets): one of a library whose policy gave
    another count (sm_90a's 32-row tile before its two sums) rounds
    otherwise than the compiler's kernel of the product, and is refused by
    name; the policy's count, and a manifest without sets on a tile of one
    sum, pass that check. The count is the family's (policy::familySets):
    n64s keeps two sums of the 64 x 64 tile, n64 one."""
    base = {"kernel": "gpupoor_matmul_0", "chip": "sm_90a", "params": ["splits"],
            "param_types": ["i32"], "dynamic_shared_memory": 0, "block_size": 384,
            "tile": [32, 64, 128]}

    def plan(manifest):
        _plan_on_manifest(manifest, 32, "m32")

    assert C.choose_launch("sm_90a", 32, 4096, 4096, "nk", 0, 256, 132, "mk")["sets"] == 2
    for manifest, message in (({**base, "sets": 1}, r"sets 1, .*its family m32 \(2\)"),
                              (base, r"sets 1, .*its family m32 \(2\)"),
                              ({**base, "sets": 4}, r"sets 4, .*its family m32 \(2\)")):
        with pytest.raises(ValueError, match="gpupoor_matmul_0: " + message):
            plan(manifest)
    for manifest in ({**base, "sets": 2}, {**base, "tile": [64, 128, 64]}):
        try:
            plan(manifest)
        except (ValueError, RuntimeError) as e:
            assert "f16 sums a chunk" not in str(e), e
    n64 = {**base, "tile": [64, 64, 64], "block_size": 256}
    for family, manifest, message in (("n64s", n64, r"sets 1, .*its family n64s \(2\)"),
                                      ("n64", {**n64, "sets": 2}, r"sets 2, .*its family n64 \(1\)")):
        with pytest.raises(ValueError, match="gpupoor_matmul_0: " + message):
            _plan_on_manifest(manifest, 128, family, exact=True)
    for family, manifest in (("n64s", {**n64, "sets": 2}), ("n64", n64)):
        try:
            _plan_on_manifest(manifest, 128, family, exact=True)
        except (ValueError, RuntimeError) as e:
            assert "f16 sums a chunk" not in str(e), e
