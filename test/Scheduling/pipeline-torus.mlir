// The scheduling pipeline on small tori: golden phases of the linear shift
// baseline on a ring of 4, and the scheduler's choice on rings of 4 and a
// 3x3 torus, which must meet the proven lower bound.
// RUN: phasec-opt %s --comm-lower-collectives --comm-schedule-phases=algorithm=linear_shift --comm-verify-schedule | FileCheck %s --check-prefix=SHIFT
// RUN: phasec-opt %s --comm-lower-collectives --comm-schedule-phases --comm-verify-schedule | FileCheck %s --check-prefix=AUTO
// RUN: phasec-opt %s --comm-lower-collectives --comm-schedule-phases --comm-verify-schedule | phasec-opt --comm-verify-schedule | FileCheck %s --check-prefix=AUTO

comm.machine @ring #comm.torus<[4]> {bandwidth = 1.0e6 : f64}
comm.group @ring.all on @ring ranks [0, 1, 2, 3]
comm.alltoall @a2a on @ring group @ring.all {block = 1000 : i64}

comm.machine @t33 #comm.torus<[3, 3]> {bandwidth = 1.0e6 : f64}
comm.group @t33.all on @t33 ranks [0, 1, 2, 3, 4, 5, 6, 7, 8]
comm.alltoall @a2a33 on @t33 group @t33.all {block = 1000 : i64}

// An all-to-all's demands are held by rule: every pair of the members.
// SHIFT:      comm.transfer_set for @a2a [] {all_pairs = array<i64: 0, 1, 2, 3>, pair_bytes = 1000 : i64}
// SHIFT-NEXT: comm.schedule for @a2a algorithm "linear_shift" attributes {bound = 2.000000e-03 : f64, bound_blocks = 2.000000e+00 : f64, bound_min_phases = 2 : i64, bound_phases_reason = "3 source ranks send to node 0 over its 2 links", bound_reason = "{{.*}}", gap = {{.*}}, time = {{.*}}} {
// SHIFT-NEXT:   comm.phase [0 -> 1 : 1000, 1 -> 2 : 1000, 2 -> 3 : 1000, 3 -> 0 : 1000]
// SHIFT-NEXT:   comm.phase [0 -> 2 : 1000, 2 -> 0 : 1000]
// SHIFT-NEXT:   comm.phase [1 -> 3 : 1000, 3 -> 1 : 1000]
// SHIFT-NEXT:   comm.phase [0 -> 3 : 1000, 1 -> 0 : 1000, 2 -> 1 : 1000, 3 -> 2 : 1000]
// SHIFT-NEXT: }

// The scheduler meets the proven bound (2 blocks) on the ring of 4 ...
// AUTO:      comm.schedule for @a2a algorithm "{{.*}}" attributes {bound = 2.000000e-03 : f64, bound_blocks = 2.000000e+00 : f64, {{.*}}gap = 1.000000e+00 : f64, {{.*}}time = 2.000000e-03 : f64, time_optimal} {
// AUTO-COUNT-2: comm.phase [
// AUTO-NEXT: }
// ... and on the 3x3 torus (3 blocks over the busiest link), where the torus
// quotient holds each phase by rule: 8 representatives translated by the
// subgroup {(0,0), (2,1), (1,2)} (nodes 0, 5, 7).
// AUTO:      comm.schedule for @a2a33 algorithm "torus-quotient" attributes {bound = 3.000000e-03 : f64, bound_blocks = 3.000000e+00 : f64, {{.*}}gap = 1.000000e+00 : f64, {{.*}}time = 3.000000e-03 : f64, time_optimal, translations = [array<i64: 0, 5, 7>]} {
// AUTO-NEXT:   comm.phase [] {rules = array<i64: 0, 8, 0, 3, 1000, 0, 0, 4, 1000, 0,
// AUTO-NEXT:   comm.phase [] {rules = array<i64: 0, 8,
// AUTO-NEXT:   comm.phase [] {rules = array<i64: 0, 8,
// AUTO-NEXT: {{^[ ]*[}]$}}
