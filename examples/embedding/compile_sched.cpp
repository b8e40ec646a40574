//===- compile_sched.cpp - the phasec pipeline as a library call ----------===//
//
// Part of phasec (examples/embedding; docs/embedding.md).
//
//===----------------------------------------------------------------------===//
//
//   compile-sched FILE.sched OUT.json OUT.c
//
// Runs what `phasec FILE.sched --emit=schedule-json` and `--emit=mpi` run
// (import, Sema, the comm scheduling pipeline, the MPI translation) through
// phasec::driver::runPhasecWithStatus, with diagnostics in phasec's
// `file:line:col: error:` format on stderr. Exits with the driver's status:
// 0, 1 (an error in the input) or 3 (a solver budget ran out).
//
//===----------------------------------------------------------------------===//

#include "phasec/Driver/Driver.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace phasec;

static driver::RunStatus compile(llvm::StringRef input, driver::EmitKind emit,
                                 llvm::StringRef outPath) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(input);
  if (!buffer) {
    llvm::errs() << "compile-sched: error: cannot read " << input << ": "
                 << buffer.getError().message() << "\n";
    return driver::RunStatus::InputError;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());

  driver::DriverOptions options;
  options.emit = emit;
  // The output goes to a string first: nothing is written for an input
  // with errors.
  std::string text;
  llvm::raw_string_ostream out(text);
  driver::RunStatus status =
      driver::runPhasecWithStatus(sourceMgr, options, out, llvm::errs());
  if (status != driver::RunStatus::Success)
    return status;
  std::error_code ec;
  llvm::raw_fd_ostream file(outPath, ec);
  if (ec) {
    llvm::errs() << "compile-sched: error: cannot write " << outPath << ": "
                 << ec.message() << "\n";
    return driver::RunStatus::InputError;
  }
  file << text;
  return status;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    llvm::errs() << "usage: compile-sched FILE.sched OUT.json OUT.c\n";
    return 2;
  }
  driver::RunStatus status =
      compile(argv[1], driver::EmitKind::ScheduleJSON, argv[2]);
  if (status == driver::RunStatus::Success)
    status = compile(argv[1], driver::EmitKind::MPI, argv[3]);
  return static_cast<int>(status);
}
