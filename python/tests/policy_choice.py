"""The policy's choices shared by the tests of the rules (test_families*.py)."""

from gpupoor._native import C


def family(m, n, b="nk", chip="sm_90a", k=4096, slices=0, sms=132, a="mk"):
    """The rules' family (the tuned table aside: test_tuned_table)."""
    return C.choose_launch(chip, m, n, k, b, slices, 32, sms, a, tuned=False)["family"]
