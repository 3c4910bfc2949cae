// Actuators of the inverse problem: cavity pressure, cable, point force (constraints.hpp).
#include <cmath>

#include "host/loads/pressure_rows.hpp"
#include "softik/constraints.hpp"
#include "softik/error.hpp"
#include "softik/fem/tensor.hpp"

namespace softik {

namespace {

void check_interval(const std::string& who, const char* what, const Interval& i) {
  SOFTIK_CHECK(!std::isnan(i.lo) && !std::isnan(i.hi) && i.lo <= i.hi,
               who << ": " << what << " bounds [" << i.lo << ", " << i.hi << "] are empty or NaN; give min <= max");
}

/// The per-step rate window [current - rate, current + rate] (unbounded for an infinite rate).
Interval rate_window(Real current, Real rate) {
  if (!std::isfinite(rate)) return {};
  return {current - rate, current + rate};
}

/// J row of a sparse DOF vector (drops exact zeros).
std::vector<std::pair<int, Real>> sparse(const std::vector<Real>& dense) {
  std::vector<std::pair<int, Real>> out;
  for (size_t k = 0; k < dense.size(); ++k)
    if (dense[k] != 0) out.emplace_back(static_cast<int>(k), dense[k]);
  return out;
}

void check_point(const std::string& who, const Mesh& mesh, const AttachedPoint& p) {
  SOFTIK_CHECK(!p.nodes.empty() && p.nodes.size() == p.weights.size(),
               who << ": an attached point needs as many weights as nodes (got " << p.nodes.size() << " nodes, "
                   << p.weights.size() << " weights)");
  for (int n : p.nodes)
    SOFTIK_CHECK(n >= 0 && n < mesh.num_nodes(),
                 who << ": node " << n << " is not a mesh node (the mesh has " << mesh.num_nodes() << ")");
}

class SurfacePressureActuator : public Constraint {
 public:
  SurfacePressureActuator(const Mesh& mesh, SurfacePressureActuatorSpec spec)
      : Constraint(spec.name, spec.sensor ? ConstraintRole::Sensor : ConstraintRole::Actuator),
        spec_(std::move(spec)),
        cavity_(spec_.cavity, mesh) {
    check_interval(name(), "pressure", spec_.pressure);
    check_interval(name(), "volume growth", spec_.volume_growth);
    SOFTIK_CHECK(spec_.max_volume_growth_variation > 0,
                 name() << ": max volume growth variation " << spec_.max_volume_growth_variation << " must be > 0");
    V0_ = surface_volume(spec_.cavity, mesh, mesh.rest_positions());
    SOFTIK_CHECK(V0_ > 0, name() << ": the cavity's rest volume is " << V0_
                                 << "; the surface must be closed and wound out of the cavity (check_surface)");
    V_ = V0_;
  }
  int num_rows() const override { return 1; }
  void rows(const Mesh&, const std::vector<Real>& x, std::vector<ConstraintRow>& out) const override {
    ConstraintRow r;
    r.delta = cavity_.volume_and_jacobian(x, r.J) - V0_;
    r.lambda_bounds = spec_.pressure;
    r.delta_bounds = spec_.volume_growth;
    r.delta_window = rate_window(V_ - V0_, spec_.max_volume_growth_variation);
    out.push_back(std::move(r));
  }
  void add_stiffness(const Assembler& assembler, const std::vector<Real>& x, const Real* lambda,
                     std::vector<Real>& K) const override {
    // The pressure forces P J(x) = P dV/dx depend on x: K -= P d2V/dx2 (loads.hpp).
    if (lambda[0] != 0) add_pressure_stiffness(spec_.cavity, lambda[0], assembler, x, -1.0, K);
  }
  void accept(const Mesh&, const std::vector<Real>& x, const Real* lambda) override {
    V_ = cavity_.volume(x);
    P_ = lambda ? lambda[0] : 0;
  }
  /// The rows of any backend are evaluated on the host (pressure_rows.hpp); this rebinds them to
  /// the solver's mesh.
  void use_backend(const Mesh& mesh, Backend) override { cavity_ = detail::PressureRows(spec_.cavity, mesh); }
  std::vector<std::pair<std::string, Real>> outputs() const override {
    return {{"pressure", P_}, {"volume_growth", V_ - V0_}, {"cavity_volume", V_}, {"initial_cavity_volume", V0_}};
  }

 private:
  SurfacePressureActuatorSpec spec_;
  Real V0_ = 0, V_ = 0, P_ = 0;
  detail::PressureRows cavity_;  ///< the rows on the host whatever the backend (pressure_rows.hpp)
};

class CableActuator : public Constraint {
 public:
  CableActuator(const Mesh& mesh, CableActuatorSpec spec)
      : Constraint(spec.name, spec.sensor ? ConstraintRole::Sensor : ConstraintRole::Actuator), spec_(std::move(spec)) {
    SOFTIK_CHECK(mesh.dim == 3, name() << ": cables need a 3D mesh");
    SOFTIK_CHECK(!spec_.points.empty(), name() << ": a cable needs at least one point on the body");
    for (const AttachedPoint& p : spec_.points) check_point(name(), mesh, p);
    check_interval(name(), "force", spec_.force);
    check_interval(name(), "displacement", spec_.displacement);
    SOFTIK_CHECK(spec_.max_displacement_variation > 0,
                 name() << ": max displacement variation " << spec_.max_displacement_variation << " must be > 0");
    L0_ = length(mesh.rest_positions(), nullptr);
    L_ = L0_;
  }
  int num_rows() const override { return 1; }
  void rows(const Mesh&, const std::vector<Real>& x, std::vector<ConstraintRow>& out) const override {
    std::vector<Real> dL(x.size(), 0.0);
    ConstraintRow r;
    r.delta = L0_ - length(x, &dL);
    for (Real& v : dL) v = -v;  // J = d delta / dx = -dL/dx
    r.J = sparse(dL);
    r.lambda_bounds = spec_.force;
    r.delta_bounds = spec_.displacement;
    r.delta_window = rate_window(L0_ - L_, spec_.max_displacement_variation);
    out.push_back(std::move(r));
  }
  /// The cable's geometric stiffness K += T d2L/dx2, as U C U^T: per segment e = c - prev,
  /// d2|e|/de2 = (I - e e^T/|e|^2)/|e|, so each segment gives three columns of U (the unit
  /// displacements of c - prev: +weights at its end's nodes, -weights at its start's; the pull
  /// point is fixed in space) and the 3x3 block C_s = T (I - e e^T/|e|^2)/|e|. Consecutive cable
  /// points are usually in cells that share no node, so this coupling is not in the CSR pattern.
  void add_low_rank_stiffness(const std::vector<Real>& x, const Real* lambda, LowRankStiffness& out) const override {
    const Real T = lambda[0];
    if (T == 0) return;
    std::array<Real, 3> prev = spec_.pull_point;
    const AttachedPoint* prev_point = nullptr;
    for (const AttachedPoint& p : spec_.points) {
      const std::array<Real, 3> c = p.position(x);
      const fem::Vec3 e(c[0] - prev[0], c[1] - prev[1], c[2] - prev[2]);
      const Real len = e.norm();
      const fem::Mat3 Cs = T * (fem::Mat3::Identity() - e * e.transpose() / (len * len)) / len;
      std::array<Real, 9> block;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) block[static_cast<size_t>(3 * i + j)] = Cs(i, j);
      out.blocks.push_back(block);
      for (int i = 0; i < 3; ++i) {
        std::vector<std::pair<int, Real>> column;
        for (size_t k = 0; k < p.nodes.size(); ++k) column.emplace_back(3 * p.nodes[k] + i, p.weights[k]);
        if (prev_point)
          for (size_t k = 0; k < prev_point->nodes.size(); ++k)
            column.emplace_back(3 * prev_point->nodes[k] + i, -prev_point->weights[k]);
        out.columns.push_back(std::move(column));
      }
      prev = c;
      prev_point = &p;
    }
  }
  void accept(const Mesh&, const std::vector<Real>& x, const Real* lambda) override {
    L_ = length(x, nullptr);
    T_ = lambda ? lambda[0] : 0;
  }
  std::vector<std::pair<std::string, Real>> outputs() const override {
    return {{"force", T_}, {"displacement", L0_ - L_}, {"cable_length", L_}};
  }

 private:
  /// L = |p_0 - q| + sum |p_{i+1} - p_i|; adds dL/dx to *dL when given.
  Real length(const std::vector<Real>& x, std::vector<Real>* dL) const {
    Real L = 0;
    std::array<Real, 3> prev = spec_.pull_point;
    const AttachedPoint* prev_point = nullptr;
    for (const AttachedPoint& p : spec_.points) {
      const std::array<Real, 3> c = p.position(x);
      Real e[3], len = 0;
      for (int i = 0; i < 3; ++i) {
        e[i] = c[i] - prev[i];
        len += e[i] * e[i];
      }
      len = std::sqrt(len);
      SOFTIK_CHECK(len > 0, name() << ": two consecutive cable points coincide; the cable direction is undefined");
      L += len;
      if (dL) {  // d|c - prev|/dc = e/len, d/dprev = -e/len
        for (size_t k = 0; k < p.nodes.size(); ++k)
          for (int i = 0; i < 3; ++i) (*dL)[3 * static_cast<size_t>(p.nodes[k]) + i] += p.weights[k] * e[i] / len;
        if (prev_point)
          for (size_t k = 0; k < prev_point->nodes.size(); ++k)
            for (int i = 0; i < 3; ++i)
              (*dL)[3 * static_cast<size_t>(prev_point->nodes[k]) + i] -= prev_point->weights[k] * e[i] / len;
      }
      prev = c;
      prev_point = &p;
    }
    return L;
  }

  CableActuatorSpec spec_;
  Real L0_ = 0, L_ = 0, T_ = 0;
};

class ForcePointActuator : public Constraint {
 public:
  ForcePointActuator(const Mesh& mesh, ForcePointActuatorSpec spec)
      : Constraint(spec.name, ConstraintRole::Actuator), spec_(std::move(spec)) {
    SOFTIK_CHECK(mesh.dim == 3, name() << ": point forces need a 3D mesh");
    check_point(name(), mesh, spec_.point);
    check_interval(name(), "force", spec_.force);
    const auto& d = spec_.direction;
    const Real len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    SOFTIK_CHECK(std::isfinite(len), name() << ": the direction is not finite");
    if (len == 0) {
      directions_ = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    } else {
      directions_ = {{d[0] / len, d[1] / len, d[2] / len}};
    }
    X0_ = spec_.point.position(mesh.rest_positions());
    lambda_.assign(directions_.size(), 0.0);
    u_.assign(directions_.size(), 0.0);
  }
  int num_rows() const override { return static_cast<int>(directions_.size()); }
  void rows(const Mesh&, const std::vector<Real>& x, std::vector<ConstraintRow>& out) const override {
    const std::array<Real, 3> p = spec_.point.position(x);
    for (const auto& d : directions_) {
      ConstraintRow r;
      for (size_t k = 0; k < spec_.point.nodes.size(); ++k)
        for (int i = 0; i < 3; ++i)
          if (d[static_cast<size_t>(i)] != 0)
            r.J.emplace_back(3 * spec_.point.nodes[k] + i, spec_.point.weights[k] * d[static_cast<size_t>(i)]);
      for (int i = 0; i < 3; ++i)
        r.delta += d[static_cast<size_t>(i)] * (p[static_cast<size_t>(i)] - X0_[static_cast<size_t>(i)]);
      r.lambda_bounds = spec_.force;
      out.push_back(std::move(r));
    }
  }
  void accept(const Mesh&, const std::vector<Real>& x, const Real* lambda) override {
    const std::array<Real, 3> p = spec_.point.position(x);
    for (size_t r = 0; r < directions_.size(); ++r) {
      lambda_[r] = lambda ? lambda[r] : 0;
      u_[r] = 0;
      for (size_t i = 0; i < 3; ++i) u_[r] += directions_[r][i] * (p[i] - X0_[i]);
    }
  }
  std::vector<std::pair<std::string, Real>> outputs() const override {
    std::vector<std::pair<std::string, Real>> out;
    const char* axis[] = {"x", "y", "z"};
    for (size_t r = 0; r < directions_.size(); ++r) {
      const std::string suffix = directions_.size() == 1 ? "" : std::string("_") + axis[r];
      out.emplace_back("force" + suffix, lambda_[r]);
      out.emplace_back("displacement" + suffix, u_[r]);
    }
    return out;
  }

 private:
  ForcePointActuatorSpec spec_;
  std::vector<std::array<Real, 3>> directions_;
  std::array<Real, 3> X0_{};
  std::vector<Real> lambda_, u_;
};

}  // namespace

std::shared_ptr<Constraint> make_surface_pressure_actuator(const Mesh& mesh, SurfacePressureActuatorSpec spec) {
  return std::make_shared<SurfacePressureActuator>(mesh, std::move(spec));
}

std::shared_ptr<Constraint> make_cable_actuator(const Mesh& mesh, CableActuatorSpec spec) {
  return std::make_shared<CableActuator>(mesh, std::move(spec));
}

std::shared_ptr<Constraint> make_force_point_actuator(const Mesh& mesh, ForcePointActuatorSpec spec) {
  return std::make_shared<ForcePointActuator>(mesh, std::move(spec));
}

}  // namespace softik
