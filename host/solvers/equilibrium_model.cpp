// The FEM and node-network static problems behind one interface (equilibrium_model.hpp).
#include "host/solvers/equilibrium_model.hpp"

#include "softik/network_statics.hpp"

namespace softik {
namespace {

class FemEquilibrium final : public EquilibriumModel {
 public:
  explicit FemEquilibrium(const Assembler& a) : a_(a) {}
  int num_dofs() const override { return a_.num_dofs(); }
  int num_free_dofs() const override { return a_.num_free_dofs(); }
  const std::vector<int>& free_dof_index() const override { return a_.free_dof_index(); }
  const CsrPattern& pattern() const override { return a_.pattern(); }
  const Mesh& nodes() const override { return a_.mesh(); }
  Backend backend() const override { return a_.options().backend; }
  bool fixes_something() const override {
    const Mesh& mesh = a_.mesh();
    std::vector<char> referenced(static_cast<size_t>(mesh.num_nodes()), 0);
    for (int v : mesh.cells) referenced[static_cast<size_t>(v)] = 1;
    for (size_t dof = 0; dof < a_.free_dof_index().size(); ++dof)
      if (referenced[dof / static_cast<size_t>(mesh.dim)] && a_.free_dof_index()[dof] < 0) return true;
    return false;
  }
  void assemble(const std::vector<Real>& x, std::vector<Real>& force, std::vector<Real>& K) const override {
    a_.assemble(x, nullptr, &force, &K);
  }

 private:
  const Assembler& a_;
};

class NetworkEquilibrium final : public EquilibriumModel {
 public:
  explicit NetworkEquilibrium(const NetworkStatics& n) : n_(n) {}
  int num_dofs() const override { return n_.num_dofs(); }
  int num_free_dofs() const override { return n_.num_free_dofs(); }
  const std::vector<int>& free_dof_index() const override { return n_.free_dof_index(); }
  const CsrPattern& pattern() const override { return n_.pattern(); }
  const Mesh& nodes() const override { return n_.nodes(); }
  Backend backend() const override { return Backend::Cpu; }
  bool fixes_something() const override { return n_.fixes_something(); }
  void assemble(const std::vector<Real>& x, std::vector<Real>& force, std::vector<Real>& K) const override {
    n_.assemble(x, nullptr, &force, &K);
  }
  void check_start(const std::vector<Real>& x) const override { n_.check_mechanisms(x); }

 private:
  const NetworkStatics& n_;
};

}  // namespace

std::unique_ptr<EquilibriumModel> equilibrium_model(const Assembler& assembler) {
  return std::make_unique<FemEquilibrium>(assembler);
}

std::unique_ptr<EquilibriumModel> equilibrium_model(const NetworkStatics& network) {
  return std::make_unique<NetworkEquilibrium>(network);
}

}  // namespace softik
