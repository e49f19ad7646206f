/* What differs between the targets the kernels compile for, and nothing else.

   kernel.cu and its headers are one body of code for three targets: CUDA
   (NVRTC, gpu/cuda.py), OpenCL C (pyopencl, gpu/opencl.py) and host C
   (the compiled engine's modules and beggar._gpu_host, one thread;
   tests/gpu_harness.c, many). The target is named first (BG_CUDA,
   BG_OPENCL, BG_HOST); their differences are these macros:

   bg_u64 .. bg_u8       fixed-width integers
   BG_FN                 a function of the kernels' code
   BG_KERNEL             a kernel (an entry point of a launch)
   BG_KERNEL_REGISTERS(n) a kernel of at most n registers a thread, where the
                         compiler's own choice spills or issues more (CUDA's;
                         elsewhere BG_KERNEL)
   BG_GLOBAL, BG_LOCAL   pointers into the launch's memory and into the
                         block's shared memory (OpenCL's address spaces)
   BG_SHARED             a block's shared memory, declared in a kernel
   BG_THREAD, BG_THREADS the thread's number in its block, and the block's threads
                         (on a device BG_BLOCK, what the kernels are compiled and
                         launched for: a constant, so that a slot modulo the
                         threads is a mask, not a division)
   BG_SYNC()             a barrier of the block's threads (shared and global memory)
   BG_ADD32, BG_ADD64    atomic additions (32-bit on shared memory, 64-bit on
                         global memory), returning the old value
   BG_MAX64              an atomic maximum on global memory
   BG_CAS64              an atomic compare-and-swap on global memory, returning the old value
   BG_CTZ64              the trailing zero bits of a nonzero 64-bit word
   BG_NO_UNROLL          before a loop of a few trips that vary from thread to
                         thread: its body once in the machine code, a trip a
                         pass (CUDA's; the other compilers do as they like)
   bg_pair, bg_set_pair  the 32-bit word of two 16-bit pieces in shared memory
                         (at a word's offset), read and written as one, its
                         first piece in the low half, as each language defines
                         it (memcpy in C and C++, vload2 and vstore2 in OpenCL
                         C; a union's other member is C's alone)

   The host build is one thread: its "atomics" are plain operations and its
   barrier nothing. The concurrency harness defines BG_HARNESS and its own
   threads, barriers and atomics before it includes kernel.cu. The kernels use
   no warp or sub-group primitive: a block's threads meet only at its barriers
   and through atomics. Every target is little-endian: a 32-bit word of
   shared memory read as two 16-bit pieces has its first in its low half
   (bg_pair). */

#ifndef BEGGAR_GPU_VENDOR_H
#define BEGGAR_GPU_VENDOR_H

/* The target, decided once: a target of its own (HIP, Metal) is a line here
   and a block below. */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define BG_CUDA 1
#elif defined(__OPENCL_VERSION__)
#define BG_OPENCL 1
#else
#define BG_HOST 1
#endif

#if defined(BG_CUDA)

typedef unsigned long long bg_u64;
typedef long long bg_i64;
typedef unsigned int bg_u32;
typedef unsigned short bg_u16;
typedef unsigned char bg_u8;
#define BG_FN __device__ __forceinline__
#define BG_KERNEL extern "C" __global__ void __launch_bounds__(BG_BLOCK)
/* Without __launch_bounds__, which CUDA does not take with __maxnreg__. */
#define BG_KERNEL_REGISTERS(n) extern "C" __global__ void __maxnreg__(n)
#define BG_GLOBAL
#define BG_LOCAL
#define BG_SHARED __shared__
#define BG_THREAD ((int)threadIdx.x)
#define BG_THREADS BG_BLOCK
#define BG_SYNC() __syncthreads()
#define BG_ADD32(p, v) atomicAdd((p), (bg_u32)(v))
#define BG_ADD64(p, v) atomicAdd((p), (bg_u64)(v))
#define BG_MAX64(p, v) atomicMax((p), (bg_u64)(v))
#define BG_CAS64(p, old, v) atomicCAS((p), (bg_u64)(old), (bg_u64)(v))
#define BG_CTZ64(x) (__ffsll((long long)(x)) - 1)
#define BG_NO_UNROLL _Pragma("unroll 1")
BG_FN bg_u32 bg_pair(const bg_u16* p) { bg_u32 w; memcpy(&w, __builtin_assume_aligned(p, 4), 4); return w; }
BG_FN void bg_set_pair(bg_u16* p, bg_u32 w) { memcpy(__builtin_assume_aligned(p, 4), &w, 4); }

#elif defined(BG_OPENCL)

/* The 64-bit atomics on global memory: gpu/opencl.py refuses a device
   without these extensions, in one line, before it builds the kernels. */
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
typedef ulong bg_u64;
typedef long bg_i64;
typedef uint bg_u32;
typedef ushort bg_u16;
typedef uchar bg_u8;
#define BG_FN static inline
#define BG_KERNEL __kernel void
#define BG_KERNEL_REGISTERS(n) BG_KERNEL
#define BG_GLOBAL __global
#define BG_LOCAL __local
#define BG_SHARED __local
#define BG_THREAD ((int)get_local_id(0))
#define BG_THREADS BG_BLOCK
#define BG_SYNC() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define BG_ADD32(p, v) atomic_add((p), (bg_u32)(v))
#define BG_ADD64(p, v) atom_add((p), (bg_u64)(v))
#define BG_MAX64(p, v) atom_max((p), (bg_u64)(v))
#define BG_CAS64(p, old, v) atom_cmpxchg((p), (bg_u64)(old), (bg_u64)(v))
/* OpenCL C 1.2 has clz and no ctz: the lowest set bit, counted from the top. */
#define BG_CTZ64(x) (63 - (int)clz((x) & (0 - (x))))
#define BG_NO_UNROLL
BG_FN bg_u32 bg_pair(const __local bg_u16* p) { return as_uint(vload2(0, p)); }
BG_FN void bg_set_pair(__local bg_u16* p, bg_u32 w) { vstore2(as_ushort2(w), 0, p); }
#ifndef __ENDIAN_LITTLE__
#error "the kernels need a little-endian device"
#endif

#elif defined(BG_HOST)

#include <stdint.h>
#include <string.h>
typedef uint64_t bg_u64;
typedef int64_t bg_i64;
typedef uint32_t bg_u32;
typedef uint16_t bg_u16;
typedef uint8_t bg_u8;
#define BG_FN static inline
#define BG_GLOBAL
#define BG_LOCAL
#define BG_CTZ64(x) __builtin_ctzll(x)
#define BG_NO_UNROLL
#define BG_KERNEL_REGISTERS(n) BG_KERNEL
BG_FN bg_u32 bg_pair(const bg_u16* p) { bg_u32 w; memcpy(&w, p, 4); return w; }
BG_FN void bg_set_pair(bg_u16* p, bg_u32 w) { memcpy(p, &w, 4); }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the kernels' host build needs a little-endian machine"
#endif
#ifndef BG_HARNESS
/* Exported: gpu/host.py calls a kernel of beggar._gpu_host by its name, with the arguments gpu/abi.py describes. */
#define BG_KERNEL __attribute__((visibility("default"))) void
#define BG_SHARED
#define BG_THREAD 0
#define BG_THREADS 1
#define BG_SYNC()
BG_FN bg_u32 bg_add32(bg_u32* p, bg_u32 v) { bg_u32 old = *p; *p += v; return old; }
BG_FN bg_u64 bg_add64(bg_u64* p, bg_u64 v) { bg_u64 old = *p; *p += v; return old; }
BG_FN void bg_max64(bg_u64* p, bg_u64 v) { if (v > *p) *p = v; }
BG_FN bg_u64 bg_cas64(bg_u64* p, bg_u64 old, bg_u64 v) { bg_u64 was = *p; if (was == old) *p = v; return was; }
#define BG_ADD32(p, v) bg_add32((p), (bg_u32)(v))
#define BG_ADD64(p, v) bg_add64((p), (bg_u64)(v))
#define BG_MAX64(p, v) bg_max64((p), (bg_u64)(v))
#define BG_CAS64(p, old, v) bg_cas64((p), (bg_u64)(old), (bg_u64)(v))
#endif

#endif

#endif
