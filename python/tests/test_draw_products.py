"""benchmarks/draw_products.py: the specs it prints name products whose
launch by the policy meets its filters, and bad arguments exit non-zero."""

import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import draw_products  # noqa: E402
from gpupoor._native import C  # noqa: E402


def _specs(capsys, argv):
    rc = draw_products.main(argv)
    return rc, capsys.readouterr().out.split()


def test_specs_meet_the_filters(capsys):
    rc, specs = _specs(capsys, ["--seed", "3", "--count", "6", "--m", "129:2600",
                                "--k", "6144:20000", "--tile", "128x128", "--tiles", "1:65",
                                "--slices", "2:32", "--choices", "default,{family},m64"])
    assert rc == 0 and len(specs) == 6
    for spec in specs:
        shape, choices = spec.split("=")
        layout, dims = shape.split(":")
        m, n, k = map(int, dims.split("x"))
        assert n % 16 == 0 and k % 16 == 0 and 129 <= m <= 2600 and 6144 <= k
        a_layout, b_layout = draw_products.LAYOUTS[layout]
        launch = C.choose_launch("sm_90a", m, n, k, b_layout, 0, 32, 132, a_layout=a_layout)
        assert launch["tile"][:2] == (128, 128) and launch["tiles"] <= 65
        assert launch["slices"] >= 2
        assert choices == f"default,{launch['family']},m64"


def test_too_few_products_exit_non_zero(capsys):
    rc, specs = _specs(capsys, ["--seed", "3", "--count", "2", "--family", "no-such-family",
                                "--tries", "50"])
    assert rc == 1 and specs == []


@pytest.mark.parametrize("argv", [["--layouts", "nkx"], ["--m", "9:3"], ["--tile", "128"],
                                  ["--count", "0"]])
def test_bad_arguments_exit_non_zero(argv):
    with pytest.raises(SystemExit) as e:
        draw_products.main(["--seed", "1", "--count", "1"] + argv)
    assert e.value.code != 0
