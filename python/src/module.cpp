// The extension module softik._softik: one bind_* call per binding file (bindings.hpp). Its
// Python face, the package softik, is python/softik/__init__.py (docs/python.md).
#include "bindings.hpp"

NB_MODULE(_softik, m) {
  m.doc() = "softik's C++ library: scenes, static/inverse/dynamic solves and batches (docs/python.md)";
  softik::python::bind_errors(m);
  softik::python::bind_scene(m);
  softik::python::bind_model(m);
  softik::python::bind_inverse(m);
  softik::python::bind_dynamics(m);
  softik::python::bind_batch(m);
}
