"""The inverse problem from Python against `softik run` on examples/finger_inverse: the scene's own
goal sequence gives the CLI's rows; a real-time loop with the goal set from NumPy reaches the same
pressure; bad goals are clear errors."""

import numpy as np
import pytest

from compare import assert_same_columns
from conftest import EXAMPLES

SCENE = str(EXAMPLES / "finger_inverse/finger_inverse.yaml")
GOAL = np.array([0.101349051978, 0.01, 0.015390982898])  # the scene's goal: where 20 kPa puts the tip


@pytest.fixture(scope="module")
def cli_table(softik_module, cli_runs):
    return softik_module.read_table(cli_runs("finger_inverse", SCENE) / "finger_inverse.csv")


def test_scene_goal_sequence_matches_the_cli(softik_module, cli_table):
    inverse = softik_module.Model(SCENE).inverse_solver()
    assert inverse.mode == "converged" and inverse.num_goals == 1
    table = inverse.run()
    compared = assert_same_columns(table, cli_table)
    assert {"cavity_pressure", "cavity_volume_growth", "tip_x", "tip_z", "tip_error", "status"} <= set(compared)
    # The scene's target is where a forward solve at 20 kPa puts the tip.
    assert table["cavity_pressure"][-1] == pytest.approx(20000, rel=1e-6)
    assert inverse.actuation[0] == table["cavity_pressure"][-1]
    assert inverse.effector_errors["tip"] <= inverse.effector_tolerances["tip"]


def test_realtime_loop_reaches_the_cli_pressure(softik_module, cli_table):
    """A controller's loop: the goal moves from the tip's rest position to the target in 10 ticks,
    one step per tick (with the cavity's stiffness in the tangent and a small energy weight, as
    python/examples/finger_inverse.py)."""
    model = softik_module.Model(SCENE)
    inverse = model.inverse_solver(actuator_stiffness=True, epsilon=1e-6)
    assert inverse.actuator_names == ["cavity"] and inverse.effector_names == ["tip"]
    start = inverse.effector_position("tip")
    np.testing.assert_allclose(start, [0.10, 0.01, 0.01], atol=1e-12)
    errors = []
    for tick in range(1, 31):
        inverse.set_goal("tip", start + min(1.0, tick / 10) * (GOAL - start))
        report = inverse.step()
        errors.append(inverse.effector_errors["tip"])
        if tick >= 10 and errors[-1] <= inverse.effector_tolerances["tip"]:
            break
    np.testing.assert_array_equal(inverse.goal("tip"), GOAL)
    assert errors[-1] <= inverse.effector_tolerances["tip"], errors
    assert tick <= 15, errors
    assert report.status == "optimal" and report.message == ""
    assert report.actuation.shape == (1,) and report.actuation[0] == inverse.actuation[0]
    # One actuator row and the effector's two axes (x, z): W is 3 x 3, symmetric, positive diagonal.
    assert report.W.shape == (3, 3)
    np.testing.assert_allclose(report.W, report.W.T, rtol=1e-12, atol=0)
    assert (np.diag(report.W) > 0).all()
    cli_pressure = cli_table["cavity_pressure"][-1]
    assert inverse.actuation[0] == pytest.approx(cli_pressure, rel=1e-4)
    assert inverse.actuators["cavity"]["pressure"] == inverse.actuation[0]
    np.testing.assert_allclose([inverse.effectors["tip"]["x"], inverse.effectors["tip"]["z"]], GOAL[[0, 2]],
                               atol=inverse.effector_tolerances["tip"])
    # The Model's state is the inverse solution: its displacements move the tip to the goal.
    assert model.displacements()[:, 2].max() > 4e-3


def test_converged_solve_report(softik_module):
    """InverseSolver.solve() on a coarse finger (4 mm cells): converged, to the pressure that puts the
    tip where a forward solve put it."""
    softik = softik_module
    forward = (EXAMPLES / "finger/finger.yaml").read_text().replace("cell_size: 0.0034", "cell_size: 0.004")
    forward = forward.replace("value: 24000", "value: 15000").replace("load_steps: 10", "load_steps: 3")
    model = softik.Model(softik.Scene.from_string(forward, str(EXAMPLES / "finger/coarse.yaml")))
    model.solve_static()
    tip = model.probe_displacements()["tip"] + [0.10, 0.01, 0.01]
    text = (EXAMPLES / "finger_inverse/finger_inverse.yaml").read_text().replace("cell_size: 0.0034", "cell_size: 0.004")
    inverse = softik.Model(softik.Scene.from_string(text, str(EXAMPLES / "finger_inverse/coarse.yaml"))).inverse_solver()
    inverse.set_goal("tip", tip)
    report = inverse.solve()
    assert report.converged and report.message == "" and report.iterations == len(report.steps) > 1
    assert report.steps[-1].status == "optimal"
    assert inverse.actuation[0] == pytest.approx(15000, rel=1e-6)


def test_bad_goals_and_solvers_are_input_errors(softik_module):
    softik = softik_module
    model = softik.Model(SCENE)
    inverse = model.inverse_solver()
    with pytest.raises(softik.InputError, match="no effector named 'nose'.*tip"):
        inverse.set_goal("nose", GOAL)
    with pytest.raises(softik.InputError, match=r"shape \(3,\), got \(2,\)"):
        inverse.set_goal("tip", GOAL[:2])
    with pytest.raises(softik.InputError, match="already has an InverseSolver"):
        model.inverse_solver()
    with pytest.raises(softik.InputError, match="method must be"):
        softik.Model(SCENE).inverse_solver(method="newton")
    with pytest.raises(softik.InputError, match="no inverse: section"):
        softik.Model(str(EXAMPLES / "finger/finger.yaml")).inverse_solver()
    with pytest.raises(softik.InputError, match="goal index 1"):
        inverse.use_scene_goal(1)
