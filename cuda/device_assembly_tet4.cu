// Instantiates the GPU assembly kernels of the Tet4 element for every law in softik::Material
// (one translation unit per trait keeps builds parallel). See device_assembly_kernel.cuh.
#include "device_assembly_kernel.cuh"

namespace softik::cuda {

DeviceElement device_element_tet4() { return make_device_element<fem::Tet4>(); }

}  // namespace softik::cuda
