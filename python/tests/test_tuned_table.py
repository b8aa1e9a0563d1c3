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


def test_verified_losses_drop_the_row():
    """A row --verify timed slower than the rules by more than the margin on
    a sweep shape is dropped; one within the margin, or a verification of
    another row of the class (a re-tuned table), keeps it."""
    r = _class({"rules": 100.0, "m64/0": 80.0}, {"rules": 100.0, "m64/0": 80.0})

    def check(row, table, rules=100.0):
        return [{"layout": "nk", "class": [5, 13, 14], "row": row, "shape": [32, 5120, 13824],
                 "us": {"table": table, "rules": rules}}]
    assert len(tune_policy.rows_of([r], "sm_90a", 0.05)) == 1
    assert tune_policy.rows_of([r], "sm_90a", 0.05, check("m64/0", 106.0)) == []
    assert len(tune_policy.rows_of([r], "sm_90a", 0.05, check("m64/0", 104.0))) == 1
    assert len(tune_policy.rows_of([r], "sm_90a", 0.05, check("n64/0", 130.0))) == 1


def test_committed_verification_dropped_what_lost():
    """Every row the committed --verify timed slower than the rules by more
    than the margin is gone from the table."""
    data = json.loads((ROOT / "benchmarks" / "data" / "tune_sm_90a.json").read_text())
    committed = _rows((ROOT / "lib" / "Policy" / "Tuned" / "SM90a.def").read_text().splitlines())
    lost = [v for v in data.get("verified", [])
            if v["us"]["table"] > v["us"]["rules"] * (1 + data["margin"])]
    assert lost
    for v in lost:
        a, b = ("KM", "KN") if v["layout"] == "km" else ("MK", v["layout"].upper())
        mc, nc, kc = v["class"]
        prefix = f"GPUPOOR_TUNED(SM90a, {a}, {b}, {mc}, {nc}, {kc}, "
        assert not any(row.startswith(prefix) for row in committed), v
