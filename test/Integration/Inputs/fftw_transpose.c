/* fftw_transpose.c - an unmodified program using FFTW's MPI transpose, for
 * running under LD_PRELOAD=libphasec-pmpi.so (test/Integration/MPI_pmpi.test).
 *
 *   fftw_transpose N0 N1
 *
 * Plans fftw_mpi_plan_many_transpose of an N0 x N1 array of complex values
 * with FFTW_EXHAUSTIVE | FFTW_DESTROY_INPUT, under which FFTW's planner runs
 * (and so calls) its MPI_Alltoall transpose among the others, executes the
 * plan, checks every element of the transposed result and prints a digest
 * of it per rank.
 */
#include <fftw3-mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static double value(ptrdiff_t i, ptrdiff_t j, int part) {
  return (double)(i * 1000 + j) + 0.5 * part;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fftw_mpi_init();
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  ptrdiff_t n0 = argc > 1 ? atol(argv[1]) : 64, n1 = argc > 2 ? atol(argv[2]) : 48;
  ptrdiff_t local_n0, local_0_start, local_n1, local_1_start;
  ptrdiff_t alloc = fftw_mpi_local_size_many_transposed(
      2, (ptrdiff_t[]){n0, n1}, 2, FFTW_MPI_DEFAULT_BLOCK,
      FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD, &local_n0, &local_0_start,
      &local_n1, &local_1_start);
  double *in = fftw_alloc_real(alloc), *out = fftw_alloc_real(alloc);
  fftw_plan plan = fftw_mpi_plan_many_transpose(
      n0, n1, 2, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, in, out,
      MPI_COMM_WORLD, FFTW_EXHAUSTIVE | FFTW_DESTROY_INPUT);
  /* Planning overwrote the arrays: fill the input now. */
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < n1; ++j)
      for (int part = 0; part < 2; ++part)
        in[(i * n1 + j) * 2 + part] = value(local_0_start + i, j, part);
  fftw_execute(plan);
  long bad = 0;
  uint64_t h = 1469598103934665603ull;
  for (ptrdiff_t j = 0; j < local_n1; ++j)
    for (ptrdiff_t i = 0; i < n0; ++i)
      for (int part = 0; part < 2; ++part) {
        double v = out[(j * n0 + i) * 2 + part];
        if (v != value(i, local_1_start + j, part))
          ++bad;
        const unsigned char *b = (const unsigned char *)&v;
        for (size_t k = 0; k < sizeof v; ++k)
          h = (h ^ b[k]) * 1099511628211ull;
      }
  long allBad = 0;
  MPI_Reduce(&bad, &allBad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  uint64_t *all = malloc(sizeof(uint64_t) * np);
  MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (me == 0) {
    printf("transpose %ld x %ld on %d ranks:", (long)n0, (long)n1, np);
    for (int i = 0; i < np; ++i)
      printf(" %016llx", (unsigned long long)all[i]);
    printf("\n%s: %ld wrong elements\n", allBad ? "FAILED" : "OK", allBad);
  }
  free(all);
  fftw_destroy_plan(plan);
  fftw_free(in);
  fftw_free(out);
  fftw_mpi_cleanup();
  MPI_Finalize();
  return allBad != 0;
}
