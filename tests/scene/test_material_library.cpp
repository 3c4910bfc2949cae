// The materials library (include/softik/material_library.hpp, data/materials.yaml,
// docs/materials.md): every entry complete and sourced; softik's laws against their closed-form
// uniaxial stresses (the conventions: C10 vs mu/2, Ogden's mu_i); every fit reproducing its
// source's own uniaxial formula from the constants as printed; and `material:` in scenes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/scene_test_support.hpp"
#include "softik/material_library.hpp"
#include "softik/scene.hpp"

namespace softik {
namespace {

/// Nominal (first Piola-Kirchhoff) axial stress of an incompressible uniaxial tension at stretch
/// `lam`, through the law's own P(F): F = diag(lam, lam^-1/2, lam^-1/2) has J = 1, where the
/// volumetric term of every decoupled law vanishes; the hydrostatic pressure that frees the
/// lateral faces is then removed: sigma = sigma11 - sigma22 with sigma11 = P11 lam and
/// sigma22 = P22 lam^-1/2, and P = sigma / lam.
Real incompressible_uniaxial(const Material& material, Real lam) {
  return std::visit(
      [&](const auto& law) {
        fem::Mat3 F = fem::Mat3::Zero();
        F(0, 0) = lam;
        F(1, 1) = F(2, 2) = 1 / std::sqrt(lam);
        const fem::Mat3 P = law.P(F);
        return P(0, 0) - P(1, 1) * std::pow(lam, -1.5);
      },
      material);
}

/// Uniaxial tension of the compressible law: the lateral stretch t of F = diag(lam, t, t) is
/// solved (bisection) so that the lateral stress P22 is zero; the axial P11 and J = lam t^2.
struct Uniaxial {
  Real P;
  Real J;
};
Uniaxial compressible_uniaxial(const Material& material, Real lam) {
  auto stress = [&](Real t) {
    return std::visit(
        [&](const auto& law) {
          fem::Mat3 F = fem::Mat3::Zero();
          F(0, 0) = lam;
          F(1, 1) = F(2, 2) = t;
          return law.P(F);
        },
        material);
  };
  // The lateral stretch is within 30 % of the incompressible lam^-1/2 for every law and stretch
  // tested (J within about 0.8 to 1.2); far outside, where a fit with C30 < 0 is no longer a
  // stable law, P22 need not change sign.
  Real lo = 0.7 / std::sqrt(lam), hi = 1.3 / std::sqrt(lam);  // P22 < 0 at lo, > 0 at hi
  EXPECT_LT(stress(lo)(1, 1), 0);
  EXPECT_GT(stress(hi)(1, 1), 0);
  for (int i = 0; i < 200; ++i) {
    const Real mid = 0.5 * (lo + hi);
    (stress(mid)(1, 1) < 0 ? lo : hi) = mid;
  }
  const Real t = 0.5 * (lo + hi);
  return {stress(t)(0, 0), lam * t * t};
}

// Closed-form incompressible uniaxial nominal stresses (Abaqus/CalculiX conventions, the ones
// include/softik/fem/materials/*.hpp implement), I1 = lam^2 + 2/lam.
Real neo_hookean_P(Real C10, Real lam) { return 2 * C10 * (lam - 1 / (lam * lam)); }
Real mooney_rivlin_P(Real C10, Real C01, Real lam) { return 2 * (lam - 1 / (lam * lam)) * (C10 + C01 / lam); }
Real yeoh_P(Real C10, Real C20, Real C30, Real lam) {
  const Real x = lam * lam + 2 / lam - 3;
  return 2 * (lam - 1 / (lam * lam)) * (C10 + 2 * C20 * x + 3 * C30 * x * x);
}
Real ogden_P(const std::vector<Real>& mu, const std::vector<Real>& alpha, Real lam) {
  Real P = 0;  // psi = sum 2 mu_p / alpha_p^2 (...): P = sum 2 mu_p / alpha_p (lam^(a-1) - lam^(-a/2-1))
  for (size_t p = 0; p < mu.size(); ++p)
    P += 2 * mu[p] / alpha[p] * (std::pow(lam, alpha[p] - 1) - std::pow(lam, -alpha[p] / 2 - 1));
  return P;
}

/// Pascals per unit of a fit's printed stress-like constants and data.
Real pascals(const MaterialFit& fit) { return fit.unit == "MPa" ? 1e6 : fit.unit == "kPa" ? 1e3 : 1; }

/// The uniaxial nominal stress a source's own formula gives, from the constants exactly as it
/// printed them (its convention and unit): what each fit must reproduce.
Real source_formula_P(const MaterialFit& fit, Real lam) {
  const Real unit = pascals(fit);
  const LawConstants& c = fit.published;
  if (fit.convention == "ogden_1972") {  // Ogden 1972: T = sum mu_i (lam^a_i - lam^(-a_i/2)), P = T / lam
    Real T = 0;
    for (size_t i = 0; i < c.get("mu").size(); ++i)
      T += c.get("mu")[i] * (std::pow(lam, c.get("alpha")[i]) - std::pow(lam, -c.get("alpha")[i] / 2));
    return unit * T / lam;
  }
  if (fit.law == "neo_hookean_decoupled") return unit * neo_hookean_P(c.scalar("C10", 0), lam);
  if (fit.law == "mooney_rivlin") return unit * mooney_rivlin_P(c.scalar("C10", 0), c.scalar("C01", 0), lam);
  if (fit.law == "yeoh") return unit * yeoh_P(c.scalar("C10", 0), c.scalar("C20", 0), c.scalar("C30", 0), lam);
  return unit * ogden_P(c.get("mu"), c.get("alpha"), lam);
}

Real rel(Real a, Real b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

const std::vector<Real> kStretches = {0.6, 0.9, 1.05, 1.5, 2.0, 3.0, 4.0};

TEST(MaterialLibrary, EveryEntryIsCompleteSourcedAndBuilds) {
  const MaterialLibrary& lib = material_library();
  ASSERT_FALSE(lib.materials.empty());
  EXPECT_GT(lib.default_poisson, 0.45);
  EXPECT_LT(lib.default_poisson, 0.5);
  EXPECT_FALSE(lib.default_poisson_reason.empty());
  for (const LibraryMaterial& m : lib.materials) {
    SCOPED_TRACE(m.name);
    EXPECT_EQ(lib.find(m.name), &m);
    EXPECT_EQ(lib.closest(m.name), m.name);
    for (char ch : m.name) EXPECT_TRUE((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_');
    if (m.density > 0) {  // kg/m^3 of a silicone, and its source
      EXPECT_GT(m.density, 900);
      EXPECT_LT(m.density, 1500);
      EXPECT_FALSE(m.density_published.empty());
      EXPECT_FALSE(lib.source(m.density_source).citation.empty());
    }
    ASSERT_FALSE(m.fits.empty());
    EXPECT_TRUE(m.default_fit().is_default);
    for (const MaterialFit& f : m.fits) {
      SCOPED_TRACE(f.id);
      const MaterialSource& s = lib.source(f.source);
      EXPECT_FALSE(s.citation.empty());
      EXPECT_FALSE(s.doi.empty() && s.url.empty());
      EXPECT_FALSE(s.read.empty());
      EXPECT_FALSE(f.where.empty());
      EXPECT_FALSE(f.test.empty());
      EXPECT_FALSE(f.strain_range.empty());
      const Material built = make_library_material(m.name, f.id);
      const char* expected = f.law == "ogden"                   ? "Ogden"
                             : f.law == "neo_hookean_decoupled" ? "NeoHookeanD1"
                             : f.law == "mooney_rivlin"         ? "MooneyRivlin"
                                                                : "Yeoh";
      EXPECT_STREQ(material_name(built), expected);
    }
  }
  EXPECT_EQ(lib.find("ecoflex_0030"), nullptr);
  EXPECT_EQ(lib.closest("Ecoflex 00-30"), "ecoflex_00_30");
  EXPECT_EQ(lib.closest("ecoflex_0030"), "ecoflex_00_30");
  EXPECT_EQ(lib.closest("elastosil"), "elastosil_m4601");
  EXPECT_NE(std::string(material_library_yaml()).find("ecoflex_00_30"), std::string::npos);
  auto error_of = [](const std::string& name, const std::string& fit) -> std::string {
    try {
      (void)make_library_material(name, fit);
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(error_of("ecoflex_0030", "").find("unknown material 'ecoflex_0030'; did you mean 'ecoflex_00_30'?"),
            std::string::npos);
  EXPECT_NE(error_of("ecoflex_00_30", "yeoh")
                .find("ecoflex_00_30 has no fit 'yeoh'; its fits: steck2019_ogden3, marechal2021_yeoh3"),
            std::string::npos)
      << error_of("ecoflex_00_30", "yeoh");
  LawConstants missing;
  missing.set("C10", {1.0e5});
  try {
    (void)make_material("yeoh", missing);
    FAIL() << "a Yeoh law without D1";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("yeoh: missing the constant D1"), std::string::npos) << e.what();
  }
}

TEST(MaterialLibrary, ConstantsAreConvertedToSoftiksConventionAndPascals) {
  MaterialFit abaqus;  // Abaqus Ogden in MPa, D1 in 1/MPa: units only
  abaqus.id = "a";
  abaqus.law = "ogden";
  abaqus.convention = "abaqus";
  abaqus.unit = "MPa";
  abaqus.published.set("mu", {0.5, -0.01});
  abaqus.published.set("alpha", {2.5, -3});
  abaqus.published.set("D1", {0.2});
  LawConstants c = library_constants(abaqus);
  EXPECT_DOUBLE_EQ(c.get("mu")[0], 0.5e6);
  EXPECT_DOUBLE_EQ(c.get("mu")[1], -0.01e6);
  EXPECT_DOUBLE_EQ(c.get("alpha")[1], -3);
  EXPECT_DOUBLE_EQ(c.scalar("D1", 0), 0.2e-6);

  MaterialFit ogden = abaqus;  // Ogden 1972 in kPa: mu_p = mu_i alpha_i / 2
  ogden.convention = "ogden_1972";
  ogden.unit = "kPa";
  c = library_constants(ogden);
  EXPECT_DOUBLE_EQ(c.get("mu")[0], 0.5e3 * 2.5 / 2);
  EXPECT_DOUBLE_EQ(c.get("mu")[1], -0.01e3 * -3 / 2);
  EXPECT_DOUBLE_EQ(initial_shear_modulus("ogden", c), 0.5e3 * 2.5 / 2 + 0.01e3 * 3 / 2);

  // Ecoflex 00-30 (Steck et al. 2019, Table I: mu_i = 22, 0.4, -2 kPa; alpha_i = 1.3, 5, -2):
  // softik's mu_p = 22 x 1.3 / 2, 0.4 x 5 / 2, -2 x -2 / 2 kPa = 14.3, 1.0, 2.0 kPa, mu0 = 17.3 kPa.
  const LawConstants eco = library_constants(material_library().find("ecoflex_00_30")->default_fit());
  EXPECT_NEAR(eco.get("mu")[0], 14300, 1e-9);
  EXPECT_NEAR(eco.get("mu")[1], 1000, 1e-9);
  EXPECT_NEAR(eco.get("mu")[2], 2000, 1e-9);
  EXPECT_NEAR(initial_shear_modulus("ogden", eco), 17300, 1e-9);
  // Elastosil M4601 (Soft Robotics Toolkit: C10 = 0.12 MPa): mu0 = 2 C10 = 0.24 MPa.
  const LawConstants ela = library_constants(material_library().find("elastosil_m4601")->default_fit());
  EXPECT_DOUBLE_EQ(ela.scalar("C10", 0), 0.12e6);
  EXPECT_DOUBLE_EQ(initial_shear_modulus("neo_hookean_decoupled", ela), 0.24e6);

  EXPECT_NEAR(d1_from_poisson(17300, 0.49), 3 * 0.02 / (17300 * 1.49), 1e-12 * 2.3e-6);
  EXPECT_THROW(d1_from_poisson(17300, 0.5), Error);
}

/// The densities are the makers' specific gravities, as their technical bulletins print them, times
/// 1000 kg/m^3 (data/materials.yaml, `sources:`): each entry quotes the specific gravity and the
/// specific volume of its bulletin row, and the two printed figures agree with each other within
/// their printed digits (specific volume in cu. in./lb x specific gravity = 27.68, the cubic
/// inches in a pound of water: 453.59237 g / 16.387064 cm^3).
TEST(MaterialLibrary, DensitiesAreTheBulletinsSpecificGravityTimes1000) {
  struct Row {
    const char* name;
    const char* source;
    Real specific_gravity, specific_volume;  // as printed: g/cc, cu. in./lb
  };
  const std::vector<Row> rows = {
      {"ecoflex_00_10", "smooth_on_ecoflex_tb", 1.04, 26.6},       // Ecoflex 00-10 14,000 cps 1.04 26.6 ...
      {"ecoflex_00_50", "smooth_on_ecoflex_tb", 1.07, 25.9},       // Ecoflex 00-50 8,000 cps 1.07 25.9 ...
      {"dragon_skin_10", "smooth_on_dragon_skin_tb", 1.07, 25.8},  // Dragon Skin 10 Medium 23,000 cps 1.07 25.8 ...
      {"dragon_skin_20", "smooth_on_dragon_skin_tb", 1.08, 25.6},  // Dragon Skin 20 20,000 cps 1.08 25.6 ...
      {"dragon_skin_30", "smooth_on_dragon_skin_tb", 1.08, 25.7},  // Dragon Skin 30 20,000 cps 1.08 25.7 ...
  };
  const MaterialLibrary& lib = material_library();
  const Real water = 453.59237 / 16.387064;  // cu. in. per lb at specific gravity 1
  for (const Row& r : rows) {
    SCOPED_TRACE(r.name);
    const LibraryMaterial* m = lib.find(r.name);
    ASSERT_NE(m, nullptr);
    EXPECT_NEAR(m->density, 1000 * r.specific_gravity, 1e-9);
    EXPECT_EQ(m->density_source, r.source);
    char sg[16], sv[16];
    std::snprintf(sg, sizeof sg, "%.2f", r.specific_gravity);
    std::snprintf(sv, sizeof sv, "%.1f", r.specific_volume);
    EXPECT_NE(m->density_published.find(std::string("specific gravity ") + sg + " g/cc"), std::string::npos)
        << m->density_published;
    EXPECT_NE(m->density_published.find(std::string("specific volume ") + sv + " cu. in./lb"), std::string::npos)
        << m->density_published;
    const MaterialSource& s = lib.source(r.source);  // the row is quoted where the source says what was read
    EXPECT_NE(s.read.find(std::string(" ") + sg + " " + sv + " "), std::string::npos) << s.read;
    EXPECT_EQ(m->datasheet_source, r.source);
    // half a unit of the last printed digit of each figure
    EXPECT_LE(std::abs(r.specific_volume * r.specific_gravity / water - 1),
              0.005 / r.specific_gravity + 0.05 / r.specific_volume);
  }
  // Ecoflex 00-30's row (1.07, 26.0) passes the same check; Elastosil M4601 has no density read.
  EXPECT_DOUBLE_EQ(lib.find("ecoflex_00_30")->density, 1070);
  EXPECT_LE(std::abs(26.0 * 1.07 / water - 1), 0.005 / 1.07 + 0.05 / 26.0);
  EXPECT_NE(lib.source("smooth_on_ecoflex_tb").read.find(" 1.07 26.0 "), std::string::npos);
  EXPECT_EQ(lib.find("elastosil_m4601")->density, 0);
}

TEST(MaterialLibrary, SoftiksLawsGiveTheirClosedFormUniaxialStress) {
  const Real D1 = 1e-12;  // irrelevant at J = 1
  LawConstants nh, mr, ye, og;
  nh.set("C10", {1.0e5});
  nh.set("D1", {D1});
  mr.set("C10", {1.0e5});
  mr.set("C01", {2.5e4});
  mr.set("D1", {D1});
  ye.set("C10", {1.0e5});
  ye.set("C20", {-1.0e3});
  ye.set("C30", {50});
  ye.set("D1", {D1});
  og.set("mu", {1.0e5, -2.0e3, 5.0e2});
  og.set("alpha", {1.3, 5, -2});
  og.set("D1", {D1});
  for (const fem::Volumetric vol : {fem::Volumetric::D1Form, fem::Volumetric::LogSquared}) {
    const Material m_nh = make_material("neo_hookean_decoupled", nh, vol);
    const Material m_mr = make_material("mooney_rivlin", mr, vol);
    const Material m_ye = make_material("yeoh", ye, vol);
    const Material m_og = make_material("ogden", og, vol);
    for (const Real lam : kStretches) {
      SCOPED_TRACE(lam);
      EXPECT_LT(rel(incompressible_uniaxial(m_nh, lam), neo_hookean_P(1.0e5, lam)), 1e-12);
      EXPECT_LT(rel(incompressible_uniaxial(m_mr, lam), mooney_rivlin_P(1.0e5, 2.5e4, lam)), 1e-12);
      EXPECT_LT(rel(incompressible_uniaxial(m_ye, lam), yeoh_P(1.0e5, -1.0e3, 50, lam)), 1e-12);
      EXPECT_LT(rel(incompressible_uniaxial(m_og, lam), ogden_P({1.0e5, -2.0e3, 5.0e2}, {1.3, 5, -2}, lam)), 1e-12);
    }
  }
  // Nearly incompressible (mu0 D1 = 1e-8): the free lateral faces give the same stress.
  og.set("D1", {1e-8 / initial_shear_modulus("ogden", og)});
  const Material m_og = make_material("ogden", og);
  for (const Real lam : kStretches) {
    const Uniaxial u = compressible_uniaxial(m_og, lam);
    EXPECT_NEAR(u.J, 1, 1e-6);
    EXPECT_LT(rel(u.P, ogden_P({1.0e5, -2.0e3, 5.0e2}, {1.3, 5, -2}, lam)), 1e-6) << lam;
  }
}

TEST(MaterialLibrary, EachFitReproducesItsSourcesUniaxialFormula) {
  for (const LibraryMaterial& m : material_library().materials)
    for (const MaterialFit& f : m.fits) {
      SCOPED_TRACE(m.name + " " + f.id);
      LawConstants c = library_constants(f);
      const Real mu0 = initial_shear_modulus(f.law, c);
      c.set("D1", {1e-12 / mu0});
      const Material incompressible = make_material(f.law, c);
      for (const Real lam : kStretches)  // through softik's P(F), against the source's formula
        EXPECT_LT(rel(incompressible_uniaxial(incompressible, lam), source_formula_P(f, lam)), 1e-12) << lam;
      // The small-strain slope dP/dlam at lam = 1 is Young's modulus 3 mu0 (incompressible).
      const Real h = 1e-6;
      const Real E = (source_formula_P(f, 1 + h) - source_formula_P(f, 1 - h)) / (2 * h);
      EXPECT_LT(rel(E, 3 * mu0), 1e-8);
      // With the library's D1 (nu = 0.49), free lateral faces: the volume change and the stress
      // below the incompressible fit stay within what docs/materials.md states for the worst
      // entry (Dragon Skin 10: J - 1 = 1.1, 3.0, 9.4 % and 1.4, 3.1, 8.6 % below the fit at
      // stretches 1.5, 2, 3).
      const Material defaults = make_library_material(m.name, f.id);
      for (const auto& [lam, bound] : std::vector<std::pair<Real, Real>>{{1.5, 0.015}, {2.0, 0.032}, {3.0, 0.095}}) {
        const Uniaxial u = compressible_uniaxial(defaults, lam);
        EXPECT_GT(u.J, 1) << lam;
        EXPECT_LT(u.J - 1, bound) << lam;
        EXPECT_LT(rel(u.P, source_formula_P(f, lam)), bound) << lam;
      }
    }
}

// ---- `material:` in scenes -------------------------------------------------------------------

const std::string kMesh = "mesh: {generator: {type: box}}\n";

SceneMaterial scene_material(const std::string& entry) {
  return parse_scene_string(kMesh + "materials: [{" + entry + "}]\n", "scene.yaml").materials.front();
}

fem::Ogden<3> ogden_of(const std::string& entry) {
  const SceneMaterial s = scene_material(entry);
  EXPECT_TRUE(std::holds_alternative<fem::Ogden<3>>(s.material)) << entry;
  return std::get<fem::Ogden<3>>(s.material);
}

/// The fits softik made from a source's measured curve (fitted_by: softik) reproduce the rows
/// of that curve they quote, through softik's own law (P(F) at J = 1, constants converted as a
/// scene gets them), within the deviation the data file states; and that statement is not slack:
/// the largest deviation found is within 0.002 of it.
TEST(MaterialLibrary, SoftiksOwnFitsReproduceTheMeasuredCurveWithinTheStatedDeviation) {
  const MaterialLibrary& lib = material_library();
  int own = 0;
  for (const LibraryMaterial& m : lib.materials)
    for (const MaterialFit& f : m.fits) {
      if (f.fitted_by.empty()) {  // constants the source printed: nothing of softik's own
        EXPECT_TRUE(f.method.empty() && f.data_points.empty() && f.max_deviation == 0) << m.name << " " << f.id;
        continue;
      }
      SCOPED_TRACE(m.name + " " + f.id);
      ++own;
      EXPECT_EQ(f.fitted_by, "softik");
      EXPECT_FALSE(f.method.empty());
      ASSERT_GE(f.data_points.size(), 3u);
      const Real unit = pascals(f);
      const Material law = make_library_material(m.name, f.id);
      Real worst = 0;
      for (const auto& [strain, stress] : f.data_points) {
        const Real P = incompressible_uniaxial(law, 1 + strain);
        worst = std::max(worst, rel(P, unit * stress));
        EXPECT_LE(rel(P, unit * stress), f.max_deviation) << "engineering strain " << strain;
      }
      EXPECT_GT(worst, f.max_deviation - 0.002) << "max_deviation " << f.max_deviation << " overstates the fit's";
    }
  EXPECT_EQ(own, 6);  // Ecoflex 00-10, 00-30, 00-50, Dragon Skin 10, 20, 30 (Marechal et al.'s curves)
}

TEST(MaterialLibrary, SceneEntriesPickFitsAndOverrideConstants) {
  const Real D1_default = d1_from_poisson(17300, 0.49);
  SceneMaterial s = scene_material("material: ecoflex_00_30");
  EXPECT_EQ(s.law, "ogden");
  ASSERT_TRUE(std::holds_alternative<fem::Ogden<3>>(s.material));
  const auto& o = std::get<fem::Ogden<3>>(s.material);
  EXPECT_NEAR(o.mu[0], 14300, 1e-9);
  EXPECT_NEAR(o.mu[1], 1000, 1e-9);
  EXPECT_NEAR(o.mu[2], 2000, 1e-9);
  EXPECT_DOUBLE_EQ(o.alpha[0], 1.3);
  EXPECT_DOUBLE_EQ(o.alpha[1], 5);
  EXPECT_DOUBLE_EQ(o.alpha[2], -2);
  EXPECT_NEAR(o.D1, D1_default, 1e-12 * D1_default);
  EXPECT_EQ(o.volumetric, fem::Volumetric::D1Form);

  // the same fit named, its law named: the same material
  for (const char* entry : {"material: ecoflex_00_30, law: ogden", "material: ecoflex_00_30, fit: steck2019_ogden3"}) {
    const fem::Ogden<3> same = ogden_of(entry);
    EXPECT_EQ(same.mu[0], o.mu[0]);
    EXPECT_EQ(same.D1, o.D1);
  }
  // overrides
  EXPECT_DOUBLE_EQ(ogden_of("material: ecoflex_00_30, D1: 1.0e-6").D1, 1.0e-6);
  EXPECT_NEAR(ogden_of("material: ecoflex_00_30, poisson: 0.45").D1, 3 * 0.1 / (17300 * 1.45), 1e-15);
  const fem::Ogden<3> mu = ogden_of("material: ecoflex_00_30, mu: [1.0e4, 1.0e3, 2.0e3]");
  EXPECT_EQ(mu.mu[0], 1.0e4);
  EXPECT_EQ(mu.alpha[0], 1.3);
  EXPECT_NEAR(mu.D1, d1_from_poisson(1.3e4, 0.49), 1e-15);  // D1 follows the overridden mu0
  EXPECT_EQ(ogden_of("material: ecoflex_00_30, volumetric: log_squared").volumetric, fem::Volumetric::LogSquared);
  s = scene_material("material: elastosil_m4601, region: cap");
  EXPECT_EQ(s.region, "cap");
  ASSERT_TRUE(std::holds_alternative<fem::NeoHookeanD1>(s.material));
  EXPECT_DOUBLE_EQ(std::get<fem::NeoHookeanD1>(s.material).C10, 1.2e5);
  const SceneMaterial c10 = scene_material("material: elastosil_m4601, C10: 1.0e5");
  EXPECT_DOUBLE_EQ(std::get<fem::NeoHookeanD1>(c10.material).C10, 1.0e5);

  // a library material and the law's own constants in two regions: one law, two materials
  const Scene two = parse_scene_string(kMesh +
                                           "materials:\n  - {material: ecoflex_00_30}\n"
                                           "  - {region: r, law: ogden, mu: [1.0e4], alpha: [2], D1: 1.0e-6}\n",
                                       "scene.yaml");
  EXPECT_EQ(two.materials.size(), 2u);
}

TEST(MaterialLibrary, SceneErrorsNameTheKeyAndTheChoices) {
  struct Case {
    std::string entries, token;
    std::vector<std::string> message;
  };
  const std::vector<Case> cases = {
      {"[{material: ecoflex_0030}]",
       "ecoflex_0030",
       {"materials[0].material: unknown material 'ecoflex_0030'; did you mean 'ecoflex_00_30'?",
        "ecoflex_00_30, elastosil_m4601"}},
      {"[{material: ecoflex_00_30, law: mooney_rivlin}]",
       "mooney_rivlin",
       {"materials[0].law: the library has no published fit of the law 'mooney_rivlin' for ecoflex_00_30; laws "
        "available for it: ogden, yeoh"}},
      {"[{material: ecoflex_00_30, fit: moseley}]",
       "moseley",
       {"materials[0].fit: ecoflex_00_30 has no fit 'moseley'; its fits: steck2019_ogden3"}},
      {"[{material: ecoflex_00_30, D1: 1.0e-6, poisson: 0.45}]",
       "poisson",
       {"'D1' and 'poisson' cannot both be given"}},
      {"[{material: ecoflex_00_30, young: 1.0e5}]",
       "young",
       {"unknown key 'young' in materials[0]; allowed keys: material"}},
      {"[{material: ecoflex_00_30, mu: [1.0e4]}]",
       "[1.0e4]",
       {"materials[0].mu: expected as many exponents as moduli (1), got 3"}},
      {"[{material: ecoflex_00_30, poisson: 0.5}]",
       "{material",
       {"materials[0] (ecoflex_00_30, fit steck2019_ogden3): Poisson's ratio nu = 0.5 is out of range"}},
      {"[{material: [ecoflex_00_30]}]", "[ecoflex", {"materials[0].material: expected"}},
      {"[{region: r}]", "{region", {"missing required key 'law'", "or 'material' (a named material: ecoflex_00_30"}},
      {"[{material: ecoflex_00_30}, {region: r, material: elastosil_m4601}]",
       "{region",
       {"law 'neo_hookean_decoupled' differs from materials[0]'s 'ogden'"}},
  };
  for (const Case& c : cases) {
    const std::string text = kMesh + "materials: " + c.entries + "\n";
    SCOPED_TRACE(text);
    try {
      parse_scene_string(text, "scene.yaml");
      FAIL() << "parsed without error";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.kind(), ErrorKind::Input);
      EXPECT_EQ(message.rfind("scene.yaml:" + position_of(text, c.token) + ": ", 0), 0u) << message;
      for (const std::string& part : c.message) EXPECT_NE(message.find(part), std::string::npos) << message;
    }
  }
}

TEST(MaterialLibrary, ANamedMaterialSolvesAScene) {
  // The block of the scene tests in Ecoflex 00-30, inflated by 2 kPa: it converges and bulges.
  const std::string text = kBlock.substr(0, kBlock.find("materials:")) +
                           "materials: {material: ecoflex_00_30}\nfixed: [{group: xmin}]\n"
                           "formulation: hyperelastic\nloads: {pressure: {surface: cavity0, value: 2000}}\n"
                           "solver: {load_steps: 2}\noutputs: {vtu: false}\n";
  const fs::path dir = fresh_dir("material_library_block");
  SceneRunOptions options;
  options.out_dir = dir.string();
  const SceneRunResult r = run_scene(parse_scene_string(text, "block.yaml"), options);
  EXPECT_EQ(r.load_factor, 1);
  EXPECT_TRUE(r.warnings.empty());
  ASSERT_EQ(r.pressures.size(), 1u);
  EXPECT_GT(r.pressures[0].volume, r.pressures[0].volume0);
}

}  // namespace
}  // namespace softik
