// `materials:` entries of a scene: law names, their parameters (young/poisson or the law's own
// constants as named in include/softik/fem/materials/*.hpp), or a named material of the library
// (`material: ecoflex_00_30`, include/softik/material_library.hpp) with overrides; and regions.
#include <algorithm>
#include <string>
#include <vector>

#include "host/io/path_component.hpp"
#include "host/scene/parse/scene_yaml.hpp"
#include "softik/error.hpp"
#include "softik/material_library.hpp"

namespace softik::scene_detail {

namespace {

/// `region`: a cell group's name, or a shape {box: ...} / {sphere: ...} whose cells (by centroid)
/// take the material.
void read_region(const Map& m, SceneMaterial& result) {
  if (m.has("region") && m.at("region").IsMap()) {
    result.region_shape = true;
    result.shape = parse_selection(Map(m.at("region"), m.path(), m.name("region"), {"box", "sphere"}));
    return;
  }
  result.region = m.string("region", "");
}

struct LawInfo {
  const char* name;
  std::vector<std::string> constants;   ///< the law's own constants (all required unless optional)
  std::vector<std::string> optional;    ///< constants that default to 0
  std::vector<std::string> with_young;  ///< extra keys allowed (and used) with young/poisson
  bool volumetric;                      ///< has a selectable volumetric term
};

const std::vector<LawInfo>& laws() {
  static const std::vector<LawInfo> table = {
      {"linear", {"lambda", "mu"}, {}, {}, false},
      {"saint_venant_kirchhoff", {"lambda", "mu"}, {}, {}, false},
      {"neo_hookean", {"lambda", "mu"}, {}, {}, false},
      {"neo_hookean_decoupled", {"C10", "D1"}, {}, {}, true},
      {"stable_neo_hookean", {"lambda", "mu"}, {}, {}, false},
      {"mooney_rivlin", {"C10", "C01", "D1"}, {}, {"c01_share"}, true},
      {"ogden", {"mu", "alpha", "D1"}, {}, {"alpha"}, true},
      {"yeoh", {"C10", "C20", "C30", "D1"}, {"C20", "C30"}, {}, true},
      {"arruda_boyce", {"mu", "lambda_m", "D1"}, {}, {"lambda_m"}, true},
  };
  return table;
}

/// Older names, kept: each means its law exactly (documented in docs/scene-format.md).
const std::vector<std::pair<std::string, std::string>>& aliases() {
  static const std::vector<std::pair<std::string, std::string>> table = {
      {"neo_hookean_d1", "neo_hookean_decoupled"},  // before every decoupled law took volumetric:
  };
  return table;
}

/// The laws' names, then their aliases (as_choice's list).
std::vector<std::string> law_names() {
  std::vector<std::string> names;
  for (const LawInfo& l : laws()) names.emplace_back(l.name);
  for (const auto& a : aliases()) names.push_back(a.first);
  return names;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) s += (i ? ", " : "") + words[i];
  return s;
}

std::vector<Real> ogden_list(const Map& m, const std::string& key) {
  const std::vector<Real> v = as_numbers(m.at(key), m.path(), m.name(key));
  if (v.empty() || v.size() > 3)
    fail(m.where(key),
         m.name(key) + ": expected a list of 1 to 3 numbers (one per Ogden term), got " + std::to_string(v.size()));
  return v;
}

/// As many exponents as moduli, the error at the entry's key that set the list last.
void check_ogden_terms(const Map& m, const LawConstants& c) {
  const size_t n_mu = c.get("mu").size(), n_alpha = c.get("alpha").size();
  if (n_mu != n_alpha) {
    const std::string key = m.has("alpha") ? "alpha" : "mu";
    fail(m.where(key), m.name(key) + ": expected as many exponents as moduli (" + std::to_string(n_mu) + "), got " +
                           std::to_string(n_alpha));
  }
}

Material make_material(const LawInfo& law, const Map& m, bool young_mode) {
  const std::string name = law.name;
  fem::Volumetric vol = name == "arruda_boyce" ? fem::Volumetric::JSquaredLog : fem::Volumetric::D1Form;
  if (law.volumetric)
    vol = static_cast<fem::Volumetric>(
        m.choice("volumetric", {"log_squared", "d1_form", "j_squared_log"}, static_cast<int>(vol)));
  if (young_mode) {
    const Real E = m.number("young", "Young's modulus E, e.g. 2e5 (Pa)");
    const Real nu = m.number("poisson", "Poisson's ratio nu, -1 < nu < 0.5, e.g. 0.45");
    if (name == "linear") return fem::LinearElastic::from_young_poisson(E, nu);
    if (name == "saint_venant_kirchhoff") return fem::SaintVenantKirchhoff::from_young_poisson(E, nu);
    if (name == "neo_hookean") return fem::NeoHookean::from_young_poisson(E, nu);
    if (name == "neo_hookean_decoupled")  // Mooney-Rivlin with C01 = 0 when U(J) is not the D1 form
      return vol == fem::Volumetric::D1Form ? Material(fem::NeoHookeanD1::from_young_poisson(E, nu))
                                            : Material(fem::MooneyRivlin::from_young_poisson(E, nu, vol, 0.0));
    if (name == "stable_neo_hookean") return fem::StableNeoHookean::from_young_poisson(E, nu);
    if (name == "mooney_rivlin") return fem::MooneyRivlin::from_young_poisson(E, nu, vol, m.number("c01_share", 0.0));
    if (name == "yeoh") return fem::Yeoh::from_young_poisson(E, nu, vol);
    if (name == "arruda_boyce")
      return fem::ArrudaBoyce::from_young_poisson(E, nu, m.number("lambda_m", "the locking stretch, e.g. 7"), vol);
    // ogden: the initial shear modulus split evenly over the given terms
    const std::vector<Real> alpha = m.has("alpha") ? ogden_list(m, "alpha") : std::vector<Real>{2.0};
    const fem::detail::ShearBulk sb = fem::detail::shear_and_D1_from_young_poisson("Ogden", E, nu);
    LawConstants c;
    c.set("mu", std::vector<Real>(alpha.size(), sb.mu / static_cast<Real>(alpha.size())));
    c.set("alpha", alpha);
    c.set("D1", {sb.D1});
    return softik::make_material("ogden", c, vol);
  }
  LawConstants c;
  for (const std::string& key : law.constants) {
    if (name == "ogden" && key != "D1") {
      m.need(key, key == "mu" ? "the Ogden moduli mu_i, a list of 1 to 3 numbers"
                              : "the Ogden exponents alpha_i, a list as long as mu");
      c.set(key, ogden_list(m, key));
    } else if (contains(law.optional, key)) {
      c.set(key, {m.number(key, 0.0)});
    } else {
      c.set(key, {m.number(key, "the law's constant " + key)});
    }
  }
  if (name == "ogden") check_ogden_terms(m, c);
  return softik::make_material(name, c, vol);
}

/// The value of `key` in the map `node`, if there (read before the strict Map is opened, whose
/// allowed keys depend on it).
bool find_key(const YAML::Node& node, const std::string& key, YAML::Node& value) {
  for (auto it = node.begin(); it != node.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      value = it->second;
      return true;
    }
  return false;
}

const LawInfo& law_info(const std::string& name) {
  for (const LawInfo& l : laws())
    if (name == l.name) return l;
  throw Error("no law '" + name + "'", ErrorKind::Internal);
}

std::vector<std::string> fit_ids(const std::vector<const MaterialFit*>& fits) {
  std::vector<std::string> ids;
  for (const MaterialFit* f : fits) ids.push_back(f->id);
  return ids;
}

/// Which of the material's fits an entry picks: `fit:`, else the one fit of `law:` (the
/// default fit when it is of that law), else the material's default fit.
const MaterialFit& pick_fit(const LibraryMaterial& mat, const YAML::Node& node, const std::string& path,
                            const std::string& what) {
  std::vector<const MaterialFit*> fits;
  for (const MaterialFit& f : mat.fits) fits.push_back(&f);
  YAML::Node law_node, fit_node;
  const bool has_law = find_key(node, "law", law_node);
  if (has_law) {
    std::string law = as_string(law_node, path, what + ".law");
    for (const auto& a : aliases())
      if (a.first == law) law = a.second;
    fits.erase(std::remove_if(fits.begin(), fits.end(), [&](const MaterialFit* f) { return f->law != law; }),
               fits.end());
    if (fits.empty())
      fail(location(path, law_node), what + ".law: the library has no published fit of the law '" + law + "' for " +
                                         mat.name + "; laws available for it: " + join(mat.laws()) +
                                         " (docs/materials.md)");
  }
  if (find_key(node, "fit", fit_node)) {
    const std::string id = as_string(fit_node, path, what + ".fit");
    for (const MaterialFit* f : fits)
      if (f->id == id) return *f;
    fail(location(path, fit_node), what + ".fit: " + mat.name + " has no fit '" + id + "'" +
                                       (has_law ? " of the law '" + fits.front()->law + "'" : std::string()) +
                                       "; its fits: " + join(fit_ids(fits)));
  }
  for (const MaterialFit* f : fits)
    if (f->is_default) return *f;
  if (fits.size() > 1)
    fail(location(path, law_node), what + ": " + mat.name + " has " + std::to_string(fits.size()) +
                                       " fits of the law '" + fits.front()->law + "'; choose one with fit: (" +
                                       join(fit_ids(fits)) + ")");
  return *fits.front();
}

/// `material: <name>` (docs/materials.md): a fit of the library, its constants converted to
/// softik's convention, overridden by any constant the entry gives (in softik's convention and
/// the scene's units); D1 from the entry, else from its `poisson` and the fit's initial shear
/// modulus, else from the library's Poisson's ratio; `volumetric` d1_form unless given.
SceneMaterial library_material(const YAML::Node& node, const std::string& path, const std::string& what) {
  YAML::Node name_node;
  find_key(node, "material", name_node);
  const MaterialLibrary& lib = material_library();
  const std::string name = as_string(name_node, path, what + ".material");
  const LibraryMaterial* mat = lib.find(name);
  if (!mat)
    fail(location(path, name_node), what + ".material: unknown material '" + name + "'; did you mean '" +
                                        lib.closest(name) + "'? The library's materials: " + join(lib.names()) +
                                        " (docs/materials.md)");
  const MaterialFit& fit = pick_fit(*mat, node, path, what);
  const LawInfo& law = law_info(fit.law);

  std::vector<std::string> allowed = {"material", "law", "fit", "region", "volumetric", "poisson"};
  for (const std::string& k : law.constants) allowed.push_back(k);
  const Map m(node, path, what, allowed);
  m.exclusive({"D1", "poisson"}, false,
              "give D1, or Poisson's ratio (D1 then follows from it and the fit's initial shear modulus)");
  const auto vol = static_cast<fem::Volumetric>(
      m.choice("volumetric", {"log_squared", "d1_form", "j_squared_log"}, static_cast<int>(fem::Volumetric::D1Form)));
  LawConstants c = library_constants(fit);
  for (const std::string& key : law.constants)
    if (key != "D1" && m.has(key))
      c.set(key, fit.law == "ogden" ? ogden_list(m, key) : std::vector<Real>{m.number(key, 0.0)});
  if (fit.law == "ogden") check_ogden_terms(m, c);

  SceneMaterial result;
  result.law = fit.law;
  read_region(m, result);
  result.where = m.where();
  try {
    if (m.has("D1"))
      c.set("D1", {m.number("D1", 0.0)});
    else if (m.has("poisson") || !c.has("D1"))
      c.set("D1", {d1_from_poisson(initial_shear_modulus(fit.law, c), m.number("poisson", lib.default_poisson))});
    result.material = softik::make_material(fit.law, c, vol);
  } catch (const LocatedError&) {
    throw;
  } catch (const Error& e) {
    fail(m.where(), what + " (" + name + ", fit " + fit.id + "): " + e.what());
  }
  return result;
}

}  // namespace

SceneMaterial parse_material(const YAML::Node& node, const std::string& path, const std::string& what) {
  // First find the law (or the named material), so that the allowed keys can be those of the law.
  if (!node.IsMap()) Map(node, path, what, {"law", "material", "region", "young", "poisson"});
  YAML::Node law_node;
  if (find_key(node, "material", law_node)) return library_material(node, path, what);
  if (!find_key(node, "law", law_node))
    fail(location(path, node), what + ": missing required key 'law' (one of: " + join(law_names()) +
                                   "), or 'material' (a named material: " + join(material_library().names()) + ")");
  size_t index = static_cast<size_t>(as_choice(law_node, path, what + ".law", law_names()));
  if (index >= laws().size()) {  // an alias: its law
    const std::string& target = aliases()[index - laws().size()].second;
    index = 0;
    while (laws()[index].name != target) ++index;
  }
  const LawInfo& law = laws()[index];

  std::vector<std::string> allowed = {"law", "region", "young", "poisson"};
  for (const std::string& k : law.constants) allowed.push_back(k);
  for (const std::string& k : law.with_young)
    if (!contains(allowed, k)) allowed.push_back(k);
  if (law.volumetric) allowed.push_back("volumetric");
  const Map m(node, path, what, allowed);

  const bool young_mode = m.has("young") || m.has("poisson");
  std::vector<std::string> own;  // constants not allowed together with young/poisson
  for (const std::string& k : law.constants)
    if (!contains(law.with_young, k)) own.push_back(k);
  if (young_mode) {
    for (const std::string& k : own)
      if (m.has(k))
        fail(m.key_where(k), what + ": give either young and poisson, or the constants of " + law.name + " (" +
                                 join(law.constants) + "), not both");
  } else {
    for (const std::string& k : law.with_young)
      if (!contains(law.constants, k) && m.has(k))
        fail(m.key_where(k), what + ": '" + k + "' is used only with young and poisson");
    bool any = false;
    for (const std::string& k : own) any = any || m.has(k);
    if (!any)
      fail(m.where(), what + ": missing the material parameters: give young and poisson, or the constants of " +
                          law.name + " (" + join(law.constants) + ")");
  }

  SceneMaterial result;
  result.law = law.name;
  read_region(m, result);
  result.where = m.where();
  try {
    result.material = make_material(law, m, young_mode);
  } catch (const LocatedError&) {
    throw;  // already located (a scene type error)
  } catch (const Error& e) {
    fail(m.where(), what + " (" + law.name + "): " + e.what());
  }
  return result;
}

void check_name(const YAML::Node& node, const std::string& path, const std::string& what, const std::string& name) {
  const std::string problem = detail::path_component_problem(name);
  if (!problem.empty())
    fail(location(path, node), what + ": '" + name + "' is not a valid name (" + problem +
                                   "); use letters, digits, '_', '-' or '.', not '.' or '..' alone (it names CSV "
                                   "columns and files)");
}

}  // namespace softik::scene_detail
