// Every verifier error of the comm dialect, one per split.
// RUN: phasec-opt %s -split-input-file -verify-diagnostics
// The same with upstream mlir-opt and the dialect plugin.
// RUN: %mlir_opt --load-dialect-plugin=%comm_dialect_plugin %s -split-input-file -verify-diagnostics

// expected-error @below {{torus extent 0 of dimension 1 must be at least 1}}
comm.machine @x #comm.torus<[4, 0]>

// -----

// expected-error @below {{mesh extent -2 of dimension 0 must be at least 1}}
comm.machine @x #comm.mesh<[-2]>

// -----

// expected-error @below {{hypercube dimension 31 must be in [0, 30]}}
comm.machine @x #comm.hypercube<31>

// -----

// expected-error @below {{percs supernodes, drawers and nodes_per_drawer must be at least 1}}
comm.machine @x #comm.percs<supernodes = 1, drawers = 0, nodes_per_drawer = 8>

// -----

// expected-error @below {{percs d_links must be at least 1 (0: the default)}}
comm.machine @x #comm.percs<supernodes = 2, drawers = 2, nodes_per_drawer = 2, d_links = -1>

// -----

// expected-error @below {{invalid machine: percs dlinks=17: D links between two supernodes must be between 1 and 16 (one per pair of their nodes)}}
comm.machine @x #comm.percs<supernodes = 2, drawers = 2, nodes_per_drawer = 2, d_links = 17> {routing = #comm.routing<direct>}

// -----

// expected-error @below {{ranks_per_node must be at least 1, not 0}}
comm.machine @x #comm.torus<[4]> {ranks_per_node = 0 : i64}

// -----

// expected-error @below {{ranks_per_node must be at least 1, not -2}}
comm.machine @x #comm.torus<[4]> {ranks_per_node = -2 : i64}

// -----

// expected-error @below {{packet_length must be positive}}
comm.machine @x #comm.torus<[4]> {packet_length = -5 : i64}

// -----

// expected-error @below {{bandwidth must be positive}}
comm.machine @x #comm.torus<[4]> {bandwidth = 0.0 : f64}

// -----

// expected-error @below {{ll_bandwidth must be positive}}
comm.machine @x #comm.percs<supernodes = 1, drawers = 1, nodes_per_drawer = 2> {routing = #comm.routing<direct>, ll_bandwidth = -1.0 : f64}

// -----

// expected-error @below {{injection_bandwidth must be positive}}
comm.machine @x #comm.torus<[4]> {injection_bandwidth = 0.0 : f64}

// -----

// expected-error @below {{copy_rate_strided must be positive}}
comm.machine @x #comm.torus<[4]> {copy_rate_strided = 0.0 : f64}

// -----

// expected-error @below {{latency must not be negative}}
comm.machine @x #comm.torus<[4]> {latency = -1.0 : f64}

// -----

// expected-error @below {{setup_cost must not be negative}}
comm.machine @x #comm.torus<[4]> {setup_cost = -1.0 : f64}

// -----

// expected-error @below {{packet_length must be positive}}
comm.machine @x #comm.torus<[4]> {packet_length = 0 : i64}

// -----

// expected-error @below {{envelope must be non-negative}}
comm.machine @x #comm.torus<[4]> {envelope = -16 : i64}

// -----

// expected-error @below {{a PERCS machine needs routing = direct}}
comm.machine @x #comm.percs<supernodes = 1, drawers = 1, nodes_per_drawer = 2>

// -----

// expected-error @below {{direct routing needs a PERCS machine}}
comm.machine @x #comm.torus<[4]> {routing = #comm.routing<direct>}

// -----

// expected-error @below {{dim_order needs a torus, mesh or hypercube}}
comm.machine @x #comm.percs<supernodes = 1, drawers = 1, nodes_per_drawer = 2> {routing = #comm.routing<direct>, dim_order = array<i64: 0>}

// -----

// expected-error @below {{has more than 4194304 ranks}}
comm.machine @x #comm.torus<[4096, 4096]>

// -----

// expected-error @below {{invalid machine: the dimension order must name every dimension once}}
comm.machine @x #comm.torus<[4, 4]> {dim_order = array<i64: 0, 0>}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{must hold at least one rank}}
comm.group @g on @m ranks []

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{ranks must be non-negative, sorted and free of duplicates}}
comm.group @g on @m ranks [1, 1]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{ranks must be non-negative, sorted and free of duplicates}}
comm.group @g on @m ranks [-1, 1]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{nodes must be non-negative, sorted and free of duplicates}}
comm.group @g on @m ranks [0, 1] {nodes = array<i64: 1, 0>, over_nodes}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{nodes are only recorded for a group over nodes}}
comm.group @g on @m ranks [0, 1] {nodes = array<i64: 0, 1>}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{machine @nope does not exist}}
comm.group @g on @nope ranks [0]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{machine @all is not a 'comm.machine'}}
comm.group @g on @all ranks [0]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{rank 4 is outside machine @m (4 ranks)}}
comm.group @g on @m ranks [0, 4]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{node 9 is outside machine @m (4 nodes)}}
comm.group @g on @m ranks [0] {nodes = array<i64: 0, 9>, over_nodes}

// -----

// The ranks of a group over nodes are its nodes' ranks (issue 15: groups
// whose nodes disagree with their ranks passed).
comm.machine @m #comm.torus<[4]> {ranks_per_node = 2 : i64}
comm.group @all on @m ranks [0, 1, 2, 3, 4, 5, 6, 7]
// expected-error @below {{ranks are not the ranks of its nodes (2 per node on machine @m)}}
comm.group @g on @m ranks [0, 1, 4, 5] {nodes = array<i64: 0, 1>, over_nodes}

// -----

comm.machine @m #comm.torus<[4]> {ranks_per_node = 2 : i64}
comm.group @all on @m ranks [0, 1, 2, 3, 4, 5, 6, 7]
// expected-error @below {{ranks are not the ranks of its nodes (2 per node on machine @m)}}
comm.group @g on @m ranks [2] {nodes = array<i64: 1>, over_nodes}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{element type 'i1' is not one of i8..i64, ui8..ui64, f32, f64, complex<f32>, complex<f64>}}
comm.array @x : i1 [4] rows over @all

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{element type 'si32' is not one of i8..i64, ui8..ui64, f32, f64, complex<f32>, complex<f64>}}
comm.array @x : si32 [4] rows over @all

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{needs at least one dimension}}
comm.array @x : f64 [] rows over @all

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{extent 0 must be positive}}
comm.array @x : f64 [4, 0] rows over @all

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{is too large}}
comm.array @x : f64 [4294967296, 4294967296] rows over @all

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{distributed by cols needs at least two dimensions}}
comm.array @x : f64 [4] cols over @all

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{extent 6 of dimension 0 is not divisible by the 4 ranks of group @all}}
comm.array @x : f64 [6, 4] rows over @all

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{group @m is not a 'comm.group'}}
comm.array @x : f64 [4] rows over @m

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{rlimit must not be negative}}
comm.alltoall @x on @m group @all {block = 4 : i64, rlimit = -1 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{k_levels must not be negative}}
comm.one_to_all @x on @m group @all {root = 0 : i64, block = 4 : i64, algorithm = #comm.algorithm<k_level>, k_levels = -1 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{k_levels and k_shape need algorithm k_level}}
comm.one_to_all @x on @m group @all {root = 0 : i64, block = 4 : i64, k_shape = #comm.k_shape<sq>}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{block must be positive, not 0}}
comm.alltoall @x on @m group @all {block = 0 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{block must be positive, not -8}}
comm.allgather @x on @m group @all {block = -8 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{root must be a rank, not -1}}
comm.gather @x on @m group @all {root = -1 : i64, block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{count must be positive, not 0}}
comm.allreduce @x on @m group @all {op = #comm.reduce<add>, element_type = f32, count = 0 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{element type 'index' is not supported}}
comm.scan @x on @m group @all {op = #comm.reduce<add>, element_type = index, count = 1 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{sizes must not be negative, found -1}}
comm.alltoallv @x on @m group @all {sizes = array<i64: 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{sizes has 3 entries, group @all of 4 ranks needs 16}}
comm.alltoallv @x on @m group @all {sizes = array<i64: 1, 2, 3>}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{machine @nope does not exist}}
comm.alltoall @x on @nope group @all {block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{group @nope does not exist}}
comm.alltoall @x on @m group @nope {block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.machine @n #comm.mesh<[2]>
comm.group @nall on @n ranks [0, 1]
// expected-error @below {{group @nall belongs to machine @n, not @m}}
comm.alltoall @x on @m group @nall {block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{root 7 is not in group @all}}
comm.scatter @x on @m group @all {root = 7 : i64, block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{root 5 is not in group @all}}
comm.reduce @x on @m group @all {root = 5 : i64, op = #comm.reduce<min>, element_type = i8, count = 2 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{root 4 is not in group @all}}
comm.one_to_all @x on @m group @all {root = 4 : i64, block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{root 4 is not in group @all}}
comm.all_to_one @x on @m group @all {root = 4 : i64, block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{root 4 is not in group @all}}
comm.broadcast @x on @m group @all {root = 4 : i64, block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{root 4 is not in group @all}}
comm.gather @x on @m group @all {root = 4 : i64, block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.array @a : f64 [4, 4] rows over @all
comm.array @b : f64 [4, 4] rows over @all
comm.array @r : f64 [4, 8] rows over @all
comm.array @v : f64 [8] rows over @all
comm.array @w : f32 [8] rows over @all
// expected-error @below {{from @nope does not exist}}
comm.transpose @x on @m group @all {from = @nope, to = @b}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.array @a : f64 [4, 4] rows over @all
comm.array @b : f64 [4, 4] rows over @all
comm.array @r : f64 [4, 8] rows over @all
comm.array @v : f64 [8] rows over @all
comm.array @w : f32 [8] rows over @all
// expected-error @below {{transposes two-dimensional arrays; @v has 1 dimensions}}
comm.transpose @x on @m group @all {from = @v, to = @v}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.array @a : f64 [4, 4] rows over @all
comm.array @b : f64 [4, 4] rows over @all
comm.array @r : f64 [4, 8] rows over @all
comm.array @v : f64 [8] rows over @all
comm.array @w : f32 [8] rows over @all
// expected-error @below {{destination @a must have the transposed shape of @r}}
comm.transpose @x on @m group @all {from = @r, to = @a}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.array @a : f64 [4, 4] rows over @all
comm.array @b : f64 [4, 4] rows over @all
comm.array @r : f64 [4, 8] rows over @all
comm.array @v : f64 [8] rows over @all
comm.array @w : f32 [8] rows over @all
comm.array @c : f32 [4, 4] rows over @all
// expected-error @below {{arrays @a and @c have different element types}}
comm.transpose @x on @m group @all {from = @a, to = @c}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{needs either block (a rank permutation) or from and to (an element permutation)}}
comm.permute @x on @m group @all {pattern = #comm.pattern<random>}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.array @a : f64 [4, 4] rows over @all
comm.array @b : f64 [4, 4] rows over @all
comm.array @r : f64 [4, 8] rows over @all
comm.array @v : f64 [8] rows over @all
comm.array @w : f32 [8] rows over @all
// expected-error @below {{an element permutation needs both from and to}}
comm.permute @x on @m group @all {pattern = #comm.pattern<random>, from = @v}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{block must be positive, not 0}}
comm.permute @x on @m group @all {pattern = #comm.pattern<random>, block = 0 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{pattern table needs a table}}
comm.permute @x on @m group @all {pattern = #comm.pattern<table>, block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{run-time destinations need an element permutation (from and to)}}
comm.permute @x on @m group @all {pattern = #comm.pattern<runtime>, block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{call '3f' is not a C identifier}}
comm.local @l on @m group @all {call = "3f"}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{a table needs pattern table}}
comm.permute @x on @m group @all {pattern = #comm.pattern<random>, table = array<i64: 0, 1, 2, 3>, block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{mask must not be negative}}
comm.permute @x on @m group @all {pattern = #comm.pattern<xor>, mask = -1 : i64, block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.array @a : f64 [4, 4] rows over @all
comm.array @b : f64 [4, 4] rows over @all
comm.array @r : f64 [4, 8] rows over @all
comm.array @v : f64 [8] rows over @all
comm.array @w : f32 [8] rows over @all
// expected-error @below {{arrays @v and @w differ in size or element type}}
comm.permute @x on @m group @all {pattern = #comm.pattern<random>, from = @v, to = @w}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{table has 3 entries, the permutation needs 4}}
comm.permute @x on @m group @all {pattern = #comm.pattern<table>, table = array<i64: 0, 1, 2>, block = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.array @a : f64 [4, 4] rows over @all
comm.array @b : f64 [4, 4] rows over @all
comm.array @r : f64 [4, 8] rows over @all
comm.array @v : f64 [8] rows over @all
comm.array @w : f32 [8] rows over @all
// expected-error @below {{table has 4 entries, the permutation needs 8}}
comm.permute @x on @m group @all {pattern = #comm.pattern<table>, table = array<i64: 0, 1, 2, 3>, from = @v, to = @v}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{demands must be (src, dst, bytes) triples}}
"comm.transfer_set"() <{collective = @g, demands = array<i64: 1, 0>}> : () -> ()

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{demand 0 has an invalid rank}}
comm.transfer_set for @g [-1 -> 0 : 4]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{demand 1 sends from rank 2 to itself}}
comm.transfer_set for @g [1 -> 0 : 4, 2 -> 2 : 4]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{demand 0 must move a positive number of bytes}}
comm.transfer_set for @g [1 -> 0 : 0]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{demands must be sorted by (src, dst) without duplicates; demand 1 is out of order}}
comm.transfer_set for @g [2 -> 0 : 4, 1 -> 0 : 4]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{operation @nope does not exist}}
comm.transfer_set for @nope [1 -> 0 : 4]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{@all is not a communication operation}}
comm.transfer_set for @all [1 -> 0 : 4]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{demand 0 names a rank outside machine @m (4 ranks)}}
comm.transfer_set for @g [9 -> 0 : 4]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{bound, time and gap must not be negative}}
comm.schedule for @g algorithm "x" attributes {gap = -1.0 : f64} {
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{may only contain 'comm.phase' ops}}
comm.schedule for @g algorithm "x" {
  comm.local @l on @m group @all
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{may only contain 'comm.phase' ops}}
comm.user_schedule for @g {
  comm.local @l on @m group @all
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
comm.user_schedule for @g {
  // expected-error @below {{transfer 1 (1 -> 4) names a rank outside machine @m (4 ranks)}}
  comm.phase [1 -> 0 : 4, 1 -> 4 : 4]
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
comm.schedule for @g algorithm "x" {
  // expected-error @below {{transfer 0 (7 -> 0) names a rank outside machine @m (4 ranks)}}
  comm.phase [7 -> 0 : 4]
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{operation @nope does not exist}}
comm.schedule for @nope algorithm "x" {
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{operation @nope does not exist}}
comm.user_schedule for @nope {
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
comm.user_schedule for @g {
  // expected-error @below {{transfers must be (src, dst, bytes, ties) quadruples}}
  "comm.phase"() <{transfers = array<i64: 1, 0, 4>}> : () -> ()
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
comm.user_schedule for @g {
  // expected-error @below {{transfer 0 has an invalid rank}}
  comm.phase [1 -> -3 : 4]
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
comm.user_schedule for @g {
  // expected-error @below {{transfer 0 (1 -> 0) must move a positive number of bytes}}
  comm.phase [1 -> 0 : -4]
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
comm.user_schedule for @g {
  // expected-error @below {{transfer 0 has an invalid tie mask}}
  comm.phase [1 -> 0 : 4 ties -1]
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
comm.user_schedule for @g {
  // expected-error @below {{locs must not be empty}}
  comm.phase [1 -> 0 : 4] {locs = []}
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
comm.user_schedule for @g {
  // expected-error @below {{locs must hold locations}}
  comm.phase [1 -> 0 : 4] {locs = [1 : i64]}
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
comm.user_schedule for @g {
  // expected-error @below {{loc_index needs locs}}
  comm.phase [1 -> 0 : 4] {loc_index = array<i32: 0>}
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
comm.user_schedule for @g {
  // expected-error @below {{loc_index has 2 entries for 1 transfers}}
  comm.phase [1 -> 0 : 4] {locs = [loc("a":1:1)], loc_index = array<i32: 0, 0>}
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
comm.user_schedule for @g {
  // expected-error @below {{loc_index entry 1 is out of range}}
  comm.phase [1 -> 0 : 4] {locs = [loc("a":1:1)], loc_index = array<i32: 1>}
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
// expected-error @below {{expects parent op to be one of 'comm.schedule, comm.user_schedule'}}
comm.phase [1 -> 0 : 4]

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.broadcast @b on @m group @all {root = 0 : i64, block = 8 : i64}
comm.schedule for @b algorithm "binomial" attributes {num_chunks = 1 : i64, chunk_bytes = 8 : i64} {
  // expected-error @below {{chunks of transfer 0 must be count > 0, reduce (0 or 1), then count ids}}
  "comm.phase"() <{transfers = array<i64: 0, 1, 8, 0>, chunks = array<i64: 1, 2, 0>}> : () -> ()
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.broadcast @b on @m group @all {root = 0 : i64, block = 8 : i64}
comm.schedule for @b algorithm "binomial" attributes {num_chunks = 1 : i64, chunk_bytes = 8 : i64} {
  // expected-error @below {{chunks has 1 entries after the last transfer's}}
  "comm.phase"() <{transfers = array<i64: 0, 1, 8, 0>, chunks = array<i64: 1, 0, 0, 7>}> : () -> ()
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.broadcast @b on @m group @all {root = 0 : i64, block = 8 : i64}
// expected-error @below {{'comm.schedule' op needs both num_chunks and chunk_bytes, or neither}}
comm.schedule for @b algorithm "binomial" attributes {num_chunks = 1 : i64} {
  "comm.phase"() <{transfers = array<i64: 0, 1, 8, 0>, chunks = array<i64: 1, 0, 0>}> : () -> ()
}

// -----

// Chunks of different sizes (a count the chunks do not divide) list every
// chunk's bytes, with chunk_bytes 0.
comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.broadcast @b on @m group @all {root = 0 : i64, block = 9 : i64}
// expected-error @below {{'comm.schedule' op chunk_sizes must list num_chunks sizes >= 0, with chunk_bytes 0}}
comm.schedule for @b algorithm "chain(2)" attributes {num_chunks = 2 : i64, chunk_bytes = 0 : i64, chunk_sizes = array<i64: 5>} {
  "comm.phase"() <{transfers = array<i64: 0, 1, 5, 0>, chunks = array<i64: 1, 0, 0>}> : () -> ()
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.broadcast @b on @m group @all {root = 0 : i64, block = 9 : i64}
// expected-error @below {{'comm.schedule' op chunk_sizes must list num_chunks sizes >= 0, with chunk_bytes 0}}
comm.schedule for @b algorithm "chain(2)" attributes {num_chunks = 2 : i64, chunk_bytes = 4 : i64, chunk_sizes = array<i64: 5, 4>} {
  "comm.phase"() <{transfers = array<i64: 0, 1, 5, 0>, chunks = array<i64: 1, 0, 0>}> : () -> ()
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.broadcast @b on @m group @all {root = 0 : i64, block = 8 : i64}
comm.user_schedule for @b attributes {num_chunks = 1 : i64, chunk_bytes = 8 : i64} {
  // expected-error @below {{'comm.phase' op of a relaying schedule (num_chunks) must say which chunks each transfer carries}}
  comm.phase [0 -> 1 : 8]
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.gather @g on @m group @all {root = 0 : i64, block = 4 : i64}
comm.user_schedule for @g {
  // expected-error @below {{'comm.phase' op carries chunks, but its schedule has no num_chunks}}
  "comm.phase"() <{transfers = array<i64: 1, 0, 4, 0>, chunks = array<i64: 1, 0, 1>}> : () -> ()
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{algorithm gather_evaluate needs a PAPERS reduce, scan, any, all or bcast aggregate (an allreduce or scan)}}
comm.allreduce @x on @m group @all {op = #comm.reduce<add>, element_type = i32, count = 1 : i64, algorithm = #comm.algorithm<gather_evaluate>}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{value_bits and value_logical need an unsigned integer value_type}}
comm.allgather @x on @m group @all {block = 4 : i64, aggregate = #comm.aggregate<rank>, value_type = f32, value_bits = 3 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{value_bits must be in 1 .. 15, not 16}}
comm.allgather @x on @m group @all {block = 2 : i64, aggregate = #comm.aggregate<rank>, value_type = ui16, value_bits = 16 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{value_logical values are ui8}}
comm.allgather @x on @m group @all {block = 2 : i64, aggregate = #comm.aggregate<rank>, value_type = ui16, value_logical}

// -----

// Sets held by rule (all_pairs): both attributes, no listed demands,
// sorted members of the machine.
comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.alltoall @a on @m group @all {block = 4 : i64}
// expected-error @below {{needs both all_pairs and pair_bytes, or neither}}
comm.transfer_set for @a [] {all_pairs = array<i64: 0, 1>}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.alltoall @a on @m group @all {block = 4 : i64}
// expected-error @below {{holds its demands by rule (all_pairs) and lists 1 more}}
comm.transfer_set for @a [1 -> 0 : 4] {all_pairs = array<i64: 0, 1>, pair_bytes = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.alltoall @a on @m group @all {block = 4 : i64}
// expected-error @below {{pair_bytes must be positive}}
comm.transfer_set for @a [] {all_pairs = array<i64: 0, 1>, pair_bytes = 0 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.alltoall @a on @m group @all {block = 4 : i64}
// expected-error @below {{all_pairs needs at least two members}}
comm.transfer_set for @a [] {all_pairs = array<i64: 2>, pair_bytes = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.alltoall @a on @m group @all {block = 4 : i64}
// expected-error @below {{all_pairs member 0 is an invalid rank}}
comm.transfer_set for @a [] {all_pairs = array<i64: -1, 1>, pair_bytes = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.alltoall @a on @m group @all {block = 4 : i64}
// expected-error @below {{all_pairs must be sorted without duplicates; member 2 is out of order}}
comm.transfer_set for @a [] {all_pairs = array<i64: 0, 2, 2>, pair_bytes = 4 : i64}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.alltoall @a on @m group @all {block = 4 : i64}
// expected-error @below {{all_pairs names rank 4, outside machine @m (4 ranks)}}
comm.transfer_set for @a [] {all_pairs = array<i64: 0, 4>, pair_bytes = 4 : i64}

// -----

// Phases held by rule: group, n, n quadruples; a group of the schedule;
// ranks of the machine; only in computed direct schedules.
comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.alltoall @a on @m group @all {block = 4 : i64}
comm.schedule for @a algorithm "x" attributes {translations = [array<i64: 0, 2>]} {
  // expected-error @below {{rule 0 must be group, n, then n (src, dst, bytes, ties) quadruples}}
  comm.phase [] {rules = array<i64: 0, 2, 0, 1, 4, 0>}
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.alltoall @a on @m group @all {block = 4 : i64}
comm.schedule for @a algorithm "x" attributes {translations = [array<i64: 0, 2>]} {
  // expected-error @below {{rule 0 transfer 0 needs valid ranks, a positive size and a tie mask}}
  comm.phase [] {rules = array<i64: 0, 1, 0, 1, 0, 0>}
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.alltoall @a on @m group @all {block = 4 : i64}
comm.schedule for @a algorithm "x" attributes {translations = [array<i64: 0, 2>]} {
  // expected-error @below {{rule 0 names translation group 1, but the schedule has 1}}
  comm.phase [] {rules = array<i64: 1, 1, 0, 1, 4, 0>}
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.alltoall @a on @m group @all {block = 4 : i64}
comm.schedule for @a algorithm "x" attributes {translations = [array<i64: 0, 2>]} {
  // expected-error @below {{rule 0 transfer 0 (0 -> 9) names a rank outside machine @m (4 ranks)}}
  comm.phase [] {rules = array<i64: 0, 1, 0, 9, 4, 0>}
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.alltoall @a on @m group @all {block = 4 : i64}
comm.user_schedule for @a {
  // expected-error @below {{of a hand-written schedule must list its transfers (it has rules)}}
  comm.phase [] {rules = array<i64: 0, 1, 0, 1, 4, 0>}
}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
comm.broadcast @b on @m group @all {root = 0 : i64, block = 8 : i64}
comm.schedule for @b algorithm "binomial" attributes {num_chunks = 1 : i64, chunk_bytes = 8 : i64, translations = [array<i64: 0>]} {
  // expected-error @below {{of a relaying schedule must list its transfers (it has rules)}}
  "comm.phase"() <{transfers = array<i64: 0, 1, 8, 0>, chunks = array<i64: 1, 0, 0>, rules = array<i64: 0, 1, 0, 1, 8, 0>}> : () -> ()
}

// -----

// expected-error @below {{packet_header must be 4..4096 bytes}}
comm.machine @x #comm.torus<[4]> {packet_header = 2 : i64}

// -----

// expected-error @below {{router_buffer must be 1..1048576 packets}}
comm.machine @x #comm.torus<[4]> {router_buffer = 0 : i64}

// -----

// The v-collectives' member_bytes (issue 38).
comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{'comm.alltoall' op member_bytes applies to allgather, gather, scatter and reduce_scatter (the v-collectives)}}
comm.alltoall @x on @m group @all {block = 8 : i64, member_bytes = array<i64: 8, 8, 8, 8>}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{'comm.allgather' op member_bytes must not be negative, found -1}}
comm.allgather @x on @m group @all {block = 8 : i64, member_bytes = array<i64: 8, -1, 0, 0>}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{'comm.gather' op block must be the largest of member_bytes (16)}}
comm.gather @x on @m group @all {root = 0 : i64, block = 8 : i64, member_bytes = array<i64: 8, 16, 0, 0>}

// -----

comm.machine @m #comm.torus<[4]>
comm.group @all on @m ranks [0, 1, 2, 3]
// expected-error @below {{'comm.scatter' op member_bytes has 3 entries, group @all has 4 members}}
comm.scatter @x on @m group @all {root = 0 : i64, block = 8 : i64, member_bytes = array<i64: 8, 8, 8>}
