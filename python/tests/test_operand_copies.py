"""The copies a call makes of its operands before it launches (the
launcher's launchOperands and the policy's rules for them), as the package
sees them, without a GPU."""

import pytest
import torch

from gpupoor._native import C


@pytest.mark.parametrize("m,n,k,copies", [
    (1, 20000, 1031, True),     # one row read an element at a time
    (2000, 1, 1031, True),      # one column
    (1, 300, 211, True),        # whatever the work
    (16, 136, 1031, False),     # 2.2e6 multiply-adds: the copy's launch costs
    (128, 128, 256, True),      # 2^22, the least copied
    (128, 128, 255, False),
    (96, 136, 1031, True),
    (2, 4100, 4052, True),      # a decode product of two rows
    (327, 1234, 4052, True)])
def test_unaligned_operands_copied_past_kMinCopiedWork(m, n, k, copies):
    """policy::copiesUnalignedOperands, which the launcher asks before it
    copies an operand whose rows lie off 16 bytes into padded rows (here
    rows of 2 bytes, read an element at a time as they lie)."""
    assert C.copies_unaligned_operands(m, n, k) is copies
    with pytest.raises(ValueError, match="m must be >= 1"):
        C.copies_unaligned_operands(0, n, k)


@pytest.mark.parametrize("m,n,k,a_bytes,b_bytes,copies", [
    (1, 20000, 1030, 16, 4, False),   # one row: the weight read once, in 4-byte pieces
    (1, 20000, 1028, 16, 8, False),
    (1, 20000, 1031, 16, 2, True),    # an element at a time
    (1, 20000, 1031, 2, 16, False),   # the one row off: not the weight
    (2000, 1, 1030, 4, 16, False),    # one column: A the weight
    (2000, 1, 1031, 2, 16, True),
    (2000, 1, 1031, 16, 2, False)])
def test_one_row_copied_only_where_read_by_elements(m, n, k, a_bytes, b_bytes, copies):
    """A product of one row or column reads each operand once: its weight
    (the other operand) read in cp.async pieces as it lies, copied where it
    would be read an element at a time
    (benchmarks/data/decode_odd_rows_h100_sm_90a.json)."""
    assert C.copies_unaligned_operands(m, n, k, a_bytes, b_bytes) is copies


@pytest.mark.parametrize("m,n,k,a_bytes,b_bytes,copies", [
    (4096, 16, 4100, 8, 8, False),   # narrow: A (16.8e6 elements) in 8-byte pieces
    (16, 4096, 4100, 8, 8, False),   # a decode product: B in 8-byte pieces
    (4096, 16, 4100, 16, 8, True),   # B alone copied: 6.6e4 of 1.7e7 elements
    (4096, 16, 4098, 4, 4, True),    # 4-byte pieces
    (4096, 16, 4100, 8, 2, True),    # B read by elements
    (16, 1200, 1028, 8, 8, True),    # copies of 1.25e6 elements, kPieceReadMinCopy
    (16, 4000, 1028, 8, 8, False),   # of 4.1e6
    (32, 4096, 4100, 8, 8, True),    # 32 rows: past kPieceReadRows
    (17, 4096, 4100, 8, 8, True),
    (16, 600000, 4100, 8, 8, True),  # B past 2^31 elements: the 64-bit kernels'
    (4096, 16, 4100, 16, 16, False)])  # nothing to copy
def test_narrow_products_leave_8_byte_rows_to_the_pieces(m, n, k, a_bytes, b_bytes, copies):
    """policy::copiesUnalignedOperands leaves a narrow product's operands
    whose rows lie on 8 bytes to the element kernels' cp.async pieces where
    their copies would move most of its elements, and copies others."""
    assert C.copies_unaligned_operands(m, n, k, a_bytes, b_bytes) is copies
    with pytest.raises(ValueError, match="a_row_bytes and b_row_bytes must be 2, 4, 8 or 16"):
        C.copies_unaligned_operands(m, n, k, 6, b_bytes)


@pytest.mark.parametrize("m,n,k,a_bytes,b_bytes,b_layout,chip,copies", [
    (31, 15008, 4020, 8, 8, "nk", "sm_90a", False),  # m32w: 235 blocks on 132 SMs
    (17, 3388, 5372, 8, 8, "nk", "sm_90a", True),    # m32: 53 blocks
    (5, 15502, 14476, 8, 4, "kn", "sm_90a", False),  # 4-byte pieces, s16w: 243 blocks
    (20, 2000, 14476, 8, 4, "kn", "sm_90a", True),   # 4-byte pieces, few blocks (m32)
    # Decode products on the swapped decode tile's element kernels: as they
    # lie, whatever the blocks (few: 32 tiles; 128 tiles, B as N x K).
    (5, 2000, 14476, 8, 4, "kn", "sm_90a", False),
    (16, 8192, 4102, 4, 4, "nk", "sm_90a", False),
    (64, 30000, 4020, 8, 8, "nk", "sm_90a", False),  # 64 rows, m64w: 235 blocks
    (65, 15008, 4020, 8, 8, "nk", "sm_90a", True),   # past kPieceReadWaveRows
    (16, 4096, 4100, 8, 8, "nk", "sm_80", True),     # other chips keep the copies
    (31, 15008, 4020, 8, 8, "nk", "sm_90", True)])
def test_narrow_products_of_many_blocks_leave_rows_to_the_pieces(m, n, k, a_bytes, b_bytes,
                                                                b_layout, chip, copies):
    """Up to 64 rows or columns, 4- or 8-byte pieces pay where the policy's
    launch (choose_launch) has an eighth more blocks than SMs, and for decode
    products on the swapped decode tile; sm_90a's rules only."""
    assert C.copies_unaligned_operands(m, n, k, a_bytes, b_bytes, chip=chip, b_layout=b_layout,
                                       sm_count=132) is copies


@pytest.mark.parametrize("offset,row,batch,align", [
    (0, 4100, 0, 8), (0, 4098, 0, 4), (0, 4097, 0, 2), (0, 4096, 0, 16), (2, 4096, 0, 4),
    (4, 4096, 8196, 8), (0, 4096, 4097, 2), (0, -4, 0, 8), (0, 2**62, 0, 16),
    (0, 2**63 - 1, 0, 2)])
def test_row_align_bytes(offset, row, batch, align):
    """policy::rowAlignBytes: the bytes an f16 operand's start and strides
    (elements) all lie on; negative strides and strides past 2^62 elements
    (whose bytes would overflow 64 bits) too."""
    assert C.row_align_bytes(offset, row, batch) == align


@pytest.mark.parametrize("first,k,copied", [
    (0, 4100, False),   # rows and start on 8 bytes: read in pieces as they lie
    (2, 4100, True),    # a start 4 bytes on: 4-byte pieces, copied
    (0, 4098, True),    # rows of 4 bytes
    (4, 4100, False)])  # a start 8 bytes on
def test_launch_operands_copy_by_how_their_rows_lie(first, k, copied):
    """The package asks policy::copiesUnalignedOperands with the bytes its
    operands' start and row strides lie on (rowBytes in operands.cpp), and
    plans on the copies it then makes: a 4096 x 16 product, A of 4096 rows
    `first` elements into its storage, B as N x K."""
    from test_library import manifest
    m, n = 4096, 16
    a = torch.empty(m * k + first, dtype=torch.float16)[first:].view(m, k)
    wt = torch.empty(n, k, dtype=torch.float16).T
    launch = C.choose_launch("sm_90a", m, n, k, "nk", 0, 32, 132, "mk")
    man = manifest(chip="sm_90a", tile=list(launch["tile"]), sets=launch["sets"], checks={})
    p = C.describe_plan(a, wt, None, torch.empty(m, n, dtype=torch.float16), "none", "f32", 32,
                        0, ["sm_90a"], 132, find_variant=lambda *key: [(man, "")])
    row_strides = {p["values"][p["params"].index(name)]
                   for name in ("stride_am", "stride_ak", "stride_bk", "stride_bn")} - {1}
    padded = C.padded_row_elems(k)
    assert row_strides == ({padded} if copied else {k}), (p["params"], p["values"])


@pytest.mark.parametrize("layout,n,k,copied", [
    ("nk", 934, 1561, True),     # the weight's rows of 1561: read by elements
    ("kn", 1333, 1790, True),    # of 1333
    ("nk", 934, 1562, False),    # of 1562: 4-byte pieces
    ("kn", 1332, 1790, False)])  # of 1332: 8-byte pieces
def test_one_row_launch_copies_a_weight_read_by_elements(layout, n, k, copied):
    """A product of one row plans on a copy of its weight where the weight's
    rows lie on 2 bytes, and on the weight as it lies where they lie on 4 or
    8 (policy::copiesUnalignedOperands)."""
    from test_library import manifest
    x = torch.empty(1, k, dtype=torch.float16)
    w = torch.empty(n, k, dtype=torch.float16).T if layout == "nk" else \
        torch.empty(k, n, dtype=torch.float16)
    launch = C.choose_launch("sm_90a", 1, n, k, layout, 0, 32, 132, "mk")
    man = manifest(chip="sm_90a", tile=list(launch["tile"]), sets=launch["sets"], checks={})
    p = C.describe_plan(x, w, None, torch.empty(1, n, dtype=torch.float16), "none", "f32", 32,
                        0, ["sm_90a"], 132, find_variant=lambda *key: [(man, "")])
    strides = {p["values"][i] for i, name in enumerate(p["params"]) if name.startswith("stride_")}
    row = k if layout == "nk" else n
    assert (C.padded_row_elems(row) in strides) is copied, (p["params"], p["values"])


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
