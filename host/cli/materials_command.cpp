// `softik materials [NAME]` (materials_command.hpp).
#include "host/cli/materials_command.hpp"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "softik/error.hpp"
#include "softik/material_library.hpp"

namespace softik::cli {
namespace {

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? separator : "") + items[i];
  return s;
}

/// "C10 = 0.1005, C20 = 0.006387" (lists as [a, b, c]).
std::string constants_text(const LawConstants& c) {
  std::vector<std::string> items;
  for (const auto& [key, values] : c.values) {
    std::ostringstream s;
    s << key << " = ";
    if (values.size() != 1) s << "[";
    for (size_t i = 0; i < values.size(); ++i) s << (i ? ", " : "") << values[i];
    if (values.size() != 1) s << "]";
    items.push_back(s.str());
  }
  return join(items, ", ");
}

/// "yeoh (default, fitted by softik)".
std::string fit_label(const MaterialFit& f) {
  std::vector<std::string> notes;
  if (f.is_default) notes.push_back("default");
  if (!f.fitted_by.empty()) notes.push_back("fitted by " + f.fitted_by);
  return f.law + (notes.empty() ? "" : " (" + join(notes, ", ") + ")");
}

void print_list(const MaterialLibrary& lib, std::ostream& out) {
  out << "softik's materials library (docs/materials.md; `softik materials NAME` for one in full):\n";
  for (const LibraryMaterial& m : lib.materials) {
    std::vector<std::string> fits;
    for (const MaterialFit& f : m.fits) fits.push_back(fit_label(f));
    out << "  " << m.name << "  " << m.title << " (" << m.maker << "): " << join(fits, ", ");
    if (m.density > 0) out << "; density " << m.density << " kg/m^3";
    out << "\n";
  }
}

void print_material(const MaterialLibrary& lib, const LibraryMaterial& m, std::ostream& out) {
  out << m.name << ": " << m.title << " (" << m.maker << ")\n";
  if (m.density > 0)
    out << "  density: " << m.density << " kg/m^3 (" << m.density_published << "; source " << m.density_source << ")\n";
  else
    out << "  density: none read in a source (give one with dynamics.density or loads.gravity.density)\n";
  if (!m.datasheet_published.empty())
    out << "  maker's data (not used by a law): " << m.datasheet_published << " (source " << m.datasheet_source
        << ")\n";
  for (const MaterialFit& f : m.fits) {
    LawConstants softik = library_constants(f);
    const Real mu0 = initial_shear_modulus(f.law, softik);
    out << "  fit " << f.id << ": law " << fit_label(f) << "\n"
        << "    as printed (" << f.convention << " convention, " << f.unit << "): " << constants_text(f.published)
        << "\n"
        << "    softik's constants (Pa): " << constants_text(softik) << "; mu0 = " << mu0
        << " Pa; D1 = " << d1_from_poisson(mu0, lib.default_poisson) << " 1/Pa (nu = " << lib.default_poisson << ")\n";
    const MaterialSource& s = lib.source(f.source);
    out << "    source: " << s.citation << (s.doi.empty() ? "" : ", doi:" + s.doi)
        << (s.url.empty() ? "" : ", " + s.url) << "\n"
        << "    where: " << f.where << "\n"
        << "    test: " << f.test << "\n"
        << "    strain range: " << f.strain_range << "\n";
    if (!f.fitted_by.empty()) {
      out << "    fitted by " << f.fitted_by << ": " << f.method
          << "\n    rows of the curve (engineering strain, stress in " << f.unit << "):";
      for (const auto& [strain, stress] : f.data_points) out << " (" << strain << ", " << stress << ")";
      out << "; largest deviation of the fit from them: " << f.max_deviation * 100 << " %\n";
    }
  }
}

}  // namespace

void print_materials(const std::string& name, std::ostream& out) {
  const MaterialLibrary& lib = material_library();
  if (name.empty()) {
    print_list(lib, out);
    return;
  }
  const LibraryMaterial* m = lib.find(name);
  SOFTIK_CHECK(m, "unknown material '" << name << "'; did you mean '" << lib.closest(name)
                                       << "'? The library's materials: " << join(lib.names(), ", ")
                                       << " (softik materials lists them)");
  print_material(lib, *m, out);
}

}  // namespace softik::cli
