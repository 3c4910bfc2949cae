// Scenes: a YAML file describing one problem (mesh, formulation, materials, boundary conditions,
// loads, solver settings, outputs; and an inverse problem, dynamics and contact), read strictly,
// built into the library's objects and run: a static load ramp or arc-length continuation, an
// inverse problem (with contact), time integration (with contact, and with the inverse problem
// solved in the loop). The format is documented key by key in docs/scene-format.md.
//
//   Scene scene = parse_scene("examples/finger/finger.yaml");   // YAML -> Scene   (scene_parse.cpp)
//   BuiltScene built = build_scene(scene);                       // Scene -> Assembler, Loads (scene_build.cpp)
//   SceneRunResult r = run_scene(scene, {"out", &std::cerr});    // solve + outputs        (scene_run.cpp)
//
// The description and its reader: scene_description.hpp; building, running and the run's report:
// scene_run.hpp. This header brings both.
//
// Every error is a softik::Error. Errors about the scene's content start with
// "<scene path>:<line>:<column>: " (1-based) and say what was expected there: the allowed keys
// for an unknown key, the expected type for a wrong one, the missing key for an incomplete map.
// Lengths, forces and pressures are in the scene's units (SI recommended: m, N, Pa, kg/m^3).
#pragma once

#include "softik/scene_description.hpp"
#include "softik/scene_run.hpp"
