"""Shared fixtures of the Python tests: the softik CLI (SOFTIK_CLI, set by ctest's Python.pytest),
the compiled module, and runs of the example scenes by the CLI (once per session)."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def end_loaded_box(name, cells, material, force_z, rest):
    """The scene `name`: a 0.1 x 0.02 x 0.02 m Hex8 box of `cells` (YAML list), fixed at xmin, with
    the force (0, 0, force_z) N on its xmax face; `material` holds its lines from `formulation:` or
    `materials:` on, `rest` the sections after `loads:`."""
    return f"""
name: {name}
mesh:
  generator: {{type: box, size: [0.1, 0.02, 0.02], cells: {cells}, cell_type: hex8}}
{material}fixed:
  - group: xmin
loads:
  forces:
    - {{group: xmax, force: [0, 0, {force_z}]}}
{rest}"""


NEO_HOOKEAN = """formulation: hyperelastic
materials:
  - {law: neo_hookean, young: 1.0e5, poisson: 0.3}
"""


@pytest.fixture(scope="session")
def softik_module():
    """The package with its compiled extension. Under ctest (SOFTIK_CLI set) a missing extension
    is a failure, elsewhere a skip."""
    import softik

    if softik._import_error is not None:
        if os.environ.get("SOFTIK_CLI"):
            pytest.fail(f"the extension softik._softik did not load: {softik._import_error}")
        pytest.skip(f"the extension softik._softik did not load: {softik._import_error}")
    return softik


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("SOFTIK_CLI")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("SOFTIK_CLI does not name the softik program (ctest's Python.pytest sets it)")
    return path


def run_cli(cli, *args):
    """Runs the softik program; returns the completed process (stdout and stderr as text)."""
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="session")
def cli_runs(cli, tmp_path_factory):
    """The CLI's outputs of the example scenes, run once: {name: output folder}."""
    out = tmp_path_factory.mktemp("cli")
    done = {}

    def get(name, scene, command="run"):
        if name not in done:
            folder = out / name
            r = run_cli(cli, command, scene, "--out", folder)
            assert r.returncode == 0, f"softik {command} {scene}: {r.returncode}\n{r.stdout}\n{r.stderr}"
            done[name] = folder
        return done[name]

    return get
