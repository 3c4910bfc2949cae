"""The Python examples run: the finger inverse loop reaches its goal, and plot_examples.py draws
the three images of docs/python.md."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT


def run_example(name, *args, cwd):
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, str(ROOT / "python/examples" / name), *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


def test_finger_inverse_loop(softik_module, tmp_path):
    r = run_example("finger_inverse.py", "--csv", tmp_path / "steps.csv", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "goal reached in" in r.stdout
    table = softik_module.read_table(tmp_path / "steps.csv")
    assert table["step"][0] == 0 and table["tip_error"][-1] <= 1e-6
    assert table["cavity_pressure"][-1] == pytest.approx(20000, rel=1e-4)


def test_plot_examples(softik_module, tmp_path):
    pytest.importorskip("matplotlib")
    r = run_example("plot_examples.py", tmp_path / "images", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in ("load_path", "inverse_convergence", "batch_scatter"):
        image = tmp_path / "images" / f"{name}.png"
        assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
