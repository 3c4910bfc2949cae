// The static problem a continuation follows, whatever the body: an FEM Assembler or a node
// network's NetworkStatics (docs/method.md sections 11 and 12.5). Private to host/solvers/.
#pragma once

#include <memory>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/backend.hpp"
#include "softik/mesh.hpp"

namespace softik {

class NetworkStatics;

class EquilibriumModel {
 public:
  virtual ~EquilibriumModel() = default;
  virtual int num_dofs() const = 0;
  virtual int num_free_dofs() const = 0;
  /// DOF -> free row, -1 for a fixed DOF (or a DOF no cell uses).
  virtual const std::vector<int>& free_dof_index() const = 0;
  virtual const CsrPattern& pattern() const = 0;
  /// The mesh whose nodes (rest positions X) pressure loads and displacements refer to.
  virtual const Mesh& nodes() const = 0;
  /// The backend pressure loads are evaluated on.
  virtual Backend backend() const = 0;
  /// At least one DOF of a node the body uses is fixed (else K is singular).
  virtual bool fixes_something() const = 0;
  /// force = -d psi/dx (num_dofs) and K = d^2 psi/dx^2 on the free DOFs (pattern values).
  virtual void assemble(const std::vector<Real>& x, std::vector<Real>& force, std::vector<Real>& K) const = 0;
  /// Checks of the starting point past the input checks (a node network's local mechanisms);
  /// throws softik::Error naming what is wrong.
  virtual void check_start(const std::vector<Real>& /*x*/) const {}
};

std::unique_ptr<EquilibriumModel> equilibrium_model(const Assembler& assembler);
std::unique_ptr<EquilibriumModel> equilibrium_model(const NetworkStatics& network);

}  // namespace softik
