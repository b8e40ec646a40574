/*===- phasec_runtime_mpi.h - MPI part of the phasec runtime --------------===*
 *
 * Part of phasec. Init/finalize, error checks, phase barriers and the
 * reductions a generated MPI harness needs. Include this (it includes
 * phasec_runtime.h) and link with $(pkg-config --libs phasec-runtime).
 *
 *===----------------------------------------------------------------------===*/
#ifndef PHASEC_RUNTIME_MPI_H
#define PHASEC_RUNTIME_MPI_H

#include "phasec_runtime.h"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** MPI_Init, then MPI_ERRORS_RETURN on MPI_COMM_WORLD so that
 *  PHASEC_MPI_CHECK can say which call failed before aborting. */
void phasec_mpi_init(int *argc, char ***argv);
void phasec_mpi_finalize(void);

/** The error code a generated operation returns when called on a
 *  communicator whose size is not the number of ranks of the machine it was
 *  generated for (an MPI error code of its own, registered on first use:
 *  MPI_Error_string says "phasec: the communicator's size is not the
 *  machine's number of ranks"). */
int phasec_mpi_error_comm_size(void);

/** Prints "<file>:<line>: <call> failed: <MPI error string>" on stderr and
 *  calls MPI_Abort(MPI_COMM_WORLD, 3). */
void phasec_mpi_fail(int rc, const char *call, const char *file, int line);

/** Checks the return code of an MPI call. */
#define PHASEC_MPI_CHECK(call)                                                 \
  do {                                                                         \
    int phasec_rc_ = (call);                                                   \
    if (phasec_rc_ != MPI_SUCCESS)                                             \
      phasec_mpi_fail(phasec_rc_, #call, __FILE__, __LINE__);                  \
  } while (0)

/** The barrier that separates two phases (congestion control, seed 001). */
void phasec_mpi_phase_barrier(MPI_Comm comm);

/** Per-iteration times t[0..n) of this rank; the time of an iteration is
 *  the maximum over the ranks (the operation ends when the last rank ends).
 *  Returns the statistics over iterations of those maxima (all ranks). */
phasec_stats phasec_mpi_reduce_times(MPI_Comm comm, const double *t, int n);

/** The sum of `local` over the ranks of comm (all ranks get it). */
uint64_t phasec_mpi_sum(MPI_Comm comm, uint64_t local);

/** The generated harness's check of a barrier: a counter at rank `root`
 *  of comm. Every member counts its arrival (an atomic increment that has
 *  completed at the root when phasec_mpi_arrive returns) before it enters
 *  the barrier; every member that leaves must read them all. Open and
 *  close are collective over comm. */
typedef struct {
  MPI_Win win;
  long long *count;
  int root;
} phasec_mpi_arrivals;
void phasec_mpi_arrivals_open(phasec_mpi_arrivals *a, MPI_Comm comm,
                              int root);
void phasec_mpi_arrive(phasec_mpi_arrivals *a);
long long phasec_mpi_arrived(phasec_mpi_arrivals *a);
void phasec_mpi_arrivals_close(phasec_mpi_arrivals *a, MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif /* PHASEC_RUNTIME_MPI_H */
