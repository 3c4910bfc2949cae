"""Batches from Python against `softik batch` on examples/finger_batch: the same table; designs
built in Python; bad overrides fail before anything runs."""

import numpy as np
import pytest

from compare import assert_same_columns
from conftest import EXAMPLES

SWEEP = str(EXAMPLES / "finger_batch/finger_sweep.yaml")
FINGER = str(EXAMPLES / "finger/finger.yaml")


def test_sweep_table_matches_the_cli(softik_module, cli_runs, tmp_path):
    softik = softik_module
    cli = softik.read_table(cli_runs("finger_sweep", SWEEP, "batch") / "finger_sweep.csv")
    result = softik.run_batch(SWEEP, str(tmp_path))
    table = result.table()
    compared = assert_same_columns(table, cli)
    assert {"design", "status", "loads.pressure[0].value", "mesh.generator.bottom_wall", "uz_tip",
            "volume_cavity"} <= set(compared)
    assert list(table["status"]) == ["ok"] * 4 and result.workers == 2 and result.backend == "cpu"
    assert all(d["ok"] and d["error"] == "" for d in result.designs)
    # The file it kept while running is the same table.
    assert_same_columns(softik.read_table(result.csv_path), cli)


def test_designs_built_in_python(softik_module, tmp_path):
    softik = softik_module
    coarse = {"mesh.generator.cell_size": 0.004, "solver.load_steps": 3}
    designs = [{"name": f"p{p}", "set": {**coarse, "loads.pressure[0].value": p}} for p in (6000, 12000)]
    spec = softik.BatchSpec(FINGER, designs, workers=2, path="pressures.yaml")
    assert [d["name"] for d in spec.designs] == ["p6000", "p12000"]
    assert spec.designs[1]["set"]["loads.pressure[0].value"] == "12000"
    assert spec.scene(1).name == "finger"
    result = softik.run_batch(spec, str(tmp_path))
    table = result.table()
    assert result.csv_path.endswith("pressures.csv")
    assert list(table["design"]) == ["p6000", "p12000"] and list(table["status"]) == ["ok", "ok"]
    np.testing.assert_array_equal(table["pressure_cavity"], [6000, 12000])
    assert 0 < table["uz_tip"][0] < table["uz_tip"][1]


def test_bad_designs_fail_before_running(softik_module):
    softik = softik_module
    with pytest.raises(softik.InputError, match="design 'soft'"):
        softik.BatchSpec(FINGER, [{"name": "soft", "set": {"materials[0].young": -1}}])
    with pytest.raises(softik.InputError, match="two designs are named 'a'"):
        softik.BatchSpec(FINGER, [{"name": "a"}, {"name": "a"}])
    with pytest.raises(softik.InputError, match="cannot name a folder"):
        softik.BatchSpec(FINGER, [{"name": "../up"}])
    with pytest.raises(softik.InputError, match="cannot open batch file"):
        softik.load_batch(str(EXAMPLES / "finger_batch/missing.yaml"))
