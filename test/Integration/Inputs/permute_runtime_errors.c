/* test/Integration/{MPI,SHMEM}_permute_runtime.test: calls a permute with
   run-time destinations wrongly on purpose. argv[1] = "range": rank 1's
   first destination is past the array; "perm": rank 1's first element
   goes to the other half (rank 0 gets one element too many, rank 1 one
   too few); "ok": a permutation. SHMEM with -DERR_SHMEM. */
#include STEP
int main(int argc, char **argv) {
#ifdef ERR_SHMEM
  phasec_shmem_init((size_t)1 << 22);
  const int me = shmem_my_pe();
#else
  phasec_mpi_init(&argc, &argv);
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
#endif
  static uint64_t a[place_L], b[place_L];
  int64_t dest[place_L];
  for (int64_t i = 0; i < place_L; ++i) {
    a[i] = (uint64_t)i;
    dest[i] = (int64_t)me * place_L + (place_L - 1 - i);
  }
  if (me == 1 && argc > 1 && !strcmp(argv[1], "range"))
    dest[0] = place_N + 5;
  if (me == 1 && argc > 1 && !strcmp(argv[1], "perm"))
    dest[0] = 0;
#ifdef ERR_SHMEM
  place(a, b, dest);
  shmem_barrier_all();
  if (me == 0)
    printf("permuted\n");
  phasec_shmem_finalize();
#else
  PHASEC_MPI_CHECK(place(a, b, dest, MPI_COMM_WORLD));
  if (me == 0)
    printf("permuted\n");
  phasec_mpi_finalize();
#endif
  return 0;
}
