// softik.Model: a scene built into the library's objects (build_scene) and its current state, the
// forward static solve of its loads (solve_static, as `softik run` does it), and what a state gives
// as NumPy arrays: positions, displacements, von Mises stress per cell, cavity volumes, probes.
//
// A node network read from a file (mesh: {network: ...}) builds into a Model without an FEM
// assembler: what it has (nodes, groups, positions, probes, cavity volumes, num_dofs, write_vtu
// of its links) works, what needs cells or the FEM solve (von_mises, solve_static) raises
// softik.UnsupportedError saying what to use instead. Calls that solve or touch what a solve
// changes hold the Model busy (ModelCall, bindings.hpp).
#include <algorithm>

#include <nanobind/stl/array.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <softik/error.hpp>
#include <softik/mesh_io.hpp>
#include <softik/network_io.hpp>

#include "bindings.hpp"

namespace softik::python {

ModelCall::ModelCall(Model& model, const char* what) : model_(model) {
  SOFTIK_CHECK(!model.busy.exchange(true),
               what << ": this softik.Model is in use by another thread (a solve on it runs without the GIL); a "
                       "Model is one state and is not for concurrent use: use one Model per thread (or wait for "
                       "the other call to return)");
}

namespace {

using ModelRef = nb::pointer_and_handle<Model>;

void construct(Model* self, const Scene& scene) {
  BuiltScene built;
  {
    nb::gil_scoped_release release;
    built = build_scene(scene);
  }
  SOFTIK_CHECK_KIND(built.assembler || built.network, ErrorKind::Internal,
                    "the scene '" << scene.name << "' built neither an FEM model nor a node network");
  // Everything that may throw before the placement new: nanobind destroys no half-made Model.
  std::vector<Real> x = built.mesh.rest_positions();
  std::unique_ptr<LinearSolver> solver = make_linear_solver(built.linear_solver);
  new (self) Model{scene, std::move(built), std::move(x), std::move(solver)};
}

/// Throws softik::Error (Unsupported) when the body is a network file, which has no FEM model.
void check_fem(const Model& m, const char* what, const char* instead) {
  SOFTIK_CHECK_KIND(!m.network_file(), ErrorKind::Unsupported,
                    what << ": the scene '" << m.scene.name << "' is a node network read from '" << m.scene.mesh.file
                         << "' (mesh.network), which has no FEM cells; " << instead);
}

void check_dim3(const Model& m, const char* what) {
  SOFTIK_CHECK(m.built.mesh.dim == 3,
               what << " needs a 3D mesh; the scene '" << m.scene.name << "' is " << m.built.mesh.dim << "D");
}

/// The forward static solve: the scene's loads ramped in its load steps by Newton (run_scene's
/// forward branch), from the current positions. The history has the columns of `softik run`'s
/// CSV (without the time column): the rest row, then one row per converged load step.
nb::dict solve_static_scene(Model& m) {
  ModelCall call(m, "Model.solve_static");
  const BuiltScene& b = m.built;
  // The scene's body is a node network (from a file, or model: node_network built from the mesh):
  // its run is continuation: or explicit:, not the FEM load steps this solves.
  SOFTIK_CHECK_KIND(!b.network, ErrorKind::Unsupported,
                    "Model.solve_static: the scene '"
                        << m.scene.name << "' models its body as a node network ("
                        << (m.network_file()               ? "mesh.network"
                            : m.scene.continuation.enabled ? "continuation.model: node_network"
                                                           : "explicit.model: node_network")
                        << "), which runs by "
                        << (m.scene.continuation.enabled ? "arc-length continuation (continuation:)"
                                                         : "explicit dynamics (explicit:)")
                        << ", not by the FEM load steps of solve_static; run the scene with softik.run_scene(scene, "
                           "out_dir) or `softik run`, and read its CSV with softik.read_table");
  SOFTIK_CHECK_KIND(b.assembler, ErrorKind::Internal,
                    "Model.solve_static: the scene '" << m.scene.name << "' built no FEM model");
  const Mesh& mesh = b.mesh;
  std::vector<Real> volume0;
  const std::vector<Real> X = mesh.rest_positions();
  for (const PressureLoad& p : b.loads.pressures) volume0.push_back(p.closed ? surface_volume(p, mesh, X) : 0.0);
  Table history;
  const auto record = [&](int step, Real load_factor, int iterations, Real residual, const std::vector<Real>& x) {
    history.add("step", step);
    history.add("load_factor", load_factor);
    for (size_t p = 0; p < b.loads.pressures.size(); ++p) {
      const PressureLoad& load = b.loads.pressures[p];
      const Real V = load.closed ? surface_volume(load, mesh, x) : 0.0;
      history.add("p_" + load.name, load_factor * load.pressure);
      history.add("volume_" + load.name, V);
      history.add("volume_growth_" + load.name, V - volume0[p]);
    }
    for (const BuiltProbe& probe : b.probes) {
      const std::array<Real, 3> u = probe_displacement(mesh, probe, x);
      history.add("ux_" + probe.name, u[0]);
      history.add("uy_" + probe.name, u[1]);
      history.add("uz_" + probe.name, u[2]);
    }
    history.add("newton_iterations", iterations);
    history.add("residual", residual);
  };
  std::vector<Real> x = m.x;  // solve_static may swap its buffer: the Model's stays put
  record(0, 0, 0, 0, x);
  NewtonOptions newton = b.newton;
  newton.on_step = [&](const LoadStepReport& r, const std::vector<Real>& xs) {
    record(r.step, r.load_factor, r.iterations, r.residual, xs);
  };
  StaticResult result;
  {
    nb::gil_scoped_release release;
    result = solve_static(*b.assembler, *m.solver, b.loads, x, newton);
  }
  std::copy(x.begin(), x.end(), m.x.begin());
  nb::dict out;
  out["iterations"] = result.iterations;
  out["step_cuts"] = result.step_cuts;
  out["factorizations"] = result.factorizations;
  out["krylov_iterations"] = result.krylov_iterations;
  out["history"] = history.to_dict();
  return out;
}

void write_state(Model& m, const std::string& path) {
  ModelCall call(m, "Model.write_vtu");
  if (m.network_file()) {  // the links as lines, with their tension and strain (as `softik run`)
    write_network_vtu(path, *m.built.network, m.x);
    return;
  }
  const Mesh& mesh = m.built.mesh;
  std::vector<Real> u(3 * static_cast<size_t>(mesh.num_nodes()), 0.0);
  for (size_t a = 0; a < static_cast<size_t>(mesh.num_nodes()); ++a)
    for (int i = 0; i < mesh.dim; ++i) u[3 * a + i] = m.x[a * mesh.dim + i] - mesh.X[3 * a + i];
  write_vtu(path, mesh, m.x, {{"displacement", 3, u}}, {{"von_mises", 1, m.built.assembler->von_mises(m.x)}});
}

}  // namespace

void bind_model(nb::module_& m) {
  nb::class_<Model>(m, "Model",
                    "A scene built into softik's objects and its current state (positions). Static, inverse "
                    "and dynamic solves on it update that state; positions, displacements and stresses read it.")
      .def("__init__", &construct, nb::arg("scene"), "Builds a softik.Scene (build_scene).")
      .def(
          "__init__", [](Model* self, const std::string& path) { construct(self, parse_scene(path)); },
          nb::arg("scene"), "Reads (load_scene) and builds a scene file.")
      .def_prop_ro("scene", [](const Model& m) { return m.scene; })
      .def_prop_ro("name", [](const Model& m) { return m.scene.name; })
      .def_prop_ro("dim", [](const Model& m) { return m.built.mesh.dim; })
      .def_prop_ro("cell_type", [](const Model& m) { return std::string(cell_type_name(m.built.mesh.cell_type)); })
      .def_prop_ro("num_nodes", [](const Model& m) { return m.built.mesh.num_nodes(); })
      .def_prop_ro("num_cells", [](const Model& m) { return m.built.mesh.num_cells(); })
      .def_prop_ro(
          "bodies",
          [](const Model& m) {
            nb::list out;
            const MeshParts& p = m.built.parts;
            for (size_t b = 0; b < m.scene.bodies.size(); ++b) {
              nb::dict d;
              d["name"] = m.scene.bodies[b].name;
              d["nodes"] = nb::make_tuple(p.node_begin[b], p.node_begin[b + 1]);
              d["cells"] = nb::make_tuple(p.cell_begin[b], p.cell_begin[b + 1]);
              out.append(d);
            }
            return out;
          },
          "The scene's bodies (bodies:), in order: a dict per body with its name and the ranges [begin, end) of "
          "its nodes and cells in the merged mesh (empty for a single-mesh scene).")
      .def_prop_ro(
          "num_dofs",
          [](const Model& m) { return m.built.assembler ? m.built.assembler->num_dofs() : m.built.mesh.num_dofs(); })
      .def_prop_ro("num_free_dofs",
                   [](const Model& m) {
                     if (m.built.assembler) return m.built.assembler->num_free_dofs();
                     return static_cast<int>(std::count(m.built.fixed_dofs.begin(), m.built.fixed_dofs.end(), 0));
                   })
      .def_prop_ro("warnings", [](const Model& m) { return m.built.warnings; })
      .def_prop_ro(
          "node_groups", [](const Model& m) { return m.built.mesh.node_groups; },
          "{group: node indices} of the mesh (a copy)")
      .def_prop_ro(
          "surface_groups",
          [](const Model& m) {
            std::map<std::string, std::vector<std::array<int, 3>>> out;
            for (const auto& [name, group] : m.built.mesh.surface_groups) {
              SOFTIK_CHECK_KIND(
                  group.quads.empty() && group.triangles6.empty(), ErrorKind::Unsupported,
                  "surface_groups lists triangles only; surface '" << name << "' has quads or 6-node triangles");
              out[name] = group.triangles;
            }
            return out;
          },
          "{surface: [(a, b, c) node indices of each triangle]} of a triangle mesh's surfaces (a copy), e.g. "
          "the cavity walls a pressure acts on")
      .def_prop_ro(
          "rest_positions",
          [](ModelRef m) { return view(m.p->built.mesh.X.data(), m.p->built.mesh.num_nodes(), 3, m.h); },
          "(num_nodes, 3) float64, read-only view of the mesh's rest coordinates")
      .def_prop_ro(
          "cells",
          [](ModelRef m) {
            const Mesh& mesh = m.p->built.mesh;
            return view(mesh.cells.data(), mesh.num_cells(), nodes_per_cell(mesh.cell_type), m.h);
          },
          "(num_cells, nodes per cell) int32, read-only view of the connectivity (VTK/Gmsh node order)")
      .def_prop_ro(
          "positions",
          [](ModelRef m) { return view(m.p->x.data(), m.p->built.mesh.num_nodes(), m.p->built.mesh.dim, m.h); },
          "(num_nodes, dim) float64, read-only view of the current positions: the same memory for the "
          "model's life, updated in place by every solve")
      .def(
          "set_positions",
          [](Model& m, nb::handle positions) {
            const std::vector<Real> x =
                real_array(positions, {m.built.mesh.num_nodes(), m.built.mesh.dim}, "positions");
            ModelCall call(m, "Model.set_positions");  // after the conversion, which may run Python code
            std::copy(x.begin(), x.end(), m.x.begin());
          },
          nb::arg("positions"), "Sets the current positions from a (num_nodes, dim) array.")
      .def(
          "reset",
          [](Model& m) {
            ModelCall call(m, "Model.reset");
            const std::vector<Real> X = m.built.mesh.rest_positions();
            std::copy(X.begin(), X.end(), m.x.begin());  // in place: views of positions stay valid
          },
          "Back to the rest positions.")
      .def(
          "displacements", [](const Model& m) { return displacements(m.built.mesh, m.x); },
          "(num_nodes, 3) float64: positions - rest positions (a new array)")
      .def(
          "von_mises",
          [](Model& m) {
            ModelCall call(m, "Model.von_mises");
            check_fem(
                m, "Model.von_mises",
                "a network's links carry tensions and strains, which Model.write_vtu writes (and softik.run_scene "
                "with outputs.vtu)");
            std::vector<Real> s;
            {
              nb::gil_scoped_release release;
              s = m.built.assembler->von_mises(m.x);
            }
            return take(std::move(s));
          },
          "(num_cells,) float64: von Mises stress of each cell at the current positions (a new array)")
      .def(
          "cavity_volumes",
          [](const Model& m) {
            check_dim3(m, "cavity_volumes");
            nb::dict d;
            for (const PressureLoad& p : m.built.loads.pressures)
              if (p.closed) d[p.name.c_str()] = surface_volume(p, m.built.mesh, m.x);
            return d;
          },
          "{pressure load: enclosed volume} at the current positions (the closed cavities of loads.pressure)")
      .def(
          "probe_displacements",
          [](const Model& m) {
            nb::dict d;
            for (const BuiltProbe& p : m.built.probes) {
              const std::array<Real, 3> u = probe_displacement(m.built.mesh, p, m.x);
              d[p.name.c_str()] = take(std::vector<Real>(u.begin(), u.end()));
            }
            return d;
          },
          "{probe: displacement (3,)} at the current positions (outputs.probes)")
      .def("solve_static", &solve_static_scene,
           "Solves the scene's static problem (its loads in load steps, Newton) from the current positions, as "
           "`softik run` does for a scene without inverse:/dynamics:. Returns {'iterations', 'step_cuts', "
           "'history'}: history has the CSV's columns, one entry per load step (the rest state first).")
      .def("write_vtu", &write_state, nb::arg("path"),
           "Writes the current state as a .vtu (displacement, von_mises) for ParaView or meshio; a node network "
           "read from a file as its links (VTK lines, with their tension and strain), as `softik run` does.")
      .def("__repr__", [](const Model& m) {
        if (m.network_file())
          return "<softik.Model '" + m.scene.name + "': node network of " +
                 std::to_string(m.built.network->num_links()) + " links, " + std::to_string(m.built.mesh.num_nodes()) +
                 " nodes>";
        return "<softik.Model '" + m.scene.name + "': " + std::to_string(m.built.mesh.num_cells()) + " " +
               cell_type_name(m.built.mesh.cell_type) + " cells, " + std::to_string(m.built.mesh.num_nodes()) +
               " nodes>";
      });
}

}  // namespace softik::python
