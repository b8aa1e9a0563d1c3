"""The package's plans under a forced choice (gpupoor._C._force_choice):
a forced family's tile launched as the rules launch it, or the family
itself (exact=True, benchmarks/force_choice.py's default)."""

import pytest
import torch

from gpupoor._native import C


def _recording_finder():
    """A find_variant for describe_plan that records each family asked
    for and finds no kernel (the plan then names the variant it lacks)."""
    got = []

    def find(chip, b_layout, outer, epilogue, out, family, *rest):
        got.append(family)
        return None

    return got, find


def test_split_handover_on_the_devices_sms():
    """The persistent 128 x 256 tiles take the split handover up to two
    tiles an SM of the device the call runs on (policy::splitHandoverPays
    on the launch's SM count, as stream-K): 256 tiles of 2048 x 4096 are
    two an SM of 132, more of 114. (The rules' tile follows the SMs: the
    tuned table's forced choice keeps 128 x 256.)"""
    got, find = _recording_finder()
    a = torch.empty(2048, 2048, dtype=torch.float16)
    b = torch.empty(4096, 2048, dtype=torch.float16).T
    c = torch.empty(2048, 4096, dtype=torch.float16)
    for sms, want in ((132, "plh"), (114, "pl")):
        C._force_choice("large", 0)
        try:
            # (The library lacks it: the error names the variant with its family.)
            with pytest.raises(RuntimeError, match=f"no kernel nk_f32_none_f16_{want}_s32 "):
                C.describe_plan(a, b, None, c, "none", "f32", 32, 0, ["sm_90a"], sms,
                                find_variant=find)
        finally:
            C._force_choice(None)
        assert got[-1] == want, sms


def test_forced_family_exact_or_as_its_tile():
    """A forced family names its tile, launched as the rules launch that
    tile: at 1032 x 5976 x 1648 with B as K x N (its rows off 32-byte
    sectors) 128 x 256 persistent in clusters of two with the split
    handover (plch), whichever 128 x 256 family is forced. With exact=True
    the family itself runs (benchmarks/force_choice.py's choices), but one
    the layouts have no kernels of, which leaves the rules' choice."""
    got, find = _recording_finder()
    a = torch.empty(1032, 1648, dtype=torch.float16)
    b = torch.empty(1648, 5976, dtype=torch.float16)
    c = torch.empty(1032, 5976, dtype=torch.float16)
    for family, exact, want in (("pl", False, "plch"), ("plk", False, "plch"),
                                ("large", False, "plch"), ("pl", True, "pl"),
                                ("plk", True, "plk"), ("large", True, "large"),
                                ("plch", True, "plch"), ("pl224h", True, "plch")):
        C._force_choice(family, 0, True, 0, exact)
        try:
            with pytest.raises(RuntimeError, match=f"no kernel kn_f32_none_f16_{want}_s32 "):
                C.describe_plan(a, b, None, c, "none", "f32", 32, 0, ["sm_90a"], 132,
                                find_variant=find)
        finally:
            C._force_choice(None)
        assert got[-1] == want, (family, exact)
    # A batch of products takes no forced choice (tunedChoice), exact or not.
    a3 = torch.empty(8, 1024, 1024, dtype=torch.float16)
    for exact in (False, True):
        C._force_choice("large", 0, True, 0, exact)
        try:
            with pytest.raises(RuntimeError, match="no kernel bkn_f32_none_f16_pl_s32 "):
                C.describe_plan(a3, a3, None, a3, "none", "f32", 32, 0, ["sm_90a"], 132,
                                find_variant=find)
        finally:
            C._force_choice(None)
    # A persistent family runs one slice: exactly, it takes no more.
    with pytest.raises(ValueError, match="persistent"):
        C._force_choice("pl", 3, True, 0, True)
    C._force_choice(None)


def test_copied_k_by_m_decode_plans_eight_sums():
    """The call's plan, not only the policy's choice, knows that A stored
    K x M was copied M x K (VariantKey::aCopiedFromKM): 4 rows of it run
    s16e (eight f16 sums a chunk), the same rows stored M x K s16."""
    got, find = _recording_finder()
    b = torch.empty(4096, 4096, dtype=torch.float16)
    c = torch.empty(4, 4096, dtype=torch.float16)
    for a, want in ((torch.empty(4096, 4, dtype=torch.float16).T, "s16e"),
                    (torch.empty(4, 4096, dtype=torch.float16), "s16"),
                    (torch.empty(4096, 4, dtype=torch.float16).T, "s16e")):
        with pytest.raises(RuntimeError, match=f"no kernel kn_f32_none_f16_{want}_s32 "):
            C.describe_plan(a, b, None, c, "none", "f32", 32, 0, ["sm_90a"], 132,
                            find_variant=find)
        assert got[-1] == want
