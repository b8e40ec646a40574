// Every error of comm-import-mesh: what phasec cannot honour is an error at
// the mesh op, never an approximation.
// RUN: phasec-opt %s --split-input-file --verify-diagnostics --comm-import-mesh='machine=torus:2x2;bw=1e9'
// RUN: not phasec-opt %s --split-input-file --comm-import-mesh='machine=torus:2x2;bw=1e9;frobnicate=3' 2>&1 | FileCheck %s --check-prefix=SPEC
// SPEC: error: comm-import-mesh: machine 'torus:2x2;bw=1e9;frobnicate=3': {{.*}}frobnicate
// RUN: not phasec-opt %S/../../examples/mesh/sharded_step.mlir --comm-import-mesh 2>&1 | FileCheck %s --check-prefix=NOMACHINE
// NOMACHINE: sharded_step.mlir:12:1: error: mesh @mesh names no machine: give it a 'comm.machine' attribute or run comm-import-mesh with machine=SPEC (phasec: --topology=SPEC)

// expected-error @below {{mesh @m has 8 devices but machine @m_machine has 4 ranks}}
mesh.mesh @m(shape = 2x4)
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = mesh.all_reduce %x on @m mesh_axes = [0, 1] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @below {{mesh @m has a dynamic shape; phasec schedules for a known number of devices}}
mesh.mesh @m(shape = 2x?)
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = mesh.all_reduce %x on @m mesh_axes = [0] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

mesh.mesh @m(shape = 2x2) {comm.machine = @nowhere}
// expected-error @-1 {{'comm.machine' names @nowhere, which is not a comm.machine of this module}}
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = mesh.all_reduce %x on @m mesh_axes = [0, 1] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

mesh.mesh @m(shape = 2x2) {comm.machine = "torus:2x2"}
// expected-error @-1 {{'comm.machine' must name a comm.machine (@name)}}
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = mesh.all_reduce %x on @m mesh_axes = [0, 1] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

mesh.mesh @m(shape = 2x2)
func.func @f(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{the input 'tensor<?x8xf32>' has a dynamic shape; phasec moves byte counts known at compile time}}
  %0 = mesh.all_to_all %x on @m mesh_axes = [0, 1] split_axis = 0 concat_axis = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

mesh.mesh @m(shape = 2x2)
func.func @f(%x: tensor<8x8xi1>) -> tensor<8x8xi1> {
  // expected-error @below {{the input's element type 'i1' is not a whole number of bytes}}
  %0 = mesh.all_to_all %x on @m mesh_axes = [0, 1] split_axis = 0 concat_axis = 0 : tensor<8x8xi1> -> tensor<8x8xi1>
  return %0 : tensor<8x8xi1>
}

// -----

mesh.mesh @m(shape = 2x2)
func.func @f(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @below {{split_axis = 1 of 'tensor<2x8xf32>' cuts pieces that are not contiguous in row-major order (dimension 0 has size 2); phasec's functions move contiguous blocks: make the axis the outermost one}}
  %0 = mesh.all_to_all %x on @m mesh_axes = [0, 1] split_axis = 1 concat_axis = 1 : tensor<2x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

mesh.mesh @m(shape = 2x2)
func.func @f(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // expected-error @below {{mesh_axes array<i16: 1, 0> are not in increasing order; phasec's groups are in rank order, so list the axes in increasing order}}
  %0 = mesh.all_to_all %x on @m mesh_axes = [1, 0] split_axis = 0 concat_axis = 0 : tensor<8x2xf32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

mesh.mesh @m(shape = 2x2)
func.func @f(%x: tensor<1x8xf32>) -> tensor<2x8xf32> {
  // expected-error @below {{mesh_axes array<i16: 0> split the 4 devices into 2 groups; phasec lowers this collective over the whole mesh only (all_to_all and shift take groups)}}
  %0 = mesh.all_gather %x on @m mesh_axes = [0] gather_axis = 0 : tensor<1x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

mesh.mesh @m(shape = 2x2)
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{reduction <average> has no comm counterpart (add, mul, min, max, and, or, xor)}}
  %0 = mesh.all_reduce %x on @m mesh_axes = [0, 1] reduction = <average> : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

mesh.mesh @m(shape = 2x2)
func.func @f(%x: tensor<8xf32>) -> tensor<8xf64> {
  // expected-error @below {{accumulates 'f32' in 'f64'; phasec reduces in the input's element type (convert before the collective)}}
  %0 = mesh.all_reduce %x on @m mesh_axes = [0, 1] : tensor<8xf32> -> tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

mesh.mesh @m(shape = 2x2)
func.func @f(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  // expected-error @below {{element type 'bf16' is not one phasec reduces (8..64-bit integers, f32, f64)}}
  %0 = mesh.all_reduce %x on @m mesh_axes = [0, 1] : tensor<8xbf16> -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

mesh.mesh @m(shape = 2x2)
func.func @f(%x: tensor<8xf32>, %r: index) -> tensor<8xf32> {
  // expected-error @below {{the root is dynamic; phasec needs it at compile time}}
  %0 = mesh.broadcast %x on @m mesh_axes = [0, 1] root = [%r, 0] : (tensor<8xf32>, index) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

mesh.mesh @m(shape = 2x2)
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{a shift without 'rotate' leaves devices without a source; phasec lowers rotations (a permutation) only}}
  %0 = mesh.shift %x on @m mesh_axes = [1] shift_axis = 1 offset = 1 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

mesh.mesh @m(shape = 2x2)
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{point-to-point 'mesh.send' is not a collective; phasec schedules collectives}}
  %0 = mesh.send %x on @m mesh_axes = [0, 1] destination = [1, 1] : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
