// Turns the CellStatus of a pass (cell_kernel.hpp) into the Error users see, with the same words
// for every backend.
#pragma once

#include <functional>
#include <string>

#include "host/assembly/cell_kernel.hpp"

namespace softik::assembly {

/// Throws ErrorKind::Numerical when `status` records a non-finite position (naming the node,
/// the component and position(dof), its value) or an inverted cell where the formulation is
/// undefined (naming the cell and `formulation_name`: the law, or "QR corotational rotation").
/// `prefix` (e.g. "design 3: ") starts the message.
void check_cell_status(const CellStatus& status, int dim, const std::function<Real(int dof)>& position,
                       const std::string& formulation_name, const std::string& prefix = {});

}  // namespace softik::assembly
