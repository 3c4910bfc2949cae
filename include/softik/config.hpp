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

// SOFTIK_HD_COLD marks a rarely taken host/device function (a fallback) that the compilers must
// keep out of line: on the device so that its work arrays do not weigh on the registers and the
// stack frame of the kernel that may call it, on the host so that SOFTIK_HOST_FLATTEN does not
// pull it into the hot loop.
#if defined(__CUDA_ARCH__)
#define SOFTIK_HD_COLD SOFTIK_HD __noinline__
#elif defined(__GNUC__)
#define SOFTIK_HD_COLD SOFTIK_HD inline __attribute__((noinline, cold))
#else
#define SOFTIK_HD_COLD SOFTIK_HD inline
#endif

// SOFTIK_HOST_FLATTEN asks the host compiler to inline every call made in the function it marks,
// recursively (functions marked noinline, such as SOFTIK_HD_COLD ones, excepted). The cell
// kernels carry it: inside them g++ -O3 left Eigen's fixed-size products, determinants and block
// copies out of line (a call each, no scheduling across them): flattened, the corotational Tet4
// force pass is 1.5x and its force + stiffness pass 1.4-1.8x faster (bench_assembly,
// BM_ForceAssembly and BM_Assembly).
// Nothing on the device, where nvcc inlines the kernels' calls anyway.
#if !defined(__CUDA_ARCH__) && defined(__GNUC__)
#define SOFTIK_HOST_FLATTEN __attribute__((flatten))
#else
#define SOFTIK_HOST_FLATTEN
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
