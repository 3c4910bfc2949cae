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

// SOFTIK_HD_COLD marks a rarely taken host/device function (a fallback) that the device
// compiler must keep out of line, so that its work arrays do not weigh on the registers and the
// stack frame of the kernel that may call it. Inline on the host.
#if defined(__CUDA_ARCH__)
#define SOFTIK_HD_COLD SOFTIK_HD __noinline__
#else
#define SOFTIK_HD_COLD SOFTIK_HD inline
#endif

// SOFTIK_UNROLL_BY(count) asks the device compiler to unroll the next loop `count` times (an
// integral constant expression; 1: not at all), so that arrays indexed by its counter can stay in
// registers on small elements without multiplying the code of large ones. Nothing on the host.
#define SOFTIK_PRAGMA(text) _Pragma(#text)
#if defined(__CUDA_ARCH__)
#define SOFTIK_UNROLL_BY(count) SOFTIK_PRAGMA(unroll count)
#else
#define SOFTIK_UNROLL_BY(count)
#endif

namespace softik {
/// All mechanics in double precision (brief, non-negotiable 6).
using Real = double;
}  // namespace softik
