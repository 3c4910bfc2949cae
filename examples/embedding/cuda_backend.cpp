// Links softik::cuda (find_package(softik COMPONENTS cuda)): the package says the installed
// library has its CUDA backend, and the library must agree. With a usable device the same
// assembly runs on both backends and must agree to round-off; without one, the backend's
// refusal must name the reason. Exits non-zero when either check fails.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/backend.hpp"
#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"

int main() {
  if (!softik::cuda_backend_built()) {
    std::fprintf(stderr, "embedding_cuda_backend: linked softik::cuda, but the library has no CUDA backend\n");
    return 1;
  }
  std::string reason;
  if (!softik::cuda::device_available(&reason)) {
    try {
      softik::require_backend(softik::Backend::Cuda);
      std::fprintf(stderr, "embedding_cuda_backend: no device (%s), yet require_backend accepted cuda\n",
                   reason.c_str());
      return 1;
    } catch (const softik::Error& e) {
      std::printf("CUDA backend built; no usable device: %s\n", e.what());
      return 0;
    }
  }
  softik::BoxSpec spec;
  spec.cells = {4, 2, 2};
  const softik::Mesh mesh = softik::make_box(3, softik::CellType::Tet4, spec);
  std::vector<softik::Real> x = mesh.rest_positions();
  for (std::size_t k = 0; k < x.size(); k += 3) x[k] *= 1.05;  // a stretch
  const auto fixed = softik::fix_nodes(mesh, mesh.node_groups.at("xmin"));
  const std::vector<softik::Material> law{softik::fem::NeoHookean::from_young_poisson(1e5, 0.45)};
  softik::AssemblyOptions options;
  options.formulation = softik::Formulation::Hyperelastic;
  std::vector<softik::Real> f_cpu, f_gpu;
  softik::Assembler(mesh, law, fixed, options).assemble(x, nullptr, &f_cpu, nullptr);
  options.backend = softik::Backend::Cuda;
  softik::Assembler(mesh, law, fixed, options).assemble(x, nullptr, &f_gpu, nullptr);
  double diff = 0, scale = 0;
  for (std::size_t k = 0; k < f_cpu.size(); ++k) {
    diff = std::fmax(diff, std::fabs(f_gpu[k] - f_cpu[k]));
    scale = std::fmax(scale, std::fabs(f_cpu[k]));
  }
  std::printf("CUDA backend on the device: force max difference %.3g of %.3g\n", diff, scale);
  return diff <= 1e-12 * scale ? 0 : 1;
}
