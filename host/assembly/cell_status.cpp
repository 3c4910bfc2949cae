#include "host/assembly/cell_status.hpp"

#include "softik/error.hpp"

namespace softik::assembly {

void check_cell_status(const CellStatus& status, int dim, const std::function<Real(int dof)>& position,
                       const std::string& formulation_name, const std::string& prefix) {
  if (status.first_nonfinite_dof != kNoIndex) {
    const int dof = status.first_nonfinite_dof;
    SOFTIK_CHECK_NUMERICAL(false, prefix << "position of node " << dof / dim << " component " << dof % dim << " is "
                                         << position(dof) << ": the state diverged or was not initialised");
  }
  SOFTIK_CHECK_NUMERICAL(status.first_invalid_cell == kNoIndex,
                         prefix << "cell " << status.first_invalid_cell
                                << " is inverted in the current configuration (det F <= 0), where the "
                                << formulation_name
                                << " formulation is undefined: take smaller load steps, or use StableNeoHookean or the "
                                   "polar corotational formulation, which tolerate inversion");
}

}  // namespace softik::assembly
