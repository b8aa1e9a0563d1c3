"""The tuned table is the tuner's rule applied to its measurements:
lib/Policy/Tuned/SM90a.def is what benchmarks/tune_policy.py --from-json
writes from benchmarks/data/tune_sm_90a.json, and the rule keeps rows of
fixed slices only where they beat the rules' slices."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import tune_policy  # noqa: E402


def _rows(lines):
    return [line.split(" //")[0] for line in lines if line.startswith("GPUPOOR_TUNED")]


def test_committed_table_is_the_tuners(tmp_path):
    out = tmp_path / "SM90a.def"
    assert tune_policy.main(["--from-json", "--json",
                             str(ROOT / "benchmarks" / "data" / "tune_sm_90a.json"),
                             "--def", str(out)]) == 0
    committed = (ROOT / "lib" / "Policy" / "Tuned" / "SM90a.def").read_text().splitlines()
    assert _rows(out.read_text().splitlines()) == _rows(committed)
    assert _rows(committed)


def _class(*shapes):
    return {"layout": "nk", "class": [5, 13, 14],
            "shapes": [{"shape": [32, 8192, 16384], "us": us} for us in shapes]}


def test_fixed_slices_need_to_beat_the_rules_slices():
    # m64 in one slice 2% faster than m64 with the rules' slices: m64/0.
    r = _class({"rules": 100.0, "m64/0": 80.0, "m64/1": 78.4},
               {"rules": 100.0, "m64/0": 80.0, "m64/1": 78.4})
    assert tune_policy.best_of(r, 0.05)[0] == "m64/0"
    # 10% faster: the fixed count.
    r = _class({"rules": 100.0, "m64/0": 80.0, "m64/1": 72.0},
               {"rules": 100.0, "m64/0": 80.0, "m64/1": 72.0})
    assert tune_policy.best_of(r, 0.05)[0] == "m64/1"
    # Slower than the rules on one shape by more than the margin: no row.
    r = _class({"rules": 100.0, "m64/0": 80.0}, {"rules": 100.0, "m64/0": 110.0})
    assert tune_policy.best_of(r, 0.05) is None
    # Within the margin of the rules: no row.
    r = _class({"rules": 100.0, "m64/0": 97.0}, {"rules": 100.0, "m64/0": 97.0})
    assert tune_policy.best_of(r, 0.05) is None


def test_lowest_size_of_a_class():
    assert [tune_policy.lowest(c) for c in (0, 1, 6, 12, 13)] == [1, 2, 33, 2112, 4160]
    for c in range(1, 20):
        assert tune_policy.C.size_class(tune_policy.lowest(c)) == c


def test_measurements_name_the_device():
    data = json.loads((ROOT / "benchmarks" / "data" / "tune_sm_90a.json").read_text())
    assert data["device"] and data["date"] and data["chip"] == "sm_90a"
