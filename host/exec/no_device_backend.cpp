// device_backend() of a build without the CUDA backend (CMakeLists.txt compiles this file, or
// cuda/device_backend.cu, never both).
#include "host/exec/device_backend.hpp"

namespace softik {

const DeviceBackend* device_backend() { return nullptr; }

}  // namespace softik
