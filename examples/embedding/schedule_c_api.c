/*===- schedule_c_api.c - phasec from C -----------------------------------===*\
|*                                                                            *|
|* Part of phasec (examples/embedding; docs/embedding.md).                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 *   schedule-c-api [--pass-pipeline=PIPELINE] [--algorithm=NAME]
 *                  [--solver-rlimit=N] FILE.sched OUT.json OUT.c [OUT.h]
 *
 * Imports FILE.sched through phasec's C API, schedules it (the C API's
 * phasecRunSchedulingPipeline, or MLIR's C pass manager on a textual
 * pipeline such as "builtin.module(comm-schedule-pipeline)"), prints every
 * operation's schedule against its proven bound and the first phase of the
 * first operation, and writes the schedule JSON, the MPI C and (given OUT.h)
 * the C's header. Diagnostics go
 * through a handler attached to the MLIR context. Exit status: 0, 1 (an
 * error in the input), 2 (usage), 3 (a solver budget ran out).
 */
#include "phasec-c/Phasec.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints MLIR's text pieces to a FILE. */
static void printToFile(MlirStringRef text, void *userData) {
  fwrite(text.data, 1, text.length, (FILE *)userData);
}

/* `loc("file.sched":2:22): error: message`, as the diagnostics arrive. */
static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  static const char *const severities[] = {"error", "warning", "note",
                                           "remark"};
  mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), printToFile,
                    stderr);
  fprintf(stderr, ": %s: ",
          severities[mlirDiagnosticGetSeverity(diagnostic)]);
  mlirDiagnosticPrint(diagnostic, printToFile, stderr);
  fputc('\n', stderr);
  return mlirLogicalResultSuccess();
}

static char *readFile(const char *path, size_t *length) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = (char *)malloc((size_t)size + 1);
  if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    text = NULL;
  }
  fclose(f);
  if (text)
    *length = (size_t)size;
  return text;
}

static int writeTranslation(MlirModule module, PhasecTranslation translation,
                            const char *path) {
  FILE *out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "schedule-c-api: error: cannot write %s\n", path);
    return 1;
  }
  MlirLogicalResult result =
      phasecTranslateModule(module, translation, false, printToFile, out);
  fclose(out);
  if (mlirLogicalResultIsFailure(result)) {
    remove(path);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *pipeline = NULL, *algorithm = NULL;
  unsigned long long rlimit = 0;
  int arg = 1;
  for (; arg < argc && strncmp(argv[arg], "--", 2) == 0; ++arg) {
    if (strncmp(argv[arg], "--pass-pipeline=", 16) == 0)
      pipeline = argv[arg] + 16;
    else if (strncmp(argv[arg], "--algorithm=", 12) == 0)
      algorithm = argv[arg] + 12;
    else if (strncmp(argv[arg], "--solver-rlimit=", 16) == 0)
      rlimit = strtoull(argv[arg] + 16, NULL, 10);
    else
      break;
  }
  if (argc - arg != 3 && argc - arg != 4) {
    fprintf(stderr, "usage: schedule-c-api [--pass-pipeline=P] "
                    "[--algorithm=NAME] [--solver-rlimit=N] FILE.sched "
                    "OUT.json OUT.c [OUT.h]\n");
    return 2;
  }
  const char *input = argv[arg], *jsonPath = argv[arg + 1],
             *cPath = argv[arg + 2],
             *hPath = argc - arg == 4 ? argv[arg + 3] : NULL;
  size_t length = 0;
  char *source = readFile(input, &length);
  if (!source) {
    fprintf(stderr, "schedule-c-api: error: cannot read %s\n", input);
    return 1;
  }

  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  phasecRegisterDialects(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);

  int status = 1;
  MlirModule module =
      phasecImportSched(context, mlirStringRefCreate(source, length),
                        mlirStringRefCreateFromCString(input));
  free(source);
  if (mlirModuleIsNull(module))
    goto done;

  MlirLogicalResult scheduled;
  if (pipeline) {
    /* MLIR's own pass manager on a textual pipeline. */
    phasecRegisterPasses();
    MlirPassManager pm = mlirPassManagerCreate(context);
    scheduled = mlirParsePassPipeline(
        mlirPassManagerGetAsOpPassManager(pm),
        mlirStringRefCreateFromCString(pipeline), printToFile, stderr);
    if (mlirLogicalResultIsSuccess(scheduled))
      scheduled = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
    else
      fputc('\n', stderr);
    mlirPassManagerDestroy(pm);
  } else {
    PhasecSchedulingOptions options = phasecSchedulingOptionsGetDefault();
    if (algorithm)
      options.algorithm = mlirStringRefCreateFromCString(algorithm);
    options.solverRlimit = rlimit;
    scheduled = phasecRunSchedulingPipeline(module, options);
  }
  if (mlirLogicalResultIsFailure(scheduled)) {
    if (phasecModuleSolverBudgetExhausted(module))
      status = 3;
    goto destroy;
  }

  PhasecSchedules schedules = phasecSchedulesCreate(module);
  if (phasecSchedulesIsNull(schedules))
    goto destroy;
  for (intptr_t i = 0; i < phasecSchedulesGetNumOperations(schedules); ++i) {
    PhasecScheduledOperation op = phasecSchedulesGetOperation(schedules, i);
    printf("%.*s (%.*s): %.*s, %ld phases, %ld transfers, time %.6e s, "
           "bound %.6e s, gap %.3f%s%s\n",
           (int)op.name.length, op.name.data, (int)op.kind.length,
           op.kind.data, (int)op.algorithm.length, op.algorithm.data,
           (long)op.numPhases, (long)op.numTransfers, op.time, op.bound,
           op.gap, op.timeOptimal ? ", time-optimal" : "",
           op.handWritten ? ", hand-written" : "");
  }
  if (phasecSchedulesGetNumOperations(schedules) > 0) {
    printf("phase 0:");
    for (intptr_t t = 0; t < phasecSchedulesGetNumTransfers(schedules, 0, 0);
         ++t) {
      PhasecTransfer tr = phasecSchedulesGetTransfer(schedules, 0, 0, t);
      printf(" %lld->%lld:%lld", (long long)tr.source,
             (long long)tr.destination, (long long)tr.bytes);
    }
    printf("\n");
  }
  phasecSchedulesDestroy(schedules);

  if (writeTranslation(module, PhasecTranslationScheduleJSON, jsonPath) == 0 &&
      writeTranslation(module, PhasecTranslationMPI, cPath) == 0 &&
      (!hPath ||
       writeTranslation(module, PhasecTranslationMPIHeader, hPath) == 0))
    status = 0;

destroy:
  mlirModuleDestroy(module);
done:
  mlirContextDestroy(context);
  return status;
}
