//===- Parser.h - Parse and check a .sched file -----------------*- C++ -*-===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The front end's single entry point. Internally it runs an ANTLR4 parser
/// (built with exceptions), a typed builder that walks the parse tree, and
/// Sema, which evaluates everything; no exception ever escapes this API, so it
/// can be called from code compiled with -fno-exceptions.
///
//===----------------------------------------------------------------------===//

#ifndef PHASEC_LANG_PARSER_H
#define PHASEC_LANG_PARSER_H

#include "phasec/Core/TopologyDesc.h"
#include "phasec/Lang/AST.h"
#include "phasec/Lang/Diagnostics.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace phasec::lang {

struct FrontendOptions {
  /// Replaces the topology of every machine: "torus:8x4x8x2", "mesh:16x16",
  /// "hypercube:6", "percs:supernodes=1,drawers=4,nodes=8". Empty = none.
  /// Errors in it are reported as `<command line>: error: ...`.
  std::string topologyOverride;
  /// Replaces ranks_per_node of every machine; 0 = none.
  int64_t ranksPerNodeOverride = 0;
  /// The loop order of every transpose that does not write `loop_order`
  /// (--loop-order); none = the copy-transfer model's choice.
  std::optional<LoopOrder> loopOrderOverride;
  /// Replaces the value of top-level constants (`const N = 4096;`) by name,
  /// so that an example can be shrunk from the command line (phasec
  /// --define N=64). Constants defined after an overridden one see the new
  /// value. Naming no constant of the file is a `<command line>` error.
  std::vector<std::pair<std::string, int64_t>> constantOverrides;

  /// Resource limits: inputs beyond them are rejected with an error, never a
  /// crash or a hang. The fuzzer lowers them.
  /// Total transfers all hand-written schedules of a file may unroll to.
  uint64_t maxUnrolledTransfers = 50'000'000;
  /// Total loop iterations (including empty ones) Sema may execute.
  uint64_t maxLoopIterations = 200'000'000;
  /// Ranks of one machine.
  int64_t maxRanks = kMaxRanks;
  /// Entries of an alltoallv size matrix (group size squared).
  int64_t maxMatrixEntries = 1 << 24;
  /// Elements of an element-level permutation table.
  int64_t maxPermutationElements = 1 << 24;
  /// Bytes of an input file (the main buffer and any referenced file).
  uint64_t maxFileBytes = 8u << 20;
  /// Nesting depth of expressions and statements.
  unsigned maxNesting = 200;
  /// Allow `file = "..."` references (alltoallv sizes, permutation tables)
  /// to be read; relative paths resolve against the .sched file's directory.
  bool allowFileReads = true;
  /// Directories besides the .sched file's whose files side files may name
  /// (`-I`); a side file elsewhere (an absolute path, `..`, a link out) is
  /// refused.
  std::vector<std::string> includeDirs;
};

/// Parses the main buffer of `sm`, builds the typed AST and runs Sema.
/// Returns nullptr after reporting errors through `diag` (several per file
/// where possible). Never throws.
std::unique_ptr<Program> parseAndCheck(llvm::SourceMgr &sm,
                                       const FrontendOptions &opts,
                                       DiagnosticEngine &diag);

} // namespace phasec::lang

#endif // PHASEC_LANG_PARSER_H
