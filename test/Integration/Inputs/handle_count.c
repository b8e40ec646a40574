/* handle_count.c - a leak checker for MPI handles, through PMPI (linked into
 * the test programs of test/Integration/MPI_library.test). It counts the
 * communicators, datatypes and windows the program creates and frees, and
 * at MPI_Finalize every rank prints what is left, and how many it made:
 *   handles left: C communicators, D datatypes, W windows
 *   handles made: C communicators, D datatypes, W windows
 * Open MPI's mpi_show_handle_leaks needs a debug build; this does not. */
#include <mpi.h>
#include <stdio.h>

static int comms, types, wins, madeComms, madeTypes, madeWins;

static int countComm(int rc, const MPI_Comm *c) {
  if (rc == MPI_SUCCESS && *c != MPI_COMM_NULL)
    ++comms, ++madeComms;
  return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out) {
  return countComm(PMPI_Comm_split(comm, color, key, out), out);
}
int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info,
                        MPI_Comm *out) {
  return countComm(PMPI_Comm_split_type(comm, type, key, info, out), out);
}
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out) {
  return countComm(PMPI_Comm_dup(comm, out), out);
}
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *out) {
  return countComm(PMPI_Comm_create(comm, group, out), out);
}
int MPI_Comm_free(MPI_Comm *c) {
  int rc = PMPI_Comm_free(c);
  if (rc == MPI_SUCCESS)
    --comms;
  return rc;
}

static int countType(int rc) {
  if (rc == MPI_SUCCESS)
    ++types, ++madeTypes;
  return rc;
}
int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *out) {
  return countType(PMPI_Type_contiguous(count, old, out));
}
int MPI_Type_vector(int count, int len, int stride, MPI_Datatype old,
                    MPI_Datatype *out) {
  return countType(PMPI_Type_vector(count, len, stride, old, out));
}
int MPI_Type_create_hvector(int count, int len, MPI_Aint stride,
                            MPI_Datatype old, MPI_Datatype *out) {
  return countType(PMPI_Type_create_hvector(count, len, stride, old, out));
}
int MPI_Type_create_struct(int count, const int lens[],
                           const MPI_Aint displs[], const MPI_Datatype old[],
                           MPI_Datatype *out) {
  return countType(PMPI_Type_create_struct(count, lens, displs, old, out));
}
int MPI_Type_free(MPI_Datatype *t) {
  int rc = PMPI_Type_free(t);
  if (rc == MPI_SUCCESS)
    --types;
  return rc;
}

static int countWin(int rc) {
  if (rc == MPI_SUCCESS)
    ++wins, ++madeWins;
  return rc;
}
int MPI_Win_allocate_shared(MPI_Aint size, int unit, MPI_Info info,
                            MPI_Comm comm, void *base, MPI_Win *win) {
  return countWin(PMPI_Win_allocate_shared(size, unit, info, comm, base, win));
}
int MPI_Win_allocate(MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm,
                     void *base, MPI_Win *win) {
  return countWin(PMPI_Win_allocate(size, unit, info, comm, base, win));
}
int MPI_Win_create(void *base, MPI_Aint size, int unit, MPI_Info info,
                   MPI_Comm comm, MPI_Win *win) {
  return countWin(PMPI_Win_create(base, size, unit, info, comm, win));
}
int MPI_Win_free(MPI_Win *win) {
  int rc = PMPI_Win_free(win);
  if (rc == MPI_SUCCESS)
    --wins;
  return rc;
}

int MPI_Finalize(void) {
  printf("handles left: %d communicators, %d datatypes, %d windows\n"
         "handles made: %d communicators, %d datatypes, %d windows\n",
         comms, types, wins, madeComms, madeTypes, madeWins);
  fflush(stdout);
  return PMPI_Finalize();
}
