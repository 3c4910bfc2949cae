// The materials library: named silicones with published hyperelastic fits, each number with its
// source (docs/materials.md). The data file data/materials.yaml is embedded in the library at
// build time (no run-time path) and installed to share/softik/materials.yaml.
//
//   const MaterialLibrary& lib = material_library();
//   const LibraryMaterial* m = lib.find("ecoflex_00_30");      // nullptr if unknown
//   const MaterialFit& fit = m->default_fit();
//   LawConstants c = library_constants(fit);                   // softik's convention, SI (Pa)
//   c.set("D1", {d1_from_poisson(initial_shear_modulus(fit.law, c), lib.default_poisson)});
//   Material law = make_material(fit.law, c);                  // the law, validated
//
// or, in one call with the library's defaults, make_library_material("ecoflex_00_30"). A scene
// says `materials: [{material: ecoflex_00_30}]` (docs/scene-format.md, materials).
//
// Conventions. A fit's `published` constants are the numbers as the source printed them, in its
// `unit` and `convention`; library_constants() converts them to the convention of softik's laws
// (the Abaqus/CalculiX decoupled forms of include/softik/fem/materials/*.hpp) and to Pa:
//   "abaqus":     unchanged (C10, C01, C20, C30; Ogden mu_i, alpha_i of sum 2 mu_i/alpha_i^2 (...)).
//   "ogden_1972": W = sum mu_i/alpha_i (l1^a_i + l2^a_i + l3^a_i - 3) (Ogden 1972) gives softik's
//                 mu_p = mu_i alpha_i / 2, alpha_p = alpha_i (same energy, same stresses).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "softik/fem/materials/volumetric.hpp"
#include "softik/material.hpp"

namespace softik {

/// Named constants of one law: "C10" -> {v}, "mu" -> {mu_1, mu_2, mu_3} (Ogden lists), in order.
struct LawConstants {
  std::vector<std::pair<std::string, std::vector<Real>>> values;

  bool has(const std::string& name) const;
  /// The values of `name` (an Error naming the law's missing constant if absent).
  const std::vector<Real>& get(const std::string& name) const;
  /// The single value of `name`, or `fallback` when absent.
  Real scalar(const std::string& name, Real fallback) const;
  /// Sets (replaces or appends) `name`.
  void set(const std::string& name, std::vector<Real> v);
};

/// A document a number was read from.
struct MaterialSource {
  std::string id;        ///< the data file's key for it
  std::string citation;  ///< authors, title, venue, year
  std::string doi;       ///< empty when the source has none (then `url`)
  std::string url;       ///< empty when a DOI identifies it
  std::string read;      ///< what was read, and in which copy
};

/// One published fit of a law to a material's tests.
struct MaterialFit {
  std::string id;           ///< unique within the material, e.g. "steck2019_ogden3"
  std::string law;          ///< the scene law it builds: ogden, yeoh, mooney_rivlin, neo_hookean_decoupled
  bool is_default = false;  ///< the fit a scene gets without `law:` or `fit:`
  std::string convention;   ///< the source's convention: "abaqus" or "ogden_1972"
  std::string unit;         ///< unit of the published stress-like constants: "Pa", "kPa" or "MPa"
  LawConstants published;   ///< exactly as printed (the source's convention and unit)
  std::string source;       ///< MaterialSource::id
  std::string where;        ///< table, equation or passage of the source
  std::string test;         ///< test mode (specimen, machine, rate), as the source describes it
  std::string strain_range;
  /// "softik" when softik fitted the constants to the source's measured curve (the source
  /// publishes the curve, not these constants); empty for constants the source printed.
  std::string fitted_by;
  std::string method;  ///< how softik fitted them (least squares, rows, weighting, rounding)
  /// Rows of the source's curve, as printed: (engineering strain, engineering stress in `unit`).
  std::vector<std::pair<Real, Real>> data_points;
  Real max_deviation = 0;  ///< the fit's largest relative deviation from data_points (tested)
};

/// A named material of the library.
struct LibraryMaterial {
  std::string name;   ///< the scene's `material:` value, e.g. "ecoflex_00_30"
  std::string title;  ///< e.g. "Ecoflex 00-30"
  std::string maker;
  Real density = 0;                                   ///< kg/m^3; 0 when no source for it was read
  std::string density_published, density_source;      ///< as printed; MaterialSource::id
  std::string datasheet_published, datasheet_source;  ///< maker's data, for reference (not used by a law)
  std::vector<MaterialFit> fits;

  const MaterialFit& default_fit() const;
  /// The laws of its fits, in order ("ogden", ...).
  std::vector<std::string> laws() const;
};

/// The whole library (data/materials.yaml).
struct MaterialLibrary {
  Real default_poisson = 0;            ///< closes the incompressible fits: D1 from it and mu0
  std::string default_poisson_reason;  ///< why that value (the data file's `compressibility.why`)
  std::vector<LibraryMaterial> materials;
  std::vector<MaterialSource> sources;

  const LibraryMaterial* find(const std::string& name) const;  ///< nullptr if unknown
  const MaterialSource& source(const std::string& id) const;
  std::vector<std::string> names() const;
  /// The known name closest to `name` (edit distance, ignoring case, '-', '_' and spaces).
  std::string closest(const std::string& name) const;
};

/// The library shipped with softik, parsed once from the embedded data file.
const MaterialLibrary& material_library();
/// The embedded data file's text (what share/softik/materials.yaml holds).
const char* material_library_yaml();

/// A fit's constants in softik's convention and in Pa (see the header comment); no D1.
LawConstants library_constants(const MaterialFit& fit);
/// The small-strain shear modulus mu0 of `law` with constants `c` (Pa): 2 C10 (neo-Hookean,
/// Yeoh), 2 (C10 + C01) (Mooney-Rivlin), sum mu_p (Ogden), mu (Arruda-Boyce and the Lame laws).
Real initial_shear_modulus(const std::string& law, const LawConstants& c);
/// D1 = 2 / K with K from mu0 and Poisson's ratio nu: D1 = 3 (1 - 2 nu) / (mu0 (1 + nu)).
Real d1_from_poisson(Real mu0, Real nu);
/// The law named as a scene names it (docs/scene-format.md: linear, saint_venant_kirchhoff,
/// neo_hookean, neo_hookean_decoupled, stable_neo_hookean, mooney_rivlin, ogden, yeoh,
/// arruda_boyce) from its constants (lambda, mu; C10, C01, C20, C30, D1; mu and alpha lists of
/// 1 to 3 terms; mu, lambda_m), validated by the law's factory (an Error says what is wrong).
/// `volumetric` applies to the decoupled laws only.
Material make_material(const std::string& law, const LawConstants& c,
                       fem::Volumetric volumetric = fem::Volumetric::D1Form);
/// A library material with its default fit (or the fit `fit_id`), D1 from the library's
/// Poisson's ratio, and the D1-form volumetric term.
Material make_library_material(const std::string& name, const std::string& fit_id = "");

}  // namespace softik
