//===- CostUnits.h - phasec --emit=cost: C^3 units per op -------*- C++ -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `--emit=cost` and `--emit=cost-json`: every scheduled operation's
/// algorithm charged in seed 003's C^3 units, per superstep and in total,
/// as set-ups x s + coefficient x L and at the message sizes asked for,
/// with the best algorithm per message size for each kind of operation.
/// This file reads the machines and operations out of the IR; the rounds,
/// the charging and the report are the scheduling library's
/// (phasec/Scheduling/C3Report.h). phasec-translate's `--export-cost` and
/// `--export-cost-json` (registerScheduleTranslations) write the same
/// report with the default options.
///
/// The unit: the time one packet (the machine's `packet_length` l) takes
/// over one link at the machine's `bandwidth`, l / bandwidth. The set-up
/// cost s in units is `setup_cost` / (l / bandwidth), or
/// `CostOptions::setupUnits` (--c3-setup) where given.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_TRANSFORMS_COSTUNITS_H
#define PHASEC_TRANSFORMS_COSTUNITS_H

#include "phasec/Scheduling/C3Report.h"
#include "phasec/Transforms/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <vector>

namespace phasec {

/// What the report shows and at which sizes (--cost-sizes, --c3-setup,
/// --c3-routing, --c3-sends, --emit=cost-json).
using CostOptions = c3::ReportOptions;

/// Writes the table (or JSON) of every operation of `scheduled`. Fails,
/// after a diagnostic at the machine or the operation and before writing
/// anything, where an operation cannot be charged (no packet_length, no
/// set-up cost, no block size, a machine that is not a grid).
mlir::LogicalResult writeCostUnits(const ScheduledModule &scheduled,
                                   const CostOptions &options,
                                   llvm::raw_ostream &out);

} // namespace phasec

#endif // PHASEC_TRANSFORMS_COSTUNITS_H
