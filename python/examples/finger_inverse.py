"""The pneumatic finger's inverse problem driven from Python, one real-time step per control tick.

The scene examples/finger_inverse/finger_inverse.yaml (a neo-Hookean finger, one cavity
actuator 0..40 kPa, the centre of the tip face as effector) is built once; then, as a robot
controller would, every tick sets the tip's goal from NumPy -- a straight path from where the
tip is at rest to the scene's target, in `--ramp` ticks, then the target -- and calls
InverseSolver.step(), until the tip is within the scene's tolerance (1 um). It prints each
step's pressure and error and writes them as a CSV with the columns of `softik run`'s inverse
CSV (`python3 -m softik.plot inverse` plots it). examples/embedding/inverse_finger.cpp is such
a loop in C++.

Two options differ from the scene's (which solves in converged mode): the cavity's own stiffness
(the follower pressure's P d2V/dx2) enters each step's tangent, without which the steps overshoot
and oscillate about 1 kPa around the answer; and the energy weight epsilon is 1e-6 instead of
1e-3, whose bias would hold a real-time loop about 14 um from the target.

    PYTHONPATH=build/python python3 python/examples/finger_inverse.py --csv finger_inverse_steps.csv

Exits 0 when the goal is reached, 1 when it is not, 2 on a softik error.
"""

import argparse
import csv
import pathlib
import sys

import numpy as np

import softik

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run(scene, max_steps, csv_path, goal=None, ramp=10, epsilon=1e-6):
    """Steps until the tip reaches its goal; returns (reached, pressure, rows)."""
    model = softik.Model(scene)
    inverse = model.inverse_solver(actuator_stiffness=True, epsilon=epsilon)
    effector = inverse.effector_names[0]
    actuator = inverse.actuator_names[0]
    target = np.asarray(goal, dtype=float) if goal is not None else inverse.goal(effector)
    start = inverse.effector_position(effector)
    tolerance = inverse.effector_tolerances[effector]
    print(f"finger_inverse.py: {model}; '{effector}' from {start} to {target}, tolerance {tolerance:.1e} m")

    rows = []

    def record(step, status):
        row = {"step": step, "goal": 0}
        for name, outputs in {**inverse.actuators, **inverse.effectors}.items():
            row.update({f"{name}_{key}": value for key, value in outputs.items()})
        # The effector's own error is against the goal of the step (on the path); this one against the target.
        row[f"{effector}_target_error"] = float(np.linalg.norm(inverse.effector_position(effector) - target))
        row["status"] = status
        rows.append(row)

    record(0, "rest")
    reached = False
    for step in range(1, max_steps + 1):
        inverse.set_goal(effector, start + min(1.0, step / ramp) * (target - start))
        report = inverse.step()
        error = np.linalg.norm(inverse.effector_position(effector) - target)
        pressure = inverse.actuation[0]
        record(step, report.status)
        print(f"finger_inverse.py: step {step:2d}  {actuator} {pressure:9.1f} Pa  {effector} error {error:.3e} m"
              f"  ({report.status})")
        if step >= ramp and error <= tolerance:
            reached = True
            break
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return reached, float(inverse.actuation[0]), rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scene", default=str(ROOT / "examples/finger_inverse/finger_inverse.yaml"))
    parser.add_argument("--steps", type=int, default=40, help="most real-time steps (default 40)")
    parser.add_argument("--goal", type=float, nargs=3, metavar=("X", "Y", "Z"),
                        help="the tip's goal (default: the scene's)")
    parser.add_argument("--ramp", type=int, default=10, help="ticks of the path from rest to the target (default 10)")
    parser.add_argument("--epsilon", type=float, default=1e-6, help="the QP's energy weight (default 1e-6)")
    parser.add_argument("--csv", default="finger_inverse_steps.csv", help="where to write the per-step table")
    args = parser.parse_args(argv)
    try:
        reached, pressure, rows = run(args.scene, args.steps, args.csv, args.goal, args.ramp, args.epsilon)
    except softik.Error as e:
        print(f"finger_inverse.py: softik error ({e.kind}): {e}", file=sys.stderr)
        return 2
    steps = len(rows) - 1
    if not reached:
        print(f"finger_inverse.py: FAILED: goal not reached in {steps} steps", file=sys.stderr)
        return 1
    print(f"finger_inverse.py: goal reached in {steps} steps with {pressure:.1f} Pa; wrote {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
