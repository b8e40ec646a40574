/*===- fftw_transpose.c - FFTW's MPI transpose of N x N complex128 --------===*
 *
 * Part of phasec's benchmarks: fftw_mpi_plan_many_transpose (FFTW_MEASURE),
 * in place (`-inplace`) or out of place, howmany = 2 doubles per element.
 * The input is refilled before the verified run because FFTW may use it as
 * scratch (and in place it is the output).
 *
 *===----------------------------------------------------------------------===*/
#include "baseline_common.h"

#include <fftw3-mpi.h>

int main(int argc, char **argv) {
  phasec_mpi_init(&argc, &argv);
  fftw_mpi_init();
  long n = 4096;
  int iters = 10, warmup = 2, rank, p, inplace = 0;
  parse_args(argc, argv, &n, &iters, &warmup);
  for (int i = 1; i < argc; ++i)
    inplace |= !strcmp(argv[i], "-inplace");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  ptrdiff_t ln0, l0s, ln1, l1s;
  ptrdiff_t alloc = fftw_mpi_local_size_many_transposed(
      2, (ptrdiff_t[]){n, n}, 2, FFTW_MPI_DEFAULT_BLOCK,
      FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD, &ln0, &l0s, &ln1, &l1s);
  if (ln0 * p != n || ln1 * p != n) {
    if (!rank)
      fprintf(stderr, "error: N=%ld must be divisible by %d ranks\n", n, p);
    MPI_Finalize();
    return 2;
  }
  double *in = fftw_alloc_real(2 * alloc);
  double *out = inplace ? in : fftw_alloc_real(2 * alloc);
  double tp = phasec_wtime();
  fftw_plan plan = fftw_mpi_plan_many_transpose(
      n, n, 2, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, in, out,
      MPI_COMM_WORLD, FFTW_MEASURE);
  tp = phasec_wtime() - tp;
  if (!plan) {
    fprintf(stderr, "error: FFTW could not plan the transpose\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double *t = PHASEC_XMALLOC(sizeof(double) * iters, "times");
  for (int it = -warmup; it < iters; ++it) {
    PHASEC_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = phasec_wtime();
    fftw_execute(plan);
    if (it >= 0)
      t[it] = phasec_wtime() - t0;
  }
  /* The verified run. */
  phasec_fill_matrix(in, 2 * sizeof(double), ln0, n, n, rank * ln0, 0);
  if (!inplace)
    phasec_poison(out, sizeof(double) * 2 * ln1 * n);
  fftw_execute(plan);
  phasec_check_state st;
  phasec_check_init(&st, rank, "FFTW transpose");
  uint64_t bad = phasec_check_transposed(&st, out, 2 * sizeof(double), ln1, n,
                                         n, rank * ln1, 0);
  char name[96];
  snprintf(name, sizeof name, "FFTW MPI transpose %s (MEASURE, planning %.1f s)",
           inplace ? "in place" : "out of place", tp);
  report(name, 2 * sizeof(double) * n * n, t, iters, bad);
  fftw_destroy_plan(plan);
  fftw_mpi_cleanup();
  phasec_mpi_finalize();
  return bad ? 1 : 0;
}
