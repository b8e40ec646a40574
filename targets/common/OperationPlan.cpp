//===- OperationPlan.cpp - Building plans from verified schedules ---------===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
//
// Maps a verified Schedule (global ranks) onto the members of the
// operation's group, gives every transfer its byte offset inside the data
// its pair owes (transfers of a pair may be split over several phases), and
// recognises phases whose peers follow a formula (shift, xor), so that the
// generators can emit `peer = (me + k) % P` instead of tables.
//
//===----------------------------------------------------------------------===//

#include "phasec/Target/OperationPlan.h"

#include "Translations.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include "llvm/ADT/StringSwitch.h"

#include <algorithm>

using namespace phasec;
using namespace phasec::target;

ElementCType phasec::target::getElementCType(ElementType type) {
  using ET = ElementType;
  auto make = [&](const char *name, const char *cType) {
    return ElementCType{name, cType, elementTypeBytes(type)};
  };
  switch (type) {
  case ET::Int8:
    return make("i8", "int8_t");
  case ET::UInt8:
    return make("u8", "uint8_t");
  case ET::Int16:
    return make("i16", "int16_t");
  case ET::UInt16:
    return make("u16", "uint16_t");
  case ET::Int32:
    return make("i32", "int32_t");
  case ET::UInt32:
    return make("u32", "uint32_t");
  case ET::Int64:
    return make("i64", "int64_t");
  case ET::UInt64:
    return make("u64", "uint64_t");
  case ET::F32:
    return make("f32", "float");
  case ET::F64:
    return make("f64", "double");
  case ET::Complex64:
    return make("c64", "phasec_c64_t");
  case ET::Complex128:
    return make("c128", "phasec_c128_t");
  }
  llvm_unreachable("unknown element type");
}

bool phasec::target::isSymbolPrefix(llvm::StringRef prefix) {
  return !prefix.empty() && !llvm::isDigit(prefix.front()) &&
         llvm::all_of(prefix,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

llvm::FailureOr<ElementCType>
phasec::target::parseElementType(llvm::StringRef name, std::string &error) {
  // The short names the generated code uses, the vocabulary's spellings
  // (int8 .. complex128, as in .sched files) and a few C-ish aliases.
  for (uint32_t i = 0; i <= getMaxEnumValForElementType(); ++i) {
    std::optional<ElementType> type = symbolizeElementType(i);
    if (!type)
      continue;
    ElementCType ctype = getElementCType(*type);
    if (name == ctype.name || name == stringifyElementType(*type))
      return ctype;
  }
  std::optional<ElementType> alias =
      llvm::StringSwitch<std::optional<ElementType>>(name)
          .Case("byte", ElementType::UInt8)
          .Cases("float", "float32", ElementType::F32)
          .Cases("double", "float64", ElementType::F64)
          .Default(std::nullopt);
  if (alias)
    return getElementCType(*alias);
  error = "unknown element type '" + name.str() +
          "' (expected i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, c64 "
          "or c128)";
  return llvm::failure();
}

int64_t OperationPlan::demand(int32_t src, int32_t dst) const {
  if (src == dst)
    return 0;
  return demands.lookup(group[src], group[dst]);
}

static bool isCIdentifier(llvm::StringRef s) {
  if (s.empty() || !(isalpha(s[0]) || s[0] == '_'))
    return false;
  return llvm::all_of(s, [](char c) { return isalnum(c) || c == '_'; });
}

bool phasec::target::isTakenCName(llvm::StringRef name) {
  // C's keywords, and what the generated files declare or call at file
  // scope: an operation of that name would not compile.
  static const char *const taken[] = {
      "auto", "break", "case", "char", "const", "continue", "default", "do",
      "double", "else", "enum", "extern", "float", "for", "goto", "if",
      "inline", "int", "long", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
      "unsigned", "void", "volatile", "while", "_Bool", "_Complex", "_Alignas",
      "_Alignof", "_Atomic", "_Generic", "_Noreturn", "_Static_assert",
      "_Thread_local", "_Imaginary", "main", "free", "malloc", "calloc",
      "memcpy", "memset", "memcmp", "printf", "fprintf", "getenv", "exit",
      "abort", "strcmp", "atoi", "strtol", "stderr", "stdout", "snprintf",
      "qsort", "phasec_program", "phasec_program_t", "phasec_finalize",
      // The rest of what <stdio.h>, <stdlib.h> and <string.h> declare that
      // a step's C function could be named by mistake.
      "memmove", "memchr", "strlen", "strcpy", "strncpy", "strcat", "strncat",
      "strncmp", "strchr", "strrchr", "strstr", "strtok", "strdup", "strerror",
      "puts", "fputs", "fopen", "fclose", "fwrite", "fread", "fflush",
      "sprintf", "vprintf", "vfprintf", "vsnprintf", "sscanf", "scanf",
      "fscanf", "perror", "realloc", "bsearch", "rand", "srand", "atol",
      "atoll", "atof", "strtoul", "strtoll", "strtoull", "strtod", "abs",
      "labs", "llabs", "div", "system", "atexit", "_Exit", "getchar", "putchar",
      "fgetc", "fputc", "getc", "putc", "remove", "rename", "tmpfile",
      "aligned_alloc", "stdin"};
  return llvm::is_contained(taken, name);
}

llvm::LogicalResult phasec::target::checkOperationName(llvm::StringRef name,
                                                       std::string &error,
                                                       llvm::StringRef what) {
  if (!isCIdentifier(name)) {
    error = what.str() + " '" + name.str() + "' is not a C identifier";
    return llvm::failure();
  }
  if (isTakenCName(name)) {
    error = what.str() + " '" + name.str() +
            "' is taken in the generated C (a keyword or a function it uses)";
    return llvm::failure();
  }
  // The harness's per-operation names (phasec_call_NAME, run_NAME), and
  // MPI's and OpenSHMEM's.
  for (llvm::StringRef prefix :
       {"phasec_call_", "run_", "MPI_", "PMPI_", "shmem_", "SHMEM_"})
    if (name.starts_with(prefix)) {
      error = what.str() + " '" + name.str() + "' starts with '" +
              prefix.str() + "', which the generated C or the library reserves";
      return llvm::failure();
    }
  return llvm::success();
}

llvm::FailureOr<OperationPlan> phasec::target::buildOperationPlan(
    llvm::StringRef name, const Collective &collective,
    const ElementCType &elem, const Schedule &schedule,
    const PlanOptions &options, std::string &error, const Topology *machine) {
  if (failed(checkOperationName(name, error)))
    return llvm::failure();
  // Relaying operations and barriers have plans of their own
  // (buildRelayPlan), local steps none.
  const CollectiveTraits &traits = getTraits(collective.kind);
  if (traits.relays || traits.family == CollectiveFamily::Dataless) {
    error = "the MPI and OpenSHMEM back ends do not support operation '" +
            stringifyCollectiveKind(collective.kind).str() + "'";
    return llvm::failure();
  }
  if (options.tile < 0) {
    error = "tile size must not be negative";
    return llvm::failure();
  }
  bool matrix = traits.shape == DataShape::Matrix;
  bool arrays =
      isArrayOperation(collective.kind, collective.isElementPermute());
  // Permutes lay out an array as slabs of rows, n/P elements per member in
  // row-major order: other layouts would move other elements. (Transposes
  // take either distribution on either side.)
  if (arrays && !matrix &&
      ((collective.from &&
        collective.from->distribution != Distribution::Rows) ||
       (collective.to && collective.to->distribution != Distribution::Rows))) {
    error = "not yet supported: generated code for a permute of arrays "
            "distributed by cols";
    return llvm::failure();
  }
  if (arrays && collective.from->elementBytes != elem.size) {
    error = "the element type " + elem.name + " has " +
            std::to_string(elem.size) + " bytes, the array's elements " +
            std::to_string(collective.from->elementBytes);
    return llvm::failure();
  }
  llvm::FailureOr<TransferSet> demands = collective.lower(error);
  if (failed(demands))
    return llvm::failure();

  OperationPlan plan;
  plan.name = name.str();
  // C^3's one-to-all and all-to-one are personalized (seed 003): the
  // generated code is a scatter's and a gather's.
  plan.kind = traits.generatedAs;
  plan.elementLevel = collective.isElementPermute();
  plan.elem = elem;
  plan.group = collective.group;
  plan.blockBytes = arrays ? elem.size : collective.blockBytes;
  plan.sizes = collective.sizes;
  if (matrix) {
    plan.n = collective.from->shape[0];
    plan.cols = collective.from->shape[1];
    plan.fromDist = collective.from->distribution;
    plan.toDist = collective.to ? collective.to->distribution
                                : collective.from->distribution;
  } else if (plan.elementLevel) {
    plan.n = collective.from->numElements();
  }
  plan.permSpec = collective.permutation;
  // A PAPERS reduction gathered and evaluated locally keeps its operator.
  plan.reduceOp = collective.reduceOp;
  plan.demands = std::move(*demands);
  plan.options = options;
  // A local transpose moves nothing between members: no packing, no
  // deposit, just the member's own transposing copy.
  if (plan.localTranspose())
    plan.options.style = TransferStyle::Chained;
  plan.schedule = schedule;
  int64_t p = plan.numMembers();

  llvm::DenseMap<RankId, int32_t> member;
  for (auto [i, r] : llvm::enumerate(plan.group))
    member[r] = static_cast<int32_t>(i);
  if (collective.root >= 0) {
    auto it = member.find(collective.root);
    if (it == member.end()) {
      error = "root " + std::to_string(collective.root) +
              " is not in the group";
      return llvm::failure();
    }
    plan.root = it->second;
  }
  if (plan.runtimeDestinations()) {
    plan.pairBytes = collective.runtimePairBytes();
    // The generated code counts in ints what MPI counts (bytes of one
    // message), and one member may send all of its elements to one peer.
    // Elements, or their 4-byte positions, whichever is wider.
    int64_t perMember = plan.n / std::max<int64_t>(1, p);
    if (perMember > INT32_MAX / std::max<int64_t>(elem.size, 4)) {
      error = "a permute with run-time destinations of " +
              std::to_string(plan.n / std::max<int64_t>(1, p)) +
              " elements per member may send more than 2^31 - 1 bytes in "
              "one message";
      return llvm::failure();
    }
  } else if (traits.shape == DataShape::Permutation) {
    llvm::FailureOr<llvm::ArrayRef<int64_t>> perm =
        collective.getPermutation(error);
    if (failed(perm))
      return llvm::failure();
    plan.perm.assign(perm->begin(), perm->end());
  }

  // Phases held by rule stay so where the plan can keep them (tables by
  // rule); otherwise they are listed.
  if (schedule.hasRules()) {
    if (!machine) {
      error = "the schedule holds phases by rule, but no machine was given "
              "to list them";
      return llvm::failure();
    }
    llvm::FailureOr<bool> byRule =
        detail::planByRule(plan, schedule, *machine, error);
    if (failed(byRule))
      return llvm::failure();
    if (*byRule)
      return plan;
    Schedule listed = schedule;
    expandRules(*machine, listed);
    return buildOperationPlan(name, collective, elem, listed, options, error);
  }
  // Group-index transfers with their offsets inside their pair's data.
  llvm::DenseMap<std::pair<int32_t, int32_t>, int64_t> delivered;
  bool elementWise = arrays;
  for (auto [pi, phase] : llvm::enumerate(schedule.phases)) {
    PlannedPhase planned;
    for (const Transfer &t : phase.transfers) {
      auto s = member.find(t.src), d = member.find(t.dst);
      if (s == member.end() || d == member.end()) {
        error = "schedule phase " + std::to_string(pi) + " moves data from " +
                std::to_string(t.src) + " to " + std::to_string(t.dst) +
                ", outside the operation's group";
        return llvm::failure();
      }
      int64_t owed = plan.demand(s->second, d->second);
      int64_t &done = delivered[{s->second, d->second}];
      if (t.bytes <= 0 || done + t.bytes > owed) {
        error = "schedule phase " + std::to_string(pi) + " sends " +
                std::to_string(t.bytes) + " bytes from " +
                std::to_string(t.src) + " to " + std::to_string(t.dst) +
                " but the operation owes " + std::to_string(owed - done) +
                " more";
        return llvm::failure();
      }
      if (elementWise && (done % elem.size || t.bytes % elem.size)) {
        error = "schedule phase " + std::to_string(pi) + " splits the " +
                std::to_string(owed) + " bytes from " + std::to_string(t.src) +
                " to " + std::to_string(t.dst) +
                " inside an element of " + std::to_string(elem.size) +
                " bytes";
        return llvm::failure();
      }
      planned.transfers.push_back({s->second, d->second, done, t.bytes});
      done += t.bytes;
    }
    if (planned.transfers.empty())
      continue;
    // Stagger: by source, then by distance, so that a member's several
    // transfers of one phase start at different peers.
    llvm::sort(planned.transfers,
               [p](const PlannedTransfer &a, const PlannedTransfer &b) {
                 int64_t da = (a.dst - a.src + p) % p,
                         db = (b.dst - b.src + p) % p;
                 return std::tie(a.src, da, a.offset) <
                        std::tie(b.src, db, b.offset);
               });
    plan.phases.push_back(std::move(planned));
  }
  for (int32_t s = 0; s < p; ++s)
    for (int32_t d = 0; d < p; ++d) {
      int64_t owed = plan.demand(s, d);
      auto it = delivered.find({s, d});
      int64_t got = it == delivered.end() ? 0 : it->second;
      if (got != owed) {
        error = "the schedule delivers " + std::to_string(got) +
                " of the " + std::to_string(owed) + " bytes rank " +
                std::to_string(plan.group[s]) + " owes rank " +
                std::to_string(plan.group[d]);
        return llvm::failure();
      }
    }

  // Phase formulas.
  bool powerOfTwo = p > 0 && (p & (p - 1)) == 0;
  std::vector<int64_t> shiftK(plan.phases.size(), 0),
      xorK(plan.phases.size(), 0);
  for (PlannedPhase &ph : plan.phases) {
    if (static_cast<int64_t>(ph.transfers.size()) != p)
      continue;
    bool full = llvm::all_of(ph.transfers, [&](const PlannedTransfer &t) {
      return t.offset == 0 && t.bytes == plan.demand(t.src, t.dst);
    });
    std::vector<bool> seen(p, false);
    bool distinct = true;
    for (const PlannedTransfer &t : ph.transfers) {
      distinct = distinct && !seen[t.src];
      seen[t.src] = true;
    }
    if (!full || !distinct)
      continue;
    // A phase can be both (a shift by P/2 is also an xor with P/2 when P
    // is a power of two); record both and pick one family for all phases.
    int64_t k = (ph.transfers[0].dst - ph.transfers[0].src + p) % p;
    if (llvm::all_of(ph.transfers, [&](const PlannedTransfer &t) {
          return (t.dst - t.src + p) % p == k;
        }))
      shiftK[&ph - plan.phases.data()] = k;
    int64_t x = ph.transfers[0].dst ^ ph.transfers[0].src;
    if (powerOfTwo && llvm::all_of(ph.transfers, [&](const PlannedTransfer &t) {
          return (t.dst ^ t.src) == x;
        }))
      xorK[&ph - plan.phases.data()] = x;
  }
  bool allShift = llvm::all_of(shiftK, [](int64_t k) { return k > 0; });
  bool allXor = llvm::all_of(xorK, [](int64_t k) { return k > 0; });
  for (auto [j, ph] : llvm::enumerate(plan.phases)) {
    if (allShift) {
      ph.formula = PhaseFormula::Shift;
      ph.k = shiftK[j];
    } else if (allXor) {
      ph.formula = PhaseFormula::Xor;
      ph.k = xorK[j];
    } else if (shiftK[j] > 0) {
      ph.formula = PhaseFormula::Shift;
      ph.k = shiftK[j];
    } else if (xorK[j] > 0) {
      ph.formula = PhaseFormula::Xor;
      ph.k = xorK[j];
    }
  }
  bool uniform = plan.everyPairExchanges() || plan.runtimeDestinations();
  if (options.formulas && uniform && !plan.phases.empty()) {
    PhaseFormula f = plan.phases[0].formula;
    plan.useFormulas =
        f != PhaseFormula::Table &&
        llvm::all_of(plan.phases,
                     [&](const PlannedPhase &ph) { return ph.formula == f; });
    if (plan.useFormulas) {
      plan.consecutiveFormula = true;
      for (auto [j, ph] : llvm::enumerate(plan.phases))
        plan.consecutiveFormula =
            plan.consecutiveFormula && ph.k == static_cast<int64_t>(j) + 1;
    }
  }
  if (options.translations)
    detail::findTableTranslations(plan);
  return plan;
}
