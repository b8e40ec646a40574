// comm-verify-schedule on computed schedules: congestion, an incomplete, a
// duplicated and an unrequested delivery, a route the other way round where
// there is no tie, a wrong bound, and a schedule without a transfer set.
// RUN: phasec-opt %s -split-input-file -verify-diagnostics --comm-verify-schedule

comm.machine @ring #comm.torus<[4]> {bandwidth = 1.0e6 : f64}
comm.group @all on @ring ranks [0, 1, 2, 3]
comm.gather @g on @ring group @all {root = 2 : i64, block = 8 : i64}
comm.transfer_set for @g [0 -> 2 : 8, 1 -> 2 : 8, 3 -> 2 : 8]
// Computed phases carry no source locations: everything points at the phase.
comm.schedule for @g algorithm "test" {
  // expected-error @below {{schedule of 'g' is not congestion-free: phase 0: link 1->2 (dim 0 +) carries source ranks 0 (transfer 0: 0 -> 2) and 1 (transfer 1: 1 -> 2)}}
  // expected-note @below {{transfer 0 of phase 0, which already uses the link, is here}}
  // expected-note @below {{phase 0 is here}}
  comm.phase [0 -> 2 : 8, 1 -> 2 : 8]
  comm.phase [3 -> 2 : 8]
}

// -----

comm.machine @ring #comm.torus<[4]> {bandwidth = 1.0e6 : f64}
comm.group @all on @ring ranks [0, 1, 2, 3]
comm.gather @g on @ring group @all {root = 2 : i64, block = 8 : i64}
comm.transfer_set for @g [0 -> 2 : 8, 1 -> 2 : 8, 3 -> 2 : 8]
// expected-error @below {{schedule of 'g' is incomplete: pair 3 -> 2 receives 4 bytes, expected 8}}
comm.schedule for @g algorithm "test" {
  comm.phase [0 -> 2 : 8, 3 -> 2 : 4]
  comm.phase [1 -> 2 : 8]
}

// -----

comm.machine @ring #comm.torus<[4]> {bandwidth = 1.0e6 : f64}
comm.group @all on @ring ranks [0, 1, 2, 3]
comm.gather @g on @ring group @all {root = 2 : i64, block = 8 : i64}
comm.transfer_set for @g [0 -> 2 : 8, 1 -> 2 : 8, 3 -> 2 : 8]
comm.schedule for @g algorithm "test" {
  comm.phase [0 -> 2 : 8, 3 -> 2 : 8]
  comm.phase [1 -> 2 : 8]
  // expected-error @below {{schedule of 'g' delivers data twice: pair 1 -> 2 receives 16 bytes, expected 8 (delivered more than once)}}
  comm.phase [1 -> 2 : 8]
}

// -----

comm.machine @ring #comm.torus<[4]> {bandwidth = 1.0e6 : f64}
comm.group @all on @ring ranks [0, 1, 2, 3]
comm.gather @g on @ring group @all {root = 2 : i64, block = 8 : i64}
comm.transfer_set for @g [0 -> 2 : 8, 1 -> 2 : 8, 3 -> 2 : 8]
comm.schedule for @g algorithm "test" {
  comm.phase [0 -> 2 : 8, 3 -> 2 : 8]
  // expected-error @below {{schedule of 'g' is invalid: phase 1: transfer 1 (1 -> 3) delivers 8 bytes nobody asked for}}
  comm.phase [1 -> 2 : 8, 1 -> 3 : 8]
}

// -----

comm.machine @ring #comm.torus<[4]> {bandwidth = 1.0e6 : f64}
comm.group @all on @ring ranks [0, 1, 2, 3]
comm.gather @g on @ring group @all {root = 2 : i64, block = 8 : i64}
comm.transfer_set for @g [0 -> 2 : 8, 1 -> 2 : 8, 3 -> 2 : 8]
comm.schedule for @g algorithm "test" {
  // expected-error @below {{schedule of 'g' is invalid: phase 0: transfer 0 (1 -> 2) takes the longer way round (tie mask 0x1 where only 0x0 has a tie)}}
  comm.phase [1 -> 2 : 8 ties 1]
  comm.phase [0 -> 2 : 8]
  comm.phase [3 -> 2 : 8]
}

// -----

comm.machine @ring #comm.torus<[4]> {bandwidth = 1.0e6 : f64}
comm.group @all on @ring ranks [0, 1, 2, 3]
comm.gather @g on @ring group @all {root = 2 : i64, block = 8 : i64}
comm.transfer_set for @g [0 -> 2 : 8, 1 -> 2 : 8, 3 -> 2 : 8]
// expected-error @below {{schedule of 'g' has a wrong lower bound: the recorded lower bound 1.000000e+00 s exceeds the schedule time}}
comm.schedule for @g algorithm "test" attributes {bound = 1.0 : f64} {
  comm.phase [1 -> 2 : 8]
  comm.phase [0 -> 2 : 8]
  comm.phase [3 -> 2 : 8]
}

// -----

comm.machine @ring #comm.torus<[4]> {bandwidth = 1.0e6 : f64}
comm.group @all on @ring ranks [0, 1, 2, 3]
comm.gather @g on @ring group @all {root = 2 : i64, block = 8 : i64}
// expected-error @below {{cannot verify the schedule of 'g': it has no comm.transfer_set (run comm-lower-collectives first)}}
comm.user_schedule for @g {
  comm.phase [1 -> 2 : 8]
}

// -----

// Phases held by rule are checked transfer by transfer: the translates of
// 0 -> 2 by 0 and 1 share the link 1 -> 2. Their transfers have the phase's
// location.
comm.machine @ring #comm.torus<[4]> {bandwidth = 1.0e6 : f64}
comm.group @all on @ring ranks [0, 1, 2, 3]
comm.gather @g on @ring group @all {root = 2 : i64, block = 8 : i64}
comm.transfer_set for @g [0 -> 2 : 8, 1 -> 3 : 8]
comm.schedule for @g algorithm "test" attributes {translations = [array<i64: 0, 1>]} {
  // expected-error @below {{schedule of 'g' is not congestion-free: phase 0: link 1->2 (dim 0 +) carries source ranks 0 (transfer 0: 0 -> 2) and 1 (transfer 1: 1 -> 3)}}
  // expected-note @below {{transfer 0 of phase 0, which already uses the link, is here}}
  // expected-note @below {{phase 0 is here}}
  comm.phase [] {rules = array<i64: 0, 1, 0, 2, 8, 0>}
}

// -----

// A translation outside the machine: named, and its translate has no rank.
comm.machine @ring #comm.torus<[4]> {bandwidth = 1.0e6 : f64}
comm.group @all on @ring ranks [0, 1, 2, 3]
comm.gather @g on @ring group @all {root = 2 : i64, block = 8 : i64}
comm.transfer_set for @g [0 -> 2 : 8]
// expected-error @below {{schedule of 'g' is invalid: translation group 0 lists node 9, outside the machine}}
comm.schedule for @g algorithm "test" attributes {translations = [array<i64: 0, 9>]} {
  // expected-error @below {{schedule of 'g' is invalid: phase 0: transfer 0 (-1 -> -1, 8 bytes): rank out of range}}
  comm.phase [] {rules = array<i64: 0, 1, 0, 2, 8, 0>}
}
