// The softik command-line program.
//   softik run SCENE.yaml --out DIR [--quiet]
//   softik --help | --version
// Exit status: 0 on success, 1 on an error (bad scene, failed solve), 2 on a usage error.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "softik/error.hpp"
#include "softik/scene.hpp"

namespace {

constexpr const char* kUsage =
    "usage: softik run SCENE.yaml --out DIR [--quiet]\n"
    "       softik --help\n"
    "       softik --version\n";

constexpr const char* kHelp =
    "softik: forward and inverse finite-element simulation of soft robots from a YAML scene.\n"
    "\n"
    "commands:\n"
    "  run SCENE.yaml --out DIR   build the scene (mesh, materials, boundary conditions, loads),\n"
    "                             solve the static problem in load steps, and write into DIR:\n"
    "                               <scene>.csv        one row per load step: load factor, pressures,\n"
    "                                                  cavity volumes and their growth, probe\n"
    "                                                  displacements, Newton iterations, residual, time\n"
    "                               <scene>_NNNN.vtu   displacement, pressure_force, von_mises\n"
    "                               <scene>.pvd        the .vtu series, for ParaView\n"
    "                             Progress goes to stderr, one line per load step; a summary\n"
    "                             (volumes, probe displacements) to stdout at the end.\n"
    "                             A scene with an 'inverse:' section instead finds the actuator\n"
    "                             inputs (pressures, cable tensions, forces) that bring its\n"
    "                             effectors to their goals (real-time steps or converged solves)\n"
    "                             and writes one CSV row per step: actuator values, effector\n"
    "                             positions and errors, QP status and iterations, phase times;\n"
    "                             the summary says whether each effector reached its goals.\n"
    "options:\n"
    "  --out DIR     output folder (created if missing)\n"
    "  --quiet       no per-step progress (warnings, errors and the summary still print)\n"
    "  --help, -h    this text\n"
    "  --version     the softik version\n"
    "\n"
    "The scene format is described in docs/scene-format.md; examples are in examples/.\n"
    "Exit status: 0 success, 1 error (bad scene, failed solve), 2 usage error.\n";

int usage_error(const std::string& message) {
  std::cerr << "softik: error: " << message << "\n" << kUsage;
  return 2;
}

int run(const std::vector<std::string>& args) {
  std::string scene_path, out_dir;
  bool quiet = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--quiet" || a == "-q") {
      quiet = true;
    } else if (a == "--out" || a == "-o") {
      if (i + 1 >= args.size()) return usage_error("--out needs a folder: --out DIR");
      out_dir = args[++i];
    } else if (a.rfind("--out=", 0) == 0) {
      out_dir = a.substr(6);
    } else if (a == "--help" || a == "-h") {
      std::cout << kHelp;
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option '" + a + "' for 'run'");
    } else if (scene_path.empty()) {
      scene_path = a;
    } else {
      return usage_error("'run' takes one scene file; got '" + scene_path + "' and '" + a + "'");
    }
  }
  if (scene_path.empty()) return usage_error("'run' needs a scene file: softik run SCENE.yaml --out DIR");
  if (out_dir.empty()) return usage_error("'run' needs --out DIR (the folder for the .csv, .vtu and .pvd outputs)");

  const softik::Scene scene = softik::parse_scene(scene_path);
  softik::SceneRunOptions options;
  options.out_dir = out_dir;
  options.progress = quiet ? nullptr : &std::cerr;
  options.warnings = &std::cerr;
  if (!quiet) std::cerr << "softik: running " << scene_path << " -> " << out_dir << "\n";
  const softik::SceneRunResult result = softik::run_scene(scene, options);
  softik::write_summary(result, std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage_error("no command given");
  const std::string& command = args[0];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kHelp;
    return 0;
  }
  if (command == "--version") {
    std::cout << "softik " << SOFTIK_VERSION << "\n";
    return 0;
  }
  if (command != "run") return usage_error("unknown command '" + command + "'");
  try {
    return run(std::vector<std::string>(args.begin() + 1, args.end()));
  } catch (const softik::Error& e) {
    std::cerr << "softik: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "softik: error: " << e.what() << "\n";
    return 1;
  }
}
