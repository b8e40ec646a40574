// comm-schedule-phases resolves `style = auto` by the copy-transfer model
// (docs/machine-model.md): chained where the machine gives the transpose's
// strided copy rate, packing (the dialect's default, elided) where copies
// are free; a transpose written without `style` is packing and charged so.
// RUN: phasec-opt %s --comm-lower-collectives --comm-schedule-phases --comm-verify-schedule | FileCheck %s

comm.machine @ring #comm.torus<[4]> {bandwidth = 2.0e6 : f64, injection_bandwidth = 2.0e6 : f64, copy_rate_strided = 5.0e5 : f64}
comm.group @ring.all on @ring ranks [0, 1, 2, 3]
comm.array @A : ui8 [40, 40] rows over @ring.all
comm.array @B : ui8 [40, 40] rows over @ring.all
comm.transpose @auto on @ring group @ring.all {from = @A, to = @B, style = #comm.style<auto>}
comm.transpose @default on @ring group @ring.all {from = @A, to = @B}

comm.machine @free #comm.torus<[4]> {bandwidth = 2.0e6 : f64}
comm.group @free.all on @free ranks [0, 1, 2, 3]
comm.array @C : ui8 [40, 40] rows over @free.all
comm.array @D : ui8 [40, 40] rows over @free.all
comm.transpose @auto_free on @free group @free.all {from = @C, to = @D, style = #comm.style<auto>}

// 300 B per rank streamed at 0.5 MB/s (600 us), against 300 B packed and
// 300 B unpacked after 150 us of port time (1.35 ms).
// CHECK: comm.transpose @auto on @ring group @ring.all {from = @A, style = #comm.style<chained>, to = @B}
// (The printer writes a double that is not exactly 6e-4 or 1.35e-3 in full.)
// CHECK: comm.schedule for @auto {{.*}}machine_bound = 6.000000e-04 : f64, machine_time = 6.0000000000000006E-4 : f64
// CHECK: comm.transpose @default on @ring group @ring.all {from = @A, to = @B}
// CHECK: comm.schedule for @default {{.*}}machine_bound = 0.0013499999999999999 : f64, machine_time = 1.350000e-03 : f64
// CHECK: comm.transpose @auto_free on @free group @free.all {from = @C, to = @D}
// CHECK-NOT: machine_time
