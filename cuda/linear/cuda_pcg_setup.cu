// Block PCG's setup behind LinearSolver (see cuda_pcg_solver.hpp): analyze() regroups the scalar
// CSR pattern of K into BSR with 3 x 3 blocks (the structure, the CSR -> BSR slot map, the padded
// rows' identity) and uploads it; factorize() scatters K's values into the blocks and inverts the
// 3 x 3 diagonal blocks, M^-1 = blockdiag(K_II)^-1: the block-Jacobi preconditioner. The
// iteration is in cuda_pcg_solver.cu; the state both share is cuda_pcg_solver_impl.hpp's.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cuda/backend_entries.hpp"
#include "cuda/exec/device_array.hpp"
#include "cuda/linear/block_pcg_kernels.cuh"
#include "cuda/linear/cuda_library_check.hpp"
#include "cuda/linear/cuda_pcg_solver.hpp"
#include "cuda/linear/cuda_pcg_solver_impl.hpp"
#include "cuda/linear/gpu_solver_support.hpp"

namespace softik::cuda {

namespace {

/// BSR structure: block row I gathers the block columns col/3 of rows 3I..3I+2, sorted, plus
/// the diagonal block (always stored: it carries the padded rows' identity).
BsrStructure bsr_structure(const CsrPattern& pattern, int n, int block_rows, const char* name) {
  const std::size_t mb = static_cast<std::size_t>(block_rows);
  BsrStructure bsr;
  std::vector<int>& row_ptr = bsr.row_ptr;
  std::vector<int>& block_col = bsr.block_col;
  std::vector<int>& slot = bsr.slot;
  std::vector<int>& diag_block = bsr.diag_block;
  row_ptr.assign(mb + 1, 0);
  slot.resize(static_cast<std::size_t>(pattern.nnz()));
  diag_block.resize(mb);
  std::vector<int> seen(mb, -1), position(mb, -1), row_blocks;
  for (int I = 0; I < block_rows; ++I) {
    row_blocks.clear();
    const int first_row = 3 * I, last_row = std::min(3 * I + 3, n);
    for (int r = first_row; r < last_row; ++r)
      for (int k = pattern.row_ptr[static_cast<std::size_t>(r)]; k < pattern.row_ptr[static_cast<std::size_t>(r) + 1];
           ++k) {
        const int J = pattern.col[static_cast<std::size_t>(k)] / 3;
        if (seen[static_cast<std::size_t>(J)] != I) {
          seen[static_cast<std::size_t>(J)] = I;
          row_blocks.push_back(J);
        }
      }
    if (seen[static_cast<std::size_t>(I)] != I) row_blocks.push_back(I);
    std::sort(row_blocks.begin(), row_blocks.end());
    for (int J : row_blocks) {
      position[static_cast<std::size_t>(J)] = static_cast<int>(block_col.size());
      block_col.push_back(J);
    }
    SOFTIK_CHECK(block_col.size() <= static_cast<std::size_t>(INT_MAX / 9),
                 name << ": K has too many 3 x 3 blocks for 32-bit BSR indices: split the model");
    diag_block[static_cast<std::size_t>(I)] = position[static_cast<std::size_t>(I)];
    for (int r = first_row; r < last_row; ++r)
      for (int k = pattern.row_ptr[static_cast<std::size_t>(r)]; k < pattern.row_ptr[static_cast<std::size_t>(r) + 1];
           ++k) {
        const int c = pattern.col[static_cast<std::size_t>(k)];
        slot[static_cast<std::size_t>(k)] = 9 * position[static_cast<std::size_t>(c / 3)] + 3 * (r % 3) + c % 3;
      }
    row_ptr[static_cast<std::size_t>(I) + 1] = static_cast<int>(block_col.size());
  }
  return bsr;
}

/// Initial block values: zero, with the identity on the padded rows' diagonal (scatters never
/// write either, so they stay).
std::vector<Real> initial_blocks(const std::vector<int>& diag_block, std::size_t nnzb, int n, int n_pad) {
  std::vector<Real> initial(9 * nnzb, 0.0);
  for (int r = n; r < n_pad; ++r)
    initial[9 * static_cast<std::size_t>(diag_block[static_cast<std::size_t>(r / 3)]) +
            4 * static_cast<std::size_t>(r % 3)] = 1.0;
  return initial;
}

}  // namespace

CudaPcgSolver::CudaPcgSolver() : impl_(std::make_unique<Impl>()) {}
CudaPcgSolver::~CudaPcgSolver() = default;

const FactorizationInfo& CudaPcgSolver::info() const { return impl_->info; }

void CudaPcgSolver::analyze(const CsrPattern& pattern) {
  check_csr_pattern(pattern, name());
  require_device(name());
  Impl& p = *impl_;
  p = Impl{};  // releases the previous pattern's buffers, handles and kept solution
  SOFTIK_CUSPARSE_CHECK(cusparseCreate(p.sparse.replace()));
  SOFTIK_CUSPARSE_CHECK(cusparseSetStream(p.sparse.get(), cudaStreamPerThread));  // the calling thread's stream
  p.n = pattern.rows;
  p.nnz = pattern.nnz();
  p.mb = (p.n + 2) / 3;
  p.n_pad = 3 * p.mb;
  if (p.n == 0) {
    p.analysed = true;
    return;
  }

  const BsrStructure bsr = bsr_structure(pattern, p.n, p.mb, name());
  p.nnzb = static_cast<int>(bsr.block_col.size());
  const std::vector<Real> initial = initial_blocks(bsr.diag_block, bsr.block_col.size(), p.n, p.n_pad);
  p.check_bsr_memory(name());
  p.upload_bsr(bsr, initial);
  p.analysed = true;
}

/// K in BSR needs its blocks, the inverted diagonal blocks, the CSR values and scatter slots and
/// the block extremes on the device: refuse a K that does not fit in the free memory.
void CudaPcgSolver::Impl::check_bsr_memory(const char* name) const {
  const std::size_t block_rows = static_cast<std::size_t>(mb), blocks = static_cast<std::size_t>(nnzb);
  const std::size_t needed =
      (9 * blocks + 9 * block_rows + static_cast<std::size_t>(nnz) + 2 * block_rows) * sizeof(Real) +
      (block_rows + 1 + blocks + static_cast<std::size_t>(nnz) + block_rows) * sizeof(int);
  std::size_t free_bytes = 0, total_bytes = 0;
  SOFTIK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  SOFTIK_CHECK(needed <= free_bytes, name << " of " << n << " free DOFs needs " << needed / 1e9
                                          << " GB of device memory for K in BSR, but only " << free_bytes / 1e9
                                          << " GB of " << total_bytes / 1e9
                                          << " GB are free: use a smaller mesh or free device memory");
}

/// The device buffers of K in BSR and of the values' scatter, the BSR structure and the initial
/// blocks uploaded, and cuSPARSE's descriptor of K.
void CudaPcgSolver::Impl::upload_bsr(const BsrStructure& bsr, const std::vector<Real>& initial) {
  const std::size_t block_rows = static_cast<std::size_t>(mb), blocks = bsr.block_col.size();
  bsr_row_ptr = DeviceArray<int>(block_rows + 1);
  bsr_col = DeviceArray<int>(blocks);
  slot = DeviceArray<int>(static_cast<std::size_t>(nnz));
  diag_block = DeviceArray<int>(block_rows);
  status = DeviceArray<int>(1);
  bsr_val = DeviceArray<Real>(9 * blocks);
  inv_diag = DeviceArray<Real>(9 * block_rows);
  values = DeviceArray<Real>(static_cast<std::size_t>(nnz));
  block_min = DeviceArray<Real>(block_rows);
  block_max = DeviceArray<Real>(block_rows);
  min_max = DeviceArray<Real>(2);
  upload(bsr_row_ptr.get(), bsr.row_ptr.data(), block_rows + 1);
  upload(bsr_col.get(), bsr.block_col.data(), blocks);
  upload(slot.get(), bsr.slot.data(), bsr.slot.size());
  upload(diag_block.get(), bsr.diag_block.data(), block_rows);
  upload(bsr_val.get(), initial.data(), initial.size());
  SOFTIK_CUSPARSE_CHECK(cusparseCreateBsr(K.replace(), static_cast<int64_t>(mb), static_cast<int64_t>(mb),
                                          static_cast<int64_t>(nnzb), 3, 3, bsr_row_ptr.get(), bsr_col.get(),
                                          bsr_val.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, CUSPARSE_ORDER_ROW));
}

void CudaPcgSolver::factorize(const std::vector<Real>& values) {
  factorize_from_host(*this, impl_->analysed, impl_->nnz, values, impl_->values.get());
}

void CudaPcgSolver::factorize_device(exec::DeviceView<const Real> values) {
  Impl& p = *impl_;
  if (!start_factorization(p, values, name())) return;
  if (p.nnz > 0) {
    scatter_to_bsr<<<grid_size(static_cast<std::size_t>(p.nnz), kBlock), kBlock>>>(p.nnz, p.slot.get(), values.data,
                                                                                   p.bsr_val.get());
    check_launch("scatter_to_bsr");
  }
  upload(p.status.get(), &p.mb, 1);
  invert_diagonal_blocks<<<grid_size(static_cast<std::size_t>(p.mb), kBlock), kBlock>>>(
      p.mb, p.n, p.diag_block.get(), p.bsr_val.get(), p.inv_diag.get(), p.block_min.get(), p.block_max.get(),
      p.status.get());
  check_launch("invert_diagonal_blocks");
  reduce_min_max<<<1, kBlock>>>(p.mb, p.block_min.get(), p.block_max.get(), p.min_max.get());
  check_launch("reduce_min_max");
  int first_bad = p.mb;
  Real min_max[2] = {0, 0};
  download(&first_bad, p.status.get(), 1);
  download(min_max, p.min_max.get(), 2);
  SOFTIK_CHECK(first_bad >= p.mb,
               "the stiffness matrix K is not positive definite: its 3 x 3 diagonal block "
                   << first_bad << " (free DOF rows " << 3 * first_bad << " to " << std::min(3 * first_bad + 2, p.n - 1)
                   << ") is not (a DOF without stiffness, or an indefinite hyperelastic tangent): " << name()
                   << " needs a positive definite K; set AssemblyOptions::project_spd = true, or use a CPU "
                   << "solver (LinearSolverKind::Cholmod), which also factors indefinite K");
  // For an iterative solver this is only an indicator of the scaling, not a pivot ratio.
  p.info.pivot_ratio = min_max[1] > 0 ? min_max[0] / min_max[1] : 0.0;
  p.info.factor_nnz = 9LL * p.mb;  // the stored preconditioner (inverse diagonal blocks)
  p.factored = true;
}

}  // namespace softik::cuda

namespace softik {
std::unique_ptr<LinearSolver> make_cuda_pcg_solver() { return std::make_unique<cuda::CudaPcgSolver>(); }
}  // namespace softik
