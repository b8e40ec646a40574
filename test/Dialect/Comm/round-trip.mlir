// Every comm op and attribute prints in a form the parser reads back, and the
// second print is identical to the first.
// RUN: phasec-opt %s | FileCheck %s
// RUN: phasec-opt %s | phasec-opt | FileCheck %s
// RUN: phasec-opt %s -mlir-print-op-generic | phasec-opt | FileCheck %s
// Upstream mlir-opt with the dialect plugin prints what phasec-opt prints.
// RUN: %mlir_opt --load-dialect-plugin=%comm_dialect_plugin %s | FileCheck %s
// RUN: %mlir_opt --load-dialect-plugin=%comm_dialect_plugin %s -mlir-print-op-generic | phasec-opt | FileCheck %s

// CHECK: #[[L0:loc[0-9]*]] = loc("x.sched":3:5)
// CHECK: #[[L1:loc[0-9]*]] = loc("x.sched":4:5)
// CHECK: comm.machine @t3d #comm.torus<[8, 4, 8, 2]> {bandwidth = 7.500000e+07 : f64, dim_order = array<i64: 0, 1, 2, 3>, injection_bandwidth = 7.500000e+07 : f64, latency = 9.9999999999999995E-7 : f64, packet_length = 32 : i64}
comm.machine @t3d #comm.torus<[8, 4, 8, 2]> {bandwidth = 7.5e7 : f64, latency = 1.0e-6 : f64, injection_bandwidth = 7.5e7 : f64, dim_order = array<i64: 0, 1, 2, 3>, packet_length = 32 : i64}
// CHECK: comm.machine @mesh #comm.mesh<[4, 4]> {copy_rate_contiguous = 2.100000e+07 : f64, copy_rate_strided = 8.000000e+06 : f64, setup_cost = 9.9999999999999995E-7 : f64}
comm.machine @mesh #comm.mesh<[4, 4]> {setup_cost = 1.0e-6 : f64, copy_rate_contiguous = 2.1e7 : f64, copy_rate_strided = 8.0e6 : f64}
// CHECK: comm.machine @cube #comm.hypercube<3>
comm.machine @cube #comm.hypercube<3>
// CHECK: comm.machine @percs #comm.percs<supernodes = 1, drawers = 2, nodes_per_drawer = 2> {d_bandwidth = 1.000000e+10 : f64, ll_bandwidth = 2.400000e+10 : f64, lr_bandwidth = 5.000000e+09 : f64, ranks_per_node = 2 : i64, routing = #comm.routing<direct>}
comm.machine @percs #comm.percs<supernodes = 1, drawers = 2, nodes_per_drawer = 2> {ranks_per_node = 2 : i64, ll_bandwidth = 2.4e10 : f64, lr_bandwidth = 5.0e9 : f64, d_bandwidth = 1.0e10 : f64, routing = #comm.routing<direct>}
// CHECK: comm.machine @percs2 #comm.percs<supernodes = 2, drawers = 2, nodes_per_drawer = 2, d_links = 6>
comm.machine @percs2 #comm.percs<supernodes = 2, drawers = 2, nodes_per_drawer = 2, d_links = 6> {routing = #comm.routing<direct>}

// CHECK: comm.group @cube.all on @cube ranks [0, 1, 2, 3, 4, 5, 6, 7]
comm.group @cube.all on @cube ranks [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK: comm.group @evens on @cube ranks [0, 2, 4, 6]
comm.group @evens on @cube ranks [0, 2, 4, 6]
// CHECK: comm.group @drawer0 on @percs ranks [0, 1, 2, 3] {nodes = array<i64: 0, 1>, over_nodes}
comm.group @drawer0 on @percs ranks [0, 1, 2, 3] {nodes = array<i64: 0, 1>, over_nodes}
// CHECK: comm.group @mesh.all on @mesh ranks
comm.group @mesh.all on @mesh ranks [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]

// CHECK: comm.array @a : complex<f64> [8, 8] rows over @cube.all
comm.array @a : complex<f64> [8, 8] rows over @cube.all
// CHECK: comm.array @b : complex<f64> [8, 8] rows over @cube.all
comm.array @b : complex<f64> [8, 8] rows over @cube.all
// CHECK: comm.array @c : ui64 [4, 16] cols over @evens
comm.array @c : ui64 [4, 16] cols over @evens
// CHECK: comm.array @d : ui64 [64] rows over @cube.all
comm.array @d : ui64 [64] rows over @cube.all
// CHECK: comm.array @e : ui64 [64] rows over @cube.all
comm.array @e : ui64 [64] rows over @cube.all
// CHECK: comm.array @f : f32 [16] rows over @cube.all
comm.array @f : f32 [16] rows over @cube.all

// CHECK: comm.alltoall @a2a on @cube group @cube.all {algorithm = #comm.algorithm<xor>, block = 4096 : i64, rlimit = 1000 : i64, sync = #comm.sync<none>}
comm.alltoall @a2a on @cube group @cube.all {block = 4096 : i64, algorithm = #comm.algorithm<xor>, sync = #comm.sync<none>, rlimit = 1000 : i64}
// CHECK: comm.alltoallv @a2av on @cube group @evens {sizes = array<i64: 0, 1, 2, 3, 4, 0, 6, 7, 8, 9, 0, 11, 12, 13, 14, 0>}
comm.alltoallv @a2av on @cube group @evens {sizes = array<i64: 0, 1, 2, 3, 4, 0, 6, 7, 8, 9, 0, 11, 12, 13, 14, 0>}
// CHECK: comm.transpose @tp on @cube group @cube.all {from = @a, style = #comm.style<direct_deposit>, to = @b}
comm.transpose @tp on @cube group @cube.all {from = @a, to = @b, style = #comm.style<direct_deposit>}
// CHECK: comm.permute @rp on @cube group @cube.all {block = 64 : i64, pattern = #comm.pattern<table>, table = array<i64: 1, 0, 3, 2, 5, 4, 7, 6>}
comm.permute @rp on @cube group @cube.all {pattern = #comm.pattern<table>, table = array<i64: 1, 0, 3, 2, 5, 4, 7, 6>, block = 64 : i64}
// CHECK: comm.permute @ep on @cube group @cube.all {from = @d, pattern = #comm.pattern<random>, seed = 7 : i64, style = #comm.style<chained>, to = @e}
comm.permute @ep on @cube group @cube.all {pattern = #comm.pattern<random>, seed = 7 : i64, from = @d, to = @e, style = #comm.style<chained>}
// CHECK: comm.permute @rt on @cube group @cube.all {from = @d, pattern = #comm.pattern<runtime>, to = @e}
comm.permute @rt on @cube group @cube.all {from = @d, pattern = #comm.pattern<runtime>, style = #comm.style<packing>, to = @e}
// CHECK: comm.permute @xp on @cube group @cube.all {block = 8 : i64, mask = 5 : i64, pattern = #comm.pattern<xor>}
comm.permute @xp on @cube group @cube.all {pattern = #comm.pattern<xor>, mask = 5 : i64, block = 8 : i64}
// CHECK: comm.gather @ga on @cube group @evens {block = 8 : i64, root = 2 : i64}
comm.gather @ga on @cube group @evens {root = 2 : i64, block = 8 : i64}
// CHECK: comm.scatter @sc on @cube group @evens {block = 8 : i64, root = 4 : i64}
comm.scatter @sc on @cube group @evens {root = 4 : i64, block = 8 : i64}
// CHECK: comm.allgather @ag on @cube group @cube.all {aggregate = #comm.aggregate<waitvec>, block = 8 : i64}
comm.allgather @ag on @cube group @cube.all {block = 8 : i64, aggregate = #comm.aggregate<waitvec>}
// CHECK: comm.broadcast @bc on @cube group @cube.all {block = 8 : i64, root = 0 : i64}
comm.broadcast @bc on @cube group @cube.all {root = 0 : i64, block = 8 : i64}
// CHECK: comm.reduce @rd on @cube group @cube.all {count = 4 : i64, element_type = i32, op = #comm.reduce<max>, root = 1 : i64}
comm.reduce @rd on @cube group @cube.all {root = 1 : i64, op = #comm.reduce<max>, element_type = i32, count = 4 : i64}
// CHECK: comm.allreduce @ar on @cube group @evens {aggregate = #comm.aggregate<any>, count = 1 : i64, element_type = ui8, op = #comm.reduce<or>}
comm.allreduce @ar on @cube group @evens {op = #comm.reduce<or>, element_type = ui8, count = 1 : i64, aggregate = #comm.aggregate<any>}
// CHECK: comm.scan @sn on @cube group @cube.all {count = 1024 : i64, element_type = complex<f32>, op = #comm.reduce<add>}
comm.scan @sn on @cube group @cube.all {op = #comm.reduce<add>, element_type = complex<f32>, count = 1024 : i64}
// CHECK: comm.one_to_all @o2a on @mesh group @mesh.all {algorithm = #comm.algorithm<k_level>, block = 16 : i64, k_levels = 2 : i64, k_shape = #comm.k_shape<rec>, root = 0 : i64}
comm.one_to_all @o2a on @mesh group @mesh.all {root = 0 : i64, block = 16 : i64, algorithm = #comm.algorithm<k_level>, k_levels = 2 : i64, k_shape = #comm.k_shape<rec>}
// CHECK: comm.all_to_one @a2o on @mesh group @mesh.all {block = 16 : i64, root = 5 : i64}
comm.all_to_one @a2o on @mesh group @mesh.all {root = 5 : i64, block = 16 : i64}
// CHECK: comm.barrier @bar on @cube group @evens {aggregate = #comm.aggregate<barrier>}
comm.barrier @bar on @cube group @evens {aggregate = #comm.aggregate<barrier>}
// CHECK: comm.local @loc on @cube group @cube.all
comm.local @loc on @cube group @cube.all
// CHECK: comm.local @counts on @cube group @cube.all {call = "bucket_counts"}
comm.local @counts on @cube group @cube.all {call = "bucket_counts"}

// CHECK: comm.transfer_set for @ga [0 -> 2 : 8, 4 -> 2 : 8, 6 -> 2 : 8]
comm.transfer_set for @ga [0 -> 2 : 8, 4 -> 2 : 8, 6 -> 2 : 8]
// CHECK:      comm.schedule for @ga algorithm "greedy" attributes {bound = 2.400000e+01 : f64, gap = 1.000000e+00 : f64, phase_optimal, time = 2.400000e+01 : f64, time_optimal} {
// CHECK-NEXT:   comm.phase [0 -> 2 : 8]
// CHECK-NEXT:   comm.phase [4 -> 2 : 8 ties 4]
// CHECK-NEXT:   comm.phase [6 -> 2 : 8]
// CHECK-NEXT:   comm.phase []
// CHECK-NEXT: }
comm.schedule for @ga algorithm "greedy" attributes {bound = 24.0 : f64, time = 24.0 : f64, gap = 1.0 : f64, time_optimal, phase_optimal} {
  comm.phase [0 -> 2 : 8]
  comm.phase [4 -> 2 : 8 ties 4]
  comm.phase [6 -> 2 : 8 ties 0]
  comm.phase []
}
// CHECK: comm.transfer_set for @sc [4 -> 0 : 8, 4 -> 2 : 8, 4 -> 6 : 8]
comm.transfer_set for @sc [4 -> 0 : 8, 4 -> 2 : 8, 4 -> 6 : 8]
// CHECK:      comm.user_schedule for @sc {
// CHECK-NEXT:   comm.phase [4 -> 0 : 8, 4 -> 2 : 8] {loc_index = array<i32: 0, 1>, locs = [#[[L0]], #[[L1]]]}
// CHECK-NEXT:   comm.phase [4 -> 6 : 8] {locs = [#[[L1]]]}
// CHECK-NEXT: }
comm.user_schedule for @sc {
  comm.phase [4 -> 0 : 8, 4 -> 2 : 8] {locs = [loc("x.sched":3:5), loc("x.sched":4:5)], loc_index = array<i32: 0, 1>}
  comm.phase [4 -> 6 : 8] {locs = [loc("x.sched":4:5)]}
}
// Held by rule: every pair of the members; phases as translates of
// representatives under the schedule's translation groups.
// CHECK: comm.transfer_set for @a2a [] {all_pairs = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>, pair_bytes = 4096 : i64}
comm.transfer_set for @a2a [] {all_pairs = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>, pair_bytes = 4096 : i64}
// CHECK:      comm.schedule for @a2a algorithm "torus-quotient" attributes {translations = [array<i64: 0, 3, 5, 6>]} {
// CHECK-NEXT:   comm.phase [0 -> 1 : 4096] {rules = array<i64: 0, 1, 1, 2, 4096, 0>}
// CHECK-NEXT: }
comm.schedule for @a2a algorithm "torus-quotient" attributes {translations = [array<i64: 0, 3, 5, 6>]} {
  comm.phase [0 -> 1 : 4096] {rules = array<i64: 0, 1, 1, 2, 4096, 0>}
}
