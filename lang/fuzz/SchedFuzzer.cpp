//===- SchedFuzzer.cpp - libFuzzer target for the .sched front end --------===//
//
// Part of phasec. Built with -DPHASEC_ENABLE_FUZZER=ON and clang
// (-fsanitize=fuzzer,address); see docs/fuzzing.md.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Feeds arbitrary bytes to parseAndCheck() and prints the diagnostics and
/// the AST into memory, so that the lexer, the parser, the builder, Sema,
/// the diagnostic printer and the AST printer all run. The resource limits
/// are lowered so that a single input stays well below libFuzzer's timeout;
/// the limits themselves are what is being tested (an input must never get
/// past them into a crash or a hang). File reads are disabled.
///
//===----------------------------------------------------------------------===//

#include "phasec/Lang/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.sched"),
      llvm::SMLoc());
  std::string diagText;
  llvm::raw_string_ostream diagStream(diagText);
  phasec::lang::DiagnosticEngine diag(sm, diagStream);
  phasec::lang::FrontendOptions opts;
  opts.maxUnrolledTransfers = 200'000;
  opts.maxLoopIterations = 2'000'000;
  opts.maxRanks = 1 << 16;
  opts.maxMatrixEntries = 1 << 20;
  opts.maxPermutationElements = 1 << 20;
  opts.allowFileReads = false;
  std::unique_ptr<phasec::lang::Program> program =
      phasec::lang::parseAndCheck(sm, opts, diag);
  if (program) {
    std::string ast;
    llvm::raw_string_ostream astStream(ast);
    program->print(astStream);
  }
  return 0;
}
