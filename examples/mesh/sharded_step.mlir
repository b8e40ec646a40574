// sharded_step.mlir - what a sharding compiler hands phasec: one step of a
// 2 x 2 device mesh after MLIR's mesh spmdization, its collectives on
// tensors (docs/embedding.md, "Sharding compilers").
//
//   phasec examples/mesh/sharded_step.mlir '--topology=torus:2x2;bw=1e9' \
//       --emit=mpi --main -o step.c
//
// comm-import-mesh turns each collective into a comm operation (device d of
// the mesh is rank d of the machine) and marks it with `comm.lowered_to`,
// the C function the back end emits for it.

mesh.mesh @mesh(shape = 2x2)

func.func @step(%x: tensor<4x64xf32>, %rows: tensor<2x128xf32>,
                %part: tensor<1x64xf32>, %grad: tensor<256xf32>,
                %w: tensor<512xi32>, %halo: tensor<32xf64>)
    -> (tensor<4x64xf32>, tensor<2x128xf32>, tensor<4x64xf32>,
        tensor<256xf32>, tensor<512xi32>, tensor<32xf64>) {
  // Redistribution over the whole mesh, then within each row of the mesh
  // (two exchanges at once: one congestion-free schedule for both).
  %0 = mesh.all_to_all %x on @mesh mesh_axes = [0, 1] split_axis = 0
         concat_axis = 0 : tensor<4x64xf32> -> tensor<4x64xf32>
  %1 = mesh.all_to_all %rows on @mesh mesh_axes = [1] split_axis = 0
         concat_axis = 0 : tensor<2x128xf32> -> tensor<2x128xf32>
  // Replicate a sharded activation, sum the gradients.
  %2 = mesh.all_gather %part on @mesh mesh_axes = [0, 1] gather_axis = 0
         : tensor<1x64xf32> -> tensor<4x64xf32>
  %3 = mesh.all_reduce %grad on @mesh mesh_axes = [0, 1] reduction = <sum>
         : tensor<256xf32> -> tensor<256xf32>
  // Weights from device (0, 0) to all.
  %4 = mesh.broadcast %w on @mesh mesh_axes = [0, 1] root = [0, 0]
         : (tensor<512xi32>) -> tensor<512xi32>
  // A halo exchange: every device's block one step along axis 1, around.
  %5 = mesh.shift %halo on @mesh mesh_axes = [1] shift_axis = 1 offset = 1
         rotate : tensor<32xf64> -> tensor<32xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<4x64xf32>, tensor<2x128xf32>,
         tensor<4x64xf32>, tensor<256xf32>, tensor<512xi32>, tensor<32xf64>
}
