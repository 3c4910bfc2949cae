#include "softik/backend.hpp"

#include <iterator>

#include "host/exec/device_backend.hpp"
#include "softik/error.hpp"

namespace softik {

const char* backend_name(Backend backend) {
  constexpr const char* kNames[] = {"cpu", "cuda"};  // in Backend's order
  const int k = static_cast<int>(backend);
  if (k >= 0 && k < int(std::size(kNames))) return kNames[k];
  SOFTIK_CHECK(false, "unknown Backend " << k);
}

Backend parse_backend(const std::string& name) {
  if (name == "cpu") return Backend::Cpu;
  if (name == "cuda") return Backend::Cuda;
  SOFTIK_CHECK(false, "unknown backend '" << name << "': use cpu or cuda");
}

bool cuda_backend_built() { return device_backend() != nullptr; }

bool cuda::device_available(std::string* reason) {
  if (const DeviceBackend* device = device_backend()) return device->device_available(reason);
  if (reason) *reason = "softik was built without the CUDA backend";
  return false;
}

void require_backend(Backend backend) {
  if (backend == Backend::Cpu) return;
  SOFTIK_CHECK_KIND(cuda_backend_built(), ErrorKind::Unsupported,
                    "the cuda backend was requested, but softik was built without it: install the CUDA toolkit (nvcc) "
                    "and rebuild with -DSOFTIK_CUDA=ON, or use the cpu backend (--backend cpu)");
  std::string reason;
  SOFTIK_CHECK_KIND(cuda::device_available(&reason), ErrorKind::Unsupported,
                    "the cuda backend needs a usable CUDA device: " << reason
                                                                    << ". Run on a machine with an NVIDIA GPU, or "
                                                                       "use the cpu backend (--backend cpu)");
}

}  // namespace softik
