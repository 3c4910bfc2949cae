// softik::cuda::device_available (include/softik/backend.hpp) for builds with the CUDA backend.
#include <cuda_runtime.h>

#include <string>

#include "softik/backend.hpp"

namespace softik::cuda {

bool device_available(std::string* reason) {
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
