//===- Syntax.h - The unevaluated syntax tree of a .sched file --*- C++ -*-===//
//
// Part of phasec, the .sched language front end. Internal header.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The typed syntax tree the builder produces from ANTLR's parse tree. It
/// owns everything it needs (strings are copied, locations are SMLocs), so
/// the ANTLR parse tree can be destroyed before Sema runs, and Sema is plain
/// C++ without any ANTLR or exception dependency.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_LANG_LIB_SYNTAX_H
#define PHASEC_LANG_LIB_SYNTAX_H

#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace phasec::lang::syntax {

struct Expr {
  /// Error: the builder already reported a problem; evaluating it fails
  /// silently so that Sema does not add follow-on errors.
  enum Kind { Int, Float, String, Ident, Call, Unary, Binary, Error };
  Kind kind = Int;
  llvm::SMLoc loc;
  /// Int: the value (the builder rejects literals beyond int64).
  int64_t intValue = 0;
  double floatValue = 0;
  /// Ident/Call: the name. String: the unquoted contents. Unary/Binary: the
  /// operator spelling.
  std::string text;
  /// Call: arguments. Unary: one operand. Binary: two operands.
  std::vector<std::unique_ptr<Expr>> args;
};
using ExprPtr = std::unique_ptr<Expr>;

/// An expression with an optional unit (`75 MB/s`, `32 KiB`, `1 us`).
struct Value {
  ExprPtr expr;
  std::string unit; // "" if none; "MB/s" for rates
  llvm::SMLoc unitLoc;
  llvm::SMLoc loc;
};

struct Property {
  std::string key, sub; // sub: "" unless key.sub
  llvm::SMLoc loc;
  Value value;
};

struct Stmt {
  enum Kind { For, Phase, Send, If, Let };
  Kind kind = For;
  llvm::SMLoc loc;
  /// For/Let: the variable.
  std::string var;
  /// For: lo, hi, step (optional). Send: src, dst. If: cond. Let: value.
  ExprPtr a, b, c;
  /// Send: optional byte count.
  bool hasBytes = false;
  Value bytes;
  /// For/Phase/If: the body; If: else body.
  std::vector<Stmt> body, elseBody;
};

/// `group`, `machine.group` or `machine`.
struct Target {
  std::string first, second;
  llvm::SMLoc loc;
  bool present = false;
};

struct ConstDecl {
  std::string name;
  llvm::SMLoc loc;
  Value value;
};

struct MachineDecl {
  std::string name;
  llvm::SMLoc loc;
  std::vector<Property> props;
};

struct GroupDecl {
  std::string name;
  llvm::SMLoc loc;
  std::string machine; // "" = the only machine
  llvm::SMLoc machineLoc;
  std::string setKind; // "nodes" or "ranks" (checked by Sema)
  llvm::SMLoc setKindLoc;
  bool hasList = false;
  std::vector<ExprPtr> list;
  bool hasRange = false;
  ExprPtr lo, hi, step;
  ExprPtr where;
};

struct ArrayDecl {
  std::string name;
  llvm::SMLoc loc;
  std::string type;
  llvm::SMLoc typeLoc;
  std::vector<ExprPtr> shape;
  std::string dist;
  llvm::SMLoc distLoc;
  Target over;
};

struct OpDecl {
  std::string kind;
  llvm::SMLoc kindLoc;
  std::string name;
  llvm::SMLoc loc;
  Target on;
  std::vector<Property> props;
  bool hasSchedule = false;
  llvm::SMLoc scheduleLoc;
  std::vector<Stmt> schedule;
};

struct Module {
  std::vector<ConstDecl> constants;
  std::vector<MachineDecl> machines;
  std::vector<GroupDecl> groups;
  std::vector<ArrayDecl> arrays;
  std::vector<OpDecl> ops;
};

} // namespace phasec::lang::syntax

namespace phasec::lang {
class DiagnosticEngine;
struct FrontendOptions;
struct Program;

/// Sema: evaluates `module` into a Program. Returns nullptr after reporting
/// errors.
std::unique_ptr<Program> runSema(const syntax::Module &module,
                                 const FrontendOptions &opts,
                                 DiagnosticEngine &diag);
} // namespace phasec::lang

#endif // PHASEC_LANG_LIB_SYNTAX_H
