"""The copies a call makes of its operands before it launches (the
launcher's launchOperands and the policy's rules for them), as the package
sees them, without a GPU."""

import pytest
import torch

from gpupoor._native import C


@pytest.mark.parametrize("m,n,k,copies", [
    (1, 20000, 1031, False),    # one row: each operand read once
    (2000, 1, 1031, False),     # one column
    (16, 136, 1031, False),     # 2.2e6 multiply-adds: the copy's launch costs
    (128, 128, 256, True),      # 2^22, the least copied
    (128, 128, 255, False),
    (96, 136, 1031, True),
    (2, 4100, 4052, True),      # a decode product of two rows
    (327, 1234, 4052, True)])
def test_unaligned_operands_copied_past_one_row_and_kMinCopiedWork(m, n, k, copies):
    """policy::copiesUnalignedOperands, which the launcher asks before it
    copies an operand whose rows lie off 16 bytes into padded rows."""
    assert C.copies_unaligned_operands(m, n, k) is copies
    with pytest.raises(ValueError, match="m, n and k must be >= 1"):
        C.copies_unaligned_operands(0, n, k)


@pytest.mark.parametrize("cols,padded", [
    (4052, 4064), (4056, 4056), (4064, 4064), (1, 16), (7, 16), (9, 16), (17, 32), (1031, 1040),
    (1234, 1248), (8, 8), (24, 24)])
def test_padded_rows_are_whole_sectors(cols, padded):
    """policy::paddedRowElems, the row length of the copies into padded rows
    (the package's and gpupoor-split-k's): rows of a multiple of 8 elements
    stay, others are padded to a multiple of 16 (32-byte sectors)."""
    assert C.padded_row_elems(cols) == padded
    with pytest.raises(ValueError, match="cols must be >= 1"):
        C.padded_row_elems(0)


@pytest.mark.parametrize("m,n,k,b_layout", [
    (330, 1208, 3048, "kn"),    # x64q as K x M, rows of 330 elements
    (300, 4100, 1032, "nk"),    # rows of 300 elements
    (1500, 1520, 1552, "kn")])
def test_plan_of_a_as_k_x_m_off_16_bytes_is_the_padded_copys(m, n, k, b_layout):
    """An A stored K x M whose rows lie off 16 bytes (M no multiple of 8) is
    copied as it lies into padded rows before the launch
    (policy::Strategy::padsA): describe_plan plans on that copy, as the call
    launches on it, and asks for the K x M product's family, as for the
    same A in rows of a multiple of 8 elements. (describe_plan once planned
    on the view as it lies and named a K x M family the call never ran;
    such an A was copied M x K before.)"""
    asked = []

    def find(chip, b, outer, epilogue, out, family, max_splits, prebuilt, a_layout="mk",
             batched=False):
        asked.append((family, a_layout))
        return None

    def plan(a):
        wt = torch.empty(n, k, dtype=torch.float16).T if b_layout == "nk" else \
            torch.empty(k, n, dtype=torch.float16)
        c = torch.empty(m, n, dtype=torch.float16)
        asked.clear()
        with pytest.raises(RuntimeError, match="no kernel "):
            C.describe_plan(a, wt, None, c, "none", "f32", 32, 0, ["sm_90a"], 132,
                            find_variant=find)
        assert asked
        return asked[-1]

    padded = -(-m // 8) * 8
    km = C.choose_launch("sm_90a", m, n, k, b_layout, 0, 32, 132, "km")
    assert km["a_layout"] == "km"
    assert plan(torch.empty(k, m, dtype=torch.float16).T) == (km["family"], "km")
    assert plan(torch.empty(k, padded, dtype=torch.float16)[:, :m].T) == (km["family"], "km")
    # The call launches on the copy: A's row stride (of the slot it takes,
    # the swapped kernel's B) is the padded M, policy::paddedRowElems.
    from test_library import manifest
    man = manifest(chip="sm_90a", a_layout="km", tile=list(km["tile"]), checks={})
    wt = torch.empty(n, k, dtype=torch.float16).T if b_layout == "nk" else \
        torch.empty(k, n, dtype=torch.float16)
    p = C.describe_plan(torch.empty(k, m, dtype=torch.float16).T, wt, None,
                        torch.empty(m, n, dtype=torch.float16), "none", "f32", 32, 0,
                        ["sm_90a"], 132, find_variant=lambda *key: [(man, "")])
    names = ("stride_am", "stride_ak") if p["a_slot"] == 0 else ("stride_bk", "stride_bn")
    strides = {p["values"][p["params"].index(name)] for name in names}
    assert strides == {1, C.padded_row_elems(m)}, (p["params"], p["values"])
