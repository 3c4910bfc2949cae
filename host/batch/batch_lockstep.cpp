// Lockstep evaluation of a batch (design_batch.hpp, run_lockstep): waves of designs, built,
// grouped by mesh, each group assembled by one engine, every design solved on its own thread.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "host/assembly/assembler_internals.hpp"
#include "host/batch/design_batch.hpp"
#include "host/scene/build/scene_build.hpp"
#include "host/scene/run/scene_run_common.hpp"
#include "softik/error.hpp"

namespace softik::batch_detail {

namespace {

/// One design of a wave between its build and its end.
struct WaveDesign {
  size_t index = 0;  ///< into spec.designs
  std::optional<Scene> scene;
  std::optional<BuiltScene> built;
  DesignSlot* slot = nullptr;  ///< built->assembler's DeviceAssembly
  DesignResult result;
  bool failed = false;  ///< result holds the error; nothing to run
  scene_detail::Clock::time_point t0;
};

/// Builds design w (its Assembler gets an unattached DesignSlot).
void build(const BatchSpec& spec, const BatchRunOptions& options, WaveDesign& w) {
  const BatchDesign& design = spec.designs[w.index];
  w.t0 = scene_detail::Clock::now();
  bool scene_made = false;
  try {
    w.scene.emplace(design_run_scene(spec, design, options));
    scene_made = true;
    w.built.emplace(build_scene_with_device(*w.scene, make_slot_factory()));
    w.slot = dynamic_cast<DesignSlot*>(assembly::AssemblerInternals::device_assembly(*w.built->assembler));
    SOFTIK_CHECK_KIND(w.slot != nullptr, ErrorKind::Internal, "a lockstep design's Assembler has no DesignSlot");
  } catch (const std::exception& e) {
    record_design_error(w.result, e, design, scene_made);
    w.failed = true;
    w.built.reset();
  }
}

/// Groups the wave's built designs by same_assembly and gives every group an engine; a group
/// whose engine cannot be made (device memory) fails its designs with that error.
std::vector<std::shared_ptr<DesignBatch>> form_groups(const BatchSpec& spec, std::vector<WaveDesign>& wave, bool cuda) {
  std::vector<std::shared_ptr<DesignBatch>> batches;
  std::vector<std::vector<WaveDesign*>> groups;
  for (WaveDesign& w : wave) {
    if (w.failed) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const std::vector<WaveDesign*>& g) {
      return same_assembly(*g.front()->built->assembler, *w.built->assembler);
    });
    if (it == groups.end())
      groups.push_back({&w});
    else
      it->push_back(&w);
  }
  for (const std::vector<WaveDesign*>& group : groups) {
    std::vector<const Assembler*> assemblers;
    for (const WaveDesign* w : group) assemblers.push_back(w->built->assembler.get());
    try {
      auto batch = std::make_shared<DesignBatch>(make_design_engine(assemblers, cuda));
      for (size_t d = 0; d < group.size(); ++d) group[d]->slot->attach(batch, static_cast<int>(d));
      batches.push_back(std::move(batch));
    } catch (const std::exception& e) {
      for (WaveDesign* w : group) {
        record_design_error(w->result, e, spec.designs[w->index], true);
        w->failed = true;
        w->built.reset();
      }
    }
  }
  return batches;
}

}  // namespace

void run_lockstep(const BatchSpec& spec, const BatchRunOptions& options, const std::vector<size_t>& pending, bool cuda,
                  int build_threads, const std::function<void(size_t, DesignResult)>& finish,
                  const std::function<bool()>& stop, BatchLockstepStats& stats) {
  const size_t per_wave = static_cast<size_t>(std::max(1, spec.lockstep_designs));
  for (size_t first = 0; first < pending.size() && !stop(); first += per_wave) {
    std::vector<WaveDesign> wave(std::min(per_wave, pending.size() - first));
    for (size_t k = 0; k < wave.size(); ++k) wave[k].index = pending[first + k];
    // Build: `build_threads` threads take the wave's designs in turn.
    std::atomic<size_t> next{0};
    auto builder = [&] {
      for (size_t k = next++; k < wave.size(); k = next++) build(spec, options, wave[k]);
    };
    std::vector<std::thread> threads;
    const size_t builders = std::min(wave.size(), static_cast<size_t>(std::max(1, build_threads)));
    for (size_t t = 1; t < builders; ++t) threads.emplace_back(builder);
    builder();
    for (std::thread& t : threads) t.join();
    threads.clear();
    const std::vector<std::shared_ptr<DesignBatch>> batches = form_groups(spec, wave, cuda);
    // Solve: every design on a thread of its own (a design waits for the others of its group at
    // each assembly, so they must all be running). A design leaves its group when its scene (and
    // with it the slot) is destroyed, whatever the outcome.
    auto solve = [&](WaveDesign& w) {
      DesignResult r = std::move(w.result);
      if (!w.failed) {
        try {
          SceneRunOptions run;
          run.out_dir = options.out_dir + "/" + spec.designs[w.index].name;
          r.run = scene_detail::run_built_scene(*w.scene, *w.built, run, w.t0);
          r.ok = true;
        } catch (const std::exception& e) {
          record_design_error(r, e, spec.designs[w.index], true);
        }
        w.slot->detach();  // the others stop waiting for this design now
      }
      w.built.reset();
      w.scene.reset();
      finish(w.index, std::move(r));
    };
    size_t started = 1;
    std::string thread_error;
    for (; started < wave.size(); ++started) {
      try {
        threads.emplace_back([&, started] { solve(wave[started]); });
      } catch (const std::system_error& e) {
        thread_error = e.what();
        break;
      }
    }
    for (size_t k = started; k < wave.size(); ++k) {  // no thread: these designs fail, the others go on
      WaveDesign& w = wave[k];
      if (!w.failed) {
        record_design_error(
            w.result, Error("cannot start a thread for this design (" + thread_error + "): lower lockstep_designs"),
            spec.designs[w.index], true);
        w.failed = true;
        w.slot->detach();
      }
      w.built.reset();
      finish(w.index, std::move(w.result));
    }
    solve(wave[0]);
    for (std::thread& t : threads) t.join();
    ++stats.waves;
    stats.groups += batches.size();
    for (const auto& batch : batches) {
      stats.passes += batch->passes();
      stats.design_passes += batch->design_passes();
    }
  }
}

}  // namespace softik::batch_detail
