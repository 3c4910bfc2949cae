// NumPy conversions of the bindings (bindings.hpp): views of C++ storage, new arrays that take
// over a vector's storage, checked conversions of Python input, and result tables.
#include <cmath>
#include <sstream>

#include <nanobind/stl/string.h>

#include <softik/error.hpp>

#include "bindings.hpp"

namespace softik::python {

nb::object view(const Real* data, size_t rows, size_t cols, nb::handle owner) {
  const size_t shape[2] = {rows, cols};
  return nb::cast(RealView(data, 2, shape, owner), nb::rv_policy::reference);
}

nb::object view(const int* data, size_t rows, size_t cols, nb::handle owner) {
  const size_t shape[2] = {rows, cols};
  return nb::cast(IntView(data, 2, shape, owner), nb::rv_policy::reference);
}

nb::object take(std::vector<Real>&& values, size_t rows, size_t cols) {
  auto* owned = new std::vector<Real>(std::move(values));
  nb::capsule deleter(owned, [](void* p) noexcept { delete static_cast<std::vector<Real>*>(p); });
  const size_t shape[2] = {rows, cols};
  return nb::cast(RealArray(owned->data(), cols == 0 ? 1 : 2, shape, deleter), nb::rv_policy::reference);
}

nb::object take(std::vector<Real>&& values) {
  const size_t n = values.size();
  return take(std::move(values), n, 0);
}

namespace {

std::string shape_text(const std::vector<long>& shape) {
  std::ostringstream s;
  s << "(";
  for (size_t k = 0; k < shape.size(); ++k) {
    if (k) s << ", ";
    if (shape[k] < 0)
      s << "any";
    else
      s << shape[k];
  }
  s << (shape.size() == 1 ? ",)" : ")");
  return s.str();
}

}  // namespace

std::vector<Real> real_array(nb::handle object, const std::vector<long>& shape, const std::string& what) {
  nb::module_ numpy = nb::module_::import_("numpy");
  nb::object array;
  try {
    array = numpy.attr("asarray")(object);
  } catch (const nb::python_error& e) {
    SOFTIK_CHECK(false,
                 what << " must be an array of real numbers of shape " << shape_text(shape) << " (" << e.what() << ")");
  }
  const std::string kind = nb::cast<std::string>(array.attr("dtype").attr("kind"));
  SOFTIK_CHECK(kind == "f" || kind == "i" || kind == "u",
               what << " must hold real numbers (float or int), got dtype "
                    << nb::cast<std::string>(array.attr("dtype").attr("name")));
  const nb::tuple got = nb::borrow<nb::tuple>(array.attr("shape"));
  std::vector<long> got_shape;
  for (nb::handle n : got) got_shape.push_back(nb::cast<long>(n));
  bool ok = got_shape.size() == shape.size();
  for (size_t k = 0; ok && k < shape.size(); ++k) ok = shape[k] < 0 || shape[k] == got_shape[k];
  SOFTIK_CHECK(ok, what << " must have shape " << shape_text(shape) << ", got " << shape_text(got_shape));
  array = numpy.attr("ascontiguousarray")(array, "float64");
  const auto values = nb::cast<nb::ndarray<const double, nb::c_contig, nb::device::cpu>>(array);
  std::vector<Real> out(values.data(), values.data() + values.size());
  for (size_t k = 0; k < out.size(); ++k)
    SOFTIK_CHECK(std::isfinite(out[k]), what << " holds a NaN or infinite value at flat index " << k);
  return out;
}

nb::object displacements(const Mesh& mesh, const std::vector<Real>& x) {
  const size_t n = static_cast<size_t>(mesh.num_nodes());
  std::vector<Real> u(3 * n, 0.0);
  for (size_t a = 0; a < n; ++a)
    for (int i = 0; i < mesh.dim; ++i) u[3 * a + i] = x[a * mesh.dim + i] - mesh.X[3 * a + i];
  return take(std::move(u), n, 3);
}

size_t Table::index(const std::string& column, bool text) {
  for (size_t k = 0; k < names_.size(); ++k)
    if (names_[k] == column) return k;
  names_.push_back(column);
  numbers_.emplace_back();
  texts_.emplace_back();
  is_text_.push_back(text);
  return names_.size() - 1;
}

void Table::add(const std::string& column, Real value) { numbers_[index(column, false)].push_back(value); }

void Table::add(const std::string& column, const std::string& value) { texts_[index(column, true)].push_back(value); }

nb::dict Table::to_dict() {
  nb::module_ numpy = nb::module_::import_("numpy");
  nb::dict out;
  for (size_t k = 0; k < names_.size(); ++k) {
    if (is_text_[k]) {
      nb::list values;
      for (const std::string& v : texts_[k]) values.append(nb::str(v.c_str()));
      out[names_[k].c_str()] = numpy.attr("array")(values, "str");
    } else {
      out[names_[k].c_str()] = take(std::move(numbers_[k]));
    }
  }
  return out;
}

}  // namespace softik::python
