//===- CommDialect.td - The comm dialect -------------------*- tablegen -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
//
// The `comm` dialect describes a machine and the communication a program does
// on it, at the level phasec schedules: machines, groups of ranks,
// distributed arrays, collective operations, the transfer sets they lower
// to, and phase schedules (computed or hand-written).
//
//===----------------------------------------------------------------------===//

#ifndef PHASEC_DIALECT_COMM_COMMDIALECT_TD
#define PHASEC_DIALECT_COMM_COMMDIALECT_TD

include "mlir/IR/OpBase.td"

def Comm_Dialect : Dialect {
  let name = "comm";
  let cppNamespace = "::phasec::comm";
  let summary = "Machines, collectives and congestion-free phase schedules";
  let description = [{
    The comm dialect is the IR of phasec. A module holds `comm.machine`
    symbols (a topology with its parameters), `comm.group` and `comm.array`
    symbols over a machine, one op per communication operation of the source
    program, and, after the scheduling pipeline, a `comm.transfer_set` and a
    `comm.schedule` (or the program's own `comm.user_schedule`) per
    operation. All rank numbers are global ranks of the machine.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (defined next to their storage classes).
    void registerAttributes();
  }];
}

#endif // PHASEC_DIALECT_COMM_COMMDIALECT_TD
