"""Runs softik's finger examples from Python and plots each: the images of docs/python.md.

    PYTHONPATH=build/python python3 python/examples/plot_examples.py docs/images

writes into the given folder
  load_path.png            examples/finger/finger.yaml (softik.run_scene): tip displacement and
                           cavity volume growth against the cavity pressure, per load step;
  inverse_convergence.png  examples/finger_inverse/finger_inverse.yaml stepped in real time from
                           Python (finger_inverse.py): tip error and cavity pressure per step;
  batch_scatter.png        examples/finger_batch/finger_sweep.yaml (softik.run_batch): tip rise
                           against pressure for both bottom-wall thicknesses;
and the CSV files they were drawn from into <folder>/data/. The tests (tests/python) run it into
a temporary folder.
"""

import argparse
import pathlib
import sys

import softik
from softik import plot

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import finger_inverse  # noqa: E402  (python/examples/finger_inverse.py)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="folder for the images (created)")
    parser.add_argument("--format", choices=["png", "svg"], default="png")
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out)
    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)

    forward = softik.run_scene(str(ROOT / "examples/finger/finger.yaml"), str(data / "finger"))
    path_image = out / f"load_path.{args.format}"
    plot.plot_path(softik.read_table(forward.csv_path), path_image,
                   title="finger: 10 load steps to 24 kPa")

    steps_csv = data / "finger_inverse_steps.csv"
    reached, pressure, rows = finger_inverse.run(str(ROOT / "examples/finger_inverse/finger_inverse.yaml"), 40,
                                                 steps_csv)
    if not reached:
        print("plot_examples.py: the finger inverse loop did not reach its goal", file=sys.stderr)
        return 1
    inverse_image = out / f"inverse_convergence.{args.format}"
    plot.plot_inverse(softik.read_table(steps_csv), inverse_image,
                      title=f"finger inverse, real-time steps: {pressure / 1e3:.2f} kPa found")

    batch = softik.run_batch(str(ROOT / "examples/finger_batch/finger_sweep.yaml"), str(data / "finger_sweep"))
    batch_image = out / f"batch_scatter.{args.format}"
    plot.plot_batch(batch.table(), batch_image, x="loads.pressure[0].value", y="uz_tip",
                    color="mesh.generator.bottom_wall", title="finger sweep: pressure x bottom wall")
    for image in (path_image, inverse_image, batch_image):
        print(f"plot_examples.py: wrote {image}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
