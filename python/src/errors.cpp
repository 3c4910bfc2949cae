// softik::Error as a Python exception: the class softik.errors defines for the error's kind
// (softik.InputError, NumericalError, IoError, UnsupportedError, InternalError; all subclasses of
// softik.Error), carrying softik's message and the kind's name in its attribute `kind`.
#include <softik/error.hpp>

#include <cctype>
#include <string>

#include "bindings.hpp"

namespace softik::python {

namespace {

/// The class softik.errors defines for `kind`: its name (error_kind_name) capitalised, then "Error".
std::string class_name(ErrorKind kind) {
  std::string name = error_kind_name(kind);
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return name + "Error";
}

void raise(const Error& e) {
  try {
    nb::object type = nb::module_::import_("softik.errors").attr(class_name(e.kind()).c_str());
    nb::object exception = type(nb::str(e.what()));
    exception.attr("kind") = nb::str(error_kind_name(e.kind()));
    PyErr_SetObject(type.ptr(), exception.ptr());
  } catch (const nb::python_error& failure) {
    // softik.errors not importable (the extension loaded on its own): still softik's message.
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

}  // namespace

void bind_errors(nb::module_& m) {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      raise(e);
    }
  });
  (void)m;
}

}  // namespace softik::python
