/*===- phasec_sim_program.c - The MPI program simulated by SMPI -----------===*
 *
 * Part of phasec. Copied verbatim by `phasec --emit=simgrid` into the output
 * directory and built with smpicc (see run.sh). The same program runs every
 * variant of an operation so that they differ only in what they send when:
 *
 *   program phased SCHED.bin [SYNC]
 *                                phasec's (or a baseline's) phases, as the
 *                                operation's `sync` directive says (run.sh
 *                                passes it): SYNC = barrier (the default):
 *                                in phase k every rank posts its receives and
 *                                sends of phase k, waits for them, and all
 *                                ranks meet in a barrier (the seeds' phased
 *                                AAPC); SYNC = local: the same rounds
 *                                without the barrier (a rank enters phase
 *                                k + 1 once its phase-k messages are done);
 *                                SYNC = none: nothing separates the
 *                                phases, as in the MPI back end's
 *                                unsynchronised code: every receive is posted
 *                                up front, then every send in phase order,
 *                                and one wait covers them all;
 *   program alltoall SCHED.bin   the same demands through MPI_Alltoall (uniform
 *                                blocks) or MPI_Alltoallv, i.e. through the
 *                                algorithm chosen by --cfg=smpi/alltoall:X
 *                                (resp. smpi/alltoallv:X).
 *
 * SCHED.bin (little-endian int64): "PHSIM001", ranks R, phases N, uniform
 * block (0 if none), offsets[R+1] into the records, then records of 4 int64
 * (phase, peer, bytes, kind: 0 = send, 1 = receive), grouped by rank.
 *
 * The phased modes send a pattern that depends on the sender, the receiver
 * and the byte's position in everything the sender sends the receiver, and
 * check every received byte: a schedule (or a sync mode) that delivers a
 * byte to the wrong place is a wrong byte, not just a time.
 *
 * Rank 0 prints on stdout, in simulated seconds:
 *   PHASEC_SIM_TIME <t>            from a common start to the last completion
 *   PHASEC_SIM_PHASE <k> <t>       phased with barriers: when phase k
 *                                  completed everywhere, relative to the start
 *   PHASEC_SIM_VERIFIED <n>        phased: wrong bytes over all ranks (the
 *                                  program exits with status 1 if n > 0)
 * and on stderr "PHASEC_SIM_PROGRESS k n" while it runs (wall-clock progress).
 *===----------------------------------------------------------------------===*/

#include "phasec_sim_start.h"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int64_t phase, peer, bytes, kind;
} Record;

static void fail(const char *msg, const char *path) {
  fprintf(stderr, "phasec program: %s: %s\n", path, msg);
  MPI_Abort(MPI_COMM_WORLD, 2);
  exit(2);
}

/* Byte j of everything rank `src` sends rank `dst`. */
static unsigned char pattern(int64_t src, int64_t dst, int64_t j) {
  return (unsigned char)(src * 131 + dst * 29 + j * 7 + (j >> 8));
}

/* Fills `bytes` bytes at `buf` with the next bytes of the stream to `peer`
 * (sentTo[peer] of it already sent). */
static void fill(char *buf, int64_t bytes, int me, int64_t peer,
                 int64_t *sentTo) {
  for (int64_t j = 0; j < bytes; ++j)
    buf[j] = (char)pattern(me, peer, sentTo[peer] + j);
  sentTo[peer] += bytes;
}

/* Wrong bytes among `bytes` received from `peer` at `buf`. */
static int64_t check(const char *buf, int64_t bytes, int me, int64_t peer,
                     int64_t *receivedFrom) {
  int64_t bad = 0;
  for (int64_t j = 0; j < bytes; ++j)
    bad += (unsigned char)buf[j] != pattern(peer, me, receivedFrom[peer] + j);
  receivedFrom[peer] += bytes;
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || argc > 4) {
    if (rank == 0)
      fprintf(stderr,
              "usage: %s phased SCHED.bin [barrier|local|none] | alltoall "
              "SCHED.bin\n",
              argv[0]);
    MPI_Finalize();
    return 2;
  }
  const char *mode = argv[1], *path = argv[2];
  int phased = strcmp(mode, "phased") == 0;
  if (!phased && strcmp(mode, "alltoall") != 0)
    fail("unknown mode", mode);
  /* barriers: a barrier between phases; perPhase: one round per phase
     (barrier or local). */
  int barriers = 1, perPhase = 1;
  if (argc == 4) {
    if (!phased || (strcmp(argv[3], "barrier") && strcmp(argv[3], "local") &&
                    strcmp(argv[3], "none")))
      fail("the sync mode is barrier, local or none, for phased only", argv[3]);
    barriers = strcmp(argv[3], "barrier") == 0;
    perPhase = strcmp(argv[3], "none") != 0;
  }

  /* Read this rank's records only. */
  FILE *f = fopen(path, "rb");
  if (!f)
    fail("cannot open", path);
  char magic[8];
  int64_t head[3];
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "PHSIM001", 8) != 0 ||
      fread(head, sizeof(int64_t), 3, f) != 3)
    fail("not a phasec schedule file", path);
  int64_t ranks = head[0], numPhases = head[1], uniform = head[2];
  if (ranks != size)
    fail("rank count differs from the number of MPI processes", path);
  int64_t off[2];
  if (fseek(f, (long)(32 + 8 * rank), SEEK_SET) != 0 ||
      fread(off, sizeof(int64_t), 2, f) != 2)
    fail("truncated offsets", path);
  int64_t numRecords = off[1] - off[0];
  Record *recs = malloc(sizeof(Record) * (size_t)(numRecords ? numRecords : 1));
  if (fseek(f, (long)(32 + 8 * (ranks + 1) + 32 * off[0]), SEEK_SET) != 0 ||
      fread(recs, sizeof(Record), (size_t)numRecords, f) != (size_t)numRecords)
    fail("truncated records", path);
  fclose(f);

  double start, end;
  int status = 0;
  if (phased) {
    /* Phase by phase: buffers sized for the busiest phase of this rank,
       reused per phase. Without: every receive is posted at once, so the
       buffers hold everything the rank sends and receives (as the MPI back
       end's user buffers do). */
    int64_t maxSend = 1, maxRecv = 1, maxReq = 1;
    for (int64_t i = 0; i < numRecords;) {
      int64_t s = 0, r = 0, n = 0, j = i;
      for (; j < numRecords && (!perPhase || recs[j].phase == recs[i].phase);
           ++j, ++n)
        if (recs[j].kind)
          r += recs[j].bytes;
        else
          s += recs[j].bytes;
      if (s > maxSend) maxSend = s;
      if (r > maxRecv) maxRecv = r;
      if (n > maxReq) maxReq = n;
      i = j;
    }
    char *sendBuf = malloc((size_t)maxSend), *recvBuf = malloc((size_t)maxRecv);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)maxReq);
    double *done = calloc((size_t)(numPhases ? numPhases : 1), sizeof(double));
    double *doneMax = calloc((size_t)(numPhases ? numPhases : 1), sizeof(double));
    int64_t *sentTo = calloc((size_t)size, sizeof(int64_t));
    int64_t *receivedFrom = calloc((size_t)size, sizeof(int64_t));
    int64_t bad = 0;
    int every = numPhases > 200 ? (int)(numPhases / 200) : 1;

    /* One round per phase with barriers or local sync, one round of every
       record without. A round posts its receives, then its sends in phase
       order, each message under its phase's tag (so that a message can only
       match the receive of its own phase), and waits for all of them. */
    int64_t rounds = perPhase ? numPhases : (numPhases > 0);
    start = phasec_sim_synchronized_start();
    int64_t i = 0;
    for (int64_t k = 0; k < rounds; ++k) {
      int n = 0;
      int64_t sOff = 0, rOff = 0, first = i;
      for (; i < numRecords && (!perPhase || recs[i].phase == k); ++i) {
        Record *r = &recs[i];
        if (r->kind) {
          MPI_Irecv(recvBuf + rOff, (int)r->bytes, MPI_BYTE, (int)r->peer,
                    (int)r->phase, MPI_COMM_WORLD, &reqs[n++]);
          rOff += r->bytes;
        }
      }
      for (int64_t q = first; q < i; ++q) {
        Record *r = &recs[q];
        if (!r->kind) {
          fill(sendBuf + sOff, r->bytes, rank, r->peer, sentTo);
          MPI_Isend(sendBuf + sOff, (int)r->bytes, MPI_BYTE, (int)r->peer,
                    (int)r->phase, MPI_COMM_WORLD, &reqs[n++]);
          sOff += r->bytes;
        }
      }
      MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
      if (barriers)
        done[k] = MPI_Wtime() - start;
      rOff = 0;
      for (int64_t q = first; q < i; ++q)
        if (recs[q].kind) {
          bad += check(recvBuf + rOff, recs[q].bytes, rank, recs[q].peer,
                       receivedFrom);
          rOff += recs[q].bytes;
        }
      if (barriers && k + 1 < numPhases)
        MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0 && barriers && ((k + 1) % every == 0 || k + 1 == numPhases))
        fprintf(stderr, "PHASEC_SIM_PROGRESS %lld %lld\n", (long long)(k + 1),
                (long long)numPhases);
    }
    end = MPI_Wtime() - start;
    double endMax = 0;
    long long badAll = 0, badMine = (long long)bad;
    MPI_Reduce(&end, &endMax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (barriers)
      MPI_Reduce(done, doneMax, (int)numPhases, MPI_DOUBLE, MPI_MAX, 0,
                 MPI_COMM_WORLD);
    MPI_Reduce(&badMine, &badAll, 1, MPI_LONG_LONG, MPI_SUM, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
      printf("PHASEC_SIM_TIME %.12e\n", endMax);
      for (int64_t k = 0; barriers && k < numPhases; ++k)
        printf("PHASEC_SIM_PHASE %lld %.12e\n", (long long)k, doneMax[k]);
      printf("PHASEC_SIM_VERIFIED %lld\n", badAll);
      if (badAll) {
        fprintf(stderr, "phasec program: %lld wrong bytes\n", badAll);
        status = 1;
      }
    }
    free(sendBuf), free(recvBuf), free(reqs), free(done), free(doneMax);
    free(sentTo), free(receivedFrom);
  } else {
    /* Whole P x block buffers: shared between the simulated ranks (their
       contents do not matter) so that 512 ranks do not need 512 copies. */
    int *sc = calloc((size_t)size, sizeof(int)), *rc = calloc((size_t)size, sizeof(int));
    int *sd = calloc((size_t)size, sizeof(int)), *rd = calloc((size_t)size, sizeof(int));
    int64_t sTot = 0, rTot = 0;
    for (int64_t i = 0; i < numRecords; ++i)
      if (recs[i].kind)
        rc[recs[i].peer] += (int)recs[i].bytes;
      else
        sc[recs[i].peer] += (int)recs[i].bytes;
    for (int p = 0; p < size; ++p) {
      sd[p] = (int)sTot, rd[p] = (int)rTot;
      sTot += sc[p], rTot += rc[p];
    }
    if (uniform) {
      sTot = rTot = uniform * size;
    }
    char *sendBuf = SMPI_SHARED_MALLOC((size_t)(sTot ? sTot : 1));
    char *recvBuf = SMPI_SHARED_MALLOC((size_t)(rTot ? rTot : 1));
    start = phasec_sim_synchronized_start();
    if (uniform)
      MPI_Alltoall(sendBuf, (int)uniform, MPI_BYTE, recvBuf, (int)uniform,
                   MPI_BYTE, MPI_COMM_WORLD);
    else
      MPI_Alltoallv(sendBuf, sc, sd, MPI_BYTE, recvBuf, rc, rd, MPI_BYTE,
                    MPI_COMM_WORLD);
    end = MPI_Wtime() - start;
    double endMax = 0;
    MPI_Reduce(&end, &endMax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("PHASEC_SIM_TIME %.12e\n", endMax);
    SMPI_SHARED_FREE(sendBuf);
    SMPI_SHARED_FREE(recvBuf);
    free(sc), free(rc), free(sd), free(rd);
  }
  free(recs);
  MPI_Finalize();
  return status;
}
