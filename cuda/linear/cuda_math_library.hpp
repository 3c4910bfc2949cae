// cuBLAS, cuSOLVER and cuSPARSE, opened at run time (private to cuda/). Linked at build time,
// these libraries would make every process of a CUDA-enabled softik pay for them at start-up, GPU
// solver or not: the loader's relocations and cuBLASLt's start-up cost 0.10 s and 260 MiB of
// resident memory before main() (bench/RESULTS.md, "Start-up and memory of a CUDA-enabled build").
// So they are loaded with dlopen by the first GPU solver that needs them, like cuDSS
// (cudss_library.hpp). Every call goes through CudaMathApi, whose pointer types are taken from
// the headers with decltype, so the compiler checks each call against its declaration; the
// SOFTIK_CUBLAS/CUSOLVER/CUSPARSE_CHECK macros (cuda_library_check.hpp) route the calls they
// wrap through it.
#pragma once

// cusolverSp's functions are declared [[deprecated]] in CUDA 13; the table below names them for
// cuda/linear/cusolversp_solver.cu, which uses them on purpose. The macro empties
// CUSOLVER_DEPRECATED in cusolver_common.h, so it must come before any cuSOLVER header of the
// translation unit: include this header (or cuda_library_check.hpp) before them.
#ifndef DISABLE_CUSOLVER_DEPRECATED
#define DISABLE_CUSOLVER_DEPRECATED
#endif
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>
#include <cusparse.h>

#include <string>

namespace softik::cuda {

// Every function softik calls, by its exported name (the _v2 names of cublas_v2.h's macros: the
// unsuffixed cuBLAS symbols are the legacy API with other signatures).
#define SOFTIK_CUBLAS_FUNCTIONS(X)                                                                                \
  X(cublasCreate_v2)                                                                                              \
  X(cublasDestroy_v2)                                                                                             \
  X(cublasSetStream_v2) X(cublasGetStatusName) X(cublasGetStatusString) X(cublasDtrsm_v2_64) X(cublasDsyrk_v2_64) \
      X(cublasDgemv_v2_64)
#define SOFTIK_CUSOLVER_FUNCTIONS(X)                                                                         \
  X(cusolverDnCreate)                                                                                        \
  X(cusolverDnDestroy)                                                                                       \
  X(cusolverDnSetStream) X(cusolverDnCreateParams) X(cusolverDnDestroyParams) X(cusolverDnXpotrf_bufferSize) \
      X(cusolverDnXpotrf) X(cusolverDnXpotrs) X(cusolverDnDsytrf_bufferSize) X(cusolverDnDsytrf)             \
          X(cusolverDnXsytrs_bufferSize) X(cusolverDnXsytrs) X(cusolverSpCreate) X(cusolverSpDestroy)        \
              X(cusolverSpSetStream) X(cusolverSpCreateCsrcholInfo) X(cusolverSpDestroyCsrcholInfo)          \
                  X(cusolverSpXcsrcholAnalysis) X(cusolverSpDcsrcholBufferInfo) X(cusolverSpDcsrcholFactor)  \
                      X(cusolverSpDcsrcholZeroPivot) X(cusolverSpDcsrcholSolve) X(cusolverSpDcsrcholDiag)
#define SOFTIK_CUSPARSE_FUNCTIONS(X)                                                                        \
  X(cusparseCreate)                                                                                         \
  X(cusparseDestroy)                                                                                        \
  X(cusparseSetStream) X(cusparseGetErrorName) X(cusparseGetErrorString) X(cusparseCreateMatDescr)          \
      X(cusparseDestroyMatDescr) X(cusparseSetMatType) X(cusparseSetMatIndexBase) X(cusparseCreateBsr)      \
          X(cusparseDestroySpMat) X(cusparseCreateDnMat) X(cusparseDestroyDnMat) X(cusparseSpMM_bufferSize) \
              X(cusparseSpMM)

/// Pointers to those functions, with the exact types the headers declare. A call written with
/// cublas_v2.h's macro names (cublasDtrsm_64) reaches the member of the exported name.
struct CudaMathApi {
#define SOFTIK_CUDA_MATH_DECLARE(fn) decltype(&::fn) fn = nullptr;
  SOFTIK_CUBLAS_FUNCTIONS(SOFTIK_CUDA_MATH_DECLARE)
  SOFTIK_CUSOLVER_FUNCTIONS(SOFTIK_CUDA_MATH_DECLARE)
  SOFTIK_CUSPARSE_FUNCTIONS(SOFTIK_CUDA_MATH_DECLARE)
#undef SOFTIK_CUDA_MATH_DECLARE
};

/// The loaded API (the three libraries are opened once, on the first call), or a softik::Error
/// naming each file tried and why it failed, with the fix.
const CudaMathApi& cuda_math();

/// Whether the three libraries load, without throwing; `reason` gets the files loaded or why not.
bool cuda_math_available(std::string* reason = nullptr);

}  // namespace softik::cuda
