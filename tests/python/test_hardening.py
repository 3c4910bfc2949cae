"""The module never crashes (issue 56, item 6): every Model call on a node-network scene works or
raises a softik error saying what to use instead; one Model used from several threads at once
raises a clear error instead of corrupting memory; Scene.from_string with a NUL byte gives the
CLI's message; read_table names a file it cannot read.

Calls that crashed the interpreter run in a fresh one (subprocess), so that a crash is a failed
test and not a crashed pytest."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import EXAMPLES, NEO_HOOKEAN, end_loaded_box, run_cli

STAR_DOME = str(EXAMPLES / "star_dome/star_dome.yaml")


def run_python(code, *args):
    """Runs `code` in a fresh interpreter (the same PYTHONPATH); it ends by printing OK."""
    return subprocess.run([sys.executable, "-X", "faulthandler", "-c", textwrap.dedent(code), *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def assert_ok(r):
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), (
        f"exit status {r.returncode} (a negative one is a signal: -11 a segfault, -6 an abort)\n"
        f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}")


# Run in a fresh interpreter with `m`, the Model of examples/star_dome (a node network read from
# a file: 4 nodes, 3 links, the 3 supports fixed), and `out`, a folder to write in.
NETWORK_CALLS = {
    "sizes": """
        assert m.num_dofs == 12 and m.num_free_dofs == 3, (m.num_dofs, m.num_free_dofs)
        assert m.num_nodes == 4 and m.num_cells == 0 and m.dim == 3 and m.name == "star_dome"
        assert "node network" in repr(m) and m.scene.kind == "static"
    """,
    "arrays": """
        assert m.rest_positions.shape == (4, 3) and m.positions.shape == (4, 3) and m.cells.shape[0] == 0
        assert np.all(m.displacements() == 0)
        assert m.node_groups == {"apex": [0], "supports": [1, 2, 3]} and m.surface_groups == {}
        assert m.cavity_volumes() == {} and np.all(m.probe_displacements()["apex"] == 0)
        moved = np.array(m.rest_positions)
        moved[0, 2] -= 0.05
        m.set_positions(moved)
        assert np.allclose(m.displacements()[0], [0, 0, -0.05]) and np.allclose(m.probe_displacements()["apex"], [0, 0, -0.05])
        m.reset()
        assert np.all(m.displacements() == 0)
    """,
    "von_mises": """
        with pytest.raises(softik.UnsupportedError) as e:
            m.von_mises()
        assert "node network" in str(e.value) and "star_dome.network.yaml" in str(e.value), e.value
        assert "write_vtu" in str(e.value), e.value
    """,
    "solve_static": """
        with pytest.raises(softik.UnsupportedError) as e:
            m.solve_static()
        assert "node network (mesh.network)" in str(e.value) and "continuation" in str(e.value), e.value
        assert "softik.run_scene" in str(e.value) and "softik run" in str(e.value), e.value
        assert np.all(m.displacements() == 0)
    """,
    "write_vtu": """
        moved = np.array(m.rest_positions)
        moved[0, 2] = -0.2  # the dome inverted: the links back at their rest length
        m.set_positions(moved)
        m.write_vtu(os.path.join(out, "dome.vtu"))
        text = open(os.path.join(out, "dome.vtu"), "rb").read()
        assert b'NumberOfPoints="4" NumberOfCells="3"' in text, text[:400]
        assert b'Name="tension"' in text and b'Name="displacement"' in text
    """,
    "inverse_and_dynamics": """
        for make in (m.inverse_solver, m.dynamic_simulation):
            with pytest.raises(softik.Error):
                make()
    """,
}


@pytest.mark.parametrize("name", sorted(NETWORK_CALLS))
def test_a_network_model_works_or_raises(softik_module, tmp_path, name):
    """Each call crashed (num_dofs, num_free_dofs, von_mises, solve_static, write_vtu: the Model
    has no FEM assembler) or now works on the network's nodes."""
    code = "import os, sys\nimport numpy as np\nimport pytest\nimport softik\n" \
           "m = softik.Model(sys.argv[1])\nout = sys.argv[2]\n" + textwrap.dedent(NETWORK_CALLS[name]) + "print('OK')\n"
    assert_ok(run_python(code, STAR_DOME, tmp_path))


MESH_NETWORK = end_loaded_box("box_network", "[5, 1, 1]", """materials:
  - {law: linear, young: 1.0e5, poisson: 0.3}
""", "-0.01", """continuation:
  initial_arc: 1.0e-4
  model: node_network
outputs:
  vtu: false
""")


def test_a_network_built_from_a_mesh_is_not_solved_as_fem(softik_module):
    """continuation.model: node_network: solve_static would solve the FEM body instead of the
    scene's network; it says so and points to run_scene. The mesh's cells still give stresses."""
    softik = softik_module
    m = softik.Model(softik.Scene.from_string(MESH_NETWORK, "net.yaml"))
    with pytest.raises(softik.UnsupportedError, match=r"continuation.model: node_network.*run_scene"):
        m.solve_static()
    assert m.num_dofs == 72 and m.von_mises().shape == (5,)


BUSY_BOX = end_loaded_box("busy_box", "[20, 4, 4]", NEO_HOOKEAN, "-0.05", """solver:
  load_steps: 10
  threads: 1
outputs:
  vtu: false
""")

BUSY_MESSAGE = "is in use by another thread"


def test_one_model_solved_from_several_threads_raises(softik_module):
    """Four threads solve one Model at once (the solves release the GIL). Before, they shared the
    assembler's and the linear solver's state: "double free or corruption", an abort. Now one
    solves at a time and a call that finds the Model busy raises at once; the Model stays usable."""
    code = """
        import sys, threading
        import numpy as np
        import softik
        m = softik.Model(softik.Scene.from_string(sys.argv[1], "busy.yaml"))
        barrier = threading.Barrier(4)
        solved, errors = [], []
        def work():
            barrier.wait()
            for _ in range(3):
                try:
                    solved.append(m.solve_static()["iterations"])
                    m.von_mises()
                except softik.Error as e:
                    errors.append(e)
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert solved and errors, (len(solved), len(errors))
        for e in errors:
            assert isinstance(e, softik.InputError) and "in use by another thread" in str(e), e
            assert "one Model per thread" in str(e), e
        m.reset()
        assert m.solve_static()["iterations"] > 0 and np.all(np.isfinite(m.positions))
        print(len(solved), "solves,", len(errors), "refused")
        print("OK")
    """
    assert_ok(run_python(code, BUSY_BOX))


def test_an_inverse_solver_stepped_while_another_thread_reads_raises(softik_module):
    """InverseSolver.step on one thread while another reads the actuation and the effectors and
    takes stresses: before, the reads raced the step (a step failed with "cell ... is inverted"
    on a state it never made); now whichever comes second raises the busy error."""
    code = """
        import sys, threading
        import softik
        m = softik.Model(sys.argv[1])
        inverse = m.inverse_solver()
        barrier = threading.Barrier(2)
        outcomes = []
        def stepper():
            barrier.wait()
            for _ in range(3):
                try:
                    inverse.step()
                    outcomes.append("step")
                except softik.Error as e:
                    outcomes.append(str(e))
        def reader():
            barrier.wait()
            for _ in range(200):
                try:
                    inverse.actuation, inverse.effectors, m.von_mises()
                    outcomes.append("read")
                except softik.Error as e:
                    outcomes.append(str(e))
        threads = [threading.Thread(target=stepper), threading.Thread(target=reader)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        errors = [o for o in outcomes if o not in ("step", "read")]
        assert errors and all("in use by another thread" in e for e in errors), errors[:3]
        print("OK")
    """
    assert_ok(run_python(code, EXAMPLES / "finger_inverse/finger_inverse.yaml"))


def test_one_model_per_thread_runs_in_parallel(softik_module):
    """The busy flag is per Model: models of their own solve side by side without an error."""
    import threading

    softik = softik_module
    scene = softik.Scene.from_string(BUSY_BOX.replace("cells: [20, 4, 4]", "cells: [6, 2, 2]"), "busy.yaml")
    models = [softik.Model(scene) for _ in range(3)]
    results = [None] * 3

    def work(k):
        results[k] = models[k].solve_static()["history"]["load_factor"][-1]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == pytest.approx([1.0, 1.0, 1.0], abs=1e-12)
    assert np.allclose(models[0].positions, models[2].positions, rtol=0, atol=1e-12)


def cli_error(stderr):
    """The message of `softik: error: MESSAGE` in the CLI's stderr."""
    for line in stderr.splitlines():
        if line.startswith("softik: error: "):
            return line[len("softik: error: "):]
    raise AssertionError(f"no 'softik: error:' line in:\n{stderr}")


def test_a_nul_byte_gives_the_cli_message(softik_module, cli, tmp_path):
    """Scene.from_string read the text only up to a NUL byte (yaml-cpp stops there) and complained
    about what was missing after it; it now refuses the NUL, word for word as `softik run`."""
    softik = softik_module
    text = "name: nul\ndescription: a scene\nmesh:\x00 {generator: {type: box}}\n"
    scene = tmp_path / "nul.yaml"
    scene.write_bytes(text.encode())
    r = run_cli(cli, "run", scene, "--out", tmp_path / "out")
    assert r.returncode == 1, r.stderr
    message = cli_error(r.stderr)
    assert message.startswith(f"{scene}:3: a NUL byte"), message
    with pytest.raises(softik.InputError) as from_string:
        softik.Scene.from_string(text, str(scene))
    assert str(from_string.value) == message
    with pytest.raises(softik.InputError) as from_file:
        softik.load_scene(str(scene))
    assert str(from_file.value) == message
    with pytest.raises(softik.InputError) as unnamed:
        softik.Scene.from_string(text)
    assert str(unnamed.value) == message.replace(str(scene), "<string>.yaml")


@pytest.mark.parametrize("content, what", [
    (bytes(np.random.default_rng(56).integers(0, 256, 4096, dtype=np.uint8)), "not UTF-8"),
    (b"step,load_factor\n0,0\n\x00\x01\x02\n", "line 3: a NUL byte"),
    ("step,load_factor\n0,0\n".encode("utf-16"), "not UTF-8"),
    (b"step,load_factor\n0,0\n1\n", "row 3 has 1 fields"),
], ids=["random_bytes", "nul_byte", "utf16", "short_row"])
def test_read_table_names_a_file_it_cannot_read(tmp_path, content, what):
    """read_table on a binary file raised UnicodeDecodeError ("'utf-8' codec can't decode byte
    0x.. in position 3") without saying which file; every failure now starts with the path."""
    from softik import read_table

    path = tmp_path / "results.csv"
    path.write_bytes(content)
    with pytest.raises(ValueError) as e:
        read_table(path)
    assert str(e.value).startswith(f"{path}: ") and what in str(e.value), e.value
    with pytest.raises(ValueError, match="results.csv"):
        read_table(str(path))
