/*===- phasec_sim_start.h - every rank starts the timed call at once ------===*
 *
 * Part of phasec. Copied verbatim by `phasec --emit=simgrid` beside
 * program.c and coll.c, which include it.
 *
 *===----------------------------------------------------------------------===*
 *
 * A barrier lets the ranks go at different times: on a rank count that is
 * not a power of two mvapich2_pair's extra ranks hear of it a round later,
 * and a rank that starts early waits for its late peers inside the timed
 * call, so the skew was timed with the operation (a 12-rank allgather of
 * 8 B posted at once on a 3x4 torus without latency: 5.17 us against the
 * injection bound's 3.52 us). MPI_Wtime is SimGrid's clock, one for every
 * rank, and sleeping advances it without costing the host anything: every
 * rank sleeps until one instant after all of them have left the barrier,
 * and the call is timed from that instant.
 *
 *===----------------------------------------------------------------------===*/

#ifndef PHASEC_SIM_START_H
#define PHASEC_SIM_START_H

#include <mpi.h>
#include <time.h>

/* Returns the common start, on every rank. The allreduce that agrees on it
   moves 8 bytes: far less than the simulated second allowed for it. */
static double phasec_sim_synchronized_start(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  double mine = MPI_Wtime(), latest = 0;
  MPI_Allreduce(&mine, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double start = latest + 1.0;
  double wait = start - MPI_Wtime();
  if (wait > 0) {
    struct timespec t;
    t.tv_sec = (time_t)wait;
    t.tv_nsec = (long)((wait - (double)t.tv_sec) * 1e9);
    nanosleep(&t, NULL);
  }
  return start;
}

#endif /* PHASEC_SIM_START_H */
