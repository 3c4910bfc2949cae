// Uniform pressure on a cavity wall, on the GPU (CUDA backend, private to cuda/ and its tests):
// the cavity volume, the nodal pressure forces and the actuator Jacobian column of one
// PressureLoad, from positions already in device memory. Same numbers as the CPU functions of
// loads.hpp (surface_volume, add_pressure_forces, pressure_jacobian) to round-off: one thread
// per triangle runs the per-triangle body the CPU runs (host/loads/pressure_kernel.hpp).
//
// Surface handling is the CPU's (assembly::expand_triangles): a triangle has weight 1; a quad (a, b, c, d) is the four
// triangles of its two diagonal splits (fem::quad_split_vertex), weight 1/2 each. A surface
// vertex is a mesh node (empty SurfaceEmbedding) or the weighted sum of its embedding nodes; its
// forces are spread back to those nodes with the same weights.
//
// Device memory (uploaded once in the constructor; records, as the CPU reads them):
//   triangles  3 ints + 1 weight per triangle (quads expanded to 4 triangles),
//   embedding  nodes_per_vertex ints + weights per vertex ([v * nodes_per_vertex + k]), if any,
//   scratch    the per-triangle volumes and the reduction's work space, and x / force buffers
//              for the host-vector overloads.
// No call allocates. Every call runs on the default stream; the methods returning a host value
// (volume(d_x)) synchronise, the others are asynchronous like a kernel launch (a later
// cudaMemcpy on the default stream sees their results).
//
// Device code never throws and checks nothing: positions must be finite (NaN in, NaN out).
// Device pointers: d_x holds num_dofs() positions (DOF 3*n + i), d_f / d_column num_dofs()
// values, all in device memory.
#pragma once

#include <memory>
#include <vector>

#include "softik/loads.hpp"
#include "softik/mesh.hpp"

namespace softik::cuda {

class DevicePressure {
 public:
  /// Uploads the load's surface and embedding (which may be destroyed afterwards). Throws
  /// softik::Error when no CUDA device is usable, or for a load the CPU functions refuse (2D
  /// mesh, vertex or embedding node out of range, inconsistent embedding), with their messages.
  /// load.pressure is not used: every call takes its pressure.
  DevicePressure(const PressureLoad& load, const Mesh& mesh);
  ~DevicePressure();
  DevicePressure(DevicePressure&&) noexcept;
  DevicePressure& operator=(DevicePressure&&) noexcept;
  DevicePressure(const DevicePressure&) = delete;
  DevicePressure& operator=(const DevicePressure&) = delete;

  int num_dofs() const;
  int num_triangles() const;  ///< faces after expanding each quad into 4 weighted triangles (a Tri6 counts 1)
  int num_vertices() const;

  /// Enclosed volume at positions d_x (surface_volume). A deterministic reduction (no
  /// atomics): the same d_x gives the same bits. Synchronous.
  Real volume(const Real* d_x);
  /// The same, written to d_volume (one Real in device memory). Asynchronous.
  void volume(const Real* d_x, Real* d_volume);
  /// Adds the nodal forces of pressure P at positions d_x to d_f (add_pressure_forces), with
  /// double atomics (sums agree with the CPU to round-off, not bitwise). Throws softik::Error
  /// for a non-finite P (checked on the host, as the CPU does).
  void add_forces(Real P, const Real* d_x, Real* d_f);
  /// The actuator Jacobian column at d_x (pressure_jacobian): d_column is zeroed, then receives
  /// the forces per unit pressure.
  void jacobian(const Real* d_x, Real* d_column);

  /// Host-vector conveniences: upload x (num_dofs entries; checked finite) into a buffer owned by
  /// this object, run the device version, download. Synchronous.
  Real volume(const std::vector<Real>& x);
  void add_forces(Real P, const std::vector<Real>& x, std::vector<Real>& f);  ///< f: num_dofs
  std::vector<Real> jacobian(const std::vector<Real>& x);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace softik::cuda
