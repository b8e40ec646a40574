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
/// Expressions and schedule statements are small class hierarchies, one
/// class per kind with named fields; declarations are plain structs.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_LANG_LIB_SYNTAX_H
#define PHASEC_LANG_LIB_SYNTAX_H

#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace phasec::lang::syntax {

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// Base class of the expression nodes. Sema dispatches on the kind with
/// llvm::isa/cast/dyn_cast (LLVM-style RTTI, as in MLIR's Toy AST), so the
/// tree needs no C++ RTTI.
class Expr {
public:
  enum ExprKind {
    Expr_Int,
    Expr_Float,
    Expr_String,
    Expr_Ident,
    Expr_Call,
    Expr_Unary,
    Expr_Binary,
    Expr_Error
  };

  Expr(ExprKind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Expr() = default;

  ExprKind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

private:
  const ExprKind kind;
  llvm::SMLoc loc;
};
using ExprPtr = std::unique_ptr<Expr>;

/// An integer literal (the builder rejects literals beyond int64).
class IntExpr : public Expr {
public:
  IntExpr(llvm::SMLoc loc, int64_t value) : Expr(Expr_Int, loc), value(value) {}
  static bool classof(const Expr *e) { return e->getKind() == Expr_Int; }

  int64_t value;
};

/// A decimal literal; only rates and times accept one.
class FloatExpr : public Expr {
public:
  FloatExpr(llvm::SMLoc loc, double value)
      : Expr(Expr_Float, loc), value(value) {}
  static bool classof(const Expr *e) { return e->getKind() == Expr_Float; }

  double value;
};

/// A string literal (file names).
class StringExpr : public Expr {
public:
  StringExpr(llvm::SMLoc loc, std::string value)
      : Expr(Expr_String, loc), value(std::move(value)) {}
  static bool classof(const Expr *e) { return e->getKind() == Expr_String; }

  /// The unquoted contents, escapes resolved.
  std::string value;
};

/// A name: a variable, a constant, or a keyword-like value (`direct`).
class IdentExpr : public Expr {
public:
  IdentExpr(llvm::SMLoc loc, std::string name)
      : Expr(Expr_Ident, loc), name(std::move(name)) {}
  static bool classof(const Expr *e) { return e->getKind() == Expr_Ident; }

  std::string name;
};

/// `callee(args...)`: a built-in function or a keyword-like value with
/// arguments (`torus(8, 8)`, `k_level(2, sq)`).
class CallExpr : public Expr {
public:
  CallExpr(llvm::SMLoc loc, std::string callee, std::vector<ExprPtr> args)
      : Expr(Expr_Call, loc), callee(std::move(callee)), args(std::move(args)) {
  }
  static bool classof(const Expr *e) { return e->getKind() == Expr_Call; }

  std::string callee;
  std::vector<ExprPtr> args;
};

/// `-x`, `!x`, `~x`; located at the operator.
class UnaryExpr : public Expr {
public:
  UnaryExpr(llvm::SMLoc loc, std::string op, ExprPtr operand)
      : Expr(Expr_Unary, loc), op(std::move(op)), operand(std::move(operand)) {}
  static bool classof(const Expr *e) { return e->getKind() == Expr_Unary; }

  /// The operator's spelling.
  std::string op;
  ExprPtr operand;
};

/// `lhs op rhs`; located at the operator.
class BinaryExpr : public Expr {
public:
  BinaryExpr(llvm::SMLoc loc, std::string op, ExprPtr lhs, ExprPtr rhs)
      : Expr(Expr_Binary, loc), op(std::move(op)), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  static bool classof(const Expr *e) { return e->getKind() == Expr_Binary; }

  /// The operator's spelling.
  std::string op;
  ExprPtr lhs, rhs;
};

/// The builder already reported a problem here; evaluating it fails
/// silently so that Sema does not add follow-on errors.
class ErrorExpr : public Expr {
public:
  explicit ErrorExpr(llvm::SMLoc loc) : Expr(Expr_Error, loc) {}
  static bool classof(const Expr *e) { return e->getKind() == Expr_Error; }
};

//===----------------------------------------------------------------------===//
// Values and properties
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Statements of hand-written schedules
//===----------------------------------------------------------------------===//

/// Base class of the statement nodes, with the same LLVM-style RTTI as Expr.
class Stmt {
public:
  enum StmtKind { Stmt_For, Stmt_Phase, Stmt_Send, Stmt_If, Stmt_Let };

  Stmt(StmtKind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Stmt() = default;

  StmtKind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

private:
  const StmtKind kind;
  llvm::SMLoc loc;
};
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

/// `for var in lo..hi [step s] { body }`.
class ForStmt : public Stmt {
public:
  ForStmt(llvm::SMLoc loc, std::string var, ExprPtr lo, ExprPtr hi,
          ExprPtr step, StmtList body)
      : Stmt(Stmt_For, loc), var(std::move(var)), lo(std::move(lo)),
        hi(std::move(hi)), step(std::move(step)), body(std::move(body)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Stmt_For; }

  std::string var;
  ExprPtr lo, hi;
  /// Null if the loop has no step (1).
  ExprPtr step;
  StmtList body;
};

/// `phase { body }`.
class PhaseStmt : public Stmt {
public:
  PhaseStmt(llvm::SMLoc loc, StmtList body)
      : Stmt(Stmt_Phase, loc), body(std::move(body)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Stmt_Phase; }

  StmtList body;
};

/// The chunk ids a send of a relaying schedule carries: `chunks C`,
/// `chunks LO .. HI` (half-open) or `chunks { C, ... }`.
struct ChunkSet {
  llvm::SMLoc loc;
  /// The listed ids, or one id (`chunks C`); empty for a range.
  std::vector<ExprPtr> ids;
  /// A range `lo .. hi`; null otherwise.
  ExprPtr lo, hi;
};

/// `send src -> dst [: bytes];` or
/// `send src -> dst chunks IDS [reduce];` (a relaying schedule's send).
class SendStmt : public Stmt {
public:
  SendStmt(llvm::SMLoc loc, ExprPtr src, ExprPtr dst,
           std::optional<Value> bytes, std::optional<ChunkSet> chunks,
           llvm::SMLoc reduceLoc)
      : Stmt(Stmt_Send, loc), src(std::move(src)), dst(std::move(dst)),
        bytes(std::move(bytes)), chunks(std::move(chunks)),
        reduceLoc(reduceLoc) {}
  static bool classof(const Stmt *s) { return s->getKind() == Stmt_Send; }

  ExprPtr src, dst;
  /// The byte count; none = the operation's block size (or, with chunks,
  /// the chunks' size).
  std::optional<Value> bytes;
  /// The chunks carried; none for a send of a direct schedule.
  std::optional<ChunkSet> chunks;
  /// Where `reduce` is written; invalid if the send copies.
  llvm::SMLoc reduceLoc;
  bool reduces() const { return reduceLoc.isValid(); }
};

/// `if cond { thenBody } [else { elseBody }]`; `else if` is an else body
/// holding one IfStmt.
class IfStmt : public Stmt {
public:
  IfStmt(llvm::SMLoc loc, ExprPtr cond, StmtList thenBody, StmtList elseBody)
      : Stmt(Stmt_If, loc), cond(std::move(cond)),
        thenBody(std::move(thenBody)), elseBody(std::move(elseBody)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Stmt_If; }

  ExprPtr cond;
  StmtList thenBody, elseBody;
};

/// `let var = value;`.
class LetStmt : public Stmt {
public:
  LetStmt(llvm::SMLoc loc, std::string var, ExprPtr value)
      : Stmt(Stmt_Let, loc), var(std::move(var)), value(std::move(value)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Stmt_Let; }

  std::string var;
  ExprPtr value;
};

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

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
  /// Inside `papers on GROUP { ... }`: `kind` names a PAPERS aggregate and
  /// `papersOn` is the block's group (`on` is the operation's own, which
  /// Sema refuses there).
  bool inPapers = false;
  Target papersOn;
  std::vector<Property> props;
  bool hasSchedule = false;
  llvm::SMLoc scheduleLoc;
  StmtList schedule;
};

struct Module {
  std::vector<ConstDecl> constants;
  std::vector<MachineDecl> machines;
  std::vector<GroupDecl> groups;
  std::vector<ArrayDecl> arrays;
  std::vector<OpDecl> ops;
};

} // namespace phasec::lang::syntax

#endif // PHASEC_LANG_LIB_SYNTAX_H
