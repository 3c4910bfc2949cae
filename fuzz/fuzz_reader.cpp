// One libFuzzer entry point for softik's readers, compiled once per target (fuzz/CMakeLists.txt
// defines SOFTIK_FUZZ_TARGET_<name>). The readers take file paths (the format follows the
// extension), so the input is written to a file of this process first.
//
// The contract checked: a reader returns a result or throws softik::Error with a message. Any
// other exception (std::bad_alloc from a size read off the file, std::out_of_range, ...) aborts,
// and so do the sanitizers' findings (buffer overflows, leaks, undefined behaviour).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <optional>
#include <string>
#include <typeinfo>

#include "host/batch/objective.hpp"
#include "softik/batch.hpp"
#include "softik/error.hpp"
#include "softik/mesh_io.hpp"
#include "softik/network_io.hpp"
#include "softik/scene.hpp"

namespace {

#if defined(SOFTIK_FUZZ_TARGET_gmsh)
const char* const kExtension = ".msh";
#elif defined(SOFTIK_FUZZ_TARGET_vtk)
const char* const kExtension = ".vtk";
#elif defined(SOFTIK_FUZZ_TARGET_vtu)
const char* const kExtension = ".vtu";
#elif defined(SOFTIK_FUZZ_TARGET_obj)
const char* const kExtension = ".obj";
#elif defined(SOFTIK_FUZZ_TARGET_stl)
const char* const kExtension = ".stl";
#else
const char* const kExtension = ".yaml";
#endif

/// A file of this process (several fuzzers may run at once), rewritten for every input.
const std::string& input_path() {
  static const std::string path = "/tmp/softik_fuzz_" + std::to_string(getpid()) + kExtension;
  return path;
}

#if defined(SOFTIK_FUZZ_TARGET_batch)
/// The folder of the fuzzed batch files, with the base scene `base.yaml` their `scene:` names
/// (tests/batch_test_support.hpp's block on a coarser mesh, so that overrides reach the scene reader).
const std::string& batch_dir() {
  static const std::string dir = [] {
    const std::string d = "/tmp/softik_fuzz_batch_" + std::to_string(getpid());
    std::system(("mkdir -p " + d).c_str());
    std::ofstream(d + "/base.yaml") << "mesh:\n  generator:\n    type: multi_cavity\n    size: [0.03, 0.012, 0.012]\n"
                                       "    cavities: [[0.006, 0.003, 0.003, 0.018, 0.006, 0.006]]\n"
                                       "    cell_size: 0.006\n    cell_type: hex8\n"
                                       "materials: {law: neo_hookean, young: 1.0e5, poisson: 0.45}\n"
                                       "fixed: [{group: xmin}]\n"
                                       "loads: {pressure: {name: cavity, surface: cavity0, value: 6000}}\n"
                                       "outputs: {probes: [{name: tip, point: [0.03, 0.006, 0.006]}]}\n";
    return d;
  }();
  return dir;
}
#endif

void read(const std::string& path, const std::string& text) {
#if defined(SOFTIK_FUZZ_TARGET_batch)
  (void)path;
  const softik::BatchSpec spec = softik::parse_batch_string(text, batch_dir() + "/fuzz.yaml");
  for (const softik::BatchDesign& d : spec.designs) softik::check_design_name(spec, d.name);
#elif defined(SOFTIK_FUZZ_TARGET_expression)
  (void)path;
  // An objective (arithmetic) and a constraint (one comparison), evaluated with every column 2.
  for (const auto kind :
       {softik::batch_detail::Expression::Kind::Arithmetic, softik::batch_detail::Expression::Kind::Comparison}) {
    try {
      const softik::batch_detail::Expression e(text, kind);
      (void)e.evaluate([](const std::string&) { return std::optional<double>(2.0); });
    } catch (const softik::Error& e) {
      if (std::string(e.what()).empty()) std::abort();
    }
  }
#elif defined(SOFTIK_FUZZ_TARGET_scene)
  (void)path;
  (void)softik::parse_scene_string(text, "fuzz.yaml");
#elif defined(SOFTIK_FUZZ_TARGET_network)
  (void)text;
  (void)softik::read_node_network(path);
#elif defined(SOFTIK_FUZZ_TARGET_obj) || defined(SOFTIK_FUZZ_TARGET_stl)
  (void)text;
  (void)softik::read_surface(path);
#else
  (void)text;
  (void)softik::read_mesh(path);
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string& path = input_path();
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    const size_t written = std::fwrite(data, 1, size, f);
    std::fclose(f);
    if (written != size) std::abort();  // the fuzzer's own disk: not a finding of softik
  }
  try {
    read(path, text);
  } catch (const softik::Error& e) {
    if (std::string(e.what()).empty()) std::abort();  // an error must say something
  } catch (const std::exception& e) {
    std::fprintf(stderr, "softik fuzz: a %s escaped the reader instead of softik::Error: %s\n", typeid(e).name(),
                 e.what());
    std::abort();
  }
  return 0;
}
