/*===- local_transpose.c - The local memory limit of a transpose ----------===*
 *
 * Part of phasec's benchmarks: every rank transposes its R x N rows into a
 * local R x N array with the same 16 x 16 tiled kernel, no communication.
 * Moving the same bytes with the same number of ranks per core, this is
 * the memory-system limit a distributed transpose on one node can reach.
 *
 *===----------------------------------------------------------------------===*/
#include "baseline_common.h"

int main(int argc, char **argv) {
  phasec_mpi_init(&argc, &argv);
  long n = 4096;
  int iters = 10, warmup = 2, rank, p;
  parse_args(argc, argv, &n, &iters, &warmup);
  int stores = 0; /* -stores: strided loads, contiguous stores */
  for (int i = 1; i < argc; ++i)
    stores |= !strcmp(argv[i], "-stores");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  long r = n / p;
  c128_t *a = PHASEC_XMALLOC(sizeof(c128_t) * r * n, "A");
  c128_t *b = PHASEC_XMALLOC(sizeof(c128_t) * r * n, "B");
  phasec_fill_matrix(a, sizeof(c128_t), r, n, n, 0, 0);
  memset(b, 0, sizeof(c128_t) * r * n);
  double *t = PHASEC_XMALLOC(sizeof(double) * iters, "times");
  for (int it = -warmup; it < iters; ++it) {
    PHASEC_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = phasec_wtime();
    for (long d = 0; d < p; ++d) /* the same r x r blocks, kept local */
      if (stores)
        tblock_stores(b + d * r, n, a + d * r, n, r);
      else
        tblock(b + d * r, n, a + d * r, n, r);
    if (it >= 0)
      t[it] = phasec_wtime() - t0;
  }
  /* Local block d of A, transposed, is at column d * r of B: check it. */
  uint64_t bad = 0;
  const uint8_t *pb = (const uint8_t *)b;
  for (long d = 0; d < p && !bad; ++d)
    for (long m = 0; m < r; ++m)
      for (long l = 0; l < r; ++l) {
        const uint8_t *e = pb + ((m * n) + d * r + l) * sizeof(c128_t);
        for (int k = 0; k < (int)sizeof(c128_t); ++k)
          bad += e[k] != phasec_pattern_byte(l, d * r + m, k);
      }
  report(stores ? "local tiled transpose, contiguous stores"
                : "local tiled transpose, contiguous loads", sizeof(c128_t) * n * n,
         t, iters, bad);
  phasec_mpi_finalize();
  return bad ? 1 : 0;
}
