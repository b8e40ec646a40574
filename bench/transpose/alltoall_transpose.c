/*===- alltoall_transpose.c - pack + MPI_Alltoall + unpack transpose ------===*
 *
 * Part of phasec's benchmarks: the hand-written baseline an MPI programmer
 * writes for an N x N complex128 transpose with rows block-distributed:
 * pack every block transposed (tiled), one MPI_Alltoall, unpack the rows.
 *
 *===----------------------------------------------------------------------===*/
#include "baseline_common.h"

int main(int argc, char **argv) {
  phasec_mpi_init(&argc, &argv);
  long n = 4096;
  int iters = 10, warmup = 2, rank, p;
  parse_args(argc, argv, &n, &iters, &warmup);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (n % p) {
    if (!rank)
      fprintf(stderr, "error: N=%ld is not divisible by %d ranks\n", n, p);
    MPI_Finalize();
    return 2;
  }
  long r = n / p, rr = r * r;
  c128_t *a = PHASEC_XMALLOC(sizeof(c128_t) * r * n, "A");
  c128_t *b = PHASEC_XMALLOC(sizeof(c128_t) * r * n, "B");
  c128_t *sbuf = PHASEC_XMALLOC(sizeof(c128_t) * r * n, "pack buffer");
  c128_t *rbuf = PHASEC_XMALLOC(sizeof(c128_t) * r * n, "unpack buffer");
  phasec_fill_matrix(a, sizeof(c128_t), r, n, n, rank * r, 0);
  double *t = PHASEC_XMALLOC(sizeof(double) * iters, "times");
  for (int it = -warmup; it < iters; ++it) {
    if (it == 0)
      phasec_poison(b, sizeof(c128_t) * r * n);
    PHASEC_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = phasec_wtime();
    for (int d = 0; d < p; ++d) /* pack, transposed */
      tblock(sbuf + d * rr, r, a + d * r, n, r);
    PHASEC_MPI_CHECK(MPI_Alltoall(sbuf, (int)(rr * sizeof(c128_t)), MPI_BYTE,
                                  rbuf, (int)(rr * sizeof(c128_t)), MPI_BYTE,
                                  MPI_COMM_WORLD));
    for (int s = 0; s < p; ++s) /* unpack rows */
      for (long m = 0; m < r; ++m)
        memcpy(b + m * n + s * r, rbuf + s * rr + m * r, sizeof(c128_t) * r);
    if (it >= 0)
      t[it] = phasec_wtime() - t0;
  }
  phasec_check_state st;
  phasec_check_init(&st, rank, "pack+MPI_Alltoall+unpack");
  uint64_t bad =
      phasec_check_transposed(&st, b, sizeof(c128_t), r, n, n, rank * r, 0);
  report("pack+MPI_Alltoall+unpack", sizeof(c128_t) * n * n, t, iters, bad);
  phasec_mpi_finalize();
  return bad ? 1 : 0;
}
