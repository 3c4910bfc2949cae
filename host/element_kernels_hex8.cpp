// Instantiates the assembly kernels for the Hex8 element (one translation unit per trait keeps
// builds parallel).
#include "element_kernels_impl.hpp"

namespace softik {
template std::unique_ptr<ElementKernels> make_element_kernels_for<fem::Hex8>(const Mesh&, const std::vector<Material>&,
                                                                           const AssemblyOptions&);
}  // namespace softik
