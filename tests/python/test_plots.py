"""The plots (python3 -m softik.plot) of the CLI's CSV files: PNG and SVG are written, bad input is
a clear error, and the extension is not needed."""

import subprocess
import sys

import pytest

from conftest import EXAMPLES, ROOT

pytest.importorskip("matplotlib")


def plot(*args, pure=False):
    """python3 -m softik.plot ARGS; with pure, from the source tree without the extension."""
    env = None
    if pure:
        env = {"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg",
               "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-m", "softik.plot", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=300)


def is_png(path):
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10000


def test_load_path(cli_runs, tmp_path):
    csv = cli_runs("finger", EXAMPLES / "finger/finger.yaml") / "finger.csv"
    png, svg = tmp_path / "path.png", tmp_path / "path.svg"
    assert plot("path", csv, "-o", png, pure=True).returncode == 0
    assert is_png(png)
    r = plot("path", csv, "-o", svg, "--probe", "tip", "--load", "load_factor")
    assert r.returncode == 0, r.stderr
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text


def test_inverse_convergence(cli_runs, tmp_path):
    csv = cli_runs("finger_inverse", EXAMPLES / "finger_inverse/finger_inverse.yaml") / "finger_inverse.csv"
    png = tmp_path / "inverse.png"
    r = plot("inverse", csv, "-o", png, pure=True)
    assert r.returncode == 0, r.stderr
    assert is_png(png)


def test_batch_scatter(cli_runs, tmp_path):
    csv = cli_runs("finger_sweep", EXAMPLES / "finger_batch/finger_sweep.yaml", "batch") / "finger_sweep.csv"
    png = tmp_path / "batch.png"
    r = plot("batch", csv, "-o", png, pure=True)  # default axes: the varying overrides, the tip
    assert r.returncode == 0, r.stderr
    assert is_png(png)


def test_bad_input_is_a_clear_error(cli_runs, tmp_path):
    csv = cli_runs("finger", EXAMPLES / "finger/finger.yaml") / "finger.csv"
    r = plot("batch", csv, "-o", tmp_path / "x.png", "--x", "load_factor", "--y", "nothing", pure=True)
    assert r.returncode == 1 and "no column 'nothing'" in r.stderr
    r = plot("inverse", csv, "-o", tmp_path / "x.png", pure=True)
    assert r.returncode == 1 and "no effector error column" in r.stderr
    r = plot("path", tmp_path / "missing.csv", "-o", tmp_path / "x.png", pure=True)
    assert r.returncode == 1 and "missing.csv" in r.stderr
    r = plot("path", csv, "-o", tmp_path / "x.pdf", pure=True)
    assert r.returncode == 2 and ".png or .svg" in r.stderr
