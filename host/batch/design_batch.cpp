// Lockstep assembly of a batch's designs (design_batch.hpp): the barrier, the slots, the CPU twin.
#include "host/batch/design_batch.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <variant>

#include "host/exec/device_backend.hpp"
#include "softik/error.hpp"

namespace softik::batch_detail {

namespace {

/// The CPU twin of the CUDA design engine: each design has a host Assembler of its own (built
/// from the design's mesh, materials, fixed DOFs and options), run one after another. A design
/// run alone on the CPU calls the same Assembler::assemble, so the results are bitwise its own.
class HostDesignEngine final : public DesignAssemblyEngine {
 public:
  explicit HostDesignEngine(const std::vector<const Assembler*>& designs) {
    for (const Assembler* a : designs) {
      std::vector<char> fixed(static_cast<size_t>(a->num_dofs()), 0);
      for (size_t k = 0; k < fixed.size(); ++k) fixed[k] = a->free_dof_index()[k] < 0;
      AssemblyOptions options = a->options();
      options.backend = Backend::Cpu;
      designs_.push_back(std::make_unique<Assembler>(a->mesh(), a->materials(), std::move(fixed), options));
    }
    energy_.assign(designs.size(), 0.0);
    force_.resize(designs.size());
    K_.resize(designs.size());
  }

  int num_designs() const override { return static_cast<int>(designs_.size()); }

  void assemble(const std::vector<const std::vector<Real>*>& x, bool energy, bool force, bool stiffness,
                std::vector<std::exception_ptr>& failures) override {
    failures.assign(designs_.size(), nullptr);
    for (size_t d = 0; d < designs_.size(); ++d) {
      if (!x[d]) continue;
      try {
        designs_[d]->assemble(*x[d], energy ? &energy_[d] : nullptr, force ? &force_[d] : nullptr,
                              stiffness ? &K_[d] : nullptr);
      } catch (const Error&) {
        failures[d] = std::current_exception();
      }
    }
  }

  Real energy(int d) const override { return energy_[static_cast<size_t>(d)]; }
  void download_force(int d, std::vector<Real>& force) const override { force = force_[static_cast<size_t>(d)]; }
  void download_K_values(int d, std::vector<Real>& K_values) const override { K_values = K_[static_cast<size_t>(d)]; }
  const Real* device_K_values(int) const override { return nullptr; }
  bool on_device() const override { return false; }

 private:
  std::vector<std::unique_ptr<Assembler>> designs_;
  std::vector<Real> energy_;
  std::vector<std::vector<Real>> force_, K_;
};

bool same_options(const AssemblyOptions& a, const AssemblyOptions& b) {
  return a.formulation == b.formulation && a.rotation == b.rotation &&
         a.corotational_tangent == b.corotational_tangent && a.project_spd == b.project_spd &&
         a.dilatation == b.dilatation;
}

}  // namespace

bool same_assembly(const Assembler& a, const Assembler& b) {
  const Mesh& ma = a.mesh();
  const Mesh& mb = b.mesh();
  // The topology: the cells and the free DOFs fix the CSR pattern and the slot map; the rest
  // positions may differ (the engine then keeps each design's rest data).
  if (ma.dim != mb.dim || ma.cell_type != mb.cell_type || ma.cells != mb.cells || ma.X.size() != mb.X.size())
    return false;
  if (a.free_dof_index() != b.free_dof_index() || !same_options(a.options(), b.options())) return false;
  return a.materials().size() == b.materials().size() && a.materials().front().index() == b.materials().front().index();
}

DesignBatch::DesignBatch(std::unique_ptr<DesignAssemblyEngine> engine) : engine_(std::move(engine)) {
  const size_t D = static_cast<size_t>(engine_->num_designs());
  state_.assign(D, State::Idle);
  x_.assign(D, nullptr);
  energy_.assign(D, 0);
  force_.assign(D, 0);
  stiffness_.assign(D, 0);
  failure_.assign(D, nullptr);
}

void DesignBatch::post(int d, const std::vector<Real>& x, bool energy, bool force, bool stiffness) {
  const size_t k = static_cast<size_t>(d);
  std::unique_lock<std::mutex> lock(mutex_);
  SOFTIK_CHECK_KIND(state_[k] == State::Idle, ErrorKind::Internal,
                    "design " << d << " of a lockstep batch asked for a pass after it left the batch");
  state_[k] = State::Posted;
  x_[k] = &x;
  energy_[k] = energy;
  force_[k] = force;
  stiffness_[k] = stiffness;
  run_pass_if_ready();
  served_.wait(lock, [&] { return state_[k] != State::Posted; });
  if (failure_[k]) {
    std::exception_ptr failure = std::move(failure_[k]);
    failure_[k] = nullptr;
    std::rethrow_exception(failure);
  }
}

void DesignBatch::leave(int d) noexcept {
  const std::lock_guard<std::mutex> lock(mutex_);
  state_[static_cast<size_t>(d)] = State::Left;
  run_pass_if_ready();
}

std::uint64_t DesignBatch::passes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return passes_;
}

std::uint64_t DesignBatch::design_passes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return design_passes_;
}

void DesignBatch::run_pass_if_ready() {
  bool any = false;
  for (State s : state_) {
    if (s == State::Idle) return;  // a design still solving has not asked yet
    any = any || s == State::Posted;
  }
  if (!any) return;
  const size_t D = state_.size();
  std::vector<const std::vector<Real>*> x(D, nullptr);
  bool energy = false, force = false, stiffness = false;
  for (size_t d = 0; d < D; ++d) {
    if (state_[d] != State::Posted) continue;
    x[d] = x_[d];
    energy = energy || energy_[d];
    force = force || force_[d];
    stiffness = stiffness || stiffness_[d];
    ++design_passes_;
  }
  std::vector<std::exception_ptr> failures;
  try {
    engine_->assemble(x, energy, force, stiffness, failures);
  } catch (...) {  // the whole pass failed (the device): every posted design gets the error
    failures.assign(D, std::current_exception());
  }
  failures.resize(D);
  for (size_t d = 0; d < D; ++d) {
    if (state_[d] != State::Posted) continue;
    failure_[d] = failures[d];
    x_[d] = nullptr;
    state_[d] = State::Idle;
  }
  ++passes_;
  served_.notify_all();
}

DesignSlot::~DesignSlot() { detach(); }

void DesignSlot::attach(std::shared_ptr<DesignBatch> batch, int design) {
  batch_ = std::move(batch);
  design_ = design;
}

void DesignSlot::detach() noexcept {
  if (batch_) batch_->leave(design_);
  batch_.reset();
}

void DesignSlot::assemble_from_host(const std::vector<Real>& x, bool energy, bool force, bool stiffness) {
  SOFTIK_CHECK_KIND(batch_ != nullptr, ErrorKind::Internal,
                    "a lockstep design's assembly ran before its design group was formed (or after it left)");
  batch_->post(design_, x, energy, force, stiffness);
}

Real DesignSlot::energy() const { return batch_->engine().energy(design_); }
void DesignSlot::download_force(std::vector<Real>& force) const { batch_->engine().download_force(design_, force); }
void DesignSlot::download_K_values(std::vector<Real>& K_values) const {
  batch_->engine().download_K_values(design_, K_values);
}
const Real* DesignSlot::device_K_values() const { return batch_->engine().device_K_values(design_); }
bool DesignSlot::on_device() const { return batch_ && batch_->engine().on_device(); }

DeviceAssemblyFactory make_slot_factory() {
  return [](const Assembler&) -> std::unique_ptr<DeviceAssembly> { return std::make_unique<DesignSlot>(); };
}

std::unique_ptr<DesignAssemblyEngine> make_design_engine(const std::vector<const Assembler*>& designs, bool cuda) {
  SOFTIK_CHECK(!designs.empty(), "make_design_engine: no designs");
  if (cuda) {
    if (!cuda_backend_built()) require_backend(Backend::Cuda);  // throws: built without the CUDA backend
    return device_backend()->make_design_engine(designs);
  }
  return std::make_unique<HostDesignEngine>(designs);
}

}  // namespace softik::batch_detail
