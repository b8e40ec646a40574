// RUN: phasec-opt %s | phasec-opt | FileCheck %s
// phasec-opt reads the upstream dialects phasec's IR meets beside comm:
// func, mesh (what sharding compilers emit), mpi and emitc (the upstream
// targets), and round-trips them.

// CHECK: comm.machine @m #comm.torus<[4]>
comm.machine @m #comm.torus<[4]> {bandwidth = 1.0e9 : f64}
// CHECK: mesh.mesh @grid(shape = 2x2)
mesh.mesh @grid(shape = 2x2)
// CHECK-LABEL: func.func @exchange
// CHECK: mesh.all_to_all %{{.*}} on @grid mesh_axes = [0] split_axis = 0 concat_axis = 0
func.func @exchange(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = mesh.all_to_all %arg0 on @grid mesh_axes = [0] split_axis = 0 concat_axis = 0 : tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
// CHECK-LABEL: func.func @rank
// CHECK: mpi.comm_rank : !mpi.retval, i32
func.func @rank() -> i32 {
  %e, %r = mpi.comm_rank : !mpi.retval, i32
  return %r : i32
}
// CHECK-LABEL: func.func @one
// CHECK: emitc.constant
func.func @one() -> i32 {
  %0 = "emitc.constant"() <{value = 1 : i32}> : () -> i32
  return %0 : i32
}
