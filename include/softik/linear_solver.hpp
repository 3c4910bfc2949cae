// Sparse symmetric linear solvers for the free-DOF stiffness K (docs/method.md section 7), behind
// one interface: symbolic analysis once per pattern, numeric factorisation per Newton
// iteration / step, then solves with one or many right-hand sides.
//
//   auto solver = make_linear_solver();        // CHOLMOD when built with it, else Eigen
//   solver->analyze(assembler.pattern());      // once
//   solver->factorize(K_values);               // every time the values change
//   solver->solve(b, x, nrhs);                 // b, x: n x nrhs, column-major
//
// Half solves (docs/method.md section 7): when the last factorisation is a Cholesky factor
// K = P^T L L^T P (has_cholesky_factor()), K^-1 = P^T L^-T L^-1 P splits into
//   solve_forward:   z = L^-1 P b        solve_backward:  x = P^T L^-T z,
// so that Z = L^-1 P B gives B^T K^-1 B = Z^T Z from forward solves only (W = J K^-1 J^T).
//
// The pattern holds both triangles (Assembler's CSR); only the upper triangle is read.
// A positive definite K is factored as L L^T; an indefinite one (a hyperelastic tangent under
// compression) as L D L^T. A singular or numerically singular K (nothing fixed, a floating
// part: reciprocal pivot ratio below singular_threshold) is an Error, never a garbage solution.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/backend.hpp"
#include "softik/exec/view.hpp"

namespace softik {

enum class LinearSolverKind {
  Automatic,  ///< CHOLMOD supernodal when available, else Eigen
  Cholmod,    ///< SuiteSparse CHOLMOD, supernodal L L^T (METIS/AMD ordering), L D L^T fallback
  EigenLDLT,  ///< Eigen SimplicialLDLT (AMD ordering)
  // GPU solvers (CUDA backend; make_linear_solver throws when softik was built without it):
  CudaDense,           ///< cuSOLVER dense Cholesky (cusolverDnXpotrf/Xpotrs): up to ~20k free DOFs
  Cudss,               ///< cuDSS sparse direct (analyse once, refactor per step); needs a cuDSS build
  CudaPcg,             ///< block preconditioned CG (cuSPARSE BSR 3x3, block-Jacobi), warm-started
  CusolverSpCholesky,  ///< cusolverSp low-level csrchol: benchmarked alternative only (deprecated)
};

/// Whether `kind` runs on the GPU.
bool is_gpu_solver(LinearSolverKind kind);
/// "auto" (alias "automatic"), "cholmod", "eigen", "cuda-dense", "cudss", "cuda-pcg", "cusolversp".
const char* linear_solver_kind_name(LinearSolverKind kind);
/// Every kind, in the order the documentation lists them (Automatic first).
std::vector<LinearSolverKind> linear_solver_kinds();
/// The inverse of linear_solver_kind_name; throws softik::Error listing the names otherwise.
LinearSolverKind parse_linear_solver_kind(const std::string& name);

/// A stiffness of low rank, K_c = U C U^T, for actuator forces whose stiffness couples DOFs that
/// share no cell (outside the elastic CSR pattern), e.g. a cable through distant points. U has
/// one sparse column per entry of `columns` (mesh DOFs); C is block diagonal with one symmetric
/// 3x3 block (row-major) per three consecutive columns. The inverse step applies it exactly
/// through the Woodbury identity (host/inverse/inverse_solver.cpp), never through the pattern.
struct LowRankStiffness {
  std::vector<std::vector<std::pair<int, Real>>> columns;
  std::vector<std::array<Real, 9>> blocks;
};

/// What the last factorisation did (for logs and benchmarks).
struct FactorizationInfo {
  bool indefinite = false;  ///< the matrix has negative pivots (factored as L D L^T)
  /// Negative pivots of the factorisation: by Sylvester's law of inertia the number of negative
  /// eigenvalues of K (0 after a successful L L^T; the count of D_jj < 0 of an L D L^T). -1: the
  /// solver does not report it (the GPU solvers).
  int negative_pivots = -1;
  int passes = 0;            ///< numeric factorisations this call ran (CPU solvers; 2: L L^T failed, then L D L^T)
  double pivot_ratio = 0;    ///< min |pivot| / max |pivot| (a lower bound of 1/cond(K) for SPD K)
  long long factor_nnz = 0;  ///< non-zeros of the factor
  double flops = 0;  ///< floating-point operations of a supernodal factorisation (CHOLMOD's analysis; 0: unknown)
};

class LinearSolver {
 public:
  virtual ~LinearSolver() = default;
  virtual const char* name() const = 0;
  /// Symbolic analysis (ordering, elimination tree) of a square CSR pattern.
  virtual void analyze(const CsrPattern& pattern) = 0;
  /// Numeric factorisation of values laid out in the analysed pattern. Throws softik::Error
  /// when K is singular, naming the DOF row where it was detected when known.
  virtual void factorize(const std::vector<Real>& values) = 0;
  /// Solves K x = b for nrhs right-hand sides stored column-major (n x nrhs).
  virtual void solve(const Real* b, Real* x, int nrhs = 1) const = 0;
  /// x ~ K^-1 b (one column) as a preconditioner applies it, never as a result: solve() by
  /// default. CHOLMOD's supernodal L L^T may apply a single-precision copy of its factor here
  /// (half the memory traffic), so x can differ from solve()'s by ~1e-7 relative times the
  /// factor's conditioning; an iterative method around it (CG in double) still reaches its
  /// tolerance.
  virtual void precondition(const Real* b, Real* x) const { solve(b, x, 1); }
  virtual const FactorizationInfo& info() const = 0;

  /// Whether the last factorisation is K = P^T L L^T P with L lower triangular and a positive
  /// diagonal, so that solve_forward / solve_backward are available. False before a
  /// factorisation, after a failed one, after an indefinite K (L D L^T with negative pivots has
  /// no real L L^T form), and for solvers without half solves (the default).
  virtual bool has_cholesky_factor() const { return false; }
  /// z = L^-1 P b for nrhs columns (b, z: n x nrhs, column-major; they must not overlap).
  /// Throws softik::Error unless has_cholesky_factor().
  virtual void solve_forward(const Real* b, Real* z, int nrhs = 1) const;
  /// x = P^T L^-T z for nrhs columns (z, x: n x nrhs, column-major; they must not overlap).
  /// Throws softik::Error unless has_cholesky_factor().
  virtual void solve_backward(const Real* z, Real* x, int nrhs = 1) const;

  /// The half path of the inverse step in one call: Z = L^-1 P B (B: n x nb host columns,
  /// column-major) is kept by the solver and G = Z^T Z (nb x nb, column-major, symmetric) is
  /// returned, so that B^T K^-1 B comes from forward solves only. GPU solvers keep Z in device
  /// memory: only G crosses to the host. Throws softik::Error unless has_cholesky_factor().
  virtual void forward_gram(const Real* B, int n, int nb, Real* G);
  /// x = P^T L^-T (Z c) for the Z of the last forward_gram (c: nb entries, x: n entries, host).
  /// Throws softik::Error without an earlier forward_gram on this factorisation.
  virtual void backward_combination(const Real* c, Real* x);

  /// Whether factorize_device() accepts K values already in device memory (GPU solvers), so
  /// that the GPU assembly's values need not cross to the host.
  virtual bool accepts_device_values() const { return false; }
  /// factorize() from the nnz values of the analysed pattern in device memory (written on the
  /// default stream or synchronised before the call). Throws softik::Error unless
  /// accepts_device_values(), or when `values` does not hold nnz entries.
  virtual void factorize_device(exec::DeviceView<const Real> values);

  /// Factorisations whose pivot ratio falls below this are reported as singular.
  double singular_threshold = 1e-12;

 protected:
  /// Throws softik::Error naming `call` unless has_cholesky_factor().
  void require_cholesky_factor(const char* call) const;
  /// Solvers call this from every factorisation: Z of an earlier forward_gram is stale.
  void forget_gram() { gram_nb_ = 0; }

 private:
  std::vector<Real> gram_Z_;  ///< the default forward_gram's Z (n x nb, column-major)
  int gram_n_ = 0, gram_nb_ = 0;
};

std::unique_ptr<LinearSolver> make_linear_solver(LinearSolverKind kind = LinearSolverKind::Automatic);

/// Largest free-DOF count for which Automatic picks the dense GPU Cholesky (an n^2 matrix:
/// 3.2 GB at 20k DOFs); larger models take cuDSS when built with it, else block PCG.
constexpr int kGpuDenseMaxDofs = 20000;
/// Above this free-DOF count Automatic prefers cuDSS to the dense GPU Cholesky when cuDSS can be
/// used here (on an H200, bench/RESULTS.md: equal at 1.2k DOFs, cuDSS 2.4x faster factorisations
/// at 7.8k, 2.7x faster inverse steps at 6.9k, 2.4x the batch throughput at 4.2k).
constexpr int kGpuSparseMinDofs = 2000;

/// What LinearSolverKind::Automatic means for `backend` and a model with num_free_dofs:
///   Cpu:  Cholmod when built with CHOLMOD, else EigenLDLT.
///   Cuda: Cudss above kGpuSparseMinDofs when cudss_solver_usable(); else CudaDense up to
///         kGpuDenseMaxDofs; else Cudss when built with cuDSS (its error names the missing
///         library), else CudaPcg.
/// A kind other than Automatic is returned unchanged (the user's override).
LinearSolverKind choose_linear_solver(Backend backend, int num_free_dofs,
                                      LinearSolverKind requested = LinearSolverKind::Automatic);

/// Whether this build has cuDSS (the CUDA backend found nvidia-cudss-cu13 at configure time).
bool have_cudss_solver();
/// Whether the cuDSS solver can be used here: built with cuDSS and libcudss.so.1 loads (it is
/// opened at run time; the first call loads it). No device needed. Never throws; `reason` says
/// why not.
bool cudss_solver_usable(std::string* reason = nullptr);

/// Whether this build has CHOLMOD (SOFTIK_WITH_CHOLMOD=ON).
bool have_cholmod();

/// Whether the stiffness can go from `assembler` to `solver` in device memory
/// (Assembler::assemble_on_device then LinearSolver::factorize_device): a GPU assembly
/// (Backend::Cuda) and a solver that accepts device values.
bool stiffness_stays_on_device(const Assembler& assembler, const LinearSolver& solver);

namespace detail {
/// The Error thrown for a singular stiffness (shared wording for every solver).
[[noreturn]] void throw_singular(const char* solver, double pivot_ratio, long row);
}  // namespace detail

}  // namespace softik
