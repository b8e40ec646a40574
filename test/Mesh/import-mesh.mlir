// comm-import-mesh on MLIR as a sharding compiler emits it
// (examples/mesh/sharded_step.mlir, and the other collectives below): each
// mesh collective becomes the comm operation that moves the same bytes, and
// names it with comm.lowered_to.
// RUN: phasec-opt %s --split-input-file --comm-import-mesh='machine=torus:2x2;bw=1e9' | FileCheck %s
// RUN: phasec-opt %examples/mesh/sharded_step.mlir --comm-import-mesh='machine=torus:2x2;bw=1e9' | FileCheck %s --check-prefix=STEP
//
// The same through upstream mlir-opt-19 and the plugins, scheduled: what
// phasec-opt makes.
// RUN: %mlir_opt --load-dialect-plugin=%comm_dialect_plugin --load-pass-plugin=%comm_pass_plugin \
// RUN:   --pass-pipeline='builtin.module(comm-import-mesh{machine=torus:2x2;bw=1e9},comm-schedule-pipeline)' \
// RUN:   %examples/mesh/sharded_step.mlir -o %t.upstream.mlir
// RUN: phasec-opt --comm-import-mesh='machine=torus:2x2;bw=1e9' --comm-schedule-pipeline %examples/mesh/sharded_step.mlir -o %t.phasec.mlir
// RUN: diff %t.upstream.mlir %t.phasec.mlir

// STEP: comm.machine @mesh_machine #comm.torus<[2, 2]> {bandwidth = 1.000000e+09 : f64}
// STEP: mesh.all_to_all {{.*}} {comm.lowered_to = @step_all_to_all_0}
// STEP: mesh.all_to_all {{.*}} {comm.lowered_to = @step_all_to_all_1}
// STEP: mesh.all_gather {{.*}} {comm.lowered_to = @step_all_gather_2}
// STEP: mesh.all_reduce {{.*}} {comm.lowered_to = @step_all_reduce_3}
// STEP: mesh.broadcast {{.*}} {comm.lowered_to = @step_broadcast_4}
// STEP: mesh.shift {{.*}} {comm.lowered_to = @step_shift_5}
// STEP: comm.group @mesh_all on @mesh_machine ranks [0, 1, 2, 3]
// 4 x 64 f32 split in 4: 256 bytes a pair.
// STEP-NEXT: comm.alltoall @step_all_to_all_0 on @mesh_machine group @mesh_all {block = 256 : i64}
// Within each row of the mesh at once: one exchange, zero between rows.
// STEP-NEXT: comm.alltoallv @step_all_to_all_1 on @mesh_machine group @mesh_all {sizes = array<i64: 512, 512, 0, 0, 512, 512, 0, 0, 0, 0, 512, 512, 0, 0, 512, 512>}
// STEP-NEXT: comm.allgather @step_all_gather_2 on @mesh_machine group @mesh_all {block = 256 : i64}
// STEP-NEXT: comm.allreduce @step_all_reduce_3 on @mesh_machine group @mesh_all {count = 256 : i64, element_type = f32, op = #comm.reduce<add>}
// STEP-NEXT: comm.broadcast @step_broadcast_4 on @mesh_machine group @mesh_all {block = 2048 : i64, root = 0 : i64}
// Devices (r, c) -> (r, c + 1 mod 2).
// STEP-NEXT: comm.permute @step_shift_5 on @mesh_machine group @mesh_all {block = 256 : i64, pattern = #comm.pattern<table>, table = array<i64: 1, 0, 3, 2>}

// Gather, scatter, reduce and reduce_scatter; roots are in-group
// multi-indices (here device (1, 0), rank 2).
mesh.mesh @m(shape = 2x2)
func.func @f(%a: tensor<1x8xi32>, %b: tensor<4x8xi32>, %c: tensor<16xf64>) -> (tensor<4x8xi32>, tensor<1x8xi32>, tensor<16xf64>, tensor<4xf64>) {
  %0 = mesh.gather %a on @m mesh_axes = [0, 1] gather_axis = 0 root = [1, 0] : (tensor<1x8xi32>) -> tensor<4x8xi32>
  %1 = mesh.scatter %b on @m mesh_axes = [0, 1] scatter_axis = 0 root = [1, 0] : (tensor<4x8xi32>) -> tensor<1x8xi32>
  %2 = mesh.reduce %c on @m mesh_axes = [0, 1] reduction = <max> root = [1, 0] : (tensor<16xf64>) -> tensor<16xf64>
  %3 = mesh.reduce_scatter %c on @m mesh_axes = [0, 1] reduction = <min> scatter_axis = 0 : tensor<16xf64> -> tensor<4xf64>
  return %0, %1, %2, %3 : tensor<4x8xi32>, tensor<1x8xi32>, tensor<16xf64>, tensor<4xf64>
}
// CHECK: comm.machine @m_machine #comm.torus<[2, 2]>
// CHECK: comm.group @m_all on @m_machine ranks [0, 1, 2, 3]
// CHECK-NEXT: comm.gather @f_gather_0 on @m_machine group @m_all {block = 32 : i64, root = 2 : i64}
// CHECK-NEXT: comm.scatter @f_scatter_1 on @m_machine group @m_all {block = 32 : i64, root = 2 : i64}
// CHECK-NEXT: comm.reduce @f_reduce_2 on @m_machine group @m_all {count = 16 : i64, element_type = f64, op = #comm.reduce<max>, root = 2 : i64}
// CHECK-NEXT: comm.reduce_scatter @f_reduce_scatter_3 on @m_machine group @m_all {count = 4 : i64, element_type = f64, op = #comm.reduce<min>}

// -----

// A mesh that names its machine (a comm.machine of the module); axes of
// extent 1 and empty mesh_axes move nothing and are left alone; a group
// that is not the whole mesh gets a name of its own.
comm.machine @ring #comm.torus<[4]> {bandwidth = 1.0e9 : f64}
mesh.mesh @line(shape = 1x4) {comm.machine = @ring}
func.func @g(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %0 = mesh.all_to_all %x on @line mesh_axes = [1] split_axis = 0 concat_axis = 0 : tensor<4x2xf32> -> tensor<4x2xf32>
  %1 = mesh.all_to_all %x on @line mesh_axes = [0] split_axis = 0 concat_axis = 0 : tensor<4x2xf32> -> tensor<4x2xf32>
  %2 = mesh.all_reduce %x on @line : tensor<4x2xf32> -> tensor<4x2xf32>
  return %0, %1, %2 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}
// CHECK-LABEL: comm.machine @ring
// CHECK-NOT: comm.machine @
// CHECK: mesh.all_to_all {{.*}}mesh_axes = [1] {{.*}}{comm.lowered_to = @g_all_to_all_0}
// CHECK: mesh.all_to_all
// CHECK-NOT: comm.lowered_to
// CHECK-SAME: tensor<4x2xf32>
// CHECK: mesh.all_reduce
// CHECK-NOT: comm.lowered_to
// CHECK-SAME: tensor<4x2xf32>
// CHECK: comm.group @line_all on @ring ranks [0, 1, 2, 3]
// CHECK-NEXT: comm.alltoall @g_all_to_all_0 on @ring group @line_all {block = 8 : i64}
// CHECK-NOT: comm.

// -----

// Groups over one axis of a 2 x 2 mesh with the other of extent 2: a
// reduction needs every group at once, which phasec does not take; an
// all_to_all does (next test). Here the columns of a 2 x 1 x 2 mesh form one
// group over axes [0, 2].
mesh.mesh @m3(shape = 2x1x2)
func.func @h(%x: tensor<8xi64>) -> tensor<8xi64> {
  %0 = mesh.all_reduce %x on @m3 mesh_axes = [2, 0] reduction = <bitwise_xor> : tensor<8xi64> -> tensor<8xi64>
  return %0 : tensor<8xi64>
}
// CHECK-LABEL: comm.machine @m3_machine
// CHECK: comm.group @m3_all on @m3_machine ranks [0, 1, 2, 3]
// CHECK-NEXT: comm.allreduce @h_all_reduce_0 on @m3_machine group @m3_all {count = 8 : i64, element_type = i64, op = #comm.reduce<xor>}
