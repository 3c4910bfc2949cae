// Constraint-space products on the GPU (CUDA backend; built when SOFTIK_CUDA is on): the pieces
// of a device-resident inverse step (DESIGN.md sections 1 and 6) that involve the m constraint
// rows J (m x n_free, sparse, m <= ~100) and the dense blocks built from them:
//   W = J Y        with Y = K^-1 J^T (n_free x m), and delta_free = J dx_free   (apply)
//   J^T dense      the right-hand sides of Y = K^-1 J^T, or of Z = L^-1 J^T      (transpose_dense)
//   W = Z^T Z      with Z = L^-1 [J^T ...] after a Cholesky factor K = L L^T     (gram)
// Only the small dense results (W, delta) go back to the host (download).
//
// Layouts: J is CSR over the FREE DOFs (row_ptr m + 1 entries, col and val nnz entries, columns
// in [0, n_free); duplicates are summed). Dense matrices are column-major with leading dimension
// equal to their row count: Y is n_free x k (entry (i, j) at Y[i + j * n_free]), J Y is m x k,
// Z is n x k, Z^T Z is k x k.
//
// Every call runs on the default stream and is asynchronous like a kernel launch (a later
// cudaMemcpy, e.g. download(), sees the results); set_rows / set_values copy from the host
// synchronously. Device pointers point to device memory of the sizes stated; device code never
// throws and checks nothing (NaN in, NaN out). No call allocates except set_rows when the new
// rows need more room than the previous ones.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "softik/config.hpp"

namespace softik::cuda {

class DeviceConstraintRows {
 public:
  /// Creates the cuBLAS handle (no rows yet: m = n_free = 0). Throws softik::Error when no CUDA
  /// device is usable.
  DeviceConstraintRows();
  ~DeviceConstraintRows();
  DeviceConstraintRows(DeviceConstraintRows&&) noexcept;
  DeviceConstraintRows& operator=(DeviceConstraintRows&&) noexcept;
  DeviceConstraintRows(const DeviceConstraintRows&) = delete;
  DeviceConstraintRows& operator=(const DeviceConstraintRows&) = delete;

  /// Uploads the m x n_free CSR rows (pattern and values). Throws softik::Error for an
  /// inconsistent CSR (sizes, row_ptr not starting at 0 or decreasing, a column out of range).
  void set_rows(int m, int n_free, const std::vector<int>& row_ptr, const std::vector<int>& col,
                const std::vector<Real>& val);
  /// Replaces the values (nnz entries, same pattern).
  void set_values(const std::vector<Real>& val);
  /// The nnz values in device memory, for a kernel that refills them in place.
  Real* device_values();

  int num_rows() const;  ///< m
  int num_cols() const;  ///< n_free
  int nnz() const;

  /// out = J Y: d_Y is n_free x k, d_out is m x k (column-major). One warp per output entry,
  /// fixed summation order (deterministic).
  void apply(const Real* d_Y, int k, Real* d_out) const;
  /// d_JT (n_free x m, column-major) = J^T as a dense matrix: zeroed, then the entries scattered.
  void transpose_dense(Real* d_JT) const;
  /// d_G (k x k, column-major) = Z^T Z for d_Z n x k (column-major, leading dimension n), by
  /// cublasDsyrk on the lower triangle, mirrored to the upper one (G is exactly symmetric).
  /// Independent of the rows. n = 0 gives G = 0.
  void gram(const Real* d_Z, int n, int k, Real* d_G) const;

  /// Copies count Reals between host and device memory (synchronous).
  static void download(const Real* d_src, std::size_t count, std::vector<Real>& dst);  ///< dst resized
  static std::vector<Real> download(const Real* d_src, std::size_t count);
  static void upload(const std::vector<Real>& src, Real* d_dst);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace softik::cuda
