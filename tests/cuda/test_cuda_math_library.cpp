// cuBLAS, cuSOLVER and cuSPARSE are opened on first use (cuda/linear/cuda_math_library.hpp), not
// linked: a process that never asks for a GPU solver does not map them. Runs without a device
// (dlopen and dlsym need none).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cuda/linear/cuda_math_library.hpp"

namespace softik {
namespace {

/// Whether a file whose name contains `name` is mapped into this process (/proc/self/maps).
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos) return true;
  return false;
}

// Taken while the test program starts, before any test can have opened them.
const bool cublas_mapped_at_start = mapped("libcublas");
const bool cusolver_mapped_at_start = mapped("libcusolver");
const bool cusparse_mapped_at_start = mapped("libcusparse");

TEST(CudaMathLibraries, AreNotLoadedWithTheProgram) {
  EXPECT_FALSE(cublas_mapped_at_start) << "libcublas is a load-time dependency again: link it no more";
  EXPECT_FALSE(cusolver_mapped_at_start) << "libcusolver is a load-time dependency again: link it no more";
  EXPECT_FALSE(cusparse_mapped_at_start) << "libcusparse is a load-time dependency again: link it no more";
}

TEST(CudaMathLibraries, OpenOnFirstUseWithEveryFunction) {
  std::string reason;
  ASSERT_TRUE(cuda::cuda_math_available(&reason)) << reason;
  EXPECT_NE(reason.find("libcublas.so."), std::string::npos) << reason;
  EXPECT_NE(reason.find("libcusolver.so."), std::string::npos) << reason;
  EXPECT_NE(reason.find("libcusparse.so."), std::string::npos) << reason;
  EXPECT_TRUE(mapped("libcublas") && mapped("libcusolver") && mapped("libcusparse"));
  const cuda::CudaMathApi& api = cuda::cuda_math();
  // The status texts need no device: the functions resolved are the ones the header declares.
  EXPECT_STREQ(api.cublasGetStatusName(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
  EXPECT_STREQ(api.cusparseGetErrorName(CUSPARSE_STATUS_INVALID_VALUE), "CUSPARSE_STATUS_INVALID_VALUE");
}

}  // namespace
}  // namespace softik
