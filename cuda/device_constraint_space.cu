// DeviceConstraintRows: m sparse constraint rows over the free DOFs on the GPU, and the dense
// constraint-space products of a device-resident inverse step (J Y, J^T, Z^T Z).
#include <algorithm>
#include <climits>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_library_check.hpp"
#include "device_array.hpp"
#include "softik/cuda_backend.hpp"
#include "softik/cuda_constraint_space.hpp"

namespace softik::cuda {

namespace {

constexpr int kBlock = 256;
constexpr int kWarp = 32;

/// One warp per entry o = r + j * m of out = J Y: lanes stride over row r's entries, then a
/// shuffle tree sum (fixed order).
__global__ void apply_rows_kernel(int m, int n_free, long long total, const int* row_ptr, const int* col,
                                  const Real* val, const Real* Y, Real* out) {
  const long long o = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  if (o >= total) return;  // whole warps leave together
  const int lane = threadIdx.x % kWarp;
  const int r = static_cast<int>(o % m);
  const std::size_t j = static_cast<std::size_t>(o / m);
  const Real* y = Y + j * static_cast<std::size_t>(n_free);
  Real sum = 0;
  for (int p = row_ptr[r] + lane; p < row_ptr[r + 1]; p += kWarp) sum += val[p] * y[col[p]];
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) out[o] = sum;
}

/// One thread per stored entry p: JT(col[p], row[p]) += val[p] (JT zeroed before).
__global__ void scatter_transpose_kernel(int nnz, int n_free, const int* row, const int* col, const Real* val,
                                         Real* JT) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= nnz) return;
  atomicAdd(&JT[static_cast<std::size_t>(row[p]) * n_free + col[p]], val[p]);
}

/// Copies the lower triangle of the k x k column-major G onto its upper triangle.
__global__ void mirror_lower_kernel(int k, Real* G) {
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= static_cast<long long>(k) * k) return;
  const int i = static_cast<int>(e % k), j = static_cast<int>(e / k);
  if (i < j) G[e] = G[static_cast<std::size_t>(i) * k + j];
}

int blocks_for(long long count) { return static_cast<int>((count + kBlock - 1) / kBlock); }

}  // namespace

struct DeviceConstraintRows::Impl {
  CublasHandle cublas;
  int m = 0, n_free = 0, nnz = 0;
  DeviceArray<int> row_ptr, row, col;
  DeviceArray<Real> val;
};

DeviceConstraintRows::DeviceConstraintRows() : impl_(std::make_unique<Impl>()) {
  std::string reason;
  SOFTIK_CHECK(device_available(&reason), "DeviceConstraintRows needs a usable CUDA device: " << reason);
  SOFTIK_CUBLAS_CHECK(cublasCreate(impl_->cublas.replace()));
  SOFTIK_CUBLAS_CHECK(cublasSetStream(impl_->cublas.get(), cudaStreamPerThread));  // the calling thread's stream
  impl_->row_ptr = DeviceArray<int>(1);
  SOFTIK_CUDA_CHECK(cudaMemset(impl_->row_ptr.get(), 0, sizeof(int)));
}

DeviceConstraintRows::~DeviceConstraintRows() = default;
DeviceConstraintRows::DeviceConstraintRows(DeviceConstraintRows&&) noexcept = default;
DeviceConstraintRows& DeviceConstraintRows::operator=(DeviceConstraintRows&&) noexcept = default;

int DeviceConstraintRows::num_rows() const { return impl_->m; }
int DeviceConstraintRows::num_cols() const { return impl_->n_free; }
int DeviceConstraintRows::nnz() const { return impl_->nnz; }
Real* DeviceConstraintRows::device_values() { return impl_->val.get(); }

void DeviceConstraintRows::set_rows(int m, int n_free, const std::vector<int>& row_ptr, const std::vector<int>& col,
                                    const std::vector<Real>& val) {
  SOFTIK_CHECK(m >= 0 && n_free >= 0, "DeviceConstraintRows::set_rows: m = " << m << " and n_free = " << n_free
                                                                             << " must not be negative");
  SOFTIK_CHECK(row_ptr.size() == static_cast<std::size_t>(m) + 1,
               "DeviceConstraintRows::set_rows: row_ptr has " << row_ptr.size() << " entries, expected m + 1 = " << m + 1);
  SOFTIK_CHECK(row_ptr.front() == 0, "DeviceConstraintRows::set_rows: row_ptr[0] is " << row_ptr.front() << ", not 0");
  for (int r = 0; r < m; ++r)
    SOFTIK_CHECK(row_ptr[static_cast<std::size_t>(r)] <= row_ptr[static_cast<std::size_t>(r) + 1],
                 "DeviceConstraintRows::set_rows: row_ptr decreases at row " << r);
  SOFTIK_CHECK(row_ptr.back() < INT_MAX / 2, "DeviceConstraintRows::set_rows: " << row_ptr.back() << " entries exceed the GPU index range");
  const std::size_t nnz = static_cast<std::size_t>(row_ptr.back());
  SOFTIK_CHECK(col.size() == nnz && val.size() == nnz,
               "DeviceConstraintRows::set_rows: row_ptr[m] = " << nnz << " but col has " << col.size()
                                                               << " and val " << val.size() << " entries");
  for (std::size_t p = 0; p < nnz; ++p)
    SOFTIK_CHECK(col[p] >= 0 && col[p] < n_free, "DeviceConstraintRows::set_rows: entry " << p << " has column "
                                                                                          << col[p] << ", outside [0, "
                                                                                          << n_free << ")");
  std::vector<int> row(nnz);
  for (int r = 0; r < m; ++r)
    std::fill(row.begin() + row_ptr[static_cast<std::size_t>(r)], row.begin() + row_ptr[static_cast<std::size_t>(r) + 1], r);

  Impl& p = *impl_;
  p.m = p.n_free = p.nnz = 0;  // empty until the upload has succeeded
  if (p.row_ptr.size() < row_ptr.size()) p.row_ptr = DeviceArray<int>(row_ptr.size());
  if (p.col.size() < nnz) {
    p.row = DeviceArray<int>(nnz);
    p.col = DeviceArray<int>(nnz);
    p.val = DeviceArray<Real>(nnz);
  }
  SOFTIK_CUDA_CHECK(cudaMemcpy(p.row_ptr.get(), row_ptr.data(), row_ptr.size() * sizeof(int), cudaMemcpyHostToDevice));
  if (nnz > 0) {
    SOFTIK_CUDA_CHECK(cudaMemcpy(p.row.get(), row.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    SOFTIK_CUDA_CHECK(cudaMemcpy(p.col.get(), col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    SOFTIK_CUDA_CHECK(cudaMemcpy(p.val.get(), val.data(), nnz * sizeof(Real), cudaMemcpyHostToDevice));
  }
  p.m = m;
  p.n_free = n_free;
  p.nnz = static_cast<int>(nnz);
}

void DeviceConstraintRows::set_values(const std::vector<Real>& val) {
  Impl& p = *impl_;
  SOFTIK_CHECK(val.size() == static_cast<std::size_t>(p.nnz),
               "DeviceConstraintRows::set_values: " << val.size() << " values, the rows hold " << p.nnz);
  if (val.empty()) return;
  SOFTIK_CUDA_CHECK(cudaMemcpy(p.val.get(), val.data(), val.size() * sizeof(Real), cudaMemcpyHostToDevice));
}

void DeviceConstraintRows::apply(const Real* d_Y, int k, Real* d_out) const {
  const Impl& p = *impl_;
  SOFTIK_CHECK(k >= 0, "DeviceConstraintRows::apply: k = " << k << " columns");
  const long long total = static_cast<long long>(p.m) * k;
  if (total == 0) return;
  SOFTIK_CHECK(d_Y != nullptr && d_out != nullptr, "DeviceConstraintRows::apply: a device pointer is null");
  SOFTIK_CHECK(total <= static_cast<long long>(INT_MAX) / kWarp,
               "DeviceConstraintRows::apply: m x k = " << total << " outputs exceed the launch range");
  apply_rows_kernel<<<blocks_for(total * kWarp), kBlock>>>(p.m, p.n_free, total, p.row_ptr.get(), p.col.get(),
                                                           p.val.get(), d_Y, d_out);
  SOFTIK_CUDA_CHECK(cudaGetLastError());
}

void DeviceConstraintRows::transpose_dense(Real* d_JT) const {
  const Impl& p = *impl_;
  const std::size_t entries = static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.n_free);
  if (entries == 0) return;
  SOFTIK_CHECK(d_JT != nullptr, "DeviceConstraintRows::transpose_dense: the device pointer is null");
  SOFTIK_CUDA_CHECK(cudaMemsetAsync(d_JT, 0, entries * sizeof(Real)));
  if (p.nnz == 0) return;
  scatter_transpose_kernel<<<blocks_for(p.nnz), kBlock>>>(p.nnz, p.n_free, p.row.get(), p.col.get(), p.val.get(),
                                                          d_JT);
  SOFTIK_CUDA_CHECK(cudaGetLastError());
}

void DeviceConstraintRows::gram(const Real* d_Z, int n, int k, Real* d_G) const {
  SOFTIK_CHECK(n >= 0 && k >= 0, "DeviceConstraintRows::gram: Z is " << n << " x " << k);
  if (k == 0) return;
  SOFTIK_CHECK(d_G != nullptr, "DeviceConstraintRows::gram: the device pointer of G is null");
  const std::size_t entries = static_cast<std::size_t>(k) * static_cast<std::size_t>(k);
  if (n == 0) {
    SOFTIK_CUDA_CHECK(cudaMemsetAsync(d_G, 0, entries * sizeof(Real)));
    return;
  }
  SOFTIK_CHECK(d_Z != nullptr, "DeviceConstraintRows::gram: the device pointer of Z is null");
  const Real one = 1, zero = 0;
  // C (k x k) = A^T A with A = Z (n x k, lda = n): syrk's "k" argument is n, trans = T.
  SOFTIK_CUBLAS_CHECK(
      cublasDsyrk(impl_->cublas.get(), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, k, n, &one, d_Z, n, &zero, d_G, k));
  mirror_lower_kernel<<<blocks_for(static_cast<long long>(entries)), kBlock>>>(k, d_G);
  SOFTIK_CUDA_CHECK(cudaGetLastError());
}

void DeviceConstraintRows::download(const Real* d_src, std::size_t count, std::vector<Real>& dst) {
  dst.resize(count);
  if (count == 0) return;
  SOFTIK_CHECK(d_src != nullptr, "DeviceConstraintRows::download: the device pointer is null");
  SOFTIK_CUDA_CHECK(cudaMemcpy(dst.data(), d_src, count * sizeof(Real), cudaMemcpyDeviceToHost));
}

std::vector<Real> DeviceConstraintRows::download(const Real* d_src, std::size_t count) {
  std::vector<Real> dst;
  download(d_src, count, dst);
  return dst;
}

void DeviceConstraintRows::upload(const std::vector<Real>& src, Real* d_dst) {
  if (src.empty()) return;
  SOFTIK_CHECK(d_dst != nullptr, "DeviceConstraintRows::upload: the device pointer is null");
  SOFTIK_CUDA_CHECK(cudaMemcpy(d_dst, src.data(), src.size() * sizeof(Real), cudaMemcpyHostToDevice));
}

}  // namespace softik::cuda
