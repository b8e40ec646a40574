//===- NonblockingC.cpp - Nonblocking and persistent forms of operations --===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// NAME_start / NAME_test / NAME_wait and NAME_init / NAME_start_persistent
/// of every generated operation that moves data or is a barrier (PAPERS
/// aggregates, which return a value to every caller, have none).
///
/// They do not restate the operation: NAME_start runs NAME itself as a task
/// of the runtime (phasec_runtime.h), on a stack of its own, until NAME
/// would first wait; the runtime's waits (phasec_mpi_waitall, the phase
/// barriers, phasec_shmem_barrier) test once inside a task and yield back.
/// NAME_test resumes the task until it would wait again, NAME_wait until it
/// returns. So the nonblocking forms run exactly the code, and the schedule,
/// the blocking call runs and the harness verifies: one body for every kind
/// of operation and both transports, instead of a state machine per kind
/// that could drift from it.
///
//===----------------------------------------------------------------------===//

#include "EmitC.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace phasec;
using namespace phasec::target;
using namespace phasec::target::detail;

bool detail::hasNonblockingForms(const OperationPlan &plan) {
  return plan.aggregate == Aggregate::None && plan.papersName.empty() &&
         plan.call.empty();
}

namespace {
struct Param {
  std::string type, name;
  /// `TYPE NAME` as C declares it (no space after a pointer's '*').
  std::string declare(llvm::StringRef as) const {
    return type + (type.back() == '*' ? "" : " ") + as.str();
  }
};
} // namespace

/// NAME's parameters, in order (the transport's communicator last).
static std::vector<Param> operationParams(const OperationPlan &plan,
                                          const NonblockingTransport &tr) {
  std::vector<Param> params;
  if (plan.isTranspose() || plan.isElementPermute()) {
    std::string T = plan.name + "_elem_t";
    params.push_back({"const " + T + " *", "a"});
    params.push_back({T + " *", "b"});
    if (plan.runtimeDestinations())
      params.push_back({"const int64_t *", "dest"});
  } else {
    params.push_back({"const void *", "sendbuf"});
    params.push_back({"void *", "recvbuf"});
  }
  if (*tr.commType)
    params.push_back({tr.commType, "comm"});
  return params;
}

void detail::emitNonblockingState(llvm::raw_ostream &os,
                                  const OperationPlan &plan,
                                  const NonblockingTransport &tr) {
  const std::string &n = plan.name;
  os << "/* " << n
     << "'s nonblocking forms: the task that runs a started call, its "
        "arguments,\n   NAME_init's, and whether a started call's result is "
        "still to be collected. */\n"
     << "static phasec_task *" << n << "_task;\n"
     << "static struct {\n";
  for (const Param &p : operationParams(plan, tr))
    os << "  " << p.declare(p.name) << ";\n  " << p.declare("bound_" + p.name)
       << ";\n";
  os << "  int bound, pending;\n} " << n << "_nb;\n\n";
}

void detail::emitNonblockingForms(llvm::raw_ostream &os,
                                  const OperationPlan &plan,
                                  const NonblockingTransport &tr) {
  const std::string &n = plan.name;
  std::vector<Param> params = operationParams(plan, tr);
  std::string decl, args, fromCall, fromBound, bind;
  for (const Param &p : params) {
    if (!decl.empty()) {
      decl += ", ";
      args += ", ";
    }
    decl += p.declare(p.name);
    args += n + "_nb." + p.name;
    fromCall += "  " + n + "_nb." + p.name + " = " + p.name + ";\n";
    fromBound +=
        "  " + n + "_nb." + p.name + " = " + n + "_nb.bound_" + p.name + ";\n";
    bind += "  " + n + "_nb.bound_" + p.name + " = " + p.name + ";\n";
  }
  std::string ok = tr.success;
  os << "static int " << n << "_nb_body(void *unused) {\n"
     << "  (void)unused;\n  return " << n << "(" << args << ");\n}\n\n"
     << "static int " << n << "_nb_launch(void) {\n"
     << "  switch (phasec_task_start(&" << n << "_task, " << n
     << "_nb_body, NULL)) {\n"
     << "  case PHASEC_TASK_OK:\n    " << n << "_nb.pending = 1;\n"
     << "    return " << ok << ";\n"
     << "  case PHASEC_TASK_BUSY:\n    return " << tr.errPending << ";\n"
     << "  default:\n    return " << tr.errNoMem << ";\n  }\n}\n\n";

  auto comment = [&](std::string text) {
    // The transport's notes say NAME for the operation.
    for (size_t at; (at = text.find("NAME")) != std::string::npos;)
      text.replace(at, 4, n);
    os << "/*" << wrapComment(text).substr(2) << " */\n";
  };
  std::string names = llvm::join(
      llvm::map_range(params, [](const Param &p) { return p.name; }), ", ");
  std::string pending = tr.errPending;
  comment("Starts NAME(" + names + ") and returns once it would first wait. " +
          tr.whoCalls +
          " calls NAME_start where it would call NAME (every caller the same "
          "form); NAME_test and NAME_wait progress and complete the call, "
          "and its buffers must stay as they are until then. One call of "
          "NAME may be in flight: " +
          pending +
          " while one is. The operation's own errors come from NAME_test / "
          "NAME_wait. " +
          tr.firstCallNote);
  os << "int " << n << "_start(" << decl << ") {\n"
     << "  if (" << n << "_nb.pending)\n    return " << pending << ";\n"
     << fromCall << "  return " << n << "_nb_launch();\n}\n\n";

  comment("Progresses the call NAME_start or NAME_start_persistent started: "
          "*flag = 1 once it is complete (the call's error code is returned, "
          "and nothing is in flight any more), else *flag = 0 and " +
          ok + ". With nothing in flight: *flag = 1 and " + ok +
          " (as MPI_Test on an inactive request).");
  os << "int " << n << "_test(int *flag) {\n"
     << "  if (!" << n << "_nb.pending) {\n    *flag = 1;\n    return " << ok
     << ";\n  }\n"
     << "  if (!phasec_task_resume(" << n << "_task)) {\n"
     << "    *flag = 0;\n    return " << ok << ";\n  }\n"
     << "  *flag = 1;\n  " << n << "_nb.pending = 0;\n"
     << "  return phasec_task_result(" << n << "_task);\n}\n\n";

  comment("Completes the call NAME_start or NAME_start_persistent started "
          "(progressing it until then) and returns its error code; " +
          ok + " with nothing in flight.");
  os << "int " << n << "_wait(void) {\n"
     << "  int flag = 0, rc;\n  do\n    rc = " << n
     << "_test(&flag);\n  while (!flag);\n  return rc;\n}\n\n";

  comment("Binds NAME's arguments for NAME_start_persistent (a persistent "
          "request, as MPI-4's MPI_Alltoall_init and MPI_Start); " +
          std::string(tr.initNote) + " Binding again replaces the arguments; " +
          pending + " while a call is in flight.");
  os << "int " << n << "_init(" << decl << ") {\n"
     << "  if (" << n << "_nb.pending)\n    return " << pending << ";\n"
     << bind << "  " << n << "_nb.bound = 1;\n";
  tr.emitInit(os, plan);
  os << "  return " << ok << ";\n}\n\n";

  comment("Starts NAME on the arguments NAME_init bound, as NAME_start does; " +
          std::string(tr.errUnbound) + " before NAME_init.");
  os << "int " << n << "_start_persistent(void) {\n"
     << "  if (!" << n << "_nb.bound)\n    return " << tr.errUnbound << ";\n"
     << "  if (" << n << "_nb.pending)\n    return " << pending << ";\n"
     << fromBound << "  return " << n << "_nb_launch();\n}\n\n";
}

void detail::emitNonblockingRun(llvm::raw_ostream &os,
                                const OperationPlan &plan,
                                const HarnessTransport &htr,
                                const NonblockingTransport &tr) {
  const std::string &n = plan.name;
  bool typed = plan.isTranspose() || plan.isElementPermute();
  std::string T = n + "_elem_t";
  std::string dest =
      plan.runtimeDestinations() ? ", " + n + "_hdest(me)" : std::string();
  std::string args =
      typed ? "(const " + T + " *)s, (" + T + " *)r" + dest + htr.commArg
            : "s, r" + std::string(htr.commArg);
  std::string rank = htr.rankVar;
  std::string ok = tr.success;
  // Computation between start and wait: a recurrence whose value the
  // harness knows (so the compiler cannot drop it and a wrong interleaving
  // of the task's stack with the caller's shows), testing now and then.
  os << "  {\n"
     << "    /* The nonblocking forms, with computation between start and "
        "wait: once\n       started, once bound and started twice. */\n"
     << "    for (int round = 0; round < 3; ++round) {\n"
     << "      if (me >= 0) {\n"
     << "        phasec_poison(r, " << n << "_recv_bytes());\n"
     << "        " << n << "_fill(me, s);\n      }\n"
     << "      if (round == 1)\n"
     << "        bad += phasec_nb_status(" << n << "_init(" << args << "), \""
     << n << "_init\") != " << ok << ";\n"
     << "      if (phasec_nb_status(round == 0 ? " << n << "_start(" << args
     << ")\n                                   : " << n
     << "_start_persistent(),\n                           \"" << n
     << "_start\") != " << ok << ")\n        ++bad;\n"
     << "      if (" << n << "_start(" << args << ") != " << tr.errPending
     << ") {\n"
     << "        fprintf(stderr, \"" << n << ": " << rank
     << " %d: a second start while one is in flight was not refused\\n\", "
     << rank << ");\n"
     << "        ++bad;\n      }\n"
     << "      volatile uint64_t x = 1;\n"
     << "      int flag = 0;\n"
     << "      for (int k = 0; k < 4000; ++k) {\n"
     << "        x = x * 6364136223846793005ull + 1442695040888963407ull;\n"
     << "        if (k % 100 == 99 && !flag) {\n"
     << "          bad += phasec_nb_status(" << n << "_test(&flag), \"" << n
     << "_test\") != " << ok << ";\n        }\n      }\n"
     << "      bad += phasec_nb_status(" << n << "_wait(), \"" << n
     << "_wait\") != " << ok << ";\n"
     << "      if (x != phasec_nb_lcg(4000)) {\n"
     << "        fprintf(stderr, \"" << n << ": " << rank
     << " %d: the computation between start and wait went wrong\\n\", " << rank
     << ");\n"
     << "        ++bad;\n      }\n"
     << "      if (getenv(\"PHASEC_TEST_CORRUPT_NONBLOCKING\") && " << n
     << "_recv_bytes() > 0 && me >= 0)\n"
     << "        r[0] ^= 0x5a; /* tests of the checker */\n"
     << "      phasec_check_state nbst;\n"
     << "      phasec_check_init(&nbst, " << rank << ", round == 0 ? \"" << n
     << " (nonblocking)\" : \"" << n << " (persistent)\");\n"
     << "      if (me >= 0)\n        bad += " << n << "_check(me, r, &nbst);\n"
     << "    }\n  }\n";
}

void detail::emitNonblockingHarnessSupport(llvm::raw_ostream &os,
                                           const NonblockingTransport &tr) {
  os << "/* The value of the harness's computation between start and wait "
        "after k\n   steps (a linear congruential recurrence from 1). */\n"
     << "static inline uint64_t phasec_nb_lcg(int k) {\n"
     << "  uint64_t x = 1;\n  for (int i = 0; i < k; ++i)\n"
     << "    x = x * 6364136223846793005ull + 1442695040888963407ull;\n"
     << "  return x;\n}\n\n"
     << "/* A nonblocking form's status: " << tr.success
     << ", else said with the function's name. */\n"
     << "static inline int phasec_nb_status(int rc, const char *what) {\n"
     << "  if (rc != " << tr.success << ")\n"
     << "    fprintf(stderr, \"%s returned %d\\n\", what, rc);\n"
     << "  return rc;\n}\n\n";
}
