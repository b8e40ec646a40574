/* sort.c - the driver of seed 000's radix sort on phasec's generated steps.
 *
 * Sorts KEYS records per rank (random keys with 48-bit payloads: the
 * payload is the record's index in the input) by LSD radix sort, one
 * phasec_program call per 8-bit digit. phasec generates the program from
 * sort16.sched or sort32.sched (bucket transposes, the scan, the grouped
 * permutation with run-time destinations); this file supplies the local
 * steps (bucket counts, the local halves of the bucket scan, the presort
 * copy's destinations), the keys, the timing and the check: rank 0 gathers
 * the output and compares it, record by record, with a serial stable sort
 * of the same input.
 *
 * The generated file is one translation unit that this one includes
 * (it defines phasec_program_t):
 *   phasec sort16.sched --define KEYS=N --emit=mpi -o step.c
 *   mpicc -O3 -DKEY_BITS=16 -DSTEP='"step.c"' sort.c \
 *       $(pkg-config --cflags --libs phasec-runtime) -o sort16
 *   mpirun -np 4 ./sort16 [steps-to-time]
 * OpenSHMEM: --emit=shmem, oshcc with -DSORT_SHMEM, oshrun --mca osc ^rdma.
 * docs/radix-sort.md has the whole recipe and the measurements.
 */
#include STEP

#include <inttypes.h>

#ifndef KEY_BITS
#define KEY_BITS 16
#endif
#if KEY_BITS != 16 && KEY_BITS != 32
#error "KEY_BITS is 16 (sort16.sched) or 32 (sort32.sched)"
#endif

#define DIGIT_BITS 8
#define RADIX (1 << DIGIT_BITS)
#define STEPS (KEY_BITS / DIGIT_BITS)
#define PAYLOAD_MASK ((UINT64_C(1) << 48) - 1)

/* The generated program's sizes: the permute's slice, and the buckets
   (RADIX padded to a multiple of the ranks: the transpose needs it). */
#define NKEYS grouped_permute_L
#define NRANKS grouped_permute_P
#ifdef bucket_transpose_NA
#define NBUCKETS bucket_transpose_NA
#else
#define NBUCKETS bucket_transpose_N /* as many buckets as ranks */
#endif
#define SLAB NBUCKETS /* counts_t entries per rank: NBUCKETS / P rows of P */

/* The keys this step reads, and key i of them: 16-bit records are
   key << 48 | payload. */
#if KEY_BITS == 16
#define STEP_KEYS(bufs) ((const uint64_t *)(bufs)->records)
#define KEY_OF(rec, i) ((uint32_t)((rec)[i] >> 48))
#else
#define STEP_KEYS(bufs) ((const uint32_t *)(bufs)->keys)
#define KEY_OF(keys, i) ((keys)[i])
#endif

typedef struct {
  phasec_program_t *bufs;
  int shift; /* the digit of this step */
  int64_t *dest;
} sort_ctx;

/* The scan's buffers (static: symmetric under OpenSHMEM). */
static int64_t slab_in, slab_end;

static inline unsigned digit(uint32_t key, int shift) {
  return (key >> shift) & (RADIX - 1);
}

/* 1: bucket counts of this rank's keys. */
void radix_bucket_counts(void *p) {
  sort_ctx *c = (sort_ctx *)p;
  int64_t *counts = c->bufs->counts;
  memset(counts, 0, sizeof(int64_t) * NBUCKETS);
  __typeof__(STEP_KEYS(c->bufs)) k = STEP_KEYS(c->bufs);
  for (int64_t i = 0; i < NKEYS; ++i)
    ++counts[digit(KEY_OF(k, i), c->shift)];
}

/* 3a: the total of this rank's slab of (bucket, rank) counts, which are the
   rank's part of the global (bucket, rank) order. */
void radix_slab_total(void *p) {
  sort_ctx *c = (sort_ctx *)p;
  int64_t t = 0;
  for (int64_t k = 0; k < SLAB; ++k)
    t += c->bufs->counts_t[k];
  slab_in = t;
}

/* 3c: the slab's counts become global offsets (the scan gave the slab's
   end). */
void radix_bucket_scan(void *p) {
  sort_ctx *c = (sort_ctx *)p;
  int64_t off = slab_end - slab_in;
  for (int64_t k = 0; k < SLAB; ++k) {
    int64_t n = c->bufs->counts_t[k];
    c->bufs->counts_t[k] = off;
    off += n;
  }
}

/* 5: each record's place in the output: its bucket's offset for this rank,
   then the next one (stable). */
void radix_presort_copy(void *p) {
  sort_ctx *c = (sort_ctx *)p;
  int64_t *next = c->bufs->counts;
  __typeof__(STEP_KEYS(c->bufs)) k = STEP_KEYS(c->bufs);
  for (int64_t i = 0; i < NKEYS; ++i)
    c->dest[i] = next[digit(KEY_OF(k, i), c->shift)]++;
}

static uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* The key of input record g. */
static uint32_t input_key(uint64_t g) {
  return (uint32_t)(mix(g) >> 32) & (uint32_t)((UINT64_C(1) << KEY_BITS) - 1);
}

typedef struct {
  uint32_t key;
  uint64_t payload;
} serial_rec;

static int by_key_then_payload(const void *a, const void *b) {
  const serial_rec *x = (const serial_rec *)a, *y = (const serial_rec *)b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->payload < y->payload ? -1 : x->payload > y->payload;
}

/* Rank 0: the whole output (key, payload) in rank order against a serial
   stable sort of the input. Returns the number of wrong records. */
static int64_t check_serial(const uint32_t *keys, const uint64_t *payloads,
                            int64_t n) {
  serial_rec *want = (serial_rec *)PHASEC_XMALLOC(sizeof(serial_rec) * n,
                                                   "serial sort");
  for (int64_t g = 0; g < n; ++g) {
    want[g].key = input_key((uint64_t)g);
    want[g].payload = (uint64_t)g;
  }
  qsort(want, (size_t)n, sizeof(serial_rec), by_key_then_payload);
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    if (keys[i] != want[i].key || payloads[i] != want[i].payload) {
      if (bad < 5)
        fprintf(stderr,
                "sort: record %" PRId64 ": got key %" PRIu32
                " payload %" PRIu64 ", expected key %" PRIu32
                " payload %" PRIu64 "\n",
                i, keys[i], payloads[i], want[i].key, want[i].payload);
      ++bad;
    }
  free(want);
  return bad;
}

#ifdef SORT_SHMEM
#define ALLOC(bytes, what) PHASEC_SHMEM_MALLOC(bytes, what)
#define FREE(p) shmem_free(p)
#else
#define ALLOC(bytes, what) PHASEC_XMALLOC(bytes, what)
#define FREE(p) free(p)
#endif

int main(int argc, char **argv) {
  int timed = argc > 1 ? atoi(argv[1]) : 3; /* sorts to time */
  if (timed < 1)
    timed = 1;
#ifdef SORT_SHMEM
  /* The symmetric heap: the generated steps' work space, the counts and the
     record arrays (2 of 8 bytes a record, or 2 of 4 and 2 of 8), with
     room for alignment. */
  size_t heap = grouped_permute_sym_bytes() + bucket_transpose_sym_bytes() +
                bucket_untranspose_sym_bytes() + slab_scan_sym_bytes() +
                sizeof(int64_t) * (2 * NBUCKETS + 2) + ((size_t)1 << 20);
#if KEY_BITS == 16
  heap += 2 * sizeof(uint64_t) * (size_t)NKEYS;
#else
  heap += payload_permute_sym_bytes() +
          2 * (sizeof(uint32_t) + sizeof(uint64_t)) * (size_t)NKEYS;
#endif
  phasec_shmem_init(heap);
  const int me = shmem_my_pe(), np = shmem_n_pes();
#else
  phasec_mpi_init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
#endif
  if (np != NRANKS) {
    /* Every rank leaves cleanly with status 2: an abort from another rank
       can kill rank 0 before its message reaches the launcher. */
    if (me == 0)
      fprintf(stderr, "sort: generated for %d ranks, running on %d\n",
              NRANKS, np);
#ifdef SORT_SHMEM
    phasec_shmem_finalize();
#else
    phasec_mpi_finalize();
#endif
    return 2;
  }

  /* Arrays: OpenSHMEM's transposes write into symmetric outputs. */
  phasec_program_t bufs;
  memset(&bufs, 0, sizeof bufs);
  bufs.counts = (int64_t *)ALLOC(sizeof(int64_t) * NBUCKETS, "counts");
  bufs.counts_t = (int64_t *)ALLOC(sizeof(int64_t) * (SLAB + 1), "counts_t");
  int64_t *dest = (int64_t *)PHASEC_XMALLOC(sizeof(int64_t) * NKEYS, "dest");
#if KEY_BITS == 16
  uint64_t *in = (uint64_t *)PHASEC_XMALLOC(sizeof(uint64_t) * NKEYS, "in");
  uint64_t *a = (uint64_t *)ALLOC(sizeof(uint64_t) * NKEYS, "records");
  uint64_t *b = (uint64_t *)ALLOC(sizeof(uint64_t) * NKEYS, "records_out");
  for (int64_t i = 0; i < NKEYS; ++i) {
    uint64_t g = (uint64_t)me * NKEYS + (uint64_t)i;
    in[i] = (uint64_t)input_key(g) << 48 | (g & PAYLOAD_MASK);
  }
#else
  uint32_t *kin = (uint32_t *)PHASEC_XMALLOC(sizeof(uint32_t) * NKEYS, "in");
  uint64_t *pin = (uint64_t *)PHASEC_XMALLOC(sizeof(uint64_t) * NKEYS, "in");
  uint32_t *ka = (uint32_t *)ALLOC(sizeof(uint32_t) * NKEYS, "keys");
  uint32_t *kb = (uint32_t *)ALLOC(sizeof(uint32_t) * NKEYS, "keys_out");
  uint64_t *pa = (uint64_t *)ALLOC(sizeof(uint64_t) * NKEYS, "payloads");
  uint64_t *pb = (uint64_t *)ALLOC(sizeof(uint64_t) * NKEYS, "payloads_out");
  for (int64_t i = 0; i < NKEYS; ++i) {
    uint64_t g = (uint64_t)me * NKEYS + (uint64_t)i;
    kin[i] = input_key(g);
    pin[i] = g & PAYLOAD_MASK;
  }
#endif
  sort_ctx ctx = {&bufs, 0, dest};
  bufs.slab_scan_send = &slab_in;
  bufs.slab_scan_recv = &slab_end;
  bufs.grouped_permute_dest = dest;
#if KEY_BITS == 32
  bufs.payload_permute_dest = dest;
#endif

  double best = 1e30, sum = 0;
  for (int run = 0; run <= timed; ++run) { /* run 0 warms up */
#if KEY_BITS == 16
    memcpy(a, in, sizeof(uint64_t) * NKEYS);
#else
    memcpy(ka, kin, sizeof(uint32_t) * NKEYS);
    memcpy(pa, pin, sizeof(uint64_t) * NKEYS);
#endif
#ifdef SORT_SHMEM
    shmem_barrier_all();
#else
    MPI_Barrier(MPI_COMM_WORLD);
#endif
    double t0 = phasec_wtime();
    for (int s = 0; s < STEPS; ++s) {
      ctx.shift = s * DIGIT_BITS;
      /* The step reads records and writes records_out; the next step
         reads what this one wrote. */
#if KEY_BITS == 16
      bufs.records = s % 2 ? b : a;
      bufs.records_out = s % 2 ? a : b;
#else
      bufs.keys = s % 2 ? kb : ka;
      bufs.keys_out = s % 2 ? ka : kb;
      bufs.payloads = s % 2 ? pb : pa;
      bufs.payloads_out = s % 2 ? pa : pb;
#endif
#ifdef SORT_SHMEM
      if (phasec_program(&bufs, &ctx) != PHASEC_SHMEM_SUCCESS)
        phasec_shmem_fail("phasec_program failed", __FILE__, __LINE__);
#else
      PHASEC_MPI_CHECK(phasec_program(&bufs, &ctx, MPI_COMM_WORLD));
#endif
    }
    double t = phasec_wtime() - t0, tmax;
#ifdef SORT_SHMEM
    static double tsym, tmaxsym;
    tsym = t;
    shmem_barrier_all();
    tmaxsym = tsym;
    for (int q = 0; q < np; ++q) {
      double other = shmem_double_g(&tsym, q);
      if (other > tmaxsym)
        tmaxsym = other;
    }
    tmax = tmaxsym;
    shmem_barrier_all();
#else
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
    if (run > 0) {
      sum += tmax;
      if (tmax < best)
        best = tmax;
    }
  }

  /* The output of the last step, STEPS even: in the first buffer. */
#if KEY_BITS == 16
  const uint64_t *out = STEPS % 2 ? b : a;
  uint32_t *okeys = (uint32_t *)PHASEC_XMALLOC(sizeof(uint32_t) * NKEYS, "k");
  uint64_t *opay = (uint64_t *)PHASEC_XMALLOC(sizeof(uint64_t) * NKEYS, "p");
  for (int64_t i = 0; i < NKEYS; ++i) {
    okeys[i] = (uint32_t)(out[i] >> 48);
    opay[i] = out[i] & PAYLOAD_MASK;
  }
#else
  const uint32_t *okeys = STEPS % 2 ? kb : ka;
  const uint64_t *opay = STEPS % 2 ? pb : pa;
#endif
  int64_t n = (int64_t)NKEYS * np, bad = 0;
  uint32_t *allk = NULL;
  uint64_t *allp = NULL;
#ifdef SORT_SHMEM
  /* PE 0 reads every PE's output arrays (symmetric) into its own memory. */
  shmem_barrier_all();
  if (me == 0) {
    allk = (uint32_t *)PHASEC_XMALLOC(sizeof(uint32_t) * (size_t)n, "gather");
    allp = (uint64_t *)PHASEC_XMALLOC(sizeof(uint64_t) * (size_t)n, "gather");
    for (int q = 0; q < np; ++q) {
      uint32_t *kq = allk + (int64_t)q * NKEYS;
      uint64_t *pq = allp + (int64_t)q * NKEYS;
#if KEY_BITS == 16
      shmem_getmem(pq, out, sizeof(uint64_t) * NKEYS, q);
      for (int64_t i = 0; i < NKEYS; ++i) {
        kq[i] = (uint32_t)(pq[i] >> 48);
        pq[i] &= PAYLOAD_MASK;
      }
#else
      shmem_getmem(kq, okeys, sizeof(uint32_t) * NKEYS, q);
      shmem_getmem(pq, opay, sizeof(uint64_t) * NKEYS, q);
#endif
    }
  }
#else
  if (me == 0) {
    allk = (uint32_t *)PHASEC_XMALLOC(sizeof(uint32_t) * (size_t)n, "gather");
    allp = (uint64_t *)PHASEC_XMALLOC(sizeof(uint64_t) * (size_t)n, "gather");
  }
  MPI_Gather(okeys, NKEYS, MPI_UINT32_T, allk, NKEYS, MPI_UINT32_T, 0,
             MPI_COMM_WORLD);
  MPI_Gather(opay, NKEYS, MPI_UINT64_T, allp, NKEYS, MPI_UINT64_T, 0,
             MPI_COMM_WORLD);
#endif
  if (me == 0) {
    if (getenv("SORT_TEST_CORRUPT")) /* tests of the check */
      allk[n / 2] ^= 1;
    bad = check_serial(allk, allp, n);
    int bytes = KEY_BITS == 16 ? 8 : 12; /* moved per record and step */
    printf("# radix sort: %d ranks, %d records per rank, %d-bit keys, "
           "48-bit payloads, %d steps of %d bits\n",
           np, (int)NKEYS, KEY_BITS, STEPS, DIGIT_BITS);
    printf("sort best %.6f s, mean %.6f s over %d sorts\n", best,
           sum / timed, timed);
    printf("keys/s %.4e total, %.4e per rank\n", (double)n / best,
           (double)NKEYS / best);
    printf("MB/s per rank and step %.2f (%d bytes a record)\n",
           (double)NKEYS * bytes * STEPS / best / 1e6, bytes);
    if (bad)
      printf("# FAILED: %" PRId64 " records differ from a serial sort\n",
             bad);
    else
      printf("# OK: sorted, the same records as a serial stable sort\n");
  }
#ifdef SORT_SHMEM
  shmem_barrier_all();
  phasec_shmem_finalize();
#else
  MPI_Bcast(&bad, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  phasec_mpi_finalize();
#endif
  return bad ? 1 : 0;
}
