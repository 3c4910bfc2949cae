// softik build-wide definitions: the host/device qualifier and the scalar type.
#pragma once

// SOFTIK_HD marks functions callable from host and device. Under nvcc it expands to
// __host__ __device__; in plain C++ builds it is empty. Every function in
// include/softik/fem/ carries it (docs/architecture.md, "The public API").
#if defined(__CUDACC__)
#define SOFTIK_HD __host__ __device__
#define SOFTIK_DEVICE_COMPILE 1
#else
#define SOFTIK_HD
#endif

#define SOFTIK_HD_INLINE SOFTIK_HD inline

namespace softik {
/// All mechanics in double precision (brief, non-negotiable 6).
using Real = double;
}  // namespace softik
