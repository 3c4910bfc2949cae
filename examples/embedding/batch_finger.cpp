// A batch of designs through softik's C++ API: the pneumatic finger scene of softik's examples
// (examples/finger/finger.yaml) on a coarse mesh, inflated to three pressures, evaluated
// concurrently by run_batch; the designs are built in code (BatchSpec), not read from a batch
// file. Each design must solve, and a higher pressure must inflate the cavity more and bend the
// tip further up (+z: the wall under the cavity is the thin one). Writes each design's CSV
// under the folder given as the first argument (default ./batch_out).
// Exits 1 when a result is wrong, 2 on a softik::Error.
#include <cstdio>
#include <iostream>
#include <string>

#include <softik/batch.hpp>
#include <softik/error.hpp>

int main(int argc, char** argv) {
  using softik::Real;
  try {
    softik::BatchSpec spec;
    spec.path = "batch_finger.cpp";  // names the batch in messages
    spec.scene_path = SOFTIK_EXAMPLES_DIR "/finger/finger.yaml";
    spec.workers = 2;
    for (const char* pressure : {"8000", "16000", "24000"}) {
      softik::BatchDesign design;
      design.name = std::string("p") + pressure;
      design.set = {{"mesh.generator.cell_size", "0.004"},  // coarse (the walls are 4 mm): a second per design
                    {"solver.load_steps", "4"},
                    {"loads.pressure[0].value", pressure}};
      spec.designs.push_back(design);
    }
    softik::BatchRunOptions options;
    options.out_dir = argc > 1 ? argv[1] : "batch_out";
    options.progress = &std::cout;
    const softik::BatchResult result = softik::run_batch(spec, options);

    Real previous_volume = 0, previous_rise = 0;
    for (const softik::DesignResult& design : result.designs) {
      if (!design.ok) {
        std::fprintf(stderr, "batch_finger: FAILED: design %s: %s\n", design.name.c_str(), design.error.c_str());
        return 1;
      }
      const softik::PressureSummary& cavity = design.run.pressures.at(0);
      const Real growth = cavity.volume - cavity.volume0;
      const Real rise = design.run.probes.at(0).displacement[2];  // the scene's probe at the tip
      std::printf("batch_finger: %s: %.0f Pa, cavity volume +%.3e m^3, tip rise %.3e m\n", design.name.c_str(),
                  cavity.pressure, growth, rise);
      if (!(growth > previous_volume && rise > previous_rise)) {
        std::fprintf(stderr,
                     "batch_finger: FAILED: design %s does not inflate more or bend further than the "
                     "design with a lower pressure\n",
                     design.name.c_str());
        return 1;
      }
      previous_volume = growth;
      previous_rise = rise;
    }
    std::printf("batch_finger: %zu designs in %.2f s on %d workers\n", result.designs.size(), result.seconds,
                result.workers);
    return 0;
  } catch (const softik::Error& e) {
    std::fprintf(stderr, "batch_finger: softik error (%s): %s\n", softik::error_kind_name(e.kind()), e.what());
    return 2;
  }
}
