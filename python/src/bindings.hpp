// Shared by the binding files of the extension softik._softik (docs/python.md): the objects the
// Python classes wrap, the NumPy conversions, and one bind_* function per file.
//
// Arrays: float64 (softik::Real) and int32, C order. A view (read-only, its owner kept alive by the
// array) is returned where a C++ object owns contiguous storage that lives as long as that owner:
// the mesh's rest coordinates and cells, a Model's current positions, a dynamic solver's positions
// and velocities. Anything computed (displacements, stresses, report vectors) is a new array that
// takes over the C++ vector's storage without copying it.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <softik/linear_solver.hpp>
#include <softik/progress.hpp>
#include <softik/scene.hpp>

namespace softik::python {

namespace nb = nanobind;

using RealArray = nb::ndarray<nb::numpy, double>;
using RealView = nb::ndarray<nb::numpy, const double>;
using IntView = nb::ndarray<nb::numpy, const int>;

/// A scene built into the library's objects and its current state: the positions x that every
/// solve on it updates in place (static, inverse and dynamic).
struct Model {
  Scene scene;
  BuiltScene built;
  std::vector<Real> x;                   ///< num_dofs entries, x[n*dim + i]; never reallocated
  std::unique_ptr<LinearSolver> solver;  ///< for solve_static
  bool has_inverse = false;              ///< an InverseSolver owns the constraints' state
  bool has_dynamics = false;             ///< a DynamicSimulation owns the cables' state
  /// A call that solves on this Model, or reads or changes what a solve changes, is running
  /// (ModelCall); only ever set and cleared with the GIL held.
  std::atomic<bool> busy{false};

  /// The body is a node network read from a file (mesh: {network: ...}): mesh holds its nodes
  /// without cells and there is no FEM assembler (no static solve, no stresses, no inverse).
  bool network_file() const { return !built.assembler; }
};

/// Marks a Model busy for the length of one call from Python (construct it first thing in the
/// binding, with the GIL held); a second call on the same Model meanwhile, from another thread,
/// throws softik::Error naming the misuse instead of running.
///
/// Why an error and not a mutex: the solves release the GIL, so two threads can be inside one
/// Model at once, sharing its assembler's, linear solver's and constraints' scratch state (memory
/// corruption, not just a race on the result). A mutex would make that safe, but it would have to
/// be taken with the GIL released (the solving thread needs the GIL again to copy its result
/// back), and each solve starts from the state the other one left, so the results would depend on
/// the threads' timing. A Model is one state: one Model per thread is the correct use, and a clear
/// error says so at once. Calls that only read the mesh or the positions with the GIL held
/// (positions, displacements, cavity_volumes, ...) do not need it: the positions are only ever
/// written with the GIL held.
class ModelCall {
 public:
  /// `what` names the call in the message, e.g. "Model.solve_static".
  ModelCall(Model& model, const char* what);
  ~ModelCall() { model_.busy.store(false); }
  ModelCall(const ModelCall&) = delete;
  ModelCall& operator=(const ModelCall&) = delete;

 private:
  Model& model_;
};

/// What a Python object that steps a Model's state holds (DynamicSimulation, InverseSolver): the
/// Model, kept alive by its Python object `owner`, and a linear solver of the scene's kind, its own.
struct ModelStepper {
  nb::object owner;
  Model* model = nullptr;
  std::unique_ptr<LinearSolver> solver;

  /// Over the Model of `ref` (its Python object), with a new solver.
  void attach(nb::pointer_and_handle<Model> ref) {
    owner = nb::borrow(ref.h);
    model = ref.p;
    solver = make_linear_solver(ref.p->built.linear_solver);
  }
};

/// `f(o, args...)` with o's Model (o.model) held busy (ModelCall): for every method of an object
/// over a Model (DynamicSimulation, InverseSolver) that reads or changes the state a step on
/// another thread changes without the GIL.
template <typename R, typename O, typename... Args>
auto guarded(const char* what, R (*f)(O&, Args...)) {
  return [what, f](O& o, Args... args) -> R {
    ModelCall call(*o.model, what);
    return f(o, std::forward<Args>(args)...);
  };
}

inline void set_items(nb::dict&) {}

/// d[key] = value for each key, value pair of the arguments, in their order.
template <typename Value, typename... Rest>
void set_items(nb::dict& d, const char* key, Value&& value, Rest&&... rest) {
  d[key] = std::forward<Value>(value);
  set_items(d, std::forward<Rest>(rest)...);
}

/// The dict {key: value, ...} of `key, value, key, value, ...` (keys: C strings), in that order:
/// the fields of a C++ report or summary.
template <typename... KeysAndValues>
nb::dict dict_of(KeysAndValues&&... items) {
  nb::dict d;
  set_items(d, std::forward<KeysAndValues>(items)...);
  return d;
}

/// {'assembly', 'factorization', 'solves', 'constraint_solve', 'update'}: the seconds of the inverse
/// step's phases, of one step (InverseStepReport) or per step of a run (InverseRunSummary).
template <typename Times>
nb::dict phase_seconds(const Times& t) {
  return dict_of("assembly", t.t_assembly, "factorization", t.t_factorization, "solves", t.t_solves, "constraint_solve",
                 t.t_constraint_solve, "update", t.t_update);
}

// The arrays are returned as Python objects already made (an array with an owner cannot take the
// reference_internal policy nanobind gives property getters).
/// A read-only (rows, cols) NumPy view of `data`, kept valid by `owner` (a Python object that holds it).
nb::object view(const Real* data, size_t rows, size_t cols, nb::handle owner);
/// A read-only (rows, cols) int32 view.
nb::object view(const int* data, size_t rows, size_t cols, nb::handle owner);
/// A new NumPy array of shape (rows, cols) (cols 0: one dimension) taking over `values`' storage.
nb::object take(std::vector<Real>&& values, size_t rows, size_t cols = 0);
nb::object take(std::vector<Real>&& values);

/// A float64 copy of a Python object that must be an array (or a nested sequence) of real numbers
/// of the given shape (-1: any size). Throws softik::Error (Input) naming `what` and the shape or
/// dtype it got; NaN or infinity is refused too.
std::vector<Real> real_array(nb::handle object, const std::vector<long>& shape, const std::string& what);

/// x[n*dim + i] - X[3n + i] as (num_nodes, 3), zero where dim < 3.
nb::object displacements(const Mesh& mesh, const std::vector<Real>& x);

/// A table as the Python side shows it: {column name: 1-D NumPy array}, in insertion order.
class Table {
 public:
  void add(const std::string& column, Real value);
  void add(const std::string& column, const std::string& value);
  nb::dict to_dict();

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<Real>> numbers_;
  std::vector<std::vector<std::string>> texts_;
  std::vector<bool> is_text_;
  size_t index(const std::string& column, bool text);
};

/// The `progress` argument of run_scene and run_batch as a ProgressCallback: empty for None, else
/// a function that takes the GIL and calls `progress` with the event as a dict {'what', 'k',
/// 'total', 'elapsed', 'eta', 'label', 'last'} (softik/progress.hpp); an exception it raises
/// stops the run and reaches the caller. Throws softik::Error (Input) when `progress` is neither
/// None nor callable.
ProgressCallback progress_callback(nb::handle progress);

void bind_errors(nb::module_& m);
void bind_scene(nb::module_& m);
void bind_model(nb::module_& m);
void bind_inverse(nb::module_& m);
void bind_dynamics(nb::module_& m);
void bind_batch(nb::module_& m);

}  // namespace softik::python
