// The CUDA backend's public entry points (built when SOFTIK_CUDA is on; SOFTIK_HAVE_CUDA is
// then defined for users of softik::cuda). Kernels call the same include/softik/fem/ headers as
// the CPU assembly, so both produce the same numbers to round-off.
#pragma once

#include <string>
#include <vector>

#include "softik/fem/materials/linear_elastic.hpp"
#include "softik/fem/rotation.hpp"
#include "softik/mesh.hpp"

namespace softik::cuda {

/// True when a CUDA device can be used; otherwise false and, if given, `reason` says why
/// (no driver, no device, ...). Never throws.
bool device_available(std::string* reason = nullptr);

/// Elastic forces f = -dE/dx (num_dofs entries) of a Tet4 mesh under the corotational
/// formulation with a homogeneous LinearElastic material, computed on the GPU: one thread per
/// cell calls fem::corotational_element and scatters with atomics. Equals
/// Assembler::force() to round-off. Throws softik::Error on a CUDA failure, or, as the CPU does,
/// when a cell is inverted in x under the QR rotation (the kernel's status flag names the
/// smallest such cell index).
std::vector<Real> corotational_tet4_forces(const Mesh& mesh, const fem::LinearElastic& material,
                                           const std::vector<Real>& x,
                                           fem::RotationMethod rotation = fem::RotationMethod::Polar);

}  // namespace softik::cuda
