// Scene building with the model's DeviceAssembly made by the caller (the batch runner's lockstep
// designs: host/batch/batch_lockstep.cpp); build_scene (include/softik/scene_run.hpp) otherwise.
#pragma once

#include "host/assembly/device_assembly.hpp"
#include "softik/scene_run.hpp"

namespace softik {

/// build_scene, with the Assembler's DeviceAssembly from `device` (AssemblerWithDevice).
BuiltScene build_scene_with_device(const Scene& scene, const DeviceAssemblyFactory& device);

}  // namespace softik
