// Contact (docs/method.md 9.1, 10): rigid obstacles, proximity detection, the frictional contact solve.
//
// Conventions (units are the user's; SI recommended):
//   x            positions as a DOF vector of a 3D mesh: x[3*node + i].
//   ContactPoint one unilateral constraint with Coulomb friction between a body node and an
//                obstacle (or a triangle of a deformable surface). Its frame (n, t1, t2) is
//                orthonormal; n points from the obstacle towards the node, so a positive normal
//                force pushes the node away. gap = signed distance - contact distance (< 0: the
//                node is closer than the contact distance, i.e. penetrating).
//   The constraint rows of a contact are H_n = n, H_t1 = t1, H_t2 = t2 at the node (minus the
//   barycentric weights times the same vectors at a triangle's nodes for a body-body contact),
//   so delta = H dx measures the change of the gap and the tangential slip, and the constraint
//   forces on the DOFs are H^T lambda (lambda in force units: N, never an impulse).
//
// The frictional contact problem of one time step (a Signorini-Coulomb problem in the
// constraint space), for n contacts with rows ordered (normal, t1, t2) per contact:
//   delta = delta_free + W lambda,  W = H A^-1 H^T  (3n x 3n, symmetric positive semi-definite)
//   0 <= lambda_n  _|_  delta_n >= 0                       (Signorini)
//   |lambda_t| <= mu lambda_n;  |lambda_t| < mu lambda_n  =>  delta_t = 0        (stick)
//                               delta_t != 0  =>  lambda_t = -mu lambda_n delta_t/|delta_t|  (slip)
// delta_free[normal] is the gap of the free motion, delta_free[tangent] the tangential slip of
// the free motion over the step relative to the obstacle.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "softik/config.hpp"

namespace softik {

using Vec3r = Eigen::Matrix<Real, 3, 1>;

enum class ObstacleShape { Plane, Sphere, Box, Cylinder, TriangleMesh };

/// "plane", "sphere", "box", "cylinder" or "mesh".
const char* obstacle_shape_name(ObstacleShape shape);

/// A rigid obstacle, fixed or translated along a prescribed piecewise-linear path.
struct Obstacle {
  std::string name;  ///< named in every error and report
  ObstacleShape shape = ObstacleShape::Plane;
  Vec3r center = Vec3r::Zero();        ///< plane: a point on it; sphere, box, cylinder: the centre
  Vec3r normal = Vec3r::UnitZ();       ///< plane: unit normal pointing to the side where bodies are
  Real radius = 0;                     ///< sphere, cylinder
  Vec3r half_extents = Vec3r::Zero();  ///< box, along the columns of `rotation`
  Eigen::Matrix<Real, 3, 3> rotation = Eigen::Matrix<Real, 3, 3>::Identity();  ///< box axes
  Vec3r axis = Vec3r::UnitZ();                                                 ///< cylinder: unit axis through `center`
  Real half_length = 0;  ///< cylinder: half its length (flat end caps)
  /// TriangleMesh: vertices (3 per vertex) and triangles wound so that normals point out of the
  /// obstacle; closed and consistently wound (validate() checks).
  std::vector<Real> vertices;
  std::vector<std::array<int, 3>> triangles;
  Real friction = 0;  ///< Coulomb coefficient mu >= 0 between this obstacle and any body
  /// Prescribed motion: the obstacle is translated by path_offsets interpolated linearly in
  /// time between path_times (strictly increasing), held at the end values outside. Empty: fixed.
  std::vector<Real> path_times;
  std::vector<Vec3r> path_offsets;

  /// The translation at time t (zero without a path).
  Vec3r offset(Real t) const;
};

/// Throws softik::Error naming the obstacle and the fix on: a non-unit or zero normal/axis, a
/// non-positive radius, half extent or half length, a non-orthonormal box rotation, NaN/inf, mu < 0,
/// a path whose times do not increase or whose sizes differ, and a triangle mesh that is empty,
/// open, non-manifold, inconsistently wound or wound inwards (negative enclosed volume).
void validate(const Obstacle& obstacle);

/// An obstacle from an OBJ or STL triangle surface (io: read_surface), checked by validate();
/// an inward-wound closed surface is an error naming the file, not silently flipped.
Obstacle load_obstacle_mesh(const std::string& path, const std::string& name);

/// The signed distance of point p to the obstacle's surface at time t (negative inside), the
/// closest surface point, and the unit normal there pointing out of the obstacle (for a point
/// inside, the direction of the shortest way out).
struct ObstacleDistance {
  Real distance = 0;
  Vec3r point = Vec3r::Zero();
  Vec3r normal = Vec3r::UnitZ();
};
ObstacleDistance distance_to_obstacle(const Obstacle& obstacle, Real t, const Vec3r& p);

/// One contact constraint (see the conventions above).
struct ContactPoint {
  int node = -1;                              ///< the body node in contact (DOFs 3*node .. 3*node+2)
  int obstacle = -1;                          ///< index of the obstacle, or -1 for a contact with a deformable triangle
  std::array<int, 3> triangle{{-1, -1, -1}};  ///< body-body: the other surface's triangle nodes
  std::array<Real, 3> barycentric{{0, 0, 0}};  ///< body-body: the closest point's weights on it
  Vec3r normal = Vec3r::UnitZ();
  Vec3r t1 = Vec3r::UnitX();
  Vec3r t2 = Vec3r::UnitY();
  Real gap = 0;       ///< signed distance - contact distance
  Real friction = 0;  ///< mu of the pair
};

/// The tangent frame used for every contact: t1, t2 orthonormal and orthogonal to n, chosen
/// deterministically from n.
void tangent_frame(const Vec3r& n, Vec3r& t1, Vec3r& t2);

/// Node-obstacle proximity: every node of `nodes` whose signed distance to an obstacle at time t
/// is below contact_distance + alarm_distance gives one ContactPoint (per obstacle it is near).
/// x: 3 coordinates per mesh node. Deterministic order (by node, then obstacle).
std::vector<ContactPoint> detect_obstacle_contacts(const std::vector<Obstacle>& obstacles, Real t,
                                                   const std::vector<int>& nodes, const std::vector<Real>& x,
                                                   Real contact_distance, Real alarm_distance);

/// Point-triangle proximity between deformable surfaces: triangles (global node indices) each
/// carrying a surface id; a node of surface s is tested against the triangles of every surface
/// other than s (and of s itself with self_contact, skipping triangles that contain the node or
/// share an edge neighbour with it). A bounding-volume hierarchy over the triangles, refitted to
/// the positions of each call, keeps a query O(log T).
class SurfaceProximity {
 public:
  SurfaceProximity(std::vector<std::array<int, 3>> triangles, std::vector<int> triangle_surface,
                   bool self_contact = false);
  ~SurfaceProximity();
  SurfaceProximity(SurfaceProximity&&) noexcept;
  SurfaceProximity& operator=(SurfaceProximity&&) noexcept;
  /// nodes[i] belongs to surface node_surface[i]. The closest triangle within
  /// contact_distance + alarm_distance gives one ContactPoint per node (friction mu), its normal
  /// the triangle's outward normal.
  std::vector<ContactPoint> detect(const std::vector<int>& nodes, const std::vector<int>& node_surface,
                                   const std::vector<Real>& x, Real contact_distance, Real alarm_distance,
                                   Real mu) const;

 private:
  struct Impl;
  Impl* impl_ = nullptr;
};

enum class ContactSolverMethod {
  /// Block Gauss-Seidel on the exact friction cone (any size): each contact solved exactly with
  /// the others fixed (separation, stick, or slip found by an angle scan + bisection), plus an
  /// active-set polish (one linear solve) once the contact states settle.
  ProjectedGaussSeidel,
  /// Lemke's pivoting on the LCP of an inscribed 8-facet friction pyramid (Stewart-Trinkle), dense:
  /// small problems. Exact without friction; with friction |lambda_t| <= mu lambda_n holds but the
  /// slip direction is one of the pyramid's, so the exact-cone residual stays O(mu lambda_n (1 -
  /// cos(pi/8))) W. converged = the pivoting ended on a solution (the warm start is not used).
  Direct,
};

struct ContactSolverOptions {
  ContactSolverMethod method = ContactSolverMethod::ProjectedGaussSeidel;
  Real tolerance = 1e-12;     ///< on frictional_contact_residual (length units)
  int max_iterations = 2000;  ///< sweeps (PGS) or pivots (Direct)
};

struct ContactSolverReport {
  int iterations = 0;
  Real residual = 0;  ///< frictional_contact_residual at the returned lambda
  bool converged = false;
};

/// Solves the frictional contact problem above. W: 3n x 3n (rows normal, t1, t2 per contact),
/// delta_free: 3n, mu: n. lambda (3n) is the warm start on entry (resized and zeroed when its size
/// differs) and the solution on return. Never throws for an unconverged solve (the report says
/// so); throws softik::Error on inconsistent sizes, NaN, mu < 0 or a non-positive diagonal of W.
ContactSolverReport solve_frictional_contact(const Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>& W,
                                             const Eigen::Matrix<Real, Eigen::Dynamic, 1>& delta_free,
                                             const std::vector<Real>& mu,
                                             Eigen::Matrix<Real, Eigen::Dynamic, 1>& lambda,
                                             const ContactSolverOptions& options = {});

/// The residual of the Signorini-Coulomb conditions at lambda, in length units: with
/// delta = delta_free + W lambda, per contact i the natural map of De Saxce's bipotential
///   r_i = |lambda_i - proj_K(lambda_i - rho_i (delta_i + mu_i |delta_t,i| e_n))| / rho_i,
///   K = {|lambda_t| <= mu_i lambda_n} (the exact Coulomb cone), rho_i = 1 / max diag(W_ii),
/// and the largest r_i over the contacts. Zero exactly at a solution, positive otherwise.
Real frictional_contact_residual(const Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>& W,
                                 const Eigen::Matrix<Real, Eigen::Dynamic, 1>& delta_free, const std::vector<Real>& mu,
                                 const Eigen::Matrix<Real, Eigen::Dynamic, 1>& lambda);

/// Contact with obstacles (and between parts of the mesh) in a DynamicSolver or an InverseSolver.
struct ContactOptions {
  std::vector<Obstacle> obstacles;
  /// Nodes that can touch an obstacle (empty: every node of the mesh boundary).
  std::vector<int> nodes;
  /// Contacts between separate parts of the mesh (its connected components): each boundary
  /// node against the other parts' boundary triangles, with friction `body_friction`.
  bool between_parts = false;
  Real body_friction = 0;
  Real contact_distance = 0;  ///< the gap kept between surfaces (>= 0, below the smallest element)
  Real alarm_distance = -1;   ///< detection margin beyond the contact distance (< 0: 0.1 x the mean element edge)
  /// The contact solve's tolerance (contact.hpp's residual, a length); < 0: 1e-9 x the mesh's
  /// bounding-box diagonal. It replaces solver.tolerance.
  Real tolerance = -1;
  ContactSolverOptions solver;  ///< method and max_iterations
};

}  // namespace softik
