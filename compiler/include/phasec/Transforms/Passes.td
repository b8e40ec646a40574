//===- Passes.td - comm dialect passes ---------------------*- tablegen -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// The scheduling pipeline: comm-lower-collectives, comm-schedule-phases,
// comm-verify-schedule. The passes are thin wrappers around the MLIR-free
// scheduling library (phasec/Scheduling); they only translate between IR
// and its data structures and turn its results into diagnostics.
//
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TRANSFORMS_PASSES_TD
#define PHASEC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CommLowerCollectives : Pass<"comm-lower-collectives", "mlir::ModuleOp"> {
  let summary = "Lower every communication operation to a comm.transfer_set";
  let description = [{
    For each communication operation without a `comm.transfer_set`, builds
    the demands (src, dst, bytes) with the scheduling library's collective
    builders and records them in a `comm.transfer_set` after the operation.
    Barriers and local operations move no data and get none; relayed
    operations (broadcast, reductions, scans, and any operation whose
    `algorithm` names a relaying algorithm) get none either:
    comm-schedule-phases schedules them by chunks (also seed 003's k-level
    algorithms, k_level(k) for k > 1). A lowering that fails with "not yet
    supported" is an error, or a warning with `allow-unsupported` that
    leaves the operation unscheduled; no lowering fails that way today.
  }];
  let constructor = "phasec::comm::createLowerCollectivesPass()";
  let dependentDialects = ["phasec::comm::CommDialect"];
  let options = [
    Option<"allowUnsupported", "allow-unsupported", "bool", "false",
           "Warn about (instead of rejecting) operations that cannot be "
           "scheduled yet">,
    Option<"maxTransfers", "max-transfers", "int64_t", "int64_t(1) << 28",
           "Refuse an operation of more transfers than this, before "
           "building them (Collective::kDefaultMaxTransfers)">,
  ];
}

def CommSchedulePhases : Pass<"comm-schedule-phases", "mlir::ModuleOp"> {
  let summary = "Split each transfer set into congestion-free phases";
  let description = [{
    For each `comm.transfer_set` whose operation has no schedule yet and no
    hand-written `comm.user_schedule`, runs the scheduling library
    (`scheduleAuto`, or the algorithm the operation's directive or the
    `algorithm` option asks for) and writes a `comm.schedule` with the
    phases, the proven lower bound and the gap. Warns, naming the gap, when
    the solver budget ran out and a heuristic schedule was used. Hand-written
    schedules get their lower bound, time and gap as attributes.
  }];
  let constructor = "phasec::comm::createSchedulePhasesPass()";
  let dependentDialects = ["phasec::comm::CommDialect"];
  let options = [
    Option<"algorithm", "algorithm", "std::string", "\"\"",
           "Override every operation's algorithm: auto, product, percs, "
           "torus-quotient, mesh-quotient, greedy-priority, z3-exact, "
           "linear_shift, xor, greedy">,
    Option<"rlimit", "rlimit", "uint64_t", "0",
           "Z3 resource limit per query (0 = the operation's directive, "
           "else the scheduler's default)">,
    Option<"cacheDir", "cache-dir", "std::string", "\"\"",
           "Directory caching solved ring cores (empty: memory only)">,
    Option<"progress", "progress", "bool", "false",
           "A remark per operation as it is scheduled: its schedule's "
           "phases, algorithm, time over the bound and the seconds it took">,
  ];
}

def CommVerifySchedule : Pass<"comm-verify-schedule", "mlir::ModuleOp"> {
  let summary = "Check every schedule against its transfer set";
  let description = [{
    Runs the scheduling library's independent verifier (`Problem::verify`)
    on every `comm.schedule` and `comm.user_schedule`: completeness,
    exactly-once delivery, valid routes, congestion-freedom and the lower
    bound. Violations are errors at the source location, naming the phase,
    the link and both transfers. The IR is not changed.
  }];
  let constructor = "phasec::comm::createVerifySchedulePass()";
  let dependentDialects = ["phasec::comm::CommDialect"];
}

def CommImportMesh : Pass<"comm-import-mesh", "mlir::ModuleOp"> {
  let summary = "Turn upstream mesh collectives into comm operations";
  let description = [{
    The front door for sharding compilers: every `mesh.mesh` becomes (or
    names) a `comm.machine` whose ranks are its devices in row-major order,
    and every collective on it (`mesh.all_to_all`, `all_gather`,
    `all_reduce`, `reduce_scatter`, `broadcast`, `gather`, `scatter`,
    `reduce`, `shift`) a `comm` operation over the devices its `mesh_axes`
    group, which the scheduling pipeline then phases. The machine comes from
    the mesh's `comm.machine` attribute (a `comm.machine` symbol in the
    module) or from the `machine` option (a topology spec, as phasec's
    `--topology` takes: `torus:4x4;bw=1e9`). Each mesh op gets a
    `comm.lowered_to` attribute naming its comm operation (the C function
    the back ends emit for it). What phasec cannot honour is an error at
    the op: dynamic shapes or roots, pieces that are not contiguous in
    row-major order, accumulation in another element type, axes out of
    increasing order where member order matters, point-to-point send/recv.
  }];
  let constructor = "phasec::comm::createImportMeshPass()";
  let dependentDialects = ["phasec::comm::CommDialect",
                           "mlir::mesh::MeshDialect"];
  let options = [
    Option<"machine", "machine", "std::string", "\"\"",
           "The machine of every mesh without a comm.machine attribute, as "
           "a topology spec (torus:4x4;bw=1e9, mesh:8x8, hypercube:4, ...)">,
  ];
}

#endif // PHASEC_TRANSFORMS_PASSES_TD
