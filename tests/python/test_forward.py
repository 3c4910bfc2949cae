"""Forward static solves from Python against `softik run` on examples/finger/finger.yaml: the load
path, the final state's displacements and von Mises stresses (the CLI's .vtu), cavity volumes."""

import numpy as np
import pytest

from compare import assert_same_columns
from conftest import EXAMPLES

FINGER = str(EXAMPLES / "finger/finger.yaml")


@pytest.fixture(scope="module")
def solved(softik_module):
    model = softik_module.Model(FINGER)
    report = model.solve_static()
    return model, report


def test_load_path_matches_the_cli(softik_module, cli_runs, solved):
    model, report = solved
    cli = softik_module.read_table(cli_runs("finger", FINGER) / "finger.csv")
    compared = assert_same_columns(report["history"], cli)
    assert {"load_factor", "p_cavity", "volume_growth_cavity", "uz_tip", "residual"} <= set(compared)
    assert report["history"]["load_factor"][-1] == pytest.approx(1.0, abs=1e-12)
    assert report["iterations"] == int(cli["newton_iterations"].sum()) and report["step_cuts"] == 0
    # Krylov steps (on by default): some iterations kept the factorisation, each of those took CG iterations.
    assert 1 <= report["factorizations"] < report["iterations"] <= report["krylov_iterations"]


def test_final_state_matches_the_cli_vtu(softik_module, cli_runs, solved):
    meshio = pytest.importorskip("meshio")
    model, _ = solved
    folder = cli_runs("finger", FINGER)
    last = sorted(folder.glob("finger_*.vtu"))[-1]
    vtu = meshio.read(last)
    u = model.displacements()
    assert u.shape == (model.num_nodes, 3) and u.dtype == np.float64
    # The .vtu holds the CLI's doubles exactly (Float64): the same solve gives the same numbers.
    np.testing.assert_allclose(u, vtu.point_data["displacement"], rtol=1e-9, atol=1e-12 * np.abs(u).max())
    stress = model.von_mises()
    assert stress.shape == (model.num_cells,) and (stress >= 0).all() and stress.max() > 0
    np.testing.assert_allclose(stress, np.concatenate(vtu.cell_data["von_mises"]).ravel(), rtol=1e-9)
    np.testing.assert_allclose(vtu.points, model.positions, rtol=0, atol=1e-12)


def test_probes_and_volumes_are_those_of_the_last_step(softik_module, cli_runs, solved):
    model, report = solved
    cli = softik_module.read_table(cli_runs("finger", FINGER) / "finger.csv")
    tip = model.probe_displacements()["tip"]
    assert tip.shape == (3,)
    np.testing.assert_allclose(tip, [cli[f"u{a}_tip"][-1] for a in "xyz"], rtol=1e-9, atol=1e-15)
    assert tip[2] > 1e-3  # the finger bends up (+z) by millimetres
    assert model.cavity_volumes()["cavity"] == pytest.approx(cli["volume_cavity"][-1], rel=1e-9)


def test_run_scene_writes_the_tables_solve_static_returns(softik_module, tmp_path):
    """softik.run_scene (the CLI's run) and Model.solve_static give the same load path; on a coarse
    finger (4 mm cells), so that it takes a second."""
    softik = softik_module
    text = (EXAMPLES / "finger/finger.yaml").read_text().replace("cell_size: 0.0034", "cell_size: 0.004")
    scene = softik.Scene.from_string(text, str(EXAMPLES / "finger/coarse_finger.yaml"))
    result = softik.run_scene(scene, str(tmp_path))
    table = softik.read_table(result.csv_path)
    assert_same_columns(softik.Model(scene).solve_static()["history"], table)
    assert result.load_steps == 10 and result.load_factor == pytest.approx(1.0) and result.vtu_files == 11
    np.testing.assert_allclose(result.probes["tip"], [table[f"u{a}_tip"][-1] for a in "xyz"], rtol=1e-9)
    assert result.pressures["cavity"]["pressure"] == pytest.approx(24000)
    assert result.inverse is None and result.dynamics is None and result.unmet_goals == ""
    assert "probe tip" in result.summary()


def test_vtu_written_from_python_reads_back(softik_module, solved, tmp_path):
    meshio = pytest.importorskip("meshio")
    model, _ = solved
    path = tmp_path / "state.vtu"
    model.write_vtu(str(path))
    vtu = meshio.read(path)
    np.testing.assert_array_equal(vtu.point_data["displacement"], model.displacements())
    np.testing.assert_array_equal(np.concatenate(vtu.cell_data["von_mises"]).ravel(), model.von_mises())


TET_FINGER = """name: tet_finger
mesh: {generator: {type: finger, length: 0.10, width: 0.02, height: 0.02, base_wall: 0.01, tip_wall: 0.01,
                   side_wall: 0.004, bottom_wall: 0.004, top_wall: 0.008, cell_size: 0.004, cell_type: tet4}}
formulation: hyperelastic
materials: [{law: neo_hookean, young: 2.0e5, poisson: 0.45}]
fixed: [{group: xmin}]
loads: {pressure: [{name: cavity, surface: cavity, value: 1000}]}
solver: {load_steps: 1}
"""


def test_surface_groups_enclose_the_cavity_the_solver_measures(softik_module):
    softik = softik_module
    model = softik.Model(softik.Scene.from_string(TET_FINGER, "tet_finger.yaml"))
    triangles = np.asarray(model.surface_groups["cavity"])
    X = np.asarray(model.rest_positions)
    assert triangles.ndim == 2 and triangles.shape[1] == 3 and triangles.max() < model.num_nodes
    # Divergence theorem: the triangles' signed volumes sum to the cavity's volume, which the
    # solver reports at rest (the generator's 80 x 12 x 8 mm box: 7.68e-6 m^3).
    a, b, c = (X[triangles[:, k]] for k in range(3))
    volume = abs(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6)
    report = model.solve_static()
    assert volume == pytest.approx(report["history"]["volume_cavity"][0], rel=1e-12)
    assert volume == pytest.approx(0.08 * 0.012 * 0.008, rel=1e-12)
    # A hexahedral mesh's surfaces are quads: refused, not silently dropped.
    hexes = softik.Model(softik.Scene.from_string(TET_FINGER.replace("tet4", "hex8"), "hex_finger.yaml"))
    with pytest.raises(softik.UnsupportedError, match="quads"):
        hexes.surface_groups


def test_bodies_are_placed_by_their_transforms(softik_module):
    """examples/three_fingers: one finger placed three times, 120 degrees apart about z (its
    translation turned alike): finger k's rest positions are finger 0's turned by 120 k degrees."""
    model = softik_module.Model(str(EXAMPLES / "three_fingers/three_fingers.yaml"))
    bodies = model.bodies
    assert [b["name"] for b in bodies] == ["f0", "f1", "f2"]
    assert bodies[0]["nodes"][0] == 0 and bodies[-1]["nodes"][1] == model.num_nodes
    assert bodies[-1]["cells"][1] == model.num_cells
    X = model.rest_positions
    first = X[slice(*bodies[0]["nodes"])]
    for k, body in enumerate(bodies[1:], start=1):
        a = np.radians(120 * k)
        turn = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
        np.testing.assert_allclose(X[slice(*body["nodes"])], first @ turn.T, atol=1e-12)
    assert softik_module.Model(str(EXAMPLES / "finger/finger.yaml")).bodies == []
