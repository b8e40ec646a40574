/*===- transpose_kernels.h - The element type and tile kernels -------------===*
 *
 * Part of phasec's benchmarks: shared by the MPI baselines (through
 * baseline_common.h) and shmem_memtypes.c, which cannot include MPI's
 * headers, so that every benchmark copies with the same kernels.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PHASEC_BENCH_TRANSPOSE_KERNELS_H
#define PHASEC_BENCH_TRANSPOSE_KERNELS_H

typedef struct { double re, im; } c128_t;

/* dst[m * ldd + l] = src[l * lds + m] for an r x r block, 16 x 16 tiles,
 * contiguous loads (the same kernel the generated code uses). */
static inline void tblock(c128_t *restrict dst, long ldd,
                          const c128_t *restrict src, long lds, long r) {
  for (long l0 = 0; l0 < r; l0 += 16)
    for (long m0 = 0; m0 < r; m0 += 16) {
      long l1 = l0 + 16 < r ? l0 + 16 : r, m1 = m0 + 16 < r ? m0 + 16 : r;
      for (long l = l0; l < l1; ++l)
        for (long m = m0; m < m1; ++m)
          dst[m * ldd + l] = src[l * lds + m];
    }
}

/* The same with strided loads and contiguous stores. */
static inline void tblock_stores(c128_t *restrict dst, long ldd,
                                 const c128_t *restrict src, long lds, long r) {
  for (long l0 = 0; l0 < r; l0 += 16)
    for (long m0 = 0; m0 < r; m0 += 16) {
      long l1 = l0 + 16 < r ? l0 + 16 : r, m1 = m0 + 16 < r ? m0 + 16 : r;
      for (long m = m0; m < m1; ++m)
        for (long l = l0; l < l1; ++l)
          dst[m * ldd + l] = src[l * lds + m];
    }
}

#endif
