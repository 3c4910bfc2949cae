// The kernels of the block-Jacobi PCG (cuda/linear/cuda_pcg_solver.cu, the only file that includes
// this one): the scatter of CSR values into 3 x 3 BSR blocks, the inversion of the diagonal
// blocks, the preconditioner, deterministic column-wise dot products, the per-column CG
// updates, and a BSR 3x3 product for where cuSPARSE refuses the operands.
// Vectors are n_pad x nrhs column-major blocks with leading dimension ld (= n_pad = 3 mb).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "softik/config.hpp"

namespace softik::cuda {

namespace {

constexpr unsigned kBlock = 256;     ///< threads per block of the one-thread-per-item kernels
constexpr unsigned kDotBlock = 256;  ///< threads of the dot-product kernels (a power of two)

/// bsr_val[slot[k]] = values[k]: the scalar CSR values into their 3 x 3 blocks.
__global__ void scatter_to_bsr(int nnz, const int* slot, const Real* values, Real* bsr_val) {
  const int k = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (k < nnz) bsr_val[slot[k]] = values[k];
}

/// Block row I: inv[9 I ..] = K_II^-1 (row-major) through the Cholesky factor of the
/// symmetrised block, S = (K_II + K_II^T) / 2 = L L^T, S^-1 = L^-T L^-1. Records the smallest
/// block whose S is not positive definite in *first_bad (which starts at mb), and the smallest
/// and largest diagonal entries of K over the block's real (unpadded) rows.
__global__ void invert_diagonal_blocks(int mb, int n, const int* diag_block, const Real* bsr_val, Real* inv,
                                       Real* block_min, Real* block_max, int* first_bad) {
  const int I = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (I >= mb) return;
  const Real* a = bsr_val + 9 * static_cast<std::size_t>(diag_block[I]);
  Real lo = a[0], hi = a[0];
  for (int i = 1; i < 3 && 3 * I + i < n; ++i) {
    lo = fmin(lo, a[4 * i]);
    hi = fmax(hi, a[4 * i]);
  }
  block_min[I] = lo;
  block_max[I] = hi;
  const Real s00 = a[0], s11 = a[4], s22 = a[8];
  const Real s10 = 0.5 * (a[3] + a[1]), s20 = 0.5 * (a[6] + a[2]), s21 = 0.5 * (a[7] + a[5]);
  Real* m = inv + 9 * static_cast<std::size_t>(I);
  if (!(s00 > 0)) {
    atomicMin(first_bad, I);
    return;
  }
  const Real l00 = sqrt(s00), l10 = s10 / l00, l20 = s20 / l00;
  const Real d1 = s11 - l10 * l10;
  if (!(d1 > 0)) {
    atomicMin(first_bad, I);
    return;
  }
  const Real l11 = sqrt(d1), l21 = (s21 - l20 * l10) / l11;
  const Real d2 = s22 - l20 * l20 - l21 * l21;
  if (!(d2 > 0)) {
    atomicMin(first_bad, I);
    return;
  }
  const Real l22 = sqrt(d2);
  // N = L^-1 (lower triangular), then S^-1 = N^T N: (S^-1)_ik = sum_{j >= max(i,k)} N_ji N_jk.
  const Real n00 = 1 / l00, n11 = 1 / l11, n22 = 1 / l22;
  const Real n10 = -l10 * n00 / l11;
  const Real n21 = -l21 * n11 / l22;
  const Real n20 = -(l20 * n00 + l21 * n10) / l22;
  const Real i00 = n00 * n00 + n10 * n10 + n20 * n20;
  const Real i01 = n10 * n11 + n20 * n21;
  const Real i02 = n20 * n22;
  const Real i11 = n11 * n11 + n21 * n21;
  const Real i12 = n21 * n22;
  const Real i22 = n22 * n22;
  m[0] = i00, m[1] = i01, m[2] = i02;
  m[3] = i01, m[4] = i11, m[5] = i12;
  m[6] = i02, m[7] = i12, m[8] = i22;
}

/// out[0] = min(block_min), out[1] = max(block_max): one block of kBlock threads.
__global__ void reduce_min_max(int count, const Real* block_min, const Real* block_max, Real* out) {
  __shared__ Real s_min[kBlock], s_max[kBlock];
  const unsigned t = threadIdx.x;
  Real lo = block_min[0], hi = block_max[0];
  for (int i = static_cast<int>(t); i < count; i += static_cast<int>(blockDim.x)) {
    lo = fmin(lo, block_min[i]);
    hi = fmax(hi, block_max[i]);
  }
  s_min[t] = lo;
  s_max[t] = hi;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) {
      s_min[t] = fmin(s_min[t], s_min[t + s]);
      s_max[t] = fmax(s_max[t], s_max[t + s]);
    }
    __syncthreads();
  }
  if (t == 0) {
    out[0] = s_min[0];
    out[1] = s_max[0];
  }
}

/// Z = M^-1 R: one thread per (block row I, column j); columns have leading dimension ld.
__global__ void apply_block_jacobi(int mb, int nrhs, int ld, const Real* inv, const Real* R, Real* Z) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<std::size_t>(mb) * static_cast<std::size_t>(nrhs)) return;
  const std::size_t I = t % static_cast<std::size_t>(mb), j = t / static_cast<std::size_t>(mb);
  const Real* m = inv + 9 * I;
  const std::size_t offset = j * static_cast<std::size_t>(ld) + 3 * I;
  const Real r0 = R[offset], r1 = R[offset + 1], r2 = R[offset + 2];
  Z[offset] = m[0] * r0 + m[1] * r1 + m[2] * r2;
  Z[offset + 1] = m[3] * r0 + m[4] * r1 + m[5] * r2;
  Z[offset + 2] = m[6] * r0 + m[7] * r1 + m[8] * r2;
}

/// Y = alpha K X + beta Y for BSR K (row-major 3 x 3 blocks): one thread per (block row I,
/// column j). Used only where cuSPARSE refuses the BSR product for these operands (see
/// CudaPcgSolver::product()); beta = 0 does not read Y.
__global__ void bsr3_multiply(int mb, int nrhs, int ld, const int* row_ptr, const int* col, const Real* val, Real alpha,
                              const Real* X, Real beta, Real* Y) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<std::size_t>(mb) * static_cast<std::size_t>(nrhs)) return;
  const std::size_t I = t % static_cast<std::size_t>(mb), j = t / static_cast<std::size_t>(mb);
  const Real* x = X + j * static_cast<std::size_t>(ld);
  Real y0 = 0, y1 = 0, y2 = 0;
  for (int k = row_ptr[I]; k < row_ptr[I + 1]; ++k) {
    const Real* a = val + 9 * static_cast<std::size_t>(k);
    const Real* xJ = x + 3 * static_cast<std::size_t>(col[k]);
    y0 += a[0] * xJ[0] + a[1] * xJ[1] + a[2] * xJ[2];
    y1 += a[3] * xJ[0] + a[4] * xJ[1] + a[5] * xJ[2];
    y2 += a[6] * xJ[0] + a[7] * xJ[1] + a[8] * xJ[2];
  }
  Real* y = Y + j * static_cast<std::size_t>(ld) + 3 * I;
  y[0] = alpha * y0 + (beta != 0 ? beta * y[0] : 0);
  y[1] = alpha * y1 + (beta != 0 ? beta * y[1] : 0);
  y[2] = alpha * y2 + (beta != 0 ? beta * y[2] : 0);
}

/// Tree sums of a pair of per-thread values over the block (blockDim.x a power of two, at most
/// kDotBlock): on return s_ab[0] and s_ac[0] hold the block's totals.
__device__ inline void block_sum_pair(Real* s_ab, Real* s_ac, unsigned t, Real ab, Real ac) {
  s_ab[t] = ab;
  s_ac[t] = ac;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) {
      s_ab[t] += s_ab[t + s];
      s_ac[t] += s_ac[t + s];
    }
    __syncthreads();
  }
}

/// First stage of the column dot products A_j.B_j (and A_j.C_j when C is not null): grid
/// (parts, nrhs); block (p, j) sums a fixed strided subset of rows, so results are
/// deterministic. partial[j * parts + p] (A.B) and partial[(nrhs + j) * parts + p] (A.C).
__global__ void column_dots_partial(int rows, int ld, const Real* A, const Real* B, const Real* C, Real* partial) {
  __shared__ Real s_ab[kDotBlock], s_ac[kDotBlock];
  const unsigned t = threadIdx.x;
  const std::size_t j = blockIdx.y, parts = gridDim.x, nrhs = gridDim.y;
  const Real* a = A + j * static_cast<std::size_t>(ld);
  const Real* b = B + j * static_cast<std::size_t>(ld);
  const Real* c = C ? C + j * static_cast<std::size_t>(ld) : nullptr;
  Real ab = 0, ac = 0;
  const int stride = static_cast<int>(gridDim.x * blockDim.x);
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + t); i < rows; i += stride) {
    ab += a[i] * b[i];
    if (c) ac += a[i] * c[i];
  }
  block_sum_pair(s_ab, s_ac, t, ab, ac);
  if (t == 0) {
    partial[j * parts + blockIdx.x] = s_ab[0];
    if (c) partial[(nrhs + j) * parts + blockIdx.x] = s_ac[0];
  }
}

/// Second stage: block j sums its `parts` partial sums into out_ab[j] (and out_ac[j]).
__global__ void column_dots_finish(int parts, const Real* partial, Real* out_ab, Real* out_ac) {
  __shared__ Real s_ab[kDotBlock], s_ac[kDotBlock];
  const unsigned t = threadIdx.x;
  const std::size_t j = blockIdx.x, nrhs = gridDim.x;
  Real ab = 0, ac = 0;
  for (int p = static_cast<int>(t); p < parts; p += static_cast<int>(blockDim.x)) {
    ab += partial[j * static_cast<std::size_t>(parts) + static_cast<std::size_t>(p)];
    if (out_ac) ac += partial[(nrhs + j) * static_cast<std::size_t>(parts) + static_cast<std::size_t>(p)];
  }
  block_sum_pair(s_ab, s_ac, t, ab, ac);
  if (t == 0) {
    out_ab[j] = s_ab[0];
    if (out_ac) out_ac[j] = s_ac[0];
  }
}

/// Active columns: alpha = rz / pq (0 unless pq > 0), x += alpha p, r -= alpha q.
__global__ void update_x_r(int rows, int nrhs, const int* active, const Real* rz, const Real* pq, const Real* P,
                           const Real* Q, Real* X, Real* R) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<std::size_t>(rows) * static_cast<std::size_t>(nrhs)) return;
  const std::size_t j = t / static_cast<std::size_t>(rows);
  if (!active[j]) return;
  const Real alpha = pq[j] > 0 ? rz[j] / pq[j] : 0;
  X[t] += alpha * P[t];
  R[t] -= alpha * Q[t];
}

/// Active columns: beta = rz_new / rz_old, p = z + beta p.
__global__ void update_p(int rows, int nrhs, const int* active, const Real* rz_new, const Real* rz_old, const Real* Z,
                         Real* P) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<std::size_t>(rows) * static_cast<std::size_t>(nrhs)) return;
  const std::size_t j = t / static_cast<std::size_t>(rows);
  if (!active[j]) return;
  const Real beta = rz_old[j] > 0 ? rz_new[j] / rz_old[j] : 0;
  P[t] = Z[t] + beta * P[t];
}

}  // namespace

}  // namespace softik::cuda
