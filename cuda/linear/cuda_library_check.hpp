// Status checks and RAII owners for the CUDA math libraries (every CUDA,
// cuBLAS, cuSOLVER and cuSPARSE call is wrapped). The three library macros call through the
// run-time loaded API (cuda_math_library.hpp: SOFTIK_CUBLAS_CHECK(cublasDtrsm(...)) calls
// cuda_math().cublasDtrsm(...)), so every library call is written inside one of them. Like
// SOFTIK_CUDA_CHECK, a failure becomes a softik::Error naming the call, the file/line and the
// library's status:
//
//   SOFTIK_CUBLAS_CHECK(cublasDtrsm(...));        // cublasStatus_t
//   SOFTIK_CUSOLVER_CHECK(cusolverDnXpotrf(...)); // cusolverStatus_t
//   SOFTIK_CUSPARSE_CHECK(cusparseSpMM(...));     // cusparseStatus_t
//
// LibraryHandle<Handle, Destroy> owns one opaque library object (a handle, a descriptor) and
// calls Destroy on it in its destructor, so that an exception on the host releases it:
//
//   CublasHandle blas;
//   SOFTIK_CUBLAS_CHECK(cublasCreate(blas.replace()));
//   SOFTIK_CUBLAS_CHECK(cublasDtrsm(blas.get(), ...));
//
// Private to cuda/; shared by every GPU solver (other libraries, such as cuDSS, add their own
// macro next to their code and may reuse LibraryHandle).
#pragma once

#include "cuda/exec/cuda_check.hpp"
#include "cuda/exec/unique_handle.hpp"
#include "cuda/linear/cuda_math_library.hpp"

namespace softik::cuda {

/// The enumerator name of a cuSOLVER status (cuSOLVER has no status-string function).
inline const char* cusolver_status_name(cusolverStatus_t status) {
  switch (status) {
    case CUSOLVER_STATUS_SUCCESS:
      return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED:
      return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED:
      return "CUSOLVER_STATUS_ALLOC_FAILED (out of device memory)";
    case CUSOLVER_STATUS_INVALID_VALUE:
      return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH:
      return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_MAPPING_ERROR:
      return "CUSOLVER_STATUS_MAPPING_ERROR";
    case CUSOLVER_STATUS_EXECUTION_FAILED:
      return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR:
      return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case CUSOLVER_STATUS_ZERO_PIVOT:
      return "CUSOLVER_STATUS_ZERO_PIVOT";
    case CUSOLVER_STATUS_INVALID_LICENSE:
      return "CUSOLVER_STATUS_INVALID_LICENSE";
    case CUSOLVER_STATUS_INVALID_WORKSPACE:
      return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default:
      return "cuSOLVER status (see cusolver_common.h)";
  }
}

}  // namespace softik::cuda

// The check of a cuBLAS or cuSPARSE call made through cuda_math(): its status, of `status_type`,
// must be `success`; the error names the library, the call as written (`text`) and the status by
// the library's `name_of` and `string_of` functions.
#define SOFTIK_CUDA_MATH_CHECK_(status_type, success, library, name_of, string_of, text, call)                   \
  do {                                                                                                           \
    const status_type softik_math_status_ = (::softik::cuda::cuda_math().call);                                  \
    SOFTIK_CHECK_KIND(                                                                                           \
        softik_math_status_ == success, ::softik::ErrorKind::Internal,                                           \
        library " call " text " failed: " << ::softik::cuda::cuda_math().name_of(softik_math_status_) << " ("    \
                                          << ::softik::cuda::cuda_math().string_of(softik_math_status_) << ")"); \
  } while (0)

#define SOFTIK_CUBLAS_CHECK(call)                                                                                      \
  SOFTIK_CUDA_MATH_CHECK_(cublasStatus_t, CUBLAS_STATUS_SUCCESS, "cuBLAS", cublasGetStatusName, cublasGetStatusString, \
                          #call, call)

#define SOFTIK_CUSOLVER_CHECK(call)                                                                             \
  do {                                                                                                          \
    const cusolverStatus_t softik_cusolver_status_ = (::softik::cuda::cuda_math().call);                        \
    SOFTIK_CHECK_KIND(                                                                                          \
        softik_cusolver_status_ == CUSOLVER_STATUS_SUCCESS, ::softik::ErrorKind::Internal,                      \
        "cuSOLVER call " #call " failed: " << ::softik::cuda::cusolver_status_name(softik_cusolver_status_)     \
                                           << " (status " << static_cast<int>(softik_cusolver_status_) << ")"); \
  } while (0)

#define SOFTIK_CUSPARSE_CHECK(call)                                                                    \
  SOFTIK_CUDA_MATH_CHECK_(cusparseStatus_t, CUSPARSE_STATUS_SUCCESS, "cuSPARSE", cusparseGetErrorName, \
                          cusparseGetErrorString, #call, call)

namespace softik::cuda {

/// Owns one opaque library object of type Handle (a pointer typedef such as cublasHandle_t)
/// and releases it with Destroy(handle) (its status is ignored: a destructor cannot throw).
/// Movable, not copyable.
template <class Handle, auto Destroy>
using LibraryHandle = UniqueHandle<Handle, Destroy>;

// The destroy functions of the owners, through the loaded API (only a created object, which the
// loaded API made, is ever destroyed).
#define SOFTIK_CUDA_MATH_DESTROYER(name, fn, Handle) \
  inline auto name(Handle handle) { return cuda_math().fn(handle); }
SOFTIK_CUDA_MATH_DESTROYER(destroy_cublas, cublasDestroy_v2, cublasHandle_t)
SOFTIK_CUDA_MATH_DESTROYER(destroy_cusolver_dn, cusolverDnDestroy, cusolverDnHandle_t)
SOFTIK_CUDA_MATH_DESTROYER(destroy_cusolver_dn_params, cusolverDnDestroyParams, cusolverDnParams_t)
SOFTIK_CUDA_MATH_DESTROYER(destroy_cusparse, cusparseDestroy, cusparseHandle_t)
SOFTIK_CUDA_MATH_DESTROYER(destroy_cusparse_spmat, cusparseDestroySpMat, cusparseSpMatDescr_t)
SOFTIK_CUDA_MATH_DESTROYER(destroy_cusparse_dnmat, cusparseDestroyDnMat, cusparseDnMatDescr_t)
SOFTIK_CUDA_MATH_DESTROYER(destroy_cusparse_mat_descr, cusparseDestroyMatDescr, cusparseMatDescr_t)
SOFTIK_CUDA_MATH_DESTROYER(destroy_cusolver_sp, cusolverSpDestroy, cusolverSpHandle_t)
SOFTIK_CUDA_MATH_DESTROYER(destroy_csrchol_info, cusolverSpDestroyCsrcholInfo, csrcholInfo_t)
#undef SOFTIK_CUDA_MATH_DESTROYER

using CublasHandle = LibraryHandle<cublasHandle_t, &destroy_cublas>;
using CusolverDnHandle = LibraryHandle<cusolverDnHandle_t, &destroy_cusolver_dn>;
using CusolverDnParams = LibraryHandle<cusolverDnParams_t, &destroy_cusolver_dn_params>;
using CusparseHandle = LibraryHandle<cusparseHandle_t, &destroy_cusparse>;
using CusparseSpMat = LibraryHandle<cusparseSpMatDescr_t, &destroy_cusparse_spmat>;
using CusparseDnMat = LibraryHandle<cusparseDnMatDescr_t, &destroy_cusparse_dnmat>;
using CusparseMatDescr = LibraryHandle<cusparseMatDescr_t, &destroy_cusparse_mat_descr>;
using CusolverSpHandle = LibraryHandle<cusolverSpHandle_t, &destroy_cusolver_sp>;
using CsrcholInfo = LibraryHandle<csrcholInfo_t, &destroy_csrchol_info>;

}  // namespace softik::cuda
