// An all-to-all whose transfer set is given, held by rule: 8 members, 56
// demands.
comm.machine @ring #comm.torus<[8]> {bandwidth = 1.0e6 : f64}
comm.group @all on @ring ranks [0, 1, 2, 3, 4, 5, 6, 7]
comm.alltoall @a on @ring group @all {block = 8 : i64}
comm.transfer_set for @a [] {all_pairs = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>, pair_bytes = 8 : i64}
