#include "host/loads/pressure_evaluator.hpp"

#include "host/exec/device_backend.hpp"

namespace softik {

namespace {

class HostPressureEvaluator final : public PressureEvaluator {
 public:
  HostPressureEvaluator(PressureLoad load, const Mesh& mesh) : load_(std::move(load)), mesh_(mesh) {}
  Real volume(const std::vector<Real>& x) override { return surface_volume(load_, mesh_, x); }
  void add_forces(Real P, const std::vector<Real>& x, std::vector<Real>& f) override {
    add_pressure_forces(load_, P, mesh_, x, f);
  }
  std::vector<Real> jacobian(const std::vector<Real>& x) override { return pressure_jacobian(load_, mesh_, x); }

 private:
  PressureLoad load_;
  const Mesh& mesh_;  ///< outlives the evaluator (the Assembler's, or the constraint owner's)
};

}  // namespace

std::unique_ptr<PressureEvaluator> make_pressure_evaluator(const PressureLoad& load, const Mesh& mesh,
                                                           Backend backend) {
  if (backend == Backend::Cuda) {
    require_backend(Backend::Cuda);
    return device_backend()->make_pressure_evaluator(load, mesh);
  }
  return std::make_unique<HostPressureEvaluator>(load, mesh);
}

}  // namespace softik
