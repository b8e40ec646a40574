/* two_prefixes.c - one program linking two files phasec generated from the
 * same .sched with --symbol-prefix=a_ and --symbol-prefix=b_
 * (test/Integration/MPI_prefix.test): both all-to-alls and both transposes
 * run and must deliver the same, correct bytes, and both finalize functions
 * free what they cached. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The headers phasec wrote beside the two files (--emit=mpi-header): both
   in one translation unit. */
#include "a.h"
#include "b.h"

enum { BLOCK = 1024, N = 64 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  long bad = 0;
  unsigned char *send = malloc((size_t)BLOCK * np);
  unsigned char *ra = calloc((size_t)BLOCK, np), *rb = calloc((size_t)BLOCK, np);
  for (int d = 0; d < np; ++d)
    for (int i = 0; i < BLOCK; ++i)
      send[d * BLOCK + i] = (unsigned char)(me * 37 + d * 11 + i);
  if (a_exchange(send, ra, MPI_COMM_WORLD) != MPI_SUCCESS ||
      b_exchange(send, rb, MPI_COMM_WORLD) != MPI_SUCCESS)
    ++bad;
  for (int s = 0; s < np; ++s)
    for (int i = 0; i < BLOCK; ++i) {
      unsigned char want = (unsigned char)(s * 37 + me * 11 + i);
      bad += ra[s * BLOCK + i] != want;
      bad += rb[s * BLOCK + i] != want;
    }
  /* Rows me*R .. of an N x N array; the transpose's rows are its columns. */
  int rows = N / np;
  double *A = malloc(sizeof(double) * rows * N);
  double *Ba = calloc((size_t)rows * N, sizeof(double));
  double *Bb = calloc((size_t)rows * N, sizeof(double));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < N; ++c)
      A[r * N + c] = (me * rows + r) * 1000.0 + c;
  if (a_flip(A, Ba, MPI_COMM_WORLD) != MPI_SUCCESS ||
      b_flip(A, Bb, MPI_COMM_WORLD) != MPI_SUCCESS)
    ++bad;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < N; ++c) {
      double want = c * 1000.0 + (me * rows + r);
      bad += Ba[r * N + c] != want;
      bad += Bb[r * N + c] != want;
    }
  long all = 0;
  MPI_Reduce(&bad, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0)
    printf("%s: a_ and b_ together, %ld wrong\n", all ? "FAILED" : "OK", all);
  free(send);
  free(ra);
  free(rb);
  free(A);
  free(Ba);
  free(Bb);
  if (a_finalize() != MPI_SUCCESS || b_finalize() != MPI_SUCCESS)
    ++all;
  MPI_Finalize();
  return all != 0;
}
