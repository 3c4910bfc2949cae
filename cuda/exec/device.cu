// Whether a CUDA device can be used: the device_available entry of the CUDA backend's table
// (cuda/device_backend.cu), behind softik::cuda::device_available (include/softik/backend.hpp).
#include <cuda_runtime.h>

#include <string>

#include "cuda/backend_entries.hpp"

namespace softik::cuda {

bool device_usable(std::string* reason) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (reason)
      *reason = status != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status)
                                      : std::string("no CUDA device present");
    cudaGetLastError();  // clear the sticky error so later calls are not confused
    return false;
  }
  return true;
}

}  // namespace softik::cuda
