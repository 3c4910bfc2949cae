// The materials library (include/softik/material_library.hpp, docs/materials.md): the embedded
// data file read strictly once, the conversion of published constants to softik's convention,
// and the laws built from named constants (shared with the scene's `materials:` entries).
#include "softik/material_library.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include <yaml-cpp/yaml.h>

#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik {

namespace scene_detail {
extern const char* const kMaterialLibraryYaml;  // generated from data/materials.yaml (CMakeLists.txt)
}

namespace {

using scene_detail::Map;

const char* const kDataPath = "data/materials.yaml";

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) s += (i ? ", " : "") + words[i];
  return s;
}

/// The constants a fit of `law` may publish, by convention.
std::vector<std::string> publishable(const std::string& law) {
  if (law == "neo_hookean_decoupled") return {"C10", "D1"};
  if (law == "mooney_rivlin") return {"C10", "C01", "D1"};
  if (law == "yeoh") return {"C10", "C20", "C30", "D1"};
  if (law == "ogden") return {"mu", "alpha", "D1"};
  return {};
}

/// Pa per unit of a published stress-like constant.
Real pascals_per(const std::string& unit) {
  if (unit == "Pa") return 1;
  if (unit == "kPa") return 1e3;
  if (unit == "MPa") return 1e6;
  throw Error(std::string(kDataPath) + ": unit '" + unit + "' is not one of Pa, kPa, MPa", ErrorKind::Internal);
}

MaterialSource read_source(const YAML::Node& node, const std::string& what) {
  const Map m(node, kDataPath, what, {"id", "citation", "doi", "url", "read"});
  MaterialSource s;
  s.id = m.string("id", "");
  s.citation = m.string("citation", "");
  s.doi = m.string("doi", "");
  s.url = m.string("url", "");
  s.read = m.string("read", "");
  if (s.id.empty() || s.citation.empty() || s.read.empty() || (s.doi.empty() && s.url.empty()))
    scene_detail::fail(m.where(), what + ": a source needs id, citation, read and a doi or url");
  return s;
}

/// A fit softik made from the source's measured curve (fitted_by, method, data_points,
/// max_deviation): all four or none; data points as [engineering strain > 0, stress > 0] in the
/// fit's unit.
void read_own_fit(const Map& m, const std::string& what, MaterialFit& f) {
  f.fitted_by = m.string("fitted_by", "");
  f.method = m.string("method", "");
  const bool any = !f.fitted_by.empty() || !f.method.empty() || m.has("data_points") || m.has("max_deviation");
  if (!any) return;
  if (f.fitted_by != "softik" || f.method.empty() || !m.has("data_points") || !m.has("max_deviation"))
    scene_detail::fail(m.where(), what +
                                      ": a fit made from the source's curve needs fitted_by: softik, method, "
                                      "data_points and max_deviation");
  const std::vector<YAML::Node> rows = scene_detail::as_list(m.at("data_points"), kDataPath, m.name("data_points"));
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string row = scene_detail::item(m.name("data_points"), i);
    const std::vector<Real> v = scene_detail::as_numbers(rows[i], kDataPath, row);
    if (v.size() != 2 || !(v[0] > 0) || !(v[1] > 0))
      scene_detail::fail(scene_detail::location(kDataPath, rows[i]),
                         row + ": expected [engineering strain > 0, engineering stress > 0]");
    f.data_points.push_back({v[0], v[1]});
  }
  if (f.data_points.empty()) scene_detail::fail(m.where("data_points"), m.name("data_points") + ": no rows");
  f.max_deviation = m.number("max_deviation", "relative");
  if (!(f.max_deviation > 0 && f.max_deviation < 1))
    scene_detail::fail(m.where("max_deviation"), m.name("max_deviation") + ": expected a fraction in (0, 1)");
}

MaterialFit read_fit(const YAML::Node& node, const std::string& what) {
  const Map m(node, kDataPath, what,
              {"id", "law", "default", "convention", "unit", "published", "source", "where", "test", "strain_range",
               "fitted_by", "method", "data_points", "max_deviation"});
  MaterialFit f;
  f.id = m.string("id", "");
  f.law = m.string("law", "");
  f.is_default = m.boolean("default", false);
  f.convention = m.string("convention", "");
  f.unit = m.string("unit", "");
  f.source = m.string("source", "");
  f.where = m.string("where", "");
  f.test = m.string("test", "");
  f.strain_range = m.string("strain_range", "");
  if (f.id.empty() || f.source.empty() || f.where.empty() || f.test.empty() || f.strain_range.empty())
    scene_detail::fail(m.where(), what + ": a fit needs id, source, where, test and strain_range");
  const std::vector<std::string> allowed = publishable(f.law);
  if (allowed.empty())
    scene_detail::fail(m.where(), what + ".law: '" + f.law +
                                      "' is not a law the library publishes (neo_hookean_decoupled, "
                                      "mooney_rivlin, yeoh, ogden)");
  if (f.convention != "abaqus" && !(f.convention == "ogden_1972" && f.law == "ogden"))
    scene_detail::fail(m.where(), what + ".convention: '" + f.convention + "' (abaqus; ogden_1972 for ogden)");
  (void)pascals_per(f.unit);
  const YAML::Node published = m.need("published", "the constants as printed");
  const Map p(published, kDataPath, what + ".published", allowed);
  for (const std::string& key : allowed)
    if (p.has(key)) f.published.set(key, scene_detail::as_numbers(p.at(key), kDataPath, p.name(key)));
  read_own_fit(m, what, f);
  return f;
}

LibraryMaterial read_material(const YAML::Node& node, const std::string& what) {
  const Map m(node, kDataPath, what, {"name", "title", "maker", "density", "datasheet", "fits"});
  LibraryMaterial mat;
  mat.name = m.string("name", "");
  mat.title = m.string("title", "");
  mat.maker = m.string("maker", "");
  if (mat.name.empty() || mat.title.empty() || mat.maker.empty())
    scene_detail::fail(m.where(), what + ": a material needs name, title and maker");
  if (m.has("density")) {
    const Map d(m.at("density"), kDataPath, m.name("density"), {"value", "published", "source"});
    mat.density = d.number("value", "kg/m^3");
    mat.density_published = d.string("published", "");
    mat.density_source = d.string("source", "");
  }
  if (m.has("datasheet")) {
    const Map d(m.at("datasheet"), kDataPath, m.name("datasheet"), {"published", "source"});
    mat.datasheet_published = d.string("published", "");
    mat.datasheet_source = d.string("source", "");
  }
  const std::vector<YAML::Node> fits =
      scene_detail::as_list(m.need("fits", "the published fits"), kDataPath, m.name("fits"));
  for (size_t i = 0; i < fits.size(); ++i) mat.fits.push_back(read_fit(fits[i], scene_detail::item(m.name("fits"), i)));
  size_t defaults = 0;
  for (const MaterialFit& f : mat.fits) {
    defaults += f.is_default ? 1 : 0;
    if (std::count_if(mat.fits.begin(), mat.fits.end(), [&](const MaterialFit& o) { return o.id == f.id; }) != 1)
      scene_detail::fail(m.where("fits"), m.name("fits") + ": the fit id '" + f.id + "' is given twice");
  }
  if (defaults != 1) scene_detail::fail(m.where("fits"), m.name("fits") + ": exactly one fit must be the default");
  return mat;
}

MaterialLibrary read_library(const std::string& text) {
  const YAML::Node root = YAML::Load(text);
  const Map m(root, kDataPath, "the library", {"format", "compressibility", "materials", "sources"});
  if (m.integer("format", 0) != 1) scene_detail::fail(m.where(), "format: expected 1");
  MaterialLibrary lib;
  const Map c(m.need("compressibility", "poisson, why"), kDataPath, "compressibility", {"poisson", "why"});
  lib.default_poisson = c.number("poisson", "Poisson's ratio");
  lib.default_poisson_reason = c.string("why", "");
  const std::vector<YAML::Node> sources = scene_detail::as_list(m.need("sources", "the sources"), kDataPath, "sources");
  for (size_t i = 0; i < sources.size(); ++i)
    lib.sources.push_back(read_source(sources[i], scene_detail::item("sources", i)));
  const std::vector<YAML::Node> materials =
      scene_detail::as_list(m.need("materials", "the materials"), kDataPath, "materials");
  for (size_t i = 0; i < materials.size(); ++i)
    lib.materials.push_back(read_material(materials[i], scene_detail::item("materials", i)));
  // Every reference resolves, every name is unique.
  for (const LibraryMaterial& mat : lib.materials) {
    if (std::count_if(lib.materials.begin(), lib.materials.end(),
                      [&](const LibraryMaterial& o) { return o.name == mat.name; }) != 1)
      throw Error(std::string(kDataPath) + ": material '" + mat.name + "' is listed twice", ErrorKind::Internal);
    std::vector<std::string> refs = {mat.density_source, mat.datasheet_source};
    for (const MaterialFit& f : mat.fits) refs.push_back(f.source);
    for (const std::string& r : refs)
      if (!r.empty()) (void)lib.source(r);
  }
  return lib;
}

/// Lower case without '-', '_', '.' and spaces, for "did you mean".
std::string folded(const std::string& s) {
  std::string out;
  for (char ch : s)
    if (ch != '-' && ch != '_' && ch != '.' && ch != ' ')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

/// The constants of `law` named `name` (an Error naming the law if absent).
const std::vector<Real>& all(const LawConstants& c, const std::string& law, const std::string& name) {
  SOFTIK_CHECK(c.has(name), law << ": missing the constant " << name);
  return c.get(name);
}

Real one(const LawConstants& c, const std::string& law, const std::string& name) {
  const std::vector<Real>& v = all(c, law, name);
  SOFTIK_CHECK(v.size() == 1, law << ": " << name << " must be one number, got " << v.size());
  return v[0];
}

}  // namespace

bool LawConstants::has(const std::string& name) const {
  return std::any_of(values.begin(), values.end(), [&](const auto& kv) { return kv.first == name; });
}

const std::vector<Real>& LawConstants::get(const std::string& name) const {
  for (const auto& kv : values)
    if (kv.first == name) return kv.second;
  throw Error("missing the constant " + name);
}

Real LawConstants::scalar(const std::string& name, Real fallback) const {
  if (!has(name)) return fallback;
  const std::vector<Real>& v = get(name);
  SOFTIK_CHECK(v.size() == 1, name << " must be one number, got " << v.size());
  return v[0];
}

void LawConstants::set(const std::string& name, std::vector<Real> v) {
  for (auto& kv : values)
    if (kv.first == name) {
      kv.second = std::move(v);
      return;
    }
  values.emplace_back(name, std::move(v));
}

const MaterialFit& LibraryMaterial::default_fit() const {
  for (const MaterialFit& f : fits)
    if (f.is_default) return f;
  throw Error(name + " has no default fit", ErrorKind::Internal);
}

std::vector<std::string> LibraryMaterial::laws() const {
  std::vector<std::string> out;
  for (const MaterialFit& f : fits)
    if (std::find(out.begin(), out.end(), f.law) == out.end()) out.push_back(f.law);
  return out;
}

const LibraryMaterial* MaterialLibrary::find(const std::string& name) const {
  for (const LibraryMaterial& m : materials)
    if (m.name == name) return &m;
  return nullptr;
}

const MaterialSource& MaterialLibrary::source(const std::string& id) const {
  for (const MaterialSource& s : sources)
    if (s.id == id) return s;
  throw Error(std::string(kDataPath) + ": no source '" + id + "'", ErrorKind::Internal);
}

std::vector<std::string> MaterialLibrary::names() const {
  std::vector<std::string> out;
  for (const LibraryMaterial& m : materials) out.push_back(m.name);
  return out;
}

std::string MaterialLibrary::closest(const std::string& name) const {
  std::string best;
  size_t best_distance = 0;
  for (const LibraryMaterial& m : materials) {
    const size_t d = edit_distance(folded(name), folded(m.name));
    if (best.empty() || d < best_distance) {
      best = m.name;
      best_distance = d;
    }
  }
  return best;
}

const char* material_library_yaml() { return scene_detail::kMaterialLibraryYaml; }

const MaterialLibrary& material_library() {
  static const MaterialLibrary lib = [] {
    try {
      return read_library(scene_detail::kMaterialLibraryYaml);
    } catch (const Error& e) {
      throw Error(std::string("softik's materials library is malformed: ") + e.what(), ErrorKind::Internal);
    } catch (const YAML::Exception& e) {
      throw Error(std::string("softik's materials library is malformed: ") + e.what(), ErrorKind::Internal);
    }
  }();
  return lib;
}

LawConstants library_constants(const MaterialFit& fit) {
  const Real pa = pascals_per(fit.unit);
  LawConstants c;
  for (const auto& [name, values] : fit.published.values) {
    std::vector<Real> v = values;
    if (name == "D1") {
      for (Real& x : v) x /= pa;  // 1/unit -> 1/Pa
    } else if (name != "alpha") {
      for (Real& x : v) x *= pa;
    }
    c.set(name, v);
  }
  if (fit.convention == "ogden_1972") {  // W = sum mu_i/alpha_i (...) -> sum 2 mu_p/alpha_p^2 (...)
    const std::vector<Real>& alpha = fit.published.get("alpha");
    std::vector<Real> mu = c.get("mu");
    SOFTIK_CHECK(mu.size() == alpha.size(), fit.id << ": as many mu as alpha");
    for (size_t p = 0; p < mu.size(); ++p) mu[p] *= alpha[p] / 2;
    c.set("mu", mu);
  }
  return c;
}

Real initial_shear_modulus(const std::string& law, const LawConstants& c) {
  if (law == "neo_hookean_decoupled" || law == "yeoh") return 2 * one(c, law, "C10");
  if (law == "mooney_rivlin") return 2 * (one(c, law, "C10") + one(c, law, "C01"));
  if (law == "ogden") {
    Real mu0 = 0;
    for (Real mu : all(c, law, "mu")) mu0 += mu;
    return mu0;
  }
  return one(c, law, "mu");
}

Real d1_from_poisson(Real mu0, Real nu) {
  SOFTIK_CHECK(std::isfinite(nu) && nu > -1 && nu < 0.5,
               "Poisson's ratio nu = " << nu << " is out of range; valid range is -1 < nu < 0.5");
  SOFTIK_CHECK(std::isfinite(mu0) && mu0 > 0, "the initial shear modulus mu0 = " << mu0 << " must be > 0");
  return 3 * (1 - 2 * nu) / (mu0 * (1 + nu));
}

Material make_material(const std::string& law, const LawConstants& c, fem::Volumetric vol) {
  auto d1 = [&] { return one(c, law, "D1"); };
  if (law == "linear") return fem::LinearElastic::from_lame(one(c, law, "lambda"), one(c, law, "mu"));
  if (law == "saint_venant_kirchhoff")
    return fem::SaintVenantKirchhoff::from_lame(one(c, law, "lambda"), one(c, law, "mu"));
  if (law == "neo_hookean") return fem::NeoHookean::from_lame(one(c, law, "lambda"), one(c, law, "mu"));
  if (law == "stable_neo_hookean") return fem::StableNeoHookean::from_lame(one(c, law, "lambda"), one(c, law, "mu"));
  if (law == "neo_hookean_decoupled")  // Mooney-Rivlin with C01 = 0 when U(J) is not the D1 form
    return vol == fem::Volumetric::D1Form
               ? Material(fem::NeoHookeanD1::from_constants(one(c, law, "C10"), d1()))
               : Material(fem::MooneyRivlin::from_constants(one(c, law, "C10"), 0.0, d1(), vol));
  if (law == "mooney_rivlin")
    return fem::MooneyRivlin::from_constants(one(c, law, "C10"), one(c, law, "C01"), d1(), vol);
  if (law == "yeoh")
    return fem::Yeoh::from_constants(one(c, law, "C10"), c.scalar("C20", 0), c.scalar("C30", 0), d1(), vol);
  if (law == "arruda_boyce")
    return fem::ArrudaBoyce::from_constants(one(c, law, "mu"), one(c, law, "lambda_m"), d1(), vol);
  SOFTIK_CHECK(law == "ogden", "unknown law '" << law
                                               << "'; one of: linear, saint_venant_kirchhoff, neo_hookean, "
                                                  "neo_hookean_decoupled, stable_neo_hookean, mooney_rivlin, ogden, "
                                                  "yeoh, arruda_boyce");
  const std::vector<Real>& mu = all(c, law, "mu");
  const std::vector<Real>& alpha = all(c, law, "alpha");
  SOFTIK_CHECK(!mu.empty() && mu.size() <= 3, "Ogden: expected 1 to 3 moduli mu_i, got " << mu.size());
  SOFTIK_CHECK(alpha.size() == mu.size(),
               "Ogden: expected as many exponents as moduli (" << mu.size() << "), got " << alpha.size());
  std::array<Real, 3> m{0, 0, 0}, a{2, 2, 2};  // unused terms: mu = 0 (alpha = 2, inert)
  for (size_t p = 0; p < mu.size(); ++p) {
    m[p] = mu[p];
    a[p] = alpha[p];
  }
  return fem::Ogden<3>::from_constants(m, a, d1(), vol);
}

Material make_library_material(const std::string& name, const std::string& fit_id) {
  const MaterialLibrary& lib = material_library();
  const LibraryMaterial* mat = lib.find(name);
  SOFTIK_CHECK(mat, "unknown material '" << name << "'; did you mean '" << lib.closest(name)
                                         << "'? Known materials: " << join(lib.names()));
  const MaterialFit* fit = &mat->default_fit();
  if (!fit_id.empty()) {
    fit = nullptr;
    std::vector<std::string> ids;
    for (const MaterialFit& f : mat->fits) {
      ids.push_back(f.id);
      if (f.id == fit_id) fit = &f;
    }
    SOFTIK_CHECK(fit, name << " has no fit '" << fit_id << "'; its fits: " << join(ids));
  }
  LawConstants c = library_constants(*fit);
  if (!c.has("D1")) c.set("D1", {d1_from_poisson(initial_shear_modulus(fit->law, c), lib.default_poisson)});
  return make_material(fit->law, c);
}

}  // namespace softik
