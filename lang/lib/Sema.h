//===- Sema.h - Checking and evaluation of .sched programs ------*- C++ -*-===//
//
// Part of phasec, the .sched language front end. Internal header.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The Sema class, shared by the files that implement it, one concern each
/// (as clang splits its Sema):
///   Sema.cpp         the driver and the loop-iteration budget,
///   SemaExpr.cpp     expressions, units and constants,
///   SemaMachine.cpp  machines, topologies and command-line overrides,
///   SemaGroup.cpp    groups, arrays and `on` targets,
///   SemaOp.cpp       operations: the table of operation kinds and the
///                    checks it drives,
///   SemaOpKinds.cpp  operations: the checks specific to a kind,
///   SemaSchedule.cpp hand-written schedules.
///
/// Sema turns the syntax tree into the evaluated Program of AST.h: it
/// resolves names, evaluates every expression with overflow-checked 64-bit
/// integer arithmetic, converts units, enumerates groups, computes size
/// matrices and permutation tables, and unrolls hand-written schedules. All
/// work is bounded by FrontendOptions' limits so that no input can make it
/// run away; exceeding a limit is a user error.
///
/// Errors are reported where they occur and Sema carries on with the next
/// declaration, so one run reports several independent errors.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_LANG_LIB_SEMA_H
#define PHASEC_LANG_LIB_SEMA_H

#include "Syntax.h"
#include "phasec/Lang/AST.h"
#include "phasec/Lang/Diagnostics.h"
#include "phasec/Lang/Parser.h"
#include "phasec/Core/TopologyDesc.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace phasec::lang {

/// Sema: evaluates `module` into a Program. Returns nullptr after reporting
/// errors.
std::unique_ptr<Program> runSema(const syntax::Module &module,
                                 const FrontendOptions &opts,
                                 DiagnosticEngine &diag);

namespace sema {

// The LLVM names every Sema file uses, brought in once (as
// mlir/Support/LLVM.h does for MLIR).
using llvm::failure;
using llvm::FailureOr;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

/// An evaluated integer, or std::nullopt after an error has been reported.
using OptInt = std::optional<int64_t>;

/// A keyword-like value, written `name` or `name(args...)`: topologies,
/// routings, permutation patterns and algorithms take both forms.
struct NamedValue {
  llvm::StringRef name;
  llvm::ArrayRef<syntax::ExprPtr> args;
  bool isCall;
  llvm::SMLoc loc;
};

/// `e` as a NamedValue, or std::nullopt if it is neither a name nor a call.
std::optional<NamedValue> asNamedValue(const syntax::Expr *e);

/// Whether `e` is the bare name `name`.
bool isName(const syntax::Expr *e, llvm::StringRef name);

class Sema {
public:
  Sema(const syntax::Module &mod, const FrontendOptions &opts,
       DiagnosticEngine &diag)
      : mod(mod), opts(opts), diag(diag) {}

  std::unique_ptr<Program> run();

private:
  const syntax::Module &mod;
  const FrontendOptions &opts;
  DiagnosticEngine &diag;
  std::unique_ptr<Program> prog;

  struct ConstInfo {
    int64_t value;
    llvm::SMLoc loc;
  };
  llvm::StringMap<ConstInfo> constants;

  /// Evaluation environment: the machine whose coordinates are in scope and
  /// a stack of bound variables (innermost last).
  struct Env {
    const Machine *machine = nullptr;
    std::vector<std::pair<std::string, int64_t>> vars;
    /// The operation's group (for member() and group_size), if any.
    const Group *group = nullptr;
  };

  uint64_t iterations = 0;
  bool iterationLimitHit = false;
  uint64_t unrolledTransfers = 0;

  /// Overrides parsed from the command line.
  bool haveOverride = false;
  /// The parsed --topology (valid when haveOverride).
  TopologySpec ovSpec;

  //===------------------------------------------------------------------===//
  // Sema.cpp
  //===------------------------------------------------------------------===//

  bool countIteration(llvm::SMLoc loc);
  OptInt fail(llvm::SMLoc loc, const llvm::Twine &msg);

  /// A new machine, array or operation named and located as its
  /// declaration `d`; null after reporting that `prev`, an earlier
  /// definition of the same name, exists. `noun` names the kind in the error.
  template <typename T, typename Decl>
  std::unique_ptr<T> newDefinition(const Decl &d, const T *prev,
                                   llvm::StringRef noun) {
    if (prev) {
      diag.error(d.loc, "duplicate " + noun + " '" + d.name + "'");
      diag.note(prev->loc, "previous definition is here");
      return nullptr;
    }
    auto def = std::make_unique<T>();
    def->name = d.name;
    def->loc = d.loc;
    return def;
  }

  //===------------------------------------------------------------------===//
  // SemaExpr.cpp: expressions, units, constants
  //===------------------------------------------------------------------===//

  OptInt lookupVar(const syntax::IdentExpr &e, Env &env);
  OptInt evalCall(const syntax::CallExpr &e, Env &env);
  OptInt evalInt(const syntax::Expr &e, Env &env);
  OptInt evalUnary(const syntax::UnaryExpr &e, Env &env);
  OptInt evalBinary(const syntax::BinaryExpr &e, Env &env);
  /// Real-valued evaluation for rates and times: decimal literals and
  /// + - * / over them; everything else is an integer expression.
  std::optional<double> evalReal(const syntax::Expr &e, Env &env);

  void badUnit(const syntax::Value &v, llvm::StringRef what,
               llvm::StringRef valid);
  /// A size in bytes: an integer expression with an optional size unit
  /// (none = bytes). Must be positive unless `allowZero`.
  OptInt evalSize(const syntax::Value &v, Env &env, llvm::StringRef what,
                  bool allowZero = false);
  /// A rate (`rate`) or a time, with its unit.
  std::optional<double> evalScaled(const syntax::Value &v, Env &env,
                                   llvm::StringRef what, bool rate);
  OptInt evalPlainInt(const syntax::Value &v, Env &env, llvm::StringRef what);
  /// A plain integer that must be positive (a count, an rlimit).
  OptInt evalPositiveInt(const syntax::Value &v, Env &env,
                         llvm::StringRef what);
  /// The identifier a value names (`barrier`, `rows`), or "" after an error.
  std::string identValue(const syntax::Value &v, llvm::StringRef what);
  void unknownValue(const syntax::Value &v, llvm::StringRef what,
                    llvm::StringRef got, llvm::StringRef valid);

  void checkConstants();

  //===------------------------------------------------------------------===//
  // SemaMachine.cpp: machines
  //===------------------------------------------------------------------===//

  void checkMachines();
  bool applyTopologyOverride();
  /// Gives `m` the --topology shape and the options it names.
  void overrideMachine(Machine &m);
  bool finishMachine(Machine &m, bool hasRouting,
                     const syntax::Property *routingProp);
  bool setTopology(Machine &m, const syntax::Value &v);

  //===------------------------------------------------------------------===//
  // SemaGroup.cpp: groups, arrays, targets
  //===------------------------------------------------------------------===//

  void checkGroups();
  void checkArrays();
  const Machine *defaultMachine(llvm::SMLoc loc, llvm::StringRef what);
  const Group *resolveTarget(const syntax::Target &t,
                             const Machine *machineHint, llvm::StringRef what,
                             llvm::SMLoc declLoc);

  //===------------------------------------------------------------------===//
  // SemaOp.cpp: operations, the generic part
  //===------------------------------------------------------------------===//

  struct OpContext;
  /// The kind-specific part of checking an operation.
  using OpCheck = bool (Sema::*)(OpContext &);

  /// One row of the operation table (SemaOp.cpp) per operation keyword:
  /// what drives the generic part of checkOp, and the kind-specific check.
  struct OpSpec {
    const char *keyword;
    CollectiveKind kind;
    Aggregate aggregate;
    /// The directives it takes besides the common ones, space-separated, in
    /// the order the "takes:" note lists them.
    const char *directives;
    /// The directives it cannot do without, space-separated, and the error
    /// when one is missing: `<noun> 'NAME' needs <needs>`.
    const char *required;
    const char *noun;
    const char *needs;
    /// Runs after the generic part; null if the row needs nothing more.
    OpCheck check;
  };
  /// The operations: one row per CollectiveKind, built from the kinds'
  /// families (specOf) but for the kinds with rows of their own.
  static const OpSpec ownSpecs[];
  static OpSpec specOf(CollectiveKind kind);
  static const std::vector<OpSpec> opSpecs;
  /// The PAPERS aggregates (seed 004): what a `papers on GROUP { ... }`
  /// block names; at the top level those whose keyword no operation above
  /// takes.
  static const OpSpec papersSpecs[];
  static const OpSpec *findSpec(llvm::StringRef kind, bool inPapers);

  /// What the generic part of checkOp hands the kind-specific check.
  struct OpContext {
    const syntax::OpDecl &decl;
    const OpSpec &spec;
    Operation &op;
    /// The directives by key (`key` or `key.sub`); the first of duplicates.
    llvm::StringMap<const syntax::Property *> props;
    /// The arrays `from` and `to` name, if the operation takes them.
    const Array *fromArray = nullptr, *toArray = nullptr;
    /// The operation's machine and group in scope.
    Env env;
    /// The size of the operation's group.
    int64_t n = 0;

    const syntax::Property *get(llvm::StringRef key) const {
      auto it = props.find(key);
      return it == props.end() ? nullptr : it->second;
    }
  };

  void checkOps();
  bool checkOp(const syntax::OpDecl &d, Operation &op);
  bool checkRoot(OpContext &c);
  /// The directives every operation takes: algorithm, sync, style, rlimit.
  bool checkCommonDirectives(OpContext &c);
  bool checkHandWrittenSchedule(OpContext &c);

  //===------------------------------------------------------------------===//
  // SemaOpKinds.cpp: operations, the kind-specific checks
  //===------------------------------------------------------------------===//

  /// op.elementType from the 'type' directive, Int32 if there is none.
  bool setElementType(OpContext &c);
  bool checkBlockOp(OpContext &c);
  bool checkReduction(OpContext &c);
  bool checkAnyAll(OpContext &c);
  bool checkWaitvec(OpContext &c);
  bool checkBcast(OpContext &c);
  /// PAPERS aggregates that return a bit mask of ranks (waitvec, vote,
  /// match) need every rank of the group below 64.
  bool checkMaskFits(OpContext &c);
  /// Whether the operation's n x n size matrix is within the limit; reports
  /// the group if not (`quoteLimit`: the message names the limit).
  bool sizeMatrixFits(const OpContext &c, bool quoteLimit);
  /// Binds the variables of one iteration over a group, in place of the
  /// previous iteration's, after counting it against the budget.
  bool bindIteration(
      Env &env, llvm::SMLoc loc,
      std::initializer_list<std::pair<llvm::StringRef, int64_t>> vars);
  /// Evaluates a rule of the member (`p`'s value) once per member i of
  /// the group, with `rank` (global) and `member` (i) bound: `each(i)`
  /// evaluates it and keeps the result, false on an error (reported).
  bool forEachMember(OpContext &c, const syntax::Property *p,
                     llvm::function_ref<bool(int64_t)> each);
  bool checkPutget(OpContext &c);
  bool checkAlltoallv(OpContext &c);
  bool checkMemberSizes(OpContext &c);
  /// `sizes = file("...")`: whether the value is such a call, and reading
  /// its `count` non-negative integers into `out` (`what` names them in
  /// diagnostics).
  static bool isFileCall(const syntax::Property *p);
  bool readSizesFile(const syntax::Property *p, std::vector<int64_t> &out,
                     int64_t count, llvm::StringRef what);
  bool checkTranspose(OpContext &c);
  bool checkPermute(OpContext &c);
  bool checkLocal(OpContext &c);
  bool checkValueBits(OpContext &c);
  bool buildPermutation(const syntax::Property &p, Operation &op, int64_t n);
  /// The path of a side file (`file("...")`, `table("...")`): relative to
  /// the .sched file's directory; refused (false, reported) if it really
  /// lies outside that directory and every include directory.
  bool resolveSideFile(const std::string &file, llvm::SMLoc loc,
                       llvm::StringRef what, std::string &out);
  bool readIntegers(const std::string &file, llvm::SMLoc loc,
                    std::vector<int64_t> &out, int64_t expected,
                    llvm::StringRef what);

  //===------------------------------------------------------------------===//
  // SemaSchedule.cpp: hand-written schedules
  //===------------------------------------------------------------------===//

  /// The hand-written schedule being run.
  struct ScheduleRun {
    /// Whether its sends carry chunks: decided by the first send.
    std::optional<bool> relaying;
    llvm::SMLoc firstSend;
    /// `chunks = C;` (0: the fewest the kind's chunk table allows).
    int64_t requestedChunks = 0;
    llvm::SMLoc requestedLoc;
  };
  ScheduleRun scheduleRun;

  bool runSchedule(const syntax::OpDecl &d, Operation &op,
                   int64_t requestedChunks, llvm::SMLoc requestedLoc);
  bool execBlock(const syntax::StmtList &body, Env &env, Operation &op,
                 Phase *phase, unsigned depth);
  bool execSend(const syntax::SendStmt &s, Env &env, Operation &op,
                Phase &phase);
  /// Cuts the operation's data into chunks for its first chunked send (at
  /// `at`): sets op.numChunks and op.chunkBytes.
  bool cutIntoChunks(Operation &op, llvm::SMLoc at);
  bool evalChunkIds(const syntax::ChunkSet &set, Env &env,
                    const Operation &op, std::vector<int64_t> &ids);
};

} // namespace sema
} // namespace phasec::lang

#endif // PHASEC_LANG_LIB_SEMA_H
