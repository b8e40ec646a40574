/* Every collective libphasec-pmpi serves, with datatypes whose type map
 * reorders the bytes (MPI_Type_indexed with displacements {1, 0} and
 * {3, 2, 1, 0}: no holes, lb = true lb = 0, size = extent) on one side of a
 * call and plain ints on the other, the textbook transpose by datatype (a
 * column MPI_Type_vector resized to one int, MPI_Type_contiguous of columns
 * resized to a block, sent with MPI_Alltoall and received as ints), a
 * strided type with holes, and reductions over a permuted type. MPI says
 * what arrives: the sender's data in its type map's order, stored in the
 * receiver's type map's order. Each rank computes that with MPI_Pack and
 * MPI_Unpack of the other ranks' inputs (which it can rebuild: they are a
 * function of the rank), checks every int of every result, and prints one
 * digest line per case, so that a test can also diff runs with and without
 * a library underneath (rank 0 prints every rank's lines in rank order; they
 * travel by point-to-point messages, which the library does not serve).
 * Exit 1 on any wrong int.
 *
 * The v-collectives (uneven counts, displacements with gaps in reverse rank
 * order), MPI_Alltoallw with a datatype per peer and MPI_Barrier (rank 0
 * must wait for the last rank's late arrival) are checked the same way.
 * With "nonblocking", every call is its MPI_I* form followed by MPI_Wait,
 * and a last case keeps several calls in flight on two communicators and
 * completes them with MPI_Waitall, MPI_Waitany and MPI_Test.
 *
 * Usage: pmpi_datatypes INTS [nonblocking] (INTS: a block's ints, a
 * multiple of 4). */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, wrong, nonblocking;
static MPI_Comm comm;

/* A collective, blocking or (in nonblocking mode) its MPI_I* form waited
 * for at once. A library may agree on a schedule only at a blocking call,
 * so in nonblocking mode the call is made, the communicator's barrier
 * follows, and the call is made again (the inputs are left as they were,
 * so the second call's results are the first's). */
#define COLL(blocking, started, ...)                                           \
  do {                                                                         \
    if (nonblocking) {                                                         \
      for (int again_ = 0; again_ < 2; ++again_) {                             \
        MPI_Request r_;                                                        \
        started(__VA_ARGS__, &r_);                                             \
        MPI_Wait(&r_, MPI_STATUS_IGNORE);                                      \
        if (!again_)                                                           \
          MPI_Barrier(comm);                                                   \
      }                                                                        \
    } else {                                                                   \
      blocking(__VA_ARGS__);                                                   \
    }                                                                          \
  } while (0)

/* This rank's output, sent to rank 0 at the end. */
static char *out;
static size_t outLen, outCap;
static void say(const char *fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (outLen + n + 1 > outCap) {
    outCap = 2 * (outLen + n + 1);
    out = realloc(out, outCap);
  }
  memcpy(out + outLen, line, n + 1);
  outLen += n;
}

static int value(int r, int k) { return r * 1000003 + k * 7 + 1; }

/* The named types a case may use on a side, with their ints per element. */
enum { T_INT, T_PAIR, T_REV4, T_HOLES, T_COUNT };
static MPI_Datatype types[T_COUNT];
static const char *typeName[T_COUNT] = {"int", "pair", "rev4", "holes"};
static int intsPer[T_COUNT] = {1, 2, 4, 2};
/* Ints of memory an element spans (its extent). */
static int spanOf[T_COUNT] = {1, 2, 4, 4};

static void makeTypes(void) {
  types[T_INT] = MPI_INT;
  int ones[4] = {1, 1, 1, 1};
  int swap[2] = {1, 0}, rev[4] = {3, 2, 1, 0};
  MPI_Type_indexed(2, ones, swap, MPI_INT, &types[T_PAIR]);
  MPI_Type_indexed(4, ones, rev, MPI_INT, &types[T_REV4]);
  /* Two ints at 0 and 2 (holes at 1 and 3), extent 4 ints. */
  MPI_Datatype v;
  MPI_Type_vector(2, 1, 2, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, 4 * sizeof(int), &types[T_HOLES]);
  MPI_Type_free(&v);
  for (int t = 1; t < T_COUNT; ++t)
    MPI_Type_commit(&types[t]);
}

static uint64_t digest(const int *a, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= (uint32_t)a[i];
    h *= 1099511628211ull;
  }
  return h;
}

static void check(const char *name, const int *got, const int *want,
                  size_t n) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    bad += got[i] != want[i];
  if (bad)
    fprintf(stderr, "rank %d: %s: %zu of %zu ints wrong\n", rank, name, bad, n);
  wrong += bad != 0;
  say("%s rank %d: %s %016llx\n", name, rank, bad ? "WRONG" : "ok",
      (unsigned long long)digest(got, n));
}

/* What MPI delivers: `scount` elements of `st` at `src` packed, unpacked as
 * `rcount` elements of `rt` at `dst` (same signature). */
static void move(const int *src, MPI_Datatype st, int scount, int *dst,
                 MPI_Datatype rt, int rcount) {
  int bytes;
  MPI_Pack_size(scount, st, MPI_COMM_SELF, &bytes);
  char *packed = malloc(bytes ? bytes : 1);
  int pos = 0;
  MPI_Pack(src, scount, st, packed, bytes, &pos, MPI_COMM_SELF);
  pos = 0;
  MPI_Unpack(packed, bytes, &pos, dst, rcount, rt, MPI_COMM_SELF);
  free(packed);
}

/* Fills `n` ints with rank r's input, `salt` telling cases apart. */
static void fill(int *a, size_t n, int r, int salt) {
  for (size_t k = 0; k < n; ++k)
    a[k] = value(r, (int)k + salt);
}

static int *ints(size_t n) { return calloc(n ? n : 1, sizeof(int)); }

static void alltoall(int N, int s, int r) {
  char name[96];
  snprintf(name, sizeof name, "alltoall %s->%s", typeName[s], typeName[r]);
  int sc = N / intsPer[s], rc = N / intsPer[r];
  size_t sspan = (size_t)sc * spanOf[s], rspan = (size_t)rc * spanOf[r];
  int *send = ints(sspan * size), *recv = ints(rspan * size),
      *want = ints(rspan * size), *other = ints(sspan * size);
  fill(send, sspan * size, rank, 1);
  memset(recv, 0xff, rspan * size * sizeof(int));
  memset(want, 0xff, rspan * size * sizeof(int));
  COLL(MPI_Alltoall, MPI_Ialltoall, send, sc, types[s], recv, rc, types[r], comm);
  for (int i = 0; i < size; ++i) {
    fill(other, sspan * size, i, 1);
    move(other + sspan * rank, types[s], sc, want + rspan * i, types[r], rc);
  }
  check(name, recv, want, rspan * size);
  free(send), free(recv), free(want), free(other);
}

static void alltoallv(int N, int s, int r) {
  char name[96];
  snprintf(name, sizeof name, "alltoallv %s->%s", typeName[s], typeName[r]);
  /* Pair (i, j) moves 4 * ((i + 2 j) % 3 + 1) * N / 4 ints, blocks in
   * reverse rank order in the buffers. */
  int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
  int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
#define PAIR(i, j) ((((i) + 2 * (j)) % 3 + 1) * N)
  int stot = 0, rtot = 0;
  for (int j = size - 1; j >= 0; --j) {
    sc[j] = PAIR(rank, j) / intsPer[s];
    sd[j] = stot;
    stot += sc[j];
    rc[j] = PAIR(j, rank) / intsPer[r];
    rd[j] = rtot;
    rtot += rc[j];
  }
  size_t sspan = (size_t)stot * spanOf[s], rspan = (size_t)rtot * spanOf[r];
  int *send = ints(sspan), *recv = ints(rspan), *want = ints(rspan);
  fill(send, sspan, rank, 2);
  memset(recv, 0xff, rspan * sizeof(int));
  memset(want, 0xff, rspan * sizeof(int));
  COLL(MPI_Alltoallv, MPI_Ialltoallv, send, sc, sd, types[s], recv, rc, rd,
       types[r], comm);
  for (int i = 0; i < size; ++i) {
    /* Rank i's send layout. */
    int off = 0, mine = 0;
    for (int j = size - 1; j >= 0; --j) {
      if (j == rank)
        mine = off;
      off += PAIR(i, j) / intsPer[s];
    }
    int *other = ints((size_t)off * spanOf[s]);
    fill(other, (size_t)off * spanOf[s], i, 2);
    move(other + (size_t)mine * spanOf[s], types[s], PAIR(i, rank) / intsPer[s],
         want + (size_t)rd[i] * spanOf[r], types[r], rc[i]);
    free(other);
  }
#undef PAIR
  check(name, recv, want, rspan);
  free(send), free(recv), free(want), free(sc), free(sd), free(rc), free(rd);
}

static void bcast(int N, int s, int r, int root) {
  char name[96];
  snprintf(name, sizeof name, "bcast %s->%s root %d", typeName[s],
           typeName[r], root);
  int t = rank == root ? s : r;
  int count = N / intsPer[t];
  size_t span = (size_t)count * spanOf[t];
  int *buf = ints(span), *want = ints(span);
  memset(buf, 0xff, span * sizeof(int));
  memset(want, 0xff, span * sizeof(int));
  if (rank == root)
    fill(buf, span, root, 3);
  COLL(MPI_Bcast, MPI_Ibcast, buf, count, types[t], root, comm);
  if (rank == root) {
    fill(want, span, root, 3);
  } else {
    size_t rspan = (size_t)(N / intsPer[s]) * spanOf[s];
    int *other = ints(rspan);
    fill(other, rspan, root, 3);
    move(other, types[s], N / intsPer[s], want, types[r], count);
    free(other);
  }
  check(name, buf, want, span);
  free(buf), free(want);
}

/* MPI_Gather to `root`, or MPI_Allgather where root < 0. */
static void gather(int N, int s, int r, int root) {
  char name[96];
  if (root < 0)
    snprintf(name, sizeof name, "allgather %s->%s", typeName[s], typeName[r]);
  else
    snprintf(name, sizeof name, "gather %s->%s root %d", typeName[s],
             typeName[r], root);
  const int salt = root < 0 ? 4 : 5;
  int sc = N / intsPer[s], rc = N / intsPer[r];
  size_t sspan = (size_t)sc * spanOf[s], rspan = (size_t)rc * spanOf[r];
  int *send = ints(sspan), *recv = ints(rspan * size),
      *want = ints(rspan * size), *other = ints(sspan);
  fill(send, sspan, rank, salt);
  memset(recv, 0xff, rspan * size * sizeof(int));
  memset(want, 0xff, rspan * size * sizeof(int));
  if (root < 0)
    COLL(MPI_Allgather, MPI_Iallgather, send, sc, types[s], recv, rc, types[r],
         comm);
  else
    COLL(MPI_Gather, MPI_Igather, send, sc, types[s], recv, rc, types[r], root,
         comm);
  if (root < 0 || rank == root)
    for (int i = 0; i < size; ++i) {
      fill(other, sspan, i, salt);
      move(other, types[s], sc, want + rspan * i, types[r], rc);
    }
  check(name, recv, want, rspan * size);
  free(send), free(recv), free(want), free(other);
}

static void scatter(int N, int s, int r, int root) {
  char name[96];
  snprintf(name, sizeof name, "scatter %s->%s root %d", typeName[s],
           typeName[r], root);
  int sc = N / intsPer[s], rc = N / intsPer[r];
  size_t sspan = (size_t)sc * spanOf[s], rspan = (size_t)rc * spanOf[r];
  int *send = ints(sspan * size), *recv = ints(rspan), *want = ints(rspan);
  fill(send, sspan * size, root, 6);
  memset(recv, 0xff, rspan * sizeof(int));
  memset(want, 0xff, rspan * sizeof(int));
  COLL(MPI_Scatter, MPI_Iscatter, send, sc, types[s], recv, rc, types[r], root,
       comm);
  move(send + sspan * rank, types[s], sc, want, types[r], rc);
  check(name, recv, want, rspan);
  free(send), free(recv), free(want);
}

/* The transpose by datatype: rank i holds B rows of size * B ints; the
 * block for rank j is columns [j B, (j + 1) B), described column by
 * column, and arrives as B * B ints, column after column. */
static void transpose(int B) {
  MPI_Datatype column, col1, block, blockResized;
  MPI_Type_vector(B, 1, size * B, MPI_INT, &column);
  MPI_Type_create_resized(column, 0, sizeof(int), &col1);
  MPI_Type_contiguous(B, col1, &block);
  MPI_Type_create_resized(block, 0, (MPI_Aint)B * sizeof(int), &blockResized);
  MPI_Type_commit(&blockResized);
  size_t n = (size_t)B * B * size;
  int *send = ints(n), *recv = ints(n), *want = ints(n);
  fill(send, n, rank, 7);
  memset(recv, 0xff, n * sizeof(int));
  COLL(MPI_Alltoall, MPI_Ialltoall, send, 1, blockResized, recv, B * B, MPI_INT,
       comm);
  /* recv[i][c][row] = A_i[row][rank * B + c] */
  for (int i = 0; i < size; ++i)
    for (int c = 0; c < B; ++c)
      for (int row = 0; row < B; ++row)
        want[(size_t)i * B * B + c * B + row] =
            value(i, row * size * B + rank * B + c + 7);
  check("alltoall transpose-by-datatype", recv, want, n);
  free(send), free(recv), free(want);
  MPI_Type_free(&blockResized);
  MPI_Type_free(&block);
  MPI_Type_free(&col1);
  MPI_Type_free(&column);
}

/* A commutative sum of the ints an element spans (MPI's own MPI_SUM is for
 * predefined types only); the types summed have no holes. */
static void sumInts(void *in, void *inout, int *len, MPI_Datatype *type) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(*type, &lb, &extent);
  size_t n = (size_t)*len * extent / sizeof(int);
  for (size_t k = 0; k < n; ++k)
    ((int *)inout)[k] += ((const int *)in)[k];
}
static MPI_Op SUM;

/* Reductions over a type that reorders its ints: every rank uses the same
 * type, so the sum lands where the inputs lie. */
/* want = the sum of what members 0 .. members-1 contribute (fill with
 * salt 8), element-wise; `other` is scratch of `span` ints. */
static void sumOfFills(int *want, int *other, size_t span, int members) {
  memset(want, 0, span * sizeof(int));
  for (int i = 0; i < members; ++i) {
    fill(other, span, i, 8);
    for (size_t k = 0; k < span; ++k)
      want[k] += other[k];
  }
}

static void reductions(int N, int t) {
  int count = N / intsPer[t];
  size_t span = (size_t)count * spanOf[t];
  int *in = ints(span), *out = ints(span), *want = ints(span),
      *other = ints(span);
  char name[96];
  fill(in, span, rank, 8);
  /* allreduce */
  memset(out, 0, span * sizeof(int));
  COLL(MPI_Allreduce, MPI_Iallreduce, in, out, count, types[t], SUM, comm);
  sumOfFills(want, other, span, size);
  snprintf(name, sizeof name, "allreduce %s", typeName[t]);
  check(name, out, want, span);
  /* reduce to the last rank */
  memset(out, 0, span * sizeof(int));
  COLL(MPI_Reduce, MPI_Ireduce, in, out, count, types[t], SUM, size - 1, comm);
  snprintf(name, sizeof name, "reduce %s", typeName[t]);
  if (rank == size - 1)
    check(name, out, want, span);
  /* scan and exscan */
  memset(out, 0, span * sizeof(int));
  COLL(MPI_Scan, MPI_Iscan, in, out, count, types[t], SUM, comm);
  sumOfFills(want, other, span, rank + 1);
  snprintf(name, sizeof name, "scan %s", typeName[t]);
  check(name, out, want, span);
  memset(out, 0, span * sizeof(int));
  COLL(MPI_Exscan, MPI_Iexscan, in, out, count, types[t], SUM, comm);
  if (rank > 0) {
    for (size_t k = 0; k < span; ++k)
      want[k] -= in[k];
    snprintf(name, sizeof name, "exscan %s", typeName[t]);
    check(name, out, want, span);
  }
  free(in), free(out), free(want), free(other);
  /* reduce_scatter_block: each rank gets its block of the sum */
  size_t all = span * size;
  in = ints(all), out = ints(span), want = ints(span), other = ints(all);
  fill(in, all, rank, 9);
  COLL(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, in, out, count,
       types[t], SUM, comm);
  memset(want, 0, span * sizeof(int));
  for (int i = 0; i < size; ++i) {
    fill(other, all, i, 9);
    for (size_t k = 0; k < span; ++k)
      want[k] += other[span * rank + k];
  }
  snprintf(name, sizeof name, "reduce_scatter_block %s", typeName[t]);
  check(name, out, want, span);
  free(in), free(out), free(want), free(other);
}

/* Uneven counts (within a factor of 3 of each other) for rank j's block:
 * ((j + salt) % 3 + 1) * N ints, placed in reverse rank order with a gap of
 * 4 ints after each block. */
static int vints(int j, int N, int salt) { return ((j + salt) % 3 + 1) * N; }

/* allgatherv (root < 0) and gatherv: every member's uneven block, placed
 * in reverse rank order at every member or at the root. */
static void gathervs(int N, int s, int r, int root) {
  const int all = root < 0, salt = all ? 0 : 1, seed = all ? 10 : 11;
  char name[96];
  if (all)
    snprintf(name, sizeof name, "allgatherv %s->%s", typeName[s], typeName[r]);
  else
    snprintf(name, sizeof name, "gatherv %s->%s root %d", typeName[s],
             typeName[r], root);
  int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
  int at = 0;
  for (int j = size - 1; j >= 0; --j) {
    rc[j] = vints(j, N, salt) / intsPer[r];
    rd[j] = at;
    at += rc[j] + 4 / intsPer[r];
  }
  int sc = vints(rank, N, salt) / intsPer[s];
  size_t sspan = (size_t)sc * spanOf[s], rspan = (size_t)at * spanOf[r];
  int *send = ints(sspan), *recv = ints(rspan), *want = ints(rspan);
  fill(send, sspan, rank, seed);
  memset(recv, 0xff, rspan * sizeof(int));
  memset(want, 0xff, rspan * sizeof(int));
  if (all)
    COLL(MPI_Allgatherv, MPI_Iallgatherv, send, sc, types[s], recv, rc, rd,
         types[r], comm);
  else
    COLL(MPI_Gatherv, MPI_Igatherv, send, sc, types[s], recv, rc, rd, types[r],
         root, comm);
  if (all || rank == root)
    for (int i = 0; i < size; ++i) {
      int isc = vints(i, N, salt) / intsPer[s];
      int *other = ints((size_t)isc * spanOf[s]);
      fill(other, (size_t)isc * spanOf[s], i, seed);
      move(other, types[s], isc, want + (size_t)rd[i] * spanOf[r], types[r],
           rc[i]);
      free(other);
    }
  check(name, recv, want, rspan);
  free(send), free(recv), free(want), free(rc), free(rd);
}

static void scatterv(int N, int s, int r, int root) {
  char name[96];
  snprintf(name, sizeof name, "scatterv %s->%s root %d", typeName[s],
           typeName[r], root);
  int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
  int at = 0;
  for (int j = size - 1; j >= 0; --j) {
    sc[j] = vints(j, N, 2) / intsPer[s];
    sd[j] = at;
    at += sc[j] + 4 / intsPer[s];
  }
  int rc = vints(rank, N, 2) / intsPer[r];
  size_t sspan = (size_t)at * spanOf[s], rspan = (size_t)rc * spanOf[r];
  int *send = ints(sspan), *recv = ints(rspan), *want = ints(rspan);
  fill(send, sspan, root, 12);
  memset(recv, 0xff, rspan * sizeof(int));
  memset(want, 0xff, rspan * sizeof(int));
  COLL(MPI_Scatterv, MPI_Iscatterv, send, sc, sd, types[s], recv, rc, types[r],
       root, comm);
  move(send + (size_t)sd[rank] * spanOf[s], types[s], sc[rank], want, types[r],
       rc);
  check(name, recv, want, rspan);
  free(send), free(recv), free(want), free(sc), free(sd);
}

/* Reduce_scatter with uneven counts over type t (SUM: the program's own
 * operator). */
static void reduceScatter(int N, int t) {
  char name[96];
  snprintf(name, sizeof name, "reduce_scatter %s", typeName[t]);
  int *rc = malloc(size * sizeof(int));
  int total = 0, mineAt = 0;
  for (int j = 0; j < size; ++j) {
    rc[j] = vints(j, N, 0) / intsPer[t];
    if (j == rank)
      mineAt = total;
    total += rc[j];
  }
  size_t all = (size_t)total * spanOf[t], mine = (size_t)rc[rank] * spanOf[t];
  int *in = ints(all), *out = ints(mine), *want = ints(mine),
      *other = ints(all);
  fill(in, all, rank, 13);
  COLL(MPI_Reduce_scatter, MPI_Ireduce_scatter, in, out, rc, types[t], SUM,
       comm);
  memset(want, 0, mine * sizeof(int));
  for (int i = 0; i < size; ++i) {
    fill(other, all, i, 13);
    for (size_t k = 0; k < mine; ++k)
      want[k] += other[(size_t)mineAt * spanOf[t] + k];
  }
  check(name, out, want, mine);
  free(in), free(out), free(want), free(other), free(rc);
}

/* Alltoallw: the block for peer j has type (j + rank) % T_COUNT on the send
 * side and plain ints on the receive side (or the reverse), displacements
 * in bytes in reverse rank order. */
static void alltoallw(int N, int sendTyped) {
  char name[96];
  snprintf(name, sizeof name, "alltoallw %s", sendTyped ? "typed->int" :
                                                            "int->typed");
  int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
  int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
  MPI_Datatype *st = malloc(size * sizeof(MPI_Datatype)),
               *rt = malloc(size * sizeof(MPI_Datatype));
  int sAt = 0, rAt = 0; /* ints */
  for (int j = size - 1; j >= 0; --j) {
    int ts = sendTyped ? (j + rank) % T_COUNT : T_INT;
    int tr = sendTyped ? T_INT : (j + rank) % T_COUNT;
    st[j] = types[ts];
    rt[j] = types[tr];
    sc[j] = N / intsPer[ts];
    rc[j] = N / intsPer[tr];
    sd[j] = sAt * (int)sizeof(int);
    rd[j] = rAt * (int)sizeof(int);
    sAt += sc[j] * spanOf[ts];
    rAt += rc[j] * spanOf[tr];
  }
  int *send = ints(sAt), *recv = ints(rAt), *want = ints(rAt);
  fill(send, sAt, rank, 14);
  memset(recv, 0xff, rAt * sizeof(int));
  memset(want, 0xff, rAt * sizeof(int));
  COLL(MPI_Alltoallw, MPI_Ialltoallw, send, sc, sd, st, recv, rc, rd, rt,
       comm);
  for (int i = 0; i < size; ++i) {
    /* Rank i's block for me: its layout, rebuilt. */
    int at = 0, mine = 0, ts = 0;
    for (int j = size - 1; j >= 0; --j) {
      int t = sendTyped ? (j + i) % T_COUNT : T_INT;
      if (j == rank)
        mine = at, ts = t;
      at += N / intsPer[t] * spanOf[t];
    }
    int *other = ints(at);
    fill(other, at, i, 14);
    move(other + mine, types[ts], N / intsPer[ts],
         want + rd[i] / (int)sizeof(int), rt[i], rc[i]);
    free(other);
  }
  check(name, recv, want, rAt);
  free(send), free(recv), free(want), free(sc), free(sd), free(rc), free(rd);
  free(st), free(rt);
}

/* The barrier waits: the last rank arrives 0.2 s late, and nobody leaves
 * before it arrives. */
static void barrier(void) {
  if (rank == size - 1) {
    double until = MPI_Wtime() + 0.2;
    while (MPI_Wtime() < until)
      ;
  }
  double start = MPI_Wtime();
  if (nonblocking) {
    MPI_Request r;
    MPI_Ibarrier(comm, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    MPI_Barrier(comm);
  }
  double waited = MPI_Wtime() - start;
  int ok = rank == size - 1 || waited > 0.15;
  if (!ok)
    fprintf(stderr, "rank %d: barrier: left after %.3f s\n", rank, waited);
  wrong += !ok;
  say("barrier rank %d: %s\n", rank, ok ? "ok" : "WRONG");
}

/* A rank blocked in a point-to-point receive whose sender first waits for
 * an allreduce this rank started (large enough for several phases): MPI
 * advances the allreduce inside MPI_Recv. The blocking allreduce first
 * lets a library agree on the schedule. */
static void progressInRecv(void) {
  const int n = 1 << 16;
  int *in = ints(n), *out = ints(n), *want = ints(n);
  for (int k = 0; k < n; ++k)
    in[k] = rank + k;
  MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm);
  memset(out, 0, n * sizeof(int));
  MPI_Request r;
  int token = 42, got = 0;
  MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, comm, &r);
  if (rank == 0) {
    MPI_Recv(&got, 1, MPI_INT, 1, 77, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank == 1)
      MPI_Send(&token, 1, MPI_INT, 0, 77, comm);
    got = 42;
  }
  for (int k = 0; k < n; ++k)
    want[k] = size * k + size * (size - 1) / 2;
  wrong += got != 42;
  check("progress in recv", out, want, n);
  /* The same with MPI_Irecv + MPI_Wait on the receive alone. */
  memset(out, 0, n * sizeof(int));
  got = 0;
  MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, comm, &r);
  if (rank == 0) {
    MPI_Request rr;
    MPI_Irecv(&got, 1, MPI_INT, 1, 78, comm, &rr);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank == 1)
      MPI_Send(&token, 1, MPI_INT, 0, 78, comm);
    got = 42;
  }
  wrong += got != 42;
  check("progress in wait", out, want, n);
  /* The same with rank 0 in a blocking collective that a library may hand
   * to MPI (a scan on ranks not in world order) while the allreduce is in
   * flight: every rank starts the allreduce, then the scan; rank 0 enters
   * the scan before it waits, the others after. */
  memset(out, 0, n * sizeof(int));
  int x = rank + 1, prefix = 0;
  MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, comm, &r);
  if (rank == 0) {
    MPI_Scan(&x, &prefix, 1, MPI_INT, MPI_SUM, comm);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Scan(&x, &prefix, 1, MPI_INT, MPI_SUM, comm);
  }
  int wantPrefix = (rank + 1) * (rank + 2) / 2;
  check("progress in a collective", out, want, n);
  check("progress in a collective: scan", &prefix, &wantPrefix, 1);
  free(in), free(out), free(want);
}

/* Several calls in flight at once on two communicators, completed out of
 * order. */
static void overlap(int N, MPI_Comm other) {
  int orank;
  MPI_Comm_rank(other, &orank);
  size_t n = (size_t)N * size;
  int *a = ints(n), *b = ints(n), *c = ints(N), *d = ints(N), *e = ints(N),
      *wb = ints(n), *wd = ints(N), *we = ints(N);
  fill(a, n, rank, 15);
  fill(c, N, rank, 16);
  if (orank == 0)
    fill(e, N, 0, 17);
  MPI_Request r[4];
  MPI_Ialltoall(a, N, MPI_INT, b, N, MPI_INT, comm, &r[0]);
  MPI_Iallreduce(c, d, N, MPI_INT, MPI_SUM, comm, &r[1]);
  MPI_Ibcast(e, N, MPI_INT, 0, other, &r[2]);
  MPI_Ibarrier(other, &r[3]);
  int index, flag = 0;
  MPI_Waitany(4, r, &index, MPI_STATUS_IGNORE);
  while (!flag)
    MPI_Test(&r[(index + 1) % 4], &flag, MPI_STATUS_IGNORE);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  for (int i = 0; i < size; ++i) {
    int *other_ = ints(n);
    fill(other_, n, i, 15);
    memcpy(wb + (size_t)N * i, other_ + (size_t)N * rank, N * sizeof(int));
    fill(other_, N, i, 16);
    for (int k = 0; k < N; ++k)
      wd[k] += other_[k];
    free(other_);
  }
  fill(we, N, 0, 17);
  check("overlap alltoall", b, wb, n);
  check("overlap allreduce", d, wd, N);
  check("overlap bcast", e, we, N);
  free(a), free(b), free(c), free(d), free(e), free(wb), free(wd), free(we);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int N = argc > 1 ? atoi(argv[1]) : 8;
  nonblocking = argc > 2 && strcmp(argv[2], "nonblocking") == 0;
  if (N <= 0 || N % 4 || (argc > 2 && !nonblocking)) {
    fprintf(stderr, "usage: pmpi_datatypes INTS [nonblocking] (INTS: a "
                    "multiple of 4)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  makeTypes();
  MPI_Op_create(sumInts, 1, &SUM);
  int world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* The world, then the same ranks in reverse order. */
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 0)
      MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    else
      MPI_Comm_split(MPI_COMM_WORLD, 0, size - world, &comm);
    MPI_Comm_rank(comm, &rank);
    say("pass %d\n", pass);
    for (int s = 0; s < T_COUNT; ++s)
      for (int r = 0; r < T_COUNT; ++r) {
        if (s != T_INT && r != T_INT && s != r)
          continue; /* one side plain, or both the same */
        alltoall(N, s, r);
        alltoallv(N, s, r);
        bcast(N, s, r, size - 1);
        gather(N, s, r, -1);
        gather(N, s, r, 0);
        scatter(N, s, r, size / 2);
        gathervs(N, s, r, -1);
        gathervs(N, s, r, size - 1);
        scatterv(N, s, r, 0);
      }
    transpose(N / 4 + 1);
    reductions(N, T_PAIR);
    reductions(N, T_REV4);
    reduceScatter(N, T_PAIR);
    reduceScatter(N, T_REV4);
    alltoallw(N, 1);
    alltoallw(N, 0);
    barrier();
    if (nonblocking && pass == 1) {
      overlap(N, MPI_COMM_WORLD);
      progressInRecv();
    }
    MPI_Comm_free(&comm);
  }
  for (int t = 1; t < T_COUNT; ++t)
    MPI_Type_free(&types[t]);
  MPI_Op_free(&SUM);
  if (world == 0) {
    fwrite(out, 1, outLen, stdout);
    for (int r = 1; r < size; ++r) {
      MPI_Status st;
      int n;
      MPI_Probe(r, 99, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_CHAR, &n);
      char *text = malloc(n ? n : 1);
      MPI_Recv(text, n, MPI_CHAR, r, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      fwrite(text, 1, n, stdout);
      free(text);
    }
  } else {
    MPI_Send(out, (int)outLen, MPI_CHAR, 0, 99, MPI_COMM_WORLD);
  }
  free(out);
  MPI_Finalize();
  return wrong ? 1 : 0;
}
