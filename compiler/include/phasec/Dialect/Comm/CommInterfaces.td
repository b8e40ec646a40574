//===- CommInterfaces.td - comm dialect op interfaces ------*- tablegen -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#ifndef PHASEC_DIALECT_COMM_COMMINTERFACES_TD
#define PHASEC_DIALECT_COMM_COMMINTERFACES_TD

include "mlir/IR/OpBase.td"

def Comm_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::phasec::comm";
  let description = [{
    Every communication operation of a program: a named symbol that runs on a
    group of a machine, with the scheduling directives. The passes walk this
    interface instead of switching over every op.
  }];
  let methods = [
    InterfaceMethod<"The operation's name (its symbol).",
      "::llvm::StringRef", "getCollectiveName", (ins), [{}],
      [{ return $_op.getSymName(); }]>,
    InterfaceMethod<"The machine the operation runs on.",
      "::mlir::FlatSymbolRefAttr", "getMachineRef", (ins), [{}],
      [{ return $_op.getMachineAttr(); }]>,
    InterfaceMethod<"The group the operation runs on.",
      "::mlir::FlatSymbolRefAttr", "getGroupRef", (ins), [{}],
      [{ return $_op.getGroupAttr(); }]>,
    InterfaceMethod<"The algorithm directive.",
      "::phasec::Algorithm", "getAlgorithmDirective", (ins), [{}],
      [{ return $_op.getAlgorithm(); }]>,
    InterfaceMethod<"The solver budget directive (0 = default).",
      "int64_t", "getRlimitDirective", (ins), [{}],
      [{ return $_op.getRlimit(); }]>,
    InterfaceMethod<"The operation's kind (phasec's vocabulary).",
      "::phasec::CollectiveKind", "getCollectiveKind", (ins)>,
  ];
}

#endif // PHASEC_DIALECT_COMM_COMMINTERFACES_TD
