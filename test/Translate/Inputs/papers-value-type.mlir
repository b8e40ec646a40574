// A PAPERS gather whose value type no back end has (test/Translate/export-errors.test).
module {
  comm.machine @m #comm.torus<[4]> {bandwidth = 1.000000e+09 : f64, dim_order = array<i64: 0>}
  comm.group @m.all on @m ranks [0, 1, 2, 3] {nodes = array<i64: 0, 1, 2, 3>, over_nodes}
  comm.allgather @g on @m group @m.all {aggregate = #comm.aggregate<gather>, block = 16 : i64, sync = #comm.sync<none>, value_type = i128}
}
