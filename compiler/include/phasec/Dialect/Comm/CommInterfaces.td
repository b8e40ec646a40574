//===- CommInterfaces.td - comm dialect op interfaces ------*- tablegen -*-===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#ifndef PHASEC_DIALECT_COMM_COMMINTERFACES_TD
#define PHASEC_DIALECT_COMM_COMMINTERFACES_TD

include "mlir/IR/OpBase.td"

// The directives' defaults: the dialect's (CommOps.td's DefaultValuedAttr)
// and what the interface answers for an operation created without the
// attribute (by name, as the front end creates them).
defvar Comm_DefaultAlgorithm = "::phasec::Algorithm::Auto";
defvar Comm_DefaultKShape = "::phasec::KLevelShape::None";
defvar Comm_DefaultSync = "::phasec::SyncKind::Barrier";
defvar Comm_DefaultStyle = "::phasec::TransferStyle::Packing";
defvar Comm_DefaultAggregate = "::phasec::Aggregate::None";

/// A directive's value: `attr`'s (`value` reads it from the attribute), or
/// `default` where the operation does not have it.
class Comm_DirectiveMethod<string desc, string type, string name,
                           string attr, string value, string default>
    : InterfaceMethod<desc, type, name, (ins), [{}],
        "if (auto attr = $_op." # attr # "()) return attr." # value #
        "(); return " # default # ";">;

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
    Comm_DirectiveMethod<"The algorithm directive.",
      "::phasec::Algorithm", "getAlgorithmDirective", "getAlgorithmAttr",
      "getValue", Comm_DefaultAlgorithm>,
    Comm_DirectiveMethod<"The solver budget directive (0 = default).",
      "int64_t", "getRlimitDirective", "getRlimitAttr", "getInt", "0">,
    InterfaceMethod<"The operation's kind (phasec's vocabulary).",
      "::phasec::CollectiveKind", "getCollectiveKind", (ins)>,
    Comm_DirectiveMethod<"The algorithm's parameter (0 = its default).",
      "int64_t", "getAlgorithmParamDirective", "getAlgorithmParamAttr",
      "getInt", "0">,
    Comm_DirectiveMethod<"k_level's number of levels (0 = logp).",
      "int64_t", "getKLevelsDirective", "getKLevelsAttr", "getInt", "0">,
    Comm_DirectiveMethod<"k_level's submachine shape.",
      "::phasec::KLevelShape", "getKShapeDirective", "getKShapeAttr",
      "getValue", Comm_DefaultKShape>,
    Comm_DirectiveMethod<"The sync directive.",
      "::phasec::SyncKind", "getSyncDirective", "getSyncAttr", "getValue",
      Comm_DefaultSync>,
    InterfaceMethod<"The transfer style directive, if given (the dialect's "
                    "default is packing; the back ends keep their own for "
                    "operations that do not say).",
      "::std::optional<::phasec::TransferStyle>", "getStyleDirective", (ins),
      [{}], [{
        if (auto style = $_op.getStyleAttr())
          return style.getValue();
        return ::std::nullopt;
      }]>,
    Comm_DirectiveMethod<"The PAPERS aggregate this operation implements "
                         "(None for an operation of its own).",
      "::phasec::Aggregate", "getAggregateKind", "getAggregateAttr",
      "getValue", Comm_DefaultAggregate>,
    InterfaceMethod<"A PAPERS aggregate's value type, if it has one.",
      "::std::optional<::mlir::Type>", "getAggregateValueType", (ins), [{}],
      [{ return $_op.getValueType(); }]>,
    InterfaceMethod<"The bits of a PAPERS value that count, if given.",
      "::std::optional<int64_t>", "getAggregateValueBits", (ins), [{}],
      [{
        if (auto bits = $_op.getValueBitsAttr())
          return bits.getInt();
        return ::std::nullopt;
      }]>,
    InterfaceMethod<"A PAPERS value is a truth value (0 or 1).",
      "bool", "isAggregateValueLogical", (ins), [{}],
      [{ return $_op.getValueLogical(); }]>,
    InterfaceMethod<"The v-collectives' block of each member, in group "
                    "order, if given (`member_bytes`).",
      "::std::optional<::llvm::ArrayRef<int64_t>>", "getMemberBlockBytes",
      (ins), [{}], [{
        if constexpr (::phasec::comm::detail::HasMemberBytes<ConcreteOp>::value)
          return $_op.getMemberBytes();
        else
          return ::std::nullopt;
      }]>,
    InterfaceMethod<"The root's member index, for the rooted families.",
      "::std::optional<int64_t>", "getRootMember", (ins), [{}],
      [{ return ::std::nullopt; }]>,
  ];
}

def Comm_BlockOpInterface : OpInterface<"BlockOpInterface"> {
  let cppNamespace = "::phasec::comm";
  let description = [{
    The operations on equal blocks (the vocabulary's families Blocks and
    Rooted: alltoall, allgather, gather, scatter, broadcast, one_to_all,
    all_to_one).
  }];
  let methods = [
    InterfaceMethod<"Bytes of one member's block.",
      "int64_t", "getBlockBytes", (ins), [{}],
      [{ return $_op.getBlock(); }]>,
  ];
}

def Comm_ReductionOpInterface : OpInterface<"ReductionOpInterface"> {
  let cppNamespace = "::phasec::comm";
  let description = [{
    The reductions (the vocabulary's family Reduction: reduce, allreduce,
    scan, exscan, reduce_scatter): count elements of a type combined with
    an operator.
  }];
  let methods = [
    InterfaceMethod<"The operator.",
      "::phasec::ReduceKind", "getReduceOp", (ins), [{}],
      [{ return $_op.getOp(); }]>,
    InterfaceMethod<"The element type.",
      "::mlir::Type", "getReduceElementType", (ins), [{}],
      [{ return $_op.getElementType(); }]>,
    InterfaceMethod<"Elements per member.",
      "int64_t", "getReduceCount", (ins), [{}],
      [{ return $_op.getCount(); }]>,
  ];
}

#endif // PHASEC_DIALECT_COMM_COMMINTERFACES_TD
