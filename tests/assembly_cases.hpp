// Shared fixtures for the assembly tests: small meshes of every element type, deformed states,
// and the list of (formulation, material) cases.
#pragma once

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/error.hpp"
#include "softik/mesh_generator.hpp"

namespace softik::testing {

struct FormulationCase {
  std::string name;
  AssemblyOptions options;
  Material material;
  bool conservative_on_simplices_only = false;  ///< corotational: f = -dE/dx only on simplices (polar)
  bool conservative = true;                     ///< false: no energy whose gradient is f (QR rotation)
};

inline std::vector<FormulationCase> formulation_cases() {
  const Real E = 1000.0, nu = 0.3;
  const Real mu = E / (2 * (1 + nu)), kappa = E / (3 * (1 - 2 * nu));
  std::vector<FormulationCase> cases;
  auto hyper = [&](const std::string& name, Material m) {
    AssemblyOptions o;
    o.formulation = Formulation::Hyperelastic;
    cases.push_back({name, o, m});
  };
  {
    AssemblyOptions o;
    o.formulation = Formulation::LinearSmallStrain;
    cases.push_back({"LinearSmallStrain", o, fem::LinearElastic::from_young_poisson(E, nu)});
  }
  {
    AssemblyOptions o;
    o.formulation = Formulation::Corotational;
    o.corotational_tangent = fem::CorotationalTangent::Consistent;
    cases.push_back({"CorotationalPolar", o, fem::LinearElastic::from_young_poisson(E, nu), true});
    o.rotation = fem::RotationMethod::QR;
    FormulationCase qr{"CorotationalQR", o, fem::LinearElastic::from_young_poisson(E, nu)};
    qr.conservative = false;
    cases.push_back(qr);
  }
  hyper("SaintVenantKirchhoff", fem::SaintVenantKirchhoff::from_young_poisson(E, nu));
  hyper("NeoHookean", fem::NeoHookean::from_young_poisson(E, nu));
  hyper("NeoHookeanD1", fem::NeoHookeanD1::from_young_poisson(E, nu));
  hyper("StableNeoHookean", fem::StableNeoHookean::from_young_poisson(E, nu));
  hyper("MooneyRivlin", fem::MooneyRivlin::from_constants(0.3 * mu, 0.2 * mu, 2.0 / kappa, fem::Volumetric::D1Form));
  hyper("MooneyRivlinLogJ",
        fem::MooneyRivlin::from_constants(0.3 * mu, 0.2 * mu, 2.0 / kappa, fem::Volumetric::LogSquared));
  hyper("Ogden", fem::Ogden<3>::from_constants({0.6 * mu, 0.5 * mu, -0.1 * mu}, {1.3, 5.0, -2.0}, 2.0 / kappa,
                                               fem::Volumetric::D1Form));
  hyper("Yeoh", fem::Yeoh::from_constants(0.5 * mu, 0.05 * mu, 0.01 * mu, 2.0 / kappa, fem::Volumetric::D1Form));
  hyper("ArrudaBoyce", fem::ArrudaBoyce::from_constants(mu, 2.5, 2.0 / kappa, fem::Volumetric::D1Form));
  // The averaged dilatations (fem/dilatation.hpp), each on the cells it is for
  // (dilatation_applies): every law with a bulk term and all three volumetric forms of the
  // decoupled laws, under one average or both.
  const auto averaged = [&](const std::string& name, Formulation formulation, Material m, fem::Dilatation dilatation) {
    AssemblyOptions o;
    o.formulation = formulation;
    o.dilatation = dilatation;
    cases.push_back({name, o, m});
  };
  averaged("NeoHookeanCellMean", Formulation::Hyperelastic, fem::NeoHookean::from_young_poisson(E, nu),
           fem::Dilatation::CellMean);
  averaged("NeoHookeanNodalMean", Formulation::Hyperelastic, fem::NeoHookean::from_young_poisson(E, nu),
           fem::Dilatation::NodalMean);
  averaged("MooneyRivlinNodalMean", Formulation::Hyperelastic,
           fem::MooneyRivlin::from_constants(0.3 * mu, 0.2 * mu, 2.0 / kappa, fem::Volumetric::D1Form),
           fem::Dilatation::NodalMean);
  averaged("StableNeoHookeanNodalMean", Formulation::Hyperelastic, fem::StableNeoHookean::from_young_poisson(E, nu),
           fem::Dilatation::NodalMean);
  averaged("LinearSmallStrainCellMean", Formulation::LinearSmallStrain, fem::LinearElastic::from_young_poisson(E, nu),
           fem::Dilatation::CellMean);
  averaged("LinearSmallStrainNodalMean", Formulation::LinearSmallStrain, fem::LinearElastic::from_young_poisson(E, nu),
           fem::Dilatation::NodalMean);
  averaged("StableNeoHookeanCellMean", Formulation::Hyperelastic, fem::StableNeoHookean::from_young_poisson(E, nu),
           fem::Dilatation::CellMean);
  averaged("NeoHookeanD1NodalMean", Formulation::Hyperelastic, fem::NeoHookeanD1::from_young_poisson(E, nu),
           fem::Dilatation::NodalMean);
  averaged("OgdenCellMean", Formulation::Hyperelastic,
           fem::Ogden<3>::from_constants({0.6 * mu, 0.5 * mu, -0.1 * mu}, {1.3, 5.0, -2.0}, 2.0 / kappa,
                                         fem::Volumetric::D1Form),
           fem::Dilatation::CellMean);
  averaged("YeohLogJNodalMean", Formulation::Hyperelastic,
           fem::Yeoh::from_constants(0.5 * mu, 0.05 * mu, 0.01 * mu, 2.0 / kappa, fem::Volumetric::LogSquared),
           fem::Dilatation::NodalMean);
  averaged("ArrudaBoyceCellMean", Formulation::Hyperelastic,
           fem::ArrudaBoyce::from_constants(mu, 2.5, 2.0 / kappa, fem::Volumetric::JSquaredLog),
           fem::Dilatation::CellMean);
  return cases;
}

/// Whether an averaged dilatation is defined on a cell type: NodalMean on the one-point linear
/// simplices, CellMean on the others (the Assembler refuses the other pairs).
inline bool dilatation_applies(CellType type, const AssemblyOptions& options) {
  const bool one_point = type == CellType::Edge2 || type == CellType::Tri3 || type == CellType::Tet4;
  if (options.dilatation == fem::Dilatation::CellMean) return !one_point;
  if (options.dilatation == fem::Dilatation::NodalMean) return one_point;
  return true;
}

inline const std::vector<CellType>& all_cell_types() {
  static const std::vector<CellType> types = {CellType::Edge2, CellType::Tri3, CellType::Quad4,
                                              CellType::Tet4,  CellType::Hex8, CellType::Tet10};
  return types;
}

/// How many values CellType has: the first value past the end is the one nodes_per_cell does
/// not know (it returns 0). Lets a test notice a new element that all_cell_types() lacks.
inline std::size_t cell_type_count() {
  int n = 0;
  while (nodes_per_cell(static_cast<CellType>(n)) > 0) ++n;
  return static_cast<std::size_t>(n);
}

/// The message of the softik::Error that f throws, or "(no error)".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

inline bool is_simplex(CellType t) { return t == CellType::Edge2 || t == CellType::Tri3 || t == CellType::Tet4; }

/// A small box of the given type: 3 cells per axis in 1D/2D, 2 per axis in 3D.
inline Mesh small_box(CellType type) {
  const int dim = cell_dimension(type);
  BoxSpec spec;
  spec.size = {1.0, 0.8, 0.6};
  spec.cells = {dim == 3 ? 2 : 3, dim == 3 ? 2 : 3, 2};
  return make_box(dim, type, spec);
}

/// A rotation by `angle` about a fixed axis, in the mesh's dimension (identity in 1D).
inline Eigen::Matrix3d test_rotation(int dim, Real angle) {
  if (dim == 1) return Eigen::Matrix3d::Identity();
  if (dim == 2) return Eigen::AngleAxisd(angle, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  return Eigen::AngleAxisd(angle, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
}

/// max |a - b| over max |b| (max |a - b| where b is all zeros): the entrywise distance of two
/// assemblies relative to the reference's size.
inline Real relative_difference(const std::vector<Real>& a, const std::vector<Real>& b) {
  Real diff = 0, scale = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    diff = std::max(diff, std::abs(a[k] - b[k]));
    scale = std::max(scale, std::abs(b[k]));
  }
  return scale > 0 ? diff / scale : diff;
}

/// x = Q (X + u) + t with a random displacement u of size `strain` (relative to the box).
inline std::vector<Real> deformed_state(const Mesh& mesh, Real strain, Real angle, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> u(-1.0, 1.0);
  const Eigen::Matrix3d Q = test_rotation(mesh.dim, angle);
  const Eigen::Vector3d t(0.3, -0.2, 0.1);
  std::vector<Real> x(static_cast<size_t>(mesh.num_dofs()));
  for (int n = 0; n < mesh.num_nodes(); ++n) {
    Eigen::Vector3d p(mesh.X[3 * n], mesh.X[3 * n + 1], mesh.X[3 * n + 2]);
    for (int i = 0; i < mesh.dim; ++i) p[i] += strain * 0.3 * u(rng) + strain * 0.5 * p[i];  // stretch + noise
    const Eigen::Vector3d y = Q * p + t;
    for (int i = 0; i < mesh.dim; ++i) x[static_cast<size_t>(n) * mesh.dim + i] = y[i];
  }
  return x;
}

}  // namespace softik::testing
