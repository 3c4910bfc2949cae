// NVIDIA cuDSS, opened at run time (private to cuda/; compiled only with SOFTIK_HAVE_CUDSS).
// libcudss.so.1 (160 MB, part of no CUDA toolkit) is loaded with dlopen on first use, so that
// binaries built with cuDSS also start where it is missing. Every call goes through CudssApi,
// whose pointer types are taken from cudss.h with decltype (the compiler checks each call
// against the header), wrapped in SOFTIK_CUDSS_CHECK.
#pragma once

#include <cudss.h>

#include <string>

#include "softik/error.hpp"

namespace softik::cuda {

// Every cuDSS function softik calls.
#define SOFTIK_CUDSS_FUNCTIONS(X)                                                                        \
  X(cudssGetProperty)                                                                                    \
  X(cudssCreate)                                                                                         \
  X(cudssDestroy)                                                                                        \
  X(cudssSetStream) X(cudssConfigCreate) X(cudssConfigDestroy) X(cudssConfigSet) X(cudssDataCreate)      \
      X(cudssDataDestroy) X(cudssDataGet) X(cudssDataSet) X(cudssMatrixCreateCsr) X(cudssMatrixCreateDn) \
          X(cudssMatrixDestroy) X(cudssMatrixSetValues) X(cudssExecute)

/// Pointers to the cuDSS functions, with the exact types cudss.h declares.
struct CudssApi {
#define SOFTIK_CUDSS_DECLARE(fn) decltype(&::fn) fn = nullptr;
  SOFTIK_CUDSS_FUNCTIONS(SOFTIK_CUDSS_DECLARE)
#undef SOFTIK_CUDSS_DECLARE
};

/// The loaded API, or an Error saying what was tried and how to get the library.
const CudssApi& require_cudss();

/// cuDSS's status as text (with a hint for the memory failure).
const char* cudss_status_name(cudssStatus_t status);

}  // namespace softik::cuda

/// Every cuDSS call: a failure becomes a softik::Error naming the call and cuDSS's status.
#define SOFTIK_CUDSS_CHECK(call)                                                                                 \
  do {                                                                                                           \
    const cudssStatus_t softik_cudss_status_ = (call);                                                           \
    SOFTIK_CHECK_KIND(softik_cudss_status_ == CUDSS_STATUS_SUCCESS, ::softik::ErrorKind::Internal,               \
                      "cuDSS call " #call " failed: " << ::softik::cuda::cudss_status_name(softik_cudss_status_) \
                                                      << " (status " << static_cast<int>(softik_cudss_status_)   \
                                                      << ")");                                                   \
  } while (0)
