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
#include <string>
#include <typeinfo>

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

void read(const std::string& path, const std::string& text) {
#if defined(SOFTIK_FUZZ_TARGET_scene)
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
    std::fprintf(stderr, "softik fuzz: a %s escaped the reader instead of softik::Error: %s\n", typeid(e).name(), e.what());
    std::abort();
  }
  return 0;
}
