"""The module's basics: scenes, errors as softik exceptions, NumPy views and input checks."""

import numpy as np
import pytest

from conftest import EXAMPLES, NEO_HOOKEAN, end_loaded_box

FINGER = str(EXAMPLES / "finger/finger.yaml")

SMALL_BOX = end_loaded_box("small_box", "[5, 1, 1]", NEO_HOOKEAN, "-0.01", """solver:
  load_steps: 2
outputs:
  vtu: false
  probes:
    - {name: end, point: [0.1, 0.01, 0.01]}
""")


def test_scene_from_file_and_string(softik_module):
    softik = softik_module
    scene = softik.load_scene(FINGER)
    assert scene.name == "finger" and scene.kind == "static" and scene.load_steps == 10
    assert softik.load_scene(str(EXAMPLES / "finger_inverse/finger_inverse.yaml")).kind == "inverse"
    assert softik.load_scene(str(EXAMPLES / "finger_flick/finger_flick.yaml")).kind == "dynamic"
    box = softik.Scene.from_string(SMALL_BOX, "box.yaml")
    assert box.name == "small_box" and box.path == "box.yaml"


def test_errors_carry_softik_message_and_kind(softik_module, tmp_path):
    softik = softik_module
    with pytest.raises(softik.IoError) as missing:
        softik.load_scene(str(tmp_path / "nowhere.yaml"))
    assert "nowhere.yaml" in str(missing.value) and missing.value.kind == "io"
    assert isinstance(missing.value, softik.Error) and isinstance(missing.value, OSError)

    bad = SMALL_BOX.replace("poisson: 0.3", "poisson: 0.7")
    with pytest.raises(softik.InputError) as wrong:
        softik.Scene.from_string(bad, "bad.yaml")
    # softik's message names the file, line and column of the key (the reader is strict).
    assert str(wrong.value).startswith("bad.yaml:7:5:") and "Poisson's ratio nu = 0.7" in str(wrong.value)
    assert isinstance(wrong.value, ValueError) and wrong.value.kind == "input"

    with pytest.raises(softik.InputError, match="unknown key|allowed"):
        softik.Scene.from_string(SMALL_BOX.replace("load_steps", "load_stepz"), "typo.yaml")


def test_the_cli_reports_the_same_message(softik_module, cli, tmp_path):
    """A bad scene fails with the same text in Python as `softik run` prints."""
    from conftest import run_cli

    bad = tmp_path / "bad.yaml"
    bad.write_text(SMALL_BOX.replace("poisson: 0.3", "poisson: 0.7"))
    r = run_cli(cli, "run", bad, "--out", tmp_path / "out")
    assert r.returncode == 1
    with pytest.raises(softik_module.InputError) as e:
        softik_module.load_scene(str(bad))
    assert str(e.value) in r.stderr


def test_views_share_memory_and_follow_the_state(softik_module):
    softik = softik_module
    model = softik.Model(softik.Scene.from_string(SMALL_BOX, "box.yaml"))
    n = model.num_nodes
    X, cells, x = model.rest_positions, model.cells, model.positions
    assert X.shape == (n, 3) and X.dtype == np.float64 and not X.flags.writeable
    assert cells.shape == (model.num_cells, 8) and cells.dtype == np.int32 and cells.max() < n
    assert x.shape == (n, 3) and not x.flags.writeable
    assert np.shares_memory(x, model.positions) and np.shares_memory(X, model.rest_positions)
    assert np.array_equal(x, X)
    before = x.copy()
    model.solve_static()
    # The view taken before the solve shows the solved state: the same memory, updated in place.
    assert not np.array_equal(x, before)
    assert np.array_equal(x, model.positions)
    u = model.displacements()
    assert u.shape == (n, 3) and np.allclose(u, x - X, rtol=0, atol=1e-15)
    model.reset()
    assert np.array_equal(x, X)
    del model  # the views keep the model's storage alive
    assert np.isfinite(x).all() and cells.max() < n


def test_bad_arrays_are_input_errors(softik_module):
    softik = softik_module
    model = softik.Model(softik.Scene.from_string(SMALL_BOX, "box.yaml"))
    n = model.num_nodes
    with pytest.raises(softik.InputError, match=r"shape \(%d, 3\), got \(%d, 2\)" % (n, n)):
        model.set_positions(np.zeros((n, 2)))
    with pytest.raises(softik.InputError, match="real numbers"):
        model.set_positions(np.full((n, 3), "a"))
    with pytest.raises(softik.InputError, match="real numbers"):
        model.set_positions(np.zeros((n, 3), dtype=complex))
    bad = model.rest_positions.copy()
    bad[3, 1] = np.nan
    with pytest.raises(softik.InputError, match="NaN"):
        model.set_positions(bad)
    moved = model.rest_positions + 1e-3
    model.set_positions(moved.astype(np.float32))  # any real dtype is converted to float64
    assert np.allclose(model.positions, moved, atol=1e-9)


def test_compiled_names_fail_clearly_without_the_extension(tmp_path):
    """softik.plot and softik.table work from the pure-Python sources alone; a compiled name says
    what is missing."""
    import subprocess
    import sys

    from conftest import ROOT

    code = ("import softik, softik.plot\n"
            "assert softik._import_error is not None\n"
            "try:\n    softik.Model\nexcept ImportError as e:\n    print('IMPORT', e)\n")
    env = {"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "IMPORT softik.Model needs the compiled extension" in r.stdout


def test_cholmod_starts_no_openmp_workers_in_the_module(softik_module, tmp_path):
    """The interpreter opens the extension with RTLD_LOCAL, so CHOLMOD's libgomp is not in the
    global scope: softik still finds it and runs CHOLMOD's OpenMP regions on the calling thread
    (host/exec/openmp_regions.hpp). In a fresh interpreter, a factorising run may add softik's
    pool workers (hardware threads - 1) and nothing else; before, CHOLMOD's regions added 3 libgomp
    workers on top (7 threads instead of 4 on 2 cores)."""
    import os
    import subprocess
    import sys

    script = f"""
import softik
def threads():
    return int([l for l in open('/proc/self/status') if l.startswith('Threads:')][0].split()[1])
before = threads()
softik.run_scene({FINGER!r}, {str(tmp_path)!r})
print(before, threads())
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert done.returncode == 0, done.stderr
    before, after = map(int, done.stdout.split()[-2:])
    assert after - before <= (os.cpu_count() or 1) - 1, done.stdout
