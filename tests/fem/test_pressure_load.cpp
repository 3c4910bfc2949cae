// Pressure follower loads and cavity volume (pressure_load.hpp) against mathematics, on closed
// surfaces built here: a subdivided cube surface wound outward (quads or triangles), a randomly
// perturbed copy, and an octahedron. Checks: exact enclosed volume and translation invariance,
// zero net force and moment, virtual work P dV/dx . v against finite differences of the volume,
// the assembled Hessian against finite differences of the assembled gradient and its symmetry,
// the outward sign of positive pressure, and the quad split.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <array>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "softik/fem/pressure_load.hpp"

namespace softik::fem {
namespace {

using VecX = Eigen::Matrix<Real, Eigen::Dynamic, 1>;
using MatX = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
using Tri = std::array<int, 3>;
using Quad = std::array<int, 4>;

struct Surface {
  std::vector<Vec3> x;
  std::vector<Tri> tris;    // triangulated directly, diagonal a-c of each grid cell
  std::vector<Quad> quads;  // the same cells as quads (a, b, c, d)
  int dofs() const { return 3 * static_cast<int>(x.size()); }
};

// Cube [0, side]^3 with n cells per edge; each face wound with normal u x v pointing out.
Surface cube_surface(int n, Real side) {
  Surface s;
  std::map<std::tuple<int, int, int>, int> id;
  auto node = [&](const std::array<int, 3>& g) {
    auto key = std::make_tuple(g[0], g[1], g[2]);
    auto it = id.find(key);
    if (it != id.end()) return it->second;
    const int k = static_cast<int>(s.x.size());
    s.x.emplace_back(side * g[0] / n, side * g[1] / n, side * g[2] / n);
    id.emplace(key, k);
    return k;
  };
  for (int a = 0; a < 3; ++a) {
    const int b = (a + 1) % 3, c = (a + 2) % 3;  // e_a = e_b x e_c
    for (int sign : {+1, -1}) {
      const int u = sign > 0 ? b : c, v = sign > 0 ? c : b;  // u x v = sign * e_a
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          auto g = [&](int di, int dj) {
            std::array<int, 3> p{};
            p[a] = sign > 0 ? n : 0;
            p[u] = i + di;
            p[v] = j + dj;
            return node(p);
          };
          const int p00 = g(0, 0), p10 = g(1, 0), p11 = g(1, 1), p01 = g(0, 1);
          s.quads.push_back({p00, p10, p11, p01});
          s.tris.push_back({p00, p10, p11});
          s.tris.push_back({p00, p11, p01});
        }
    }
  }
  return s;
}

Surface octahedron(Real r) {
  Surface s;
  s.x = {Vec3(r, 0, 0), Vec3(-r, 0, 0), Vec3(0, r, 0), Vec3(0, -r, 0), Vec3(0, 0, r), Vec3(0, 0, -r)};
  s.tris = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  return s;
}

Surface perturbed(Surface s, Real amplitude, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> u(-amplitude, amplitude);
  for (Vec3& p : s.x) p += Vec3(u(rng), u(rng), u(rng));
  return s;
}

Vec3 at(const VecX& x, int i) { return x.segment<3>(3 * i); }
VecX positions(const Surface& s) {
  VecX x(s.dofs());
  for (size_t i = 0; i < s.x.size(); ++i) x.segment<3>(3 * i) = s.x[i];
  return x;
}

Real volume(const Surface& s, const VecX& x) {
  Real V = 0;
  for (const Tri& t : s.tris) V += triangle_volume_contribution(at(x, t[0]), at(x, t[1]), at(x, t[2]));
  return V;
}

VecX forces(const Surface& s, const VecX& x, Real P) {
  VecX f = VecX::Zero(s.dofs());
  for (const Tri& t : s.tris) {
    Vec3 f1, f2, f3;
    triangle_pressure_forces(P, at(x, t[0]), at(x, t[1]), at(x, t[2]), f1, f2, f3);
    f.segment<3>(3 * t[0]) += f1;
    f.segment<3>(3 * t[1]) += f2;
    f.segment<3>(3 * t[2]) += f3;
  }
  return f;
}

VecX volume_gradient(const Surface& s, const VecX& x) {
  VecX g = VecX::Zero(s.dofs());
  for (const Tri& t : s.tris) {
    Vec3 g1, g2, g3;
    triangle_volume_gradient(at(x, t[0]), at(x, t[1]), at(x, t[2]), g1, g2, g3);
    g.segment<3>(3 * t[0]) += g1;
    g.segment<3>(3 * t[1]) += g2;
    g.segment<3>(3 * t[2]) += g3;
  }
  return g;
}

template <class ElementMatrixFn>
MatX assemble(const Surface& s, const VecX& x, ElementMatrixFn element) {
  MatX K = MatX::Zero(s.dofs(), s.dofs());
  for (const Tri& t : s.tris) {
    Mat9 Ke;
    element(at(x, t[0]), at(x, t[1]), at(x, t[2]), Ke);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) K.block<3, 3>(3 * t[a], 3 * t[b]) += Ke.block<3, 3>(3 * a, 3 * b);
  }
  return K;
}

VecX random_vector(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> u(-1, 1);
  VecX v(n);
  for (int i = 0; i < n; ++i) v[i] = u(rng);
  return v;
}

TEST(PressureLoad, VolumeOfClosedSurfaceIsExact) {
  const Real side = 1.7;
  const Surface cube = cube_surface(3, side);
  EXPECT_NEAR(volume(cube, positions(cube)), side * side * side, 1e-13);
  const Surface oct = octahedron(0.8);
  EXPECT_NEAR(volume(oct, positions(oct)), 4.0 / 3.0 * 0.8 * 0.8 * 0.8, 1e-14);

  // Translation invariance, also for the perturbed (non-convex, non-planar) surface.
  const Vec3 offset(100.0, -250.0, 75.0);
  for (const Surface& s : {cube, perturbed(cube, 0.15, 7)}) {
    VecX x = positions(s), y = x;
    for (size_t i = 0; i < s.x.size(); ++i) y.segment<3>(3 * i) += offset;
    const Real V = volume(s, x);
    EXPECT_NEAR(volume(s, y), V, 1e-9 * V);
  }
}

TEST(PressureLoad, NetForceAndMomentVanishOnClosedSurface) {
  const Real P = 3.5;
  for (const Surface& s : {cube_surface(3, 1.0), perturbed(cube_surface(3, 1.0), 0.12, 11)}) {
    const VecX x = positions(s);
    const VecX f = forces(s, x, P);
    Vec3 F = Vec3::Zero(), M = Vec3::Zero();
    Real scale = 0, moment_scale = 0;
    for (size_t i = 0; i < s.x.size(); ++i) {
      const Vec3 fi = at(f, static_cast<int>(i)), xi = at(x, static_cast<int>(i));
      F += fi;
      M += xi.cross(fi);
      scale += fi.norm();
      moment_scale += xi.norm() * fi.norm();
    }
    EXPECT_LE(F.norm(), 1e-12 * scale);
    EXPECT_LE(M.norm(), 1e-12 * moment_scale);
  }
}

TEST(PressureLoad, ForcesAreConservativeVirtualWork) {
  const Real P = 2.25;
  const Surface s = perturbed(cube_surface(3, 1.0), 0.12, 3);
  const VecX x = positions(s);
  const VecX f = forces(s, x, P);
  const VecX g = volume_gradient(s, x);
  // f = P dV/dx node by node on a closed surface.
  EXPECT_LE((f - P * g).norm(), 1e-13 * f.norm());
  // Virtual work against a central difference of the volume along a random velocity.
  const VecX v = random_vector(s.dofs(), 5);
  const Real h = 1e-5;
  const Real dV = (volume(s, x + h * v) - volume(s, x - h * v)) / (2 * h);
  const Real work = f.dot(v);
  EXPECT_LE(std::abs(work - P * dV), 1e-8 * std::abs(work));
}

TEST(PressureLoad, GradientIsActuatorJacobianColumn) {
  // docs/method.md 6, [7]: J_i = sum over triangles containing i of n_t a_t / 3 (unit normal, area).
  const Surface s = perturbed(cube_surface(2, 1.0), 0.1, 17);
  const VecX x = positions(s);
  VecX J = VecX::Zero(s.dofs());
  for (const Tri& t : s.tris) {
    const Vec3 c = (at(x, t[1]) - at(x, t[0])).cross(at(x, t[2]) - at(x, t[0]));
    const Vec3 contribution = c.normalized() * (0.5 * c.norm()) / 3.0;
    for (int a : t) J.segment<3>(3 * a) += contribution;
  }
  EXPECT_LE((volume_gradient(s, x) - J).norm(), 1e-13 * J.norm());
  EXPECT_LE((forces(s, x, 1.0) - J).norm(), 1e-13 * J.norm());
}

TEST(PressureLoad, AssembledHessianMatchesFiniteDifferencesAndIsSymmetric) {
  const Real P = 1.5;
  const Surface s = perturbed(cube_surface(3, 1.0), 0.12, 23);
  const VecX x = positions(s);
  const MatX H =
      assemble(s, x, [](const Vec3& a, const Vec3& b, const Vec3& c, Mat9& M) { triangle_volume_hessian(a, b, c, M); });
  const int n = s.dofs();
  const Real h = 1e-6;
  MatX Hfd(n, n), Kfd(n, n);
  for (int j = 0; j < n; ++j) {
    VecX xp = x, xm = x;
    xp[j] += h;
    xm[j] -= h;
    Hfd.col(j) = (volume_gradient(s, xp) - volume_gradient(s, xm)) / (2 * h);
    Kfd.col(j) = (forces(s, xp, P) - forces(s, xm, P)) / (2 * h);
  }
  EXPECT_LE((H - Hfd).norm(), 1e-6 * H.norm());
  EXPECT_LE((H - H.transpose()).norm(), 1e-12 * H.norm());

  // The assembled follower-load stiffness d f/dx equals P d2V/dx2 and its finite differences.
  const MatX K = assemble(
      s, x, [P](const Vec3& a, const Vec3& b, const Vec3& c, Mat9& M) { triangle_pressure_stiffness(P, a, b, c, M); });
  EXPECT_LE((K - P * H).norm(), 1e-12 * K.norm());
  EXPECT_LE((K - Kfd).norm(), 1e-6 * K.norm());
  EXPECT_LE((K - K.transpose()).norm(), 1e-12 * K.norm());
}

TEST(PressureLoad, SingleTriangleStiffnessIsNotSymmetric) {
  const Vec3 p1(0.1, -0.2, 0.3), p2(1.2, 0.1, -0.1), p3(0.3, 0.9, 0.4);
  const Real P = 2.0;
  Mat9 K, H;
  triangle_pressure_stiffness(P, p1, p2, p3, K);
  // Per triangle the force derivative is not symmetric (diagonal blocks are skew, non-zero)...
  EXPECT_GT((K - K.transpose()).norm(), 0.1 * K.norm());
  // ...and matches finite differences of the triangle's own nodal forces.
  const Real h = 1e-6;
  Vec9 p;
  p << p1, p2, p3;
  for (int j = 0; j < 9; ++j) {
    Vec9 pp = p, pm = p;
    pp[j] += h;
    pm[j] -= h;
    Vec3 fp[3], fm[3];
    triangle_pressure_forces(P, pp.segment<3>(0), pp.segment<3>(3), pp.segment<3>(6), fp[0], fp[1], fp[2]);
    triangle_pressure_forces(P, pm.segment<3>(0), pm.segment<3>(3), pm.segment<3>(6), fm[0], fm[1], fm[2]);
    for (int a = 0; a < 3; ++a)
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(K(3 * a + k, j), (fp[a][k] - fm[a][k]) / (2 * h), 1e-8);
  }
  // The volume Hessian of one triangle (a scalar's Hessian) is symmetric with skew blocks and
  // zero diagonal blocks, and P*H differs from K: only the closed-surface sums agree.
  triangle_volume_hessian(p1, p2, p3, H);
  EXPECT_LE((H - H.transpose()).norm(), 1e-15);
  EXPECT_EQ((H.block<3, 3>(0, 0).norm()), 0.0);
  EXPECT_LE((H.block<3, 3>(0, 3) + H.block<3, 3>(0, 3).transpose()).norm(), 1e-15);
  EXPECT_GT((K - P * H).norm(), 0.1 * K.norm());
}

TEST(PressureLoad, PositivePressurePushesOutwardFromCavity) {
  const Real P = 4.0, side = 2.0;
  const Surface s = cube_surface(3, side);
  const VecX x = positions(s);
  const Vec3 centre = Vec3::Constant(side / 2);
  for (const Tri& t : s.tris) {
    Vec3 f1, f2, f3;
    triangle_pressure_forces(P, at(x, t[0]), at(x, t[1]), at(x, t[2]), f1, f2, f3);
    const Vec3 centroid = (at(x, t[0]) + at(x, t[1]) + at(x, t[2])) / 3.0;
    const Vec3 out = centroid - centre;
    // The force is along the face's outward axis (the largest component of centroid - centre).
    int axis;
    out.cwiseAbs().maxCoeff(&axis);
    EXPECT_GT(f1[axis] * out[axis], 0.0);
    EXPECT_NEAR(f1.norm(), std::abs(f1[axis]), 1e-14);
    EXPECT_NEAR(std::abs(f1[axis]), P * side * side / 54.0, 1e-13);  // P * area / 3
  }
  const VecX f = forces(s, x, P);
  for (int i = 0; i < static_cast<int>(s.x.size()); ++i)
    EXPECT_GT(at(f, i).dot(at(x, i) - centre), 0.0) << "node " << i;
  // Inflating along the force increases the enclosed volume.
  EXPECT_GT(volume(s, x + 1e-3 * f), volume(s, x));
}

TEST(PressureLoad, QuadIsTheMeanOfItsTwoDiagonalSplits) {
  const Real P = 1.25;
  const Surface s = perturbed(cube_surface(2, 1.0), 0.1, 31);
  const VecX x = positions(s);
  Real Vq = 0;
  VecX fq = VecX::Zero(s.dofs()), gq = VecX::Zero(s.dofs());
  Surface ac = s, bd = s;  // the two triangulations of the quads
  ac.tris.clear();
  bd.tris.clear();
  for (const Quad& q : s.quads) {
    Vec3 fa, fb, fc, fd, ga, gb, gc, gd;
    quad_pressure_forces(P, at(x, q[0]), at(x, q[1]), at(x, q[2]), at(x, q[3]), fa, fb, fc, fd);
    quad_volume_gradient(at(x, q[0]), at(x, q[1]), at(x, q[2]), at(x, q[3]), ga, gb, gc, gd);
    Vq += quad_volume_contribution(at(x, q[0]), at(x, q[1]), at(x, q[2]), at(x, q[3]));
    const Vec3 fs[4] = {fa, fb, fc, fd}, gs[4] = {ga, gb, gc, gd};
    for (int a = 0; a < 4; ++a) {
      fq.segment<3>(3 * q[a]) += fs[a];
      gq.segment<3>(3 * q[a]) += gs[a];
    }
    Tri t0, t1;
    split_quad(q[0], q[1], q[2], q[3], t0.data(), t1.data());
    ac.tris.push_back(t0);
    ac.tris.push_back(t1);
    bd.tris.push_back({q[1], q[2], q[3]});
    bd.tris.push_back({q[1], q[3], q[0]});
    for (int t = 0; t < 2; ++t)
      for (int v = 0; v < 3; ++v) {
        EXPECT_EQ(q[quad_split_vertex(t, v)], (t == 0 ? t0 : t1)[v]);
        EXPECT_EQ(q[quad_split_vertex(t + 2, v)], bd.tris[bd.tris.size() - 2 + t][v]);
      }
  }
  EXPECT_NEAR(Vq, 0.5 * (volume(ac, x) + volume(bd, x)), 1e-14);
  // A closed surface: both triangulations enclose the same volume up to the quads' warp, and the
  // mean of their forces is the quad load.
  EXPECT_NEAR(volume(ac, x), volume(bd, x), 0.05);
  const VecX mean_f = 0.5 * (forces(ac, x, P) + forces(bd, x, P));
  EXPECT_LE((fq - mean_f).norm(), 1e-14 * fq.norm());
  EXPECT_LE((gq - 0.5 * (volume_gradient(ac, x) + volume_gradient(bd, x))).norm(), 1e-14 * gq.norm());
  const Surface unperturbed = cube_surface(2, 1.0);
  EXPECT_NEAR(volume(unperturbed, positions(unperturbed)), 1.0, 1e-14);
}

TEST(PressureLoad, QuadLoadIsTheConsistentLoadOfTheBilinearFace) {
  // f_a = P integral over the bilinear face of N_a (x_xi x x_eta) dxi deta: the integrand is
  // of degree <= 2 in each of xi, eta, so 2x2 Gauss integrates it exactly. Checked on a warped
  // (non-planar) quad; on a flat square each node carries P A / 4.
  const Vec3 p[4] = {Vec3(0, 0, 0), Vec3(1.2, 0.1, 0.2), Vec3(1.0, 0.9, -0.3), Vec3(-0.1, 1.1, 0.1)};
  const Real P = 3.0;
  Vec3 f[4];
  quad_pressure_forces(P, p[0], p[1], p[2], p[3], f[0], f[1], f[2], f[3]);
  const Real xi_a[4] = {-1, 1, 1, -1}, eta_a[4] = {-1, -1, 1, 1};
  const Real g = 1 / std::sqrt(3.0);
  Vec3 exact[4] = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
  for (Real xi : {-g, g})
    for (Real eta : {-g, g}) {
      Vec3 x_xi = Vec3::Zero(), x_eta = Vec3::Zero();
      for (int a = 0; a < 4; ++a) {
        x_xi += 0.25 * xi_a[a] * (1 + eta_a[a] * eta) * p[a];
        x_eta += 0.25 * eta_a[a] * (1 + xi_a[a] * xi) * p[a];
      }
      const Vec3 n = x_xi.cross(x_eta);
      for (int a = 0; a < 4; ++a) exact[a] += P * 0.25 * (1 + xi_a[a] * xi) * (1 + eta_a[a] * eta) * n;
    }
  for (int a = 0; a < 4; ++a) EXPECT_LE((f[a] - exact[a]).norm(), 1e-14) << "node " << a;
  const Vec3 sq[4] = {Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(2, 2, 0), Vec3(0, 2, 0)};
  quad_pressure_forces(P, sq[0], sq[1], sq[2], sq[3], f[0], f[1], f[2], f[3]);
  for (int a = 0; a < 4; ++a) EXPECT_LE((f[a] - Vec3(0, 0, P * 4 / 4)).norm(), 1e-14) << "node " << a;
}

}  // namespace
}  // namespace softik::fem
