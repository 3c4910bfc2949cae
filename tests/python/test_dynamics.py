"""Time integration from Python against `softik run` on a short examples/finger_flick (inflated
under gravity): the same history, and the state's positions and velocities as NumPy views."""

import numpy as np
import pytest

from compare import assert_same_columns
from conftest import EXAMPLES, run_cli


@pytest.fixture(scope="module")
def short_flick(tmp_path_factory):
    text = (EXAMPLES / "finger_flick/finger_flick.yaml").read_text()
    assert "duration: 0.3" in text and "vtu: true" in text
    path = tmp_path_factory.mktemp("flick") / "flick.yaml"
    path.write_text(text.replace("duration: 0.3", "duration: 0.03").replace("vtu: true", "vtu: false"))
    return path


def test_history_matches_the_cli(softik_module, cli, short_flick, tmp_path):
    r = run_cli(cli, "run", short_flick, "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    expected = softik_module.read_table(tmp_path / "finger_flick.csv")
    model = softik_module.Model(str(short_flick))
    simulation = model.dynamic_simulation()
    assert simulation.num_steps == 12 and simulation.dt == 0.0025
    history = simulation.run()
    skip = ("seconds", "contact_fx", "contact_fy", "contact_fz", "contact_iterations", "contact_residual")
    compared = assert_same_columns(history, expected, skip=skip)
    assert {"time", "kinetic_energy", "elastic_energy", "p_pressure0", "uz_tip"} <= set(compared) or \
        {"time", "kinetic_energy", "elastic_energy", "uz_tip"} <= set(compared)
    assert simulation.time == pytest.approx(0.03)
    np.testing.assert_allclose(model.probe_displacements()["tip"], [expected[f"u{a}_tip"][-1] for a in "xyz"],
                               rtol=1e-9, atol=1e-15)


def test_state_views_follow_the_steps(softik_module, short_flick):
    model = softik_module.Model(str(short_flick))
    simulation = model.dynamic_simulation()
    x, v = model.positions, simulation.velocities
    assert v.shape == (model.num_nodes, 3) and not v.flags.writeable and not v.any()
    report = simulation.step()
    assert report["step"] == 1 and report["time"] == pytest.approx(0.0025)
    assert np.shares_memory(v, simulation.velocities) and np.abs(v).max() > 0
    assert np.abs(x - model.rest_positions).max() > 0
    assert report["kinetic_energy"] == pytest.approx(simulation.kinetic_energy)
    with pytest.raises(softik_module.InputError, match="already has a DynamicSimulation"):
        model.dynamic_simulation()
    with pytest.raises(softik_module.InputError, match="no dynamics: section"):
        softik_module.Model(str(EXAMPLES / "finger/finger.yaml")).dynamic_simulation()


def test_control_is_scriptable_per_frame(softik_module):
    """examples/finger_control from Python: the control loop runs in every step (the report has the
    cavity's pressure solved, the solve's status and the predicted effector error), and set_goal
    between frames steers the tip to a goal the scene does not have."""
    model = softik_module.Model(str(EXAMPLES / "finger_control/finger_control.yaml"))
    simulation = model.dynamic_simulation()
    report = simulation.step()
    assert report["control_status"] == "optimal" and report["actuation"].shape == (1,)
    assert report["actuation"][0] > 0 and "effector_error" in report
    assert set(simulation.actuation) == {"cavity"}
    np.testing.assert_allclose(simulation.goal("tip"), [0.10, 0.01, 0.0115])
    target = np.array([0.10, 0.01, 0.0125])  # not one of the scene's waypoints
    simulation.set_goal("tip", target)
    np.testing.assert_allclose(simulation.goal("tip"), target)
    for _ in range(60):
        report = simulation.step()
    assert report["control_status"] == "optimal"
    assert abs(simulation.effector_position("tip")[2] - target[2]) < 5e-5  # the tip got there (z only)
    assert 0 <= simulation.actuation["cavity"][0] <= 30000
    with pytest.raises(softik_module.InputError, match="no effector named 'nose'; the scene's effectors are: tip"):
        simulation.set_goal("nose", target)
