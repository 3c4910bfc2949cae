// Instantiates the assembly kernels for the Tet4 element (one translation unit per trait keeps
// builds parallel).
#include "element_kernels_impl.hpp"

namespace softik {
template std::unique_ptr<ElementKernels> make_element_kernels_for<fem::Tet4>(const Mesh&, const std::vector<Material>&,
                                                                           const AssemblyOptions&);
}  // namespace softik
