// SOFTIK_CUDA_CHECK wraps every CUDA runtime call: a failure becomes a
// softik::Error naming the call, the file/line and CUDA's message.
#pragma once

#include <cuda_runtime.h>

#include "softik/error.hpp"

#define SOFTIK_CUDA_CHECK(call)                                                                          \
  do {                                                                                                   \
    const cudaError_t softik_cuda_status_ = (call);                                                      \
    SOFTIK_CHECK_KIND(softik_cuda_status_ == cudaSuccess, ::softik::ErrorKind::Internal,                 \
                      "CUDA call " #call " failed: " << cudaGetErrorName(softik_cuda_status_) << " ("    \
                                                     << cudaGetErrorString(softik_cuda_status_) << ")"); \
  } while (0)
