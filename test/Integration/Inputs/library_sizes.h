/* library_sizes.h - the sizes of library.sched, for the drivers that call
 * its generated code (library_driver.c for MPI, shmem_library_driver.c for
 * OpenSHMEM): a ring of P ranks, 1 KiB alltoall blocks, N x N transposes
 * (R rows per rank), permutes of KEYS keys (L per rank). */
#ifndef PHASEC_TEST_LIBRARY_SIZES_H
#define PHASEC_TEST_LIBRARY_SIZES_H

#define P 4
#define BLOCK 1024
#define N 64
#define R (N / P)
#define KEYS 1024
#define L (KEYS / P)

#endif
