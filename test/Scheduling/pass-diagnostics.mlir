// Diagnostics of comm-lower-collectives and comm-schedule-phases.
// RUN: phasec-opt %s -split-input-file -verify-diagnostics --comm-lower-collectives --comm-schedule-phases > /dev/null
// RUN: not phasec-opt %s -split-input-file --comm-lower-collectives --comm-schedule-phases=algorithm=fastest 2>&1 > /dev/null | FileCheck %s --check-prefix=UNKNOWN

// UNKNOWN: error: unknown scheduling algorithm 'fastest' (expected one of auto, product, percs, torus-quotient, mesh-quotient, greedy-priority, z3-exact, linear_shift, xor, greedy)

comm.machine @r #comm.torus<[6]> {bandwidth = 1.0e6 : f64}
comm.group @all on @r ranks [0, 1, 2, 3, 4, 5]
// Seed 003's all-to-all k-level algorithms relay (comm-schedule-phases):
// k_level(2) needs a shape, the butterfly a power-of-two group.
// expected-error @below {{cannot schedule 'o': k_level(2) is not one of seed 003's all-to-all k-level algorithms (k_level(2, sq), k_level(2, rc), k_level(logp, bfly)); k_level(1) is the direct transfers}}
comm.alltoall @o on @r group @all {block = 8 : i64, algorithm = #comm.algorithm<k_level>, k_levels = 2 : i64}
// expected-error @below {{cannot schedule 'l': k_level(logp) needs a power-of-two group (it exchanges along the bits of the member index), got 6 members}}
comm.alltoall @l on @r group @all {block = 8 : i64, algorithm = #comm.algorithm<k_level>, k_levels = 0 : i64}
// expected-error @below {{cannot schedule 's': k_level(2, sq) forms sqrt(p) submachines of sqrt(p) nodes each: it needs a square number of members, got 6}}
comm.alltoall @s on @r group @all {block = 8 : i64, algorithm = #comm.algorithm<k_level>, k_levels = 2 : i64, k_shape = #comm.k_shape<sq>}
// The recursive-doubling allgather after the scatter pairs v with v xor 2^k.
// expected-error @below {{cannot schedule 'b': scatter_rdb_allgather needs a power-of-two group (recursive doubling pairs member v with v xor 2^k), got 6 members}}
comm.broadcast @b on @r group @all {root = 0 : i64, block = 48 : i64, algorithm = #comm.algorithm<scatter_rdb_allgather>}

// -----

comm.machine @r #comm.torus<[6]> {bandwidth = 1.0e6 : f64}
comm.group @all on @r ranks [0, 1, 2, 3, 4, 5]
comm.group @half on @r ranks [0, 1, 2]
comm.array @a : f64 [6, 6] rows over @half
comm.array @b : f64 [6, 6] rows over @all
// expected-error @below {{not supported: a transpose of arrays that are not distributed over the operation's group}}
comm.transpose @t on @r group @all {from = @a, to = @b}

// -----

comm.machine @r #comm.torus<[6]> {bandwidth = 1.0e6 : f64}
comm.group @all on @r ranks [0, 1, 2, 3, 4, 5]
// expected-error @below {{cannot schedule 'y' with algorithm xor: the XOR schedule needs a power-of-two number of ranks, the machine has 6}}
comm.alltoall @y on @r group @all {block = 8 : i64, algorithm = #comm.algorithm<xor>}
// One level (1-lev-dir) is the direct algorithm.
comm.one_to_all @o1 on @r group @all {root = 0 : i64, block = 8 : i64, algorithm = #comm.algorithm<k_level>, k_levels = 1 : i64}
// Bruck relays: scheduled by chunks.
comm.alltoall @q on @r group @all {block = 8 : i64, algorithm = #comm.algorithm<bruck>}
// expected-error @+2 {{cannot schedule 'p': k_level(2, rec) partitions a 1-D or 2-D mesh or torus into submachines: the group must be every node of one, one rank per node}}
comm.group @three on @r ranks [0, 1, 2]
comm.one_to_all @p on @r group @three {root = 0 : i64, block = 8 : i64, algorithm = #comm.algorithm<k_level>, k_levels = 2 : i64, k_shape = #comm.k_shape<rec>}
// expected-error @below {{cannot schedule 'rh': recursive_halving needs a power-of-two group (round k pairs member v with v xor 2^k), got 6 members}}
comm.reduce_scatter @rh on @r group @all {op = #comm.reduce<add>, element_type = i32, count = 4 : i64, algorithm = #comm.algorithm<recursive_halving>}

// -----

// A solver budget of 1 cannot solve anything: the heuristic's schedule is
// used and the warning names the gap it leaves.
comm.machine @t #comm.torus<[5, 7]> {bandwidth = 1.0e6 : f64}
comm.group @all on @t ranks [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34]
// expected-warning-re @below {{solver budget ran out for 'x': using the {{.*}} schedule of {{[0-9]+}} phases at {{[0-9.]+}} x the proven lower bound (gap {{[0-9.]+}}%)}}
comm.alltoall @x on @t group @all {block = 8 : i64, rlimit = 1 : i64}
