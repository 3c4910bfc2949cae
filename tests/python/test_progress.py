"""Progress callbacks from Python (softik.run_scene / softik.run_batch, progress=...): one dict per
load step or finished design, k = 1..N, the last one flagged; called with the GIL from the batch's
worker threads; an exception raised in the callback stops the run and reaches the caller."""

import pytest

BLOCK = """mesh: {generator: {type: box, size: [0.03, 0.012, 0.012], cells: [5, 2, 2], cell_type: hex8}}
materials: {law: neo_hookean, young: 1.0e5, poisson: 0.45}
fixed: [{group: xmin}]
loads: {forces: [{group: xmax, force: [0, 0, -0.05]}]}
solver: {load_steps: 3}
outputs: {vtu: false}
"""


def check_counts(events, what, total):
    assert [e["k"] for e in events] == list(range(1, total + 1))
    assert all(e["what"] == what and e["total"] == total for e in events)
    assert [e["last"] for e in events] == [False] * (total - 1) + [True]
    assert all(e["eta"] >= 0 and e["elapsed"] >= 0 for e in events)
    assert events[-1]["eta"] == 0
    elapsed = [e["elapsed"] for e in events]
    assert elapsed == sorted(elapsed)


def test_run_scene_reports_every_load_step(softik_module, tmp_path):
    softik = softik_module
    events = []
    result = softik.run_scene(softik.Scene.from_string(BLOCK, str(tmp_path / "block.yaml")), str(tmp_path / "out"),
                              progress=events.append)
    assert result.load_steps == 3
    check_counts(events, "load step", 3)
    assert set(events[0]) == {"what", "k", "total", "elapsed", "eta", "label", "last"}
    assert "Newton iterations" in events[0]["label"]


def test_run_batch_reports_finished_designs_and_stops_on_an_exception(softik_module, tmp_path):
    softik = softik_module
    (tmp_path / "block.yaml").write_text(BLOCK)
    designs = [{"name": f"f{k}", "set": {"loads.forces[0].force": f"[0, 0, {-0.01 * k}]"}} for k in range(1, 5)]
    spec = softik.BatchSpec(str(tmp_path / "block.yaml"), designs, workers=2, path="forces.yaml")
    events = []
    result = softik.run_batch(spec, str(tmp_path / "out"), progress=events.append)
    assert all(d["ok"] for d in result.designs)
    check_counts(events, "design", 4)
    assert sorted(e["label"] for e in events) == [f"f{k}: ok" for k in range(1, 5)]

    class Stop(Exception):
        pass

    def stop(event):
        raise Stop("stop the batch")

    one_worker = softik.BatchSpec(str(tmp_path / "block.yaml"), designs, workers=1, path="stopped.yaml")
    with pytest.raises(Stop, match="stop the batch"):
        softik.run_batch(one_worker, str(tmp_path / "stopped"), progress=stop)
    assert (tmp_path / "stopped" / "f1").is_dir() and not (tmp_path / "stopped" / "f2").exists()
    with pytest.raises(softik.InputError, match="progress must be a callable"):
        softik.run_batch(spec, str(tmp_path / "out"), progress=3)
