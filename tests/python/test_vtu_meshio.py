"""The .vtu files of the softik program, read by meshio (an independent reader): for each
`outputs.vtu_format` (compressed, binary, ascii) a small scene is run, and every file's points, cell
connectivity and `displacement` field must equal those of the ASCII run (bit for bit: the three
encodings carry the same doubles). SOFTIK_CLI names the program (ctest's Python.pytest sets it)."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

meshio = pytest.importorskip("meshio", reason="meshio is not installed (pip install -r scripts/requirements-python.txt)")

FORMATS = ("compressed", "binary", "ascii")

# A cantilever of 8 x 2 x 2 hexahedra under its own weight and a pulled end, in three load steps.
SCENE = """name: bar
mesh:
  generator: {{type: box, size: [0.04, 0.01, 0.01], cells: [8, 2, 2], cell_type: hex8}}
formulation: hyperelastic
materials:
  - law: neo_hookean
    young: 1.0e5
    poisson: 0.45
fixed:
  - group: xmin
prescribed:
  - plane: {{point: [0.04, 0, 0], normal: [1, 0, 0]}}
    components: [x]
    displacement: [0.002, 0, 0]
loads:
  gravity: {{density: 1000, g: [0, 0, -9.81]}}
solver:
  load_steps: 3
  linear_solver: eigen
  threads: 1
outputs:
  vtu: true
  vtu_format: {fmt}
"""


@pytest.fixture(scope="module")
def softik_cli():
    path = os.environ.get("SOFTIK_CLI")
    if not path:
        pytest.skip("SOFTIK_CLI is not set: set it to the built softik program (e.g. build/softik)")
    if not os.access(path, os.X_OK):
        pytest.skip(f"SOFTIK_CLI={path} is not an executable file")
    return path


@pytest.fixture(scope="module")
def runs(softik_cli, tmp_path_factory):
    """{format: output folder} of one run per vtu_format."""
    out = {}
    for fmt in FORMATS:
        folder = tmp_path_factory.mktemp(fmt)
        scene = folder / "bar.yaml"
        scene.write_text(SCENE.format(fmt=fmt))
        r = subprocess.run([softik_cli, "run", str(scene), "--out", str(folder / "out"), "--quiet"],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"softik run ({fmt}): exit {r.returncode}\n{r.stdout}\n{r.stderr}"
        out[fmt] = folder / "out"
    return out


def vtu_files(folder):
    files = sorted(pathlib.Path(folder).glob("bar_*.vtu"))
    assert len(files) == 4, f"expected bar_0000.vtu to bar_0003.vtu in {folder}, found {files}"
    return files


def test_each_format_is_written_as_asked(runs):
    for fmt in FORMATS:
        head = vtu_files(runs[fmt])[-1].read_bytes()[:1000]
        assert (b'compressor="vtkZLibDataCompressor"' in head) == (fmt == "compressed"), fmt
        assert (b'format="appended"' in head) == (fmt != "ascii"), fmt
        assert (b'format="ascii"' in head) == (fmt == "ascii"), fmt


@pytest.mark.parametrize("fmt", FORMATS)
def test_meshio_reads_the_same_mesh_and_displacement(runs, fmt):
    for mine, reference in zip(vtu_files(runs[fmt]), vtu_files(runs["ascii"])):
        got = meshio.read(mine)
        ref = meshio.read(reference)
        assert got.points.dtype == np.float64
        assert got.points.shape == (81, 3)
        np.testing.assert_array_equal(got.points, ref.points, err_msg=f"{mine.name}: points")
        assert [c.type for c in got.cells] == ["hexahedron"], mine.name
        assert got.cells[0].data.shape == (32, 8)
        np.testing.assert_array_equal(got.cells[0].data, ref.cells[0].data, err_msg=f"{mine.name}: cells")
        u = got.point_data["displacement"]
        assert u.shape == (81, 3)
        np.testing.assert_array_equal(u, ref.point_data["displacement"], err_msg=f"{mine.name}: displacement")
        np.testing.assert_array_equal(got.cell_data["von_mises"][0], ref.cell_data["von_mises"][0])


def test_the_displacement_is_the_points_minus_the_rest_shape(runs):
    """The ASCII reference itself is consistent: displacement = points - points of step 0, and the
    pulled end moved by the prescribed 2 mm."""
    files = vtu_files(runs["ascii"])
    rest = meshio.read(files[0]).points
    last = meshio.read(files[-1])
    np.testing.assert_allclose(last.point_data["displacement"], last.points - rest, rtol=0, atol=1e-15)
    end = np.isclose(rest[:, 0], 0.04)
    np.testing.assert_allclose(last.point_data["displacement"][end, 0], 0.002, rtol=1e-12)
