// The FEM and node-network static problems behind one interface (equilibrium_model.hpp).
#include "host/solvers/equilibrium_model.hpp"

#include "softik/network_statics.hpp"

namespace softik {
namespace {

/// What both models forward to the problem they wrap (an Assembler or a NetworkStatics): its
/// sizes, free-DOF index, pattern and assembly.
template <class Problem>
class ForwardedEquilibrium : public EquilibriumModel {
 public:
  explicit ForwardedEquilibrium(const Problem& p) : p_(p) {}
  int num_dofs() const override { return p_.num_dofs(); }
  int num_free_dofs() const override { return p_.num_free_dofs(); }
  const std::vector<int>& free_dof_index() const override { return p_.free_dof_index(); }
  const CsrPattern& pattern() const override { return p_.pattern(); }
  void assemble(const std::vector<Real>& x, std::vector<Real>& force, std::vector<Real>& K) const override {
    p_.assemble(x, nullptr, &force, &K);
  }

 protected:
  const Problem& p_;
};

class FemEquilibrium final : public ForwardedEquilibrium<Assembler> {
 public:
  using ForwardedEquilibrium::ForwardedEquilibrium;
  const Mesh& nodes() const override { return p_.mesh(); }
  Backend backend() const override { return p_.options().backend; }
  bool fixes_something() const override {
    const Mesh& mesh = p_.mesh();
    std::vector<char> referenced(static_cast<size_t>(mesh.num_nodes()), 0);
    for (int v : mesh.cells) referenced[static_cast<size_t>(v)] = 1;
    for (size_t dof = 0; dof < p_.free_dof_index().size(); ++dof)
      if (referenced[dof / static_cast<size_t>(mesh.dim)] && p_.free_dof_index()[dof] < 0) return true;
    return false;
  }
};

class NetworkEquilibrium final : public ForwardedEquilibrium<NetworkStatics> {
 public:
  using ForwardedEquilibrium::ForwardedEquilibrium;
  const Mesh& nodes() const override { return p_.nodes(); }
  Backend backend() const override { return Backend::Cpu; }
  bool fixes_something() const override { return p_.fixes_something(); }
  void check_start(const std::vector<Real>& x) const override { p_.check_mechanisms(x); }
};

}  // namespace

std::unique_ptr<EquilibriumModel> equilibrium_model(const Assembler& assembler) {
  return std::make_unique<FemEquilibrium>(assembler);
}

std::unique_ptr<EquilibriumModel> equilibrium_model(const NetworkStatics& network) {
  return std::make_unique<NetworkEquilibrium>(network);
}

}  // namespace softik
