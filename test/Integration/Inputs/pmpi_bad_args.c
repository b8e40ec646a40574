/* Collectives with arguments MPI rejects, under MPI_ERRORS_RETURN: the
 * drop-in library must hand them to MPI (which reports the error) instead
 * of running a schedule. Prints one line per call: rejected or accepted. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int in[4] = {me, me, me, me}, out[4] = {0};
  int rc = MPI_Bcast(in, 4, MPI_INT, np + 5, MPI_COMM_WORLD);
  if (me == 0)
    printf("bcast root %d: %s\n", np + 5,
           rc == MPI_SUCCESS ? "accepted" : "rejected");
  rc = MPI_Reduce(in, out, -1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0)
    printf("reduce count -1: %s\n", rc == MPI_SUCCESS ? "accepted" : "rejected");
  /* A valid call afterwards still runs by schedule. */
  rc = MPI_Bcast(in, 4, MPI_INT, 0, MPI_COMM_WORLD);
  if (me == 0)
    printf("bcast root 0: %s, %d\n", rc == MPI_SUCCESS ? "accepted" : "rejected",
           in[3]);
  MPI_Finalize();
  return 0;
}
