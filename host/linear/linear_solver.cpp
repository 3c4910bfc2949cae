#include "softik/linear_solver.hpp"
#include "host/assembly/assembler_internals.hpp"

#include <sstream>

#include <Eigen/Dense>

#include "host/assembly/device_assembly.hpp"
#include "host/exec/device_backend.hpp"
#include "host/linear/gram.hpp"
#include "host/linear/linear_solvers.hpp"
#include "softik/error.hpp"

namespace softik {

bool have_cholmod() {
#ifdef SOFTIK_HAVE_CHOLMOD
  return true;
#else
  return false;
#endif
}

namespace {
struct KindName {
  LinearSolverKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {
    {LinearSolverKind::Automatic, "auto"},
    {LinearSolverKind::Cholmod, "cholmod"},
    {LinearSolverKind::EigenLDLT, "eigen"},
    {LinearSolverKind::CudaDense, "cuda-dense"},
    {LinearSolverKind::Cudss, "cudss"},
    {LinearSolverKind::CudaPcg, "cuda-pcg"},
    {LinearSolverKind::CusolverSpCholesky, "cusolversp"},
};
}  // namespace

bool is_gpu_solver(LinearSolverKind kind) {
  return kind == LinearSolverKind::CudaDense || kind == LinearSolverKind::Cudss || kind == LinearSolverKind::CudaPcg ||
         kind == LinearSolverKind::CusolverSpCholesky;
}

std::vector<LinearSolverKind> linear_solver_kinds() {
  std::vector<LinearSolverKind> kinds;
  for (const KindName& k : kKindNames) kinds.push_back(k.kind);
  return kinds;
}

const char* linear_solver_kind_name(LinearSolverKind kind) {
  for (const KindName& k : kKindNames)
    if (k.kind == kind) return k.name;
  SOFTIK_CHECK(false, "unknown LinearSolverKind " << static_cast<int>(kind));
}

LinearSolverKind parse_linear_solver_kind(const std::string& name) {
  if (name == "automatic") return LinearSolverKind::Automatic;  // alias of "auto"
  std::string names;
  for (const KindName& k : kKindNames) {
    if (name == k.name) return k.kind;
    names += names.empty() ? "" : ", ";
    names += k.name;
  }
  SOFTIK_CHECK(false, "unknown linear solver '" << name << "': use one of " << names);
}

bool have_cudss_solver() {
  const DeviceBackend* device = device_backend();
  return device && device->cudss_built;
}

bool cudss_solver_usable(std::string* reason) {
  if (const DeviceBackend* device = device_backend()) return device->cudss_library_available(reason);
  if (reason) *reason = "softik was built without the CUDA backend";
  return false;
}

LinearSolverKind choose_linear_solver(Backend backend, int num_free_dofs, LinearSolverKind requested) {
  if (requested != LinearSolverKind::Automatic) return requested;
  if (backend == Backend::Cpu) return have_cholmod() ? LinearSolverKind::Cholmod : LinearSolverKind::EigenLDLT;
  if (num_free_dofs > kGpuSparseMinDofs && cudss_solver_usable()) return LinearSolverKind::Cudss;
  if (num_free_dofs <= kGpuDenseMaxDofs) return LinearSolverKind::CudaDense;
  return have_cudss_solver() ? LinearSolverKind::Cudss : LinearSolverKind::CudaPcg;
}

std::unique_ptr<LinearSolver> make_linear_solver(LinearSolverKind kind) {
  (void)linear_solver_kind_name(kind);  // rejects values outside the enum
  if (kind == LinearSolverKind::EigenLDLT) return make_eigen_ldlt_solver();
  if (is_gpu_solver(kind)) {
    if (const DeviceBackend* device = device_backend()) return device->make_linear_solver(kind);
    SOFTIK_CHECK_KIND(false, ErrorKind::Unsupported,
                      "the GPU linear solver '" << linear_solver_kind_name(kind)
                                                << "' was requested, but softik was built without the CUDA backend: "
                                                   "rebuild with the CUDA toolkit (nvcc) and -DSOFTIK_CUDA=ON, or "
                                                   "use a CPU solver (cholmod, eigen)");
  }
#ifdef SOFTIK_HAVE_CHOLMOD
  return make_cholmod_solver();
#else
  SOFTIK_CHECK_KIND(kind == LinearSolverKind::Automatic, ErrorKind::Unsupported,
                    "LinearSolverKind::Cholmod requested, but softik was built without CHOLMOD: rebuild with "
                    "-DSOFTIK_WITH_CHOLMOD=ON (libsuitesparse-dev) or use LinearSolverKind::EigenLDLT");
  return make_eigen_ldlt_solver();
#endif
}

void LinearSolver::require_cholesky_factor(const char* call) const {
  SOFTIK_CHECK(has_cholesky_factor(),
               name() << "::" << call << " needs a Cholesky factor K = P^T L L^T P, but the last factorisation is not "
                      << "one (no successful factorisation yet, an indefinite K factored as L D L^T, or a solver "
                      << "without half solves): check has_cholesky_factor() first and use solve() otherwise");
}

void LinearSolver::factorize_device(exec::DeviceView<const Real>) {
  SOFTIK_CHECK(false, name() << "::factorize_device needs a GPU solver that factors K values in device memory "
                             << "(accepts_device_values()); this solver factors host values: call factorize()");
}

bool stiffness_stays_on_device(const Assembler& assembler, const LinearSolver& solver) {
  const DeviceAssembly* device = assembly::AssemblerInternals::device_assembly(assembler);
  return device != nullptr && device->on_device() && solver.accepts_device_values();
}

void LinearSolver::forward_gram(const Real* B, int n, int nb, Real* G) {
  require_cholesky_factor("forward_gram");
  SOFTIK_CHECK(n >= 0 && nb >= 0, name() << "::forward_gram got n = " << n << ", nb = " << nb);
  gram_Z_.resize(static_cast<size_t>(n) * static_cast<size_t>(nb));
  gram_n_ = n;
  gram_nb_ = 0;
  if (nb > 0) solve_forward(B, gram_Z_.data(), nb);
  gram_nb_ = nb;
  detail::gram(gram_Z_.data(), n, nb, G);
}

void LinearSolver::backward_combination(const Real* c, Real* x) {
  SOFTIK_CHECK(gram_nb_ > 0 && has_cholesky_factor(),
               name() << "::backward_combination needs forward_gram() on the current factorisation first");
  const Eigen::Map<const Eigen::MatrixXd> Z(gram_Z_.data(), gram_n_, gram_nb_);
  const Eigen::VectorXd z = Z * Eigen::Map<const Eigen::VectorXd>(c, gram_nb_);
  solve_backward(z.data(), x, 1);
}

// Default for solvers without half solves: has_cholesky_factor() is false, so these throw.
void LinearSolver::solve_forward(const Real*, Real*, int) const { require_cholesky_factor("solve_forward"); }
void LinearSolver::solve_backward(const Real*, Real*, int) const { require_cholesky_factor("solve_backward"); }

namespace detail {
void throw_singular(const char* solver, double pivot_ratio, long row) {
  std::ostringstream s;
  s << "the stiffness matrix is singular (" << solver << ": smallest/largest pivot = " << pivot_ratio;
  if (row >= 0) s << ", detected at free DOF row " << row;
  s << "): the body is not held against rigid motion, or a part of it floats free. Fix enough nodes "
       "(at least one face of every separate part), or check that every part is connected to the mesh";
  throw Error(s.str());
}
}  // namespace detail

}  // namespace softik
