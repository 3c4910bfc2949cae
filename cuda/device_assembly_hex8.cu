// Instantiates the GPU assembly kernels of the Hex8 element for every law in softik::Material
// (one translation unit per trait keeps builds parallel). See device_assembly_kernel.cuh.
#include "device_assembly_kernel.cuh"

namespace softik::cuda {

DeviceElement device_element_hex8() { return make_device_element<fem::Hex8>(); }

}  // namespace softik::cuda
