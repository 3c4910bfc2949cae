// Designs of one mesh assembled together in lockstep (batch.hpp, `lockstep:`).
//
// Every design still runs its own solve (its own Newton iterations, line search, step cuts,
// inverse QP, outputs) on its own thread, with its own linear solver. Only the assembly is
// shared: each design's Assembler gets a DesignSlot as its DeviceAssembly, and a pass a design
// asks for waits until every design of its DesignBatch that is still solving has asked for one
// too; then one pass of the DesignAssemblyEngine assembles them all (on the GPU: one launch over
// designs x cells), and each design takes its own results. Designs of one topology (cells and
// free DOFs) group together whatever their geometry: each keeps its own rest data. A design that finished (or failed)
// leaves the batch, so the others never wait for it. Designs that need more iterations than the
// others simply keep asking: the passes shrink to the designs still going.
//
// The solves between passes run concurrently (on the GPU each thread has its own default
// stream), so D designs cost one assembly launch and D overlapping factorisations per step.
//
// A pass always waits for every design still solving: the GPU pass rewrites every design's slice
// of the force and K buffers (zeroed, then accumulated), so it must not run while one design is
// still reading its own. (A pass after a short wait, for the designs that asked so far, would fail
// designs through exactly that race, and costs far more launches: 1,351 instead of 109 for 256
// designs on an H200.)
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "host/assembly/device_assembly.hpp"
#include "softik/assembly.hpp"
#include "softik/batch.hpp"

namespace softik::batch_detail {

/// Whether `a` and `b` assemble one mesh topology (cell type, cells, node count) with the same
/// free DOFs, formulation options and law and the same number of materials, so that one engine
/// assembles both (one CSR pattern); their rest positions and materials' parameters may differ.
bool same_assembly(const Assembler& a, const Assembler& b);

/// The designs of one engine and the barrier that makes their passes one.
class DesignBatch {
 public:
  explicit DesignBatch(std::unique_ptr<DesignAssemblyEngine> engine);
  int num_designs() const { return static_cast<int>(state_.size()); }
  const DesignAssemblyEngine& engine() const { return *engine_; }

  /// Design d's pass at positions x: waits until every design still in the batch has posted (the
  /// last to post runs the pass for all), then throws d's own failure if it had one. x must stay
  /// alive until this returns.
  void post(int d, const std::vector<Real>& x, bool energy, bool force, bool stiffness);
  /// Design d needs no further pass (its solve ended): the others stop waiting for it. Never throws.
  void leave(int d) noexcept;
  /// Passes run so far, and the design passes they held (sum over passes of the designs posted).
  std::uint64_t passes() const;
  std::uint64_t design_passes() const;

 private:
  enum class State { Idle, Posted, Left };
  /// Runs the pass for the posted designs when every design still in the batch has posted;
  /// the caller holds mutex_.
  void run_pass_if_ready();

  std::unique_ptr<DesignAssemblyEngine> engine_;
  mutable std::mutex mutex_;
  std::condition_variable served_;
  std::vector<State> state_;
  std::vector<const std::vector<Real>*> x_;
  std::vector<char> energy_, force_, stiffness_;
  std::vector<std::exception_ptr> failure_;
  std::uint64_t passes_ = 0, design_passes_ = 0;
};

/// Design d's seat in a DesignBatch: its Assembler's DeviceAssembly. Made unattached by the
/// factory the batch runner installs while it builds the design's scene (make_slot_factory); the
/// runner attaches it once the design's group is known. Leaves the batch when destroyed.
class DesignSlot final : public DeviceAssembly {
 public:
  DesignSlot() = default;
  ~DesignSlot() override;
  void attach(std::shared_ptr<DesignBatch> batch, int design);
  /// Leaves the batch now (the design's solve ended); later passes are an error.
  void detach() noexcept;

  void assemble_from_host(const std::vector<Real>& x, bool energy, bool force, bool stiffness) override;
  Real energy() const override;
  void download_force(std::vector<Real>& force) const override;
  void download_K_values(std::vector<Real>& K_values) const override;
  const Real* device_K_values() const override;
  bool on_device() const override;

 private:
  std::shared_ptr<DesignBatch> batch_;
  int design_ = -1;
};

/// A DeviceAssemblyFactory (build_scene_with_device) that gives each Assembler a new unattached DesignSlot.
DeviceAssemblyFactory make_slot_factory();

/// The engine for the designs whose Assemblers are `designs` (one mesh: same_assembly holds for
/// every pair): the CUDA backend's (one launch) when `cuda`, else the CPU twin, which assembles
/// the designs one after another with host Assemblers of their own (the same arithmetic as a
/// design run alone on the CPU, so its results are identical).
std::unique_ptr<DesignAssemblyEngine> make_design_engine(const std::vector<const Assembler*>& designs, bool cuda);

/// Design `design`'s scene as run_design runs it: the base scene with its overrides, the
/// backend of options (else the batch file's), options.threads cores unless the scene sets
/// solver.threads, the batch's vtu setting.
Scene design_run_scene(const BatchSpec& spec, const BatchDesign& design, const BatchRunOptions& options);
/// Records `e` as the design's error (kind and text; with the design's overrides appended when
/// its scene was made, since design_scene's own errors name them already).
void record_design_error(DesignResult& r, const std::exception& e, const BatchDesign& design, bool scene_made);

/// Runs spec.designs[i] for every i of `pending` in lockstep (BatchSpec::lockstep): waves of
/// spec.lockstep_designs designs, each built (on up to `build_threads` threads) with DesignSlots
/// as its assembly, grouped by same_assembly, every group given one engine (the CUDA backend's
/// when `cuda`), then every design of the wave solved on a thread of its own. finish(i, result)
/// is called once per design as it ends, from that design's thread (concurrently); no wave
/// starts once stop() is true. `options` as for run_design. Adds what it did to `stats`.
void run_lockstep(const BatchSpec& spec, const BatchRunOptions& options, const std::vector<size_t>& pending, bool cuda,
                  int build_threads, const std::function<void(size_t, DesignResult)>& finish,
                  const std::function<bool()>& stop, BatchLockstepStats& stats);

}  // namespace softik::batch_detail
