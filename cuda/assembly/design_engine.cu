// The CUDA backend's DesignAssemblyEngine (host/assembly/device_assembly.hpp): the designs of
// one mesh topology assembled in one launch over designs x cells (DeviceAssembler::
// assemble_designs; each design's own rest data when their geometries differ), for the batch
// runner's design groups (host/batch/design_batch.hpp).
//
// Positions: a host staging array of D x num_dofs doubles, holding each design's last posted
// positions (its rest positions before the first), uploaded whole before every pass (a design
// that is not assembled now is computed again from its last positions; its results are not
// read). Results stay on the device: each design downloads its own slice of the force and K
// buffers, and a GPU solver reads its K slice in place.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <memory>
#include <vector>

#include "cuda/assembly/device_assembler.hpp"
#include "cuda/backend_entries.hpp"
#include "cuda/exec/cuda_check.hpp"
#include "host/assembly/device_assembly.hpp"
#include "softik/assembly.hpp"
#include "softik/error.hpp"

namespace softik::cuda {

namespace {

class DeviceDesignEngine final : public DesignAssemblyEngine {
 public:
  explicit DeviceDesignEngine(const std::vector<const Assembler*>& designs) : device_(*designs.front()) {
    std::vector<std::vector<Material>> materials;
    std::vector<const Mesh*> meshes;
    bool geometries_differ = false;
    for (const Assembler* a : designs) {
      materials.push_back(a->materials());
      meshes.push_back(&a->mesh());
      geometries_differ = geometries_differ || a->mesh().X != designs.front()->mesh().X;
    }
    device_.set_designs(materials, geometries_differ ? meshes : std::vector<const Mesh*>{});
    num_dofs_ = static_cast<std::size_t>(device_.num_dofs());
    nnz_ = static_cast<std::size_t>(device_.nnz());
    staging_.resize(designs.size() * num_dofs_);
    for (std::size_t d = 0; d < designs.size(); ++d) {
      const std::vector<Real> rest = designs[d]->mesh().rest_positions();
      std::copy(rest.begin(), rest.end(), staging_.begin() + static_cast<std::ptrdiff_t>(d * num_dofs_));
    }
  }

  int num_designs() const override { return device_.num_designs(); }

  void assemble(const std::vector<const std::vector<Real>*>& x, bool energy, bool force, bool stiffness,
                std::vector<std::exception_ptr>& failures) override {
    const std::size_t D = static_cast<std::size_t>(device_.num_designs());
    SOFTIK_CHECK(x.size() == D,
                 "DeviceDesignEngine::assemble: " << x.size() << " position sets for " << D << " designs");
    for (std::size_t d = 0; d < D; ++d)
      if (x[d]) std::copy(x[d]->begin(), x[d]->end(), staging_.begin() + static_cast<std::ptrdiff_t>(d * num_dofs_));
    SOFTIK_CUDA_CHECK(cudaMemcpy(device_.device_design_positions(), staging_.data(), staging_.size() * sizeof(Real),
                                 cudaMemcpyHostToDevice));
    std::vector<std::exception_ptr> all;
    device_.assemble_designs(device_.device_design_positions(), AssemblyRequest{energy, force, stiffness}, &all);
    failures.assign(D, nullptr);
    for (std::size_t d = 0; d < D; ++d)
      if (x[d]) failures[d] = all[d];
    if (energy) energies_ = device_.design_energies();
  }

  Real energy(int d) const override { return energies_.at(static_cast<std::size_t>(d)); }

  void download_force(int d, std::vector<Real>& force) const override {
    force.resize(num_dofs_);
    SOFTIK_CUDA_CHECK(cudaMemcpy(force.data(), device_.device_design_force() + static_cast<std::size_t>(d) * num_dofs_,
                                 num_dofs_ * sizeof(Real), cudaMemcpyDeviceToHost));
  }

  void download_K_values(int d, std::vector<Real>& K_values) const override {
    K_values.resize(nnz_);
    SOFTIK_CUDA_CHECK(cudaMemcpy(K_values.data(), device_K_values(d), nnz_ * sizeof(Real), cudaMemcpyDeviceToHost));
  }

  const Real* device_K_values(int d) const override {
    return device_.device_design_K_values() + static_cast<std::size_t>(d) * nnz_;
  }

  bool on_device() const override { return true; }

 private:
  DeviceAssembler device_;
  std::size_t num_dofs_ = 0, nnz_ = 0;
  std::vector<Real> staging_;
  std::vector<Real> energies_;
};

}  // namespace

}  // namespace softik::cuda

namespace softik {
std::unique_ptr<DesignAssemblyEngine> make_device_design_engine(const std::vector<const Assembler*>& designs) {
  SOFTIK_CHECK(!designs.empty(), "make_device_design_engine: no designs");
  return std::make_unique<cuda::DeviceDesignEngine>(designs);
}
}  // namespace softik
