/* wrong_size.c - calls a generated operation (ring4.sched's all-to-all, for
 * a machine of 4 ranks) on MPI_COMM_WORLD and, when the world has more than
 * 4 ranks, on a communicator of its first 4 (test/Integration/
 * MPI_comm_size.test): a communicator of the wrong size gets an error code
 * back, not an abort, and the program goes on. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int exchange(const void *sendbuf, void *recvbuf, MPI_Comm comm);

enum { BLOCK = 1024 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  char *send = calloc(4, BLOCK), *recv = calloc(4, BLOCK);
  int rc = exchange(send, recv, MPI_COMM_WORLD);
  if (me == 0) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    printf("world of %d: %s\n", np, rc == MPI_SUCCESS ? "MPI_SUCCESS" : text);
  }
  if (np > 4) {
    MPI_Comm four;
    MPI_Comm_split(MPI_COMM_WORLD, me < 4 ? 0 : MPI_UNDEFINED, me, &four);
    if (four != MPI_COMM_NULL) {
      rc = exchange(send, recv, four);
      if (me == 0)
        printf("4 of them: %s\n", rc == MPI_SUCCESS ? "MPI_SUCCESS" : "error");
      MPI_Comm_free(&four);
    }
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
