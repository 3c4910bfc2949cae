// `materials:` entries of a scene: law names, their parameters (young/poisson or the law's own
// constants as named in include/softik/fem/materials/*.hpp) and regions.
#include <algorithm>
#include <string>
#include <vector>

#include "host/scene/scene_yaml.hpp"
#include "softik/error.hpp"

namespace softik::scene_detail {

namespace {

struct LawInfo {
  const char* name;
  std::vector<std::string> constants;  ///< the law's own constants (all required unless optional)
  std::vector<std::string> optional;   ///< constants that default to 0
  std::vector<std::string> with_young; ///< extra keys allowed (and used) with young/poisson
  bool volumetric;                     ///< has a selectable volumetric term
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

/// Ogden terms: 1 to 3 (mu_i, alpha_i); unused terms of Ogden<3> get mu = 0 (alpha = 2, inert).
struct OgdenTerms {
  std::array<Real, 3> mu{0, 0, 0};
  std::array<Real, 3> alpha{2, 2, 2};
};

std::vector<Real> ogden_list(const Map& m, const std::string& key) {
  const std::vector<Real> v = as_numbers(m.at(key), m.path(), m.name(key));
  if (v.empty() || v.size() > 3)
    fail(m.where(key), m.name(key) + ": expected a list of 1 to 3 numbers (one per Ogden term), got " +
                           std::to_string(v.size()));
  return v;
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
    OgdenTerms t;
    for (size_t p = 0; p < alpha.size(); ++p) {
      t.mu[p] = sb.mu / static_cast<Real>(alpha.size());
      t.alpha[p] = alpha[p];
    }
    return fem::Ogden<3>::from_constants(t.mu, t.alpha, sb.D1, vol);
  }
  auto c = [&](const std::string& key) {
    return contains(law.optional, key) ? m.number(key, 0.0) : m.number(key, "the law's constant " + key);
  };
  if (name == "linear") return fem::LinearElastic::from_lame(c("lambda"), c("mu"));
  if (name == "saint_venant_kirchhoff") return fem::SaintVenantKirchhoff::from_lame(c("lambda"), c("mu"));
  if (name == "neo_hookean") return fem::NeoHookean::from_lame(c("lambda"), c("mu"));
  if (name == "stable_neo_hookean") return fem::StableNeoHookean::from_lame(c("lambda"), c("mu"));
  if (name == "neo_hookean_decoupled")
    return vol == fem::Volumetric::D1Form ? Material(fem::NeoHookeanD1::from_constants(c("C10"), c("D1")))
                                          : Material(fem::MooneyRivlin::from_constants(c("C10"), 0.0, c("D1"), vol));
  if (name == "mooney_rivlin") return fem::MooneyRivlin::from_constants(c("C10"), c("C01"), c("D1"), vol);
  if (name == "yeoh") return fem::Yeoh::from_constants(c("C10"), c("C20"), c("C30"), c("D1"), vol);
  if (name == "arruda_boyce") return fem::ArrudaBoyce::from_constants(c("mu"), c("lambda_m"), c("D1"), vol);
  m.need("mu", "the Ogden moduli mu_i, a list of 1 to 3 numbers");
  m.need("alpha", "the Ogden exponents alpha_i, a list as long as mu");
  const std::vector<Real> mu = ogden_list(m, "mu"), alpha = ogden_list(m, "alpha");
  if (mu.size() != alpha.size())
    fail(m.where("alpha"), m.name("alpha") + ": expected as many exponents as moduli (" + std::to_string(mu.size()) +
                               "), got " + std::to_string(alpha.size()));
  OgdenTerms t;
  for (size_t p = 0; p < mu.size(); ++p) {
    t.mu[p] = mu[p];
    t.alpha[p] = alpha[p];
  }
  return fem::Ogden<3>::from_constants(t.mu, t.alpha, c("D1"), vol);
}

}  // namespace

SceneMaterial parse_material(const YAML::Node& node, const std::string& path, const std::string& what) {
  // First find the law, so that the allowed keys can be those of the law.
  if (!node.IsMap()) Map(node, path, what, {"law", "region", "young", "poisson"});
  YAML::Node law_node;
  bool has_law = false;
  for (auto it = node.begin(); it != node.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == "law") {
      law_node = it->second;
      has_law = true;
    }
  if (!has_law) fail(location(path, node), what + ": missing required key 'law' (one of: " + join(law_names()) + ")");
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
  result.region = m.string("region", "");
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
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                    ch == '-' || ch == '.';
    if (!ok)
      fail(location(path, node), what + ": '" + name +
                                     "' is not a valid name; use letters, digits, '_', '-' or '.' (it names CSV "
                                     "columns and files)");
  }
}

}  // namespace softik::scene_detail
