// A scene with `modes:` (docs/scene-format.md, "modes"): the natural frequencies and mode shapes of
// the unloaded body, a CSV row and a .vtu per mode.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "host/scene/run/scene_run_common.hpp"
#include "softik/mesh_selection.hpp"
#include "softik/modes.hpp"

namespace softik::scene_detail {

void run_modes(const Scene& scene, BuiltScene& built, const SceneRunOptions& options, Clock::time_point t0,
               SceneRunResult& result) {
  RunRecorder rec(scene, built, options, t0, result);
  rec.open_outputs();
  rec.csv << "mode,frequency,eigenvalue";
  rec.end_header();
  std::unique_ptr<LinearSolver> solver = make_linear_solver(built.linear_solver);
  const std::vector<Real> X = built.mesh.rest_positions();
  const ModesResult modes = natural_modes(*built.assembler, *solver, X, scene.modes.options);
  const Real show = 0.05 * bounding_box_diagonal(built.mesh);  // the drawn shape's largest displacement
  for (size_t k = 0; k < modes.frequencies.size(); ++k) {
    const int mode = static_cast<int>(k) + 1;
    rec.csv << mode << "," << modes.frequencies[k] << "," << modes.eigenvalues[k] << "," << since(t0) << "\n";
    rec.csv.end_row("mode " + std::to_string(mode));
    if (!scene.outputs.vtu) continue;
    const std::vector<Real>& phi = modes.shapes[k];
    Real largest = 0;
    for (Real v : phi) largest = std::max(largest, std::abs(v));
    std::vector<Real> x = X;
    for (size_t d = 0; d < x.size(); ++d) x[d] += largest > 0 ? show / largest * phi[d] : 0.0;
    rec.save_state(mode, mode, x, "mode_shape", phi);
  }
  result.frequencies = modes.frequencies;
}

}  // namespace softik::scene_detail
