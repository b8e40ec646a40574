//===- RelayC.cpp - C for relaying schedules (MPI and OpenSHMEM) ----------===//
//
// Part of phasec. MLIR-free.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The code of a relaying operation (broadcast, reductions, scans, trees,
/// Bruck): every member keeps a work space of the collective's C chunks;
/// the function copies its input in, runs the schedule phase by phase and
/// copies its output out. A phase reads the work space as it was when the
/// phase started and changes it when the phase ends, exactly as the chunk
/// replay (Problem::verify) and the schedule JSON /2 spec say: incoming
/// chunks land in a receive scratch, and once everything has arrived the
/// copies are applied, then the reductions (typed, with the operator).
///
/// One text for both transports (Transport.h): a phase sends each transfer
/// straight from the work space (a single run of chunks) or from a packed
/// send scratch into the receiver's scratch, and applies it once
/// delivered. MPI posts the receives first and completes them (Waitall);
/// OpenSHMEM puts into the receiver's symmetric scratch (two, alternating,
/// so a phase's puts never land in what the receiver is still applying)
/// and knows them delivered after quiet + barrier.
///
/// Buffers of the generated `NAME(sendbuf, recvbuf[, comm])`, per member
/// (P members, B = the member block, D = all C chunks):
///   broadcast: root's sendbuf D -> every recvbuf D;
///   reduce, allreduce, scan, exscan: sendbuf D -> recvbuf D (reduce: the
///     root's; exscan: members > 0);
///   reduce_scatter: sendbuf D (P blocks) -> recvbuf block `me`;
///   scatter: root's sendbuf P blocks -> recvbuf B; gather, allgather:
///     sendbuf B -> recvbuf P blocks (gather: the root's);
///   alltoall: sendbuf P blocks -> recvbuf P blocks.
///
//===----------------------------------------------------------------------===//

#include "EmitC.h"
#include "Transport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <climits>

using namespace phasec;
using namespace phasec::target;
using namespace phasec::target::detail;

//===----------------------------------------------------------------------===//
// The plan
//===----------------------------------------------------------------------===//

/// The bytes of a run of chunks `u` (a C expression's prefix: "u->"), from
/// the chunk offsets.
static std::string runBytes(const std::string &n, llvm::StringRef u) {
  return "(" + n + "_OFF(" + u.str() + "chunk + " + u.str() + "count) - " + n +
         "_OFF(" + u.str() + "chunk))";
}

/// Where each member stages what it receives (`roff`) and packs what it
/// sends in more than one run (`soff`), and the scratch sizes: per step.
static void setRelayOffsets(OperationPlan &plan) {
  std::vector<int64_t> recvAt(plan.numMembers(), 0),
      sendAt(plan.numMembers(), 0);
  plan.relayRecvScratch = plan.relaySendScratch = 0;
  for (size_t s = 0; s < plan.numRelaySteps(); ++s) {
    std::fill(recvAt.begin(), recvAt.end(), 0);
    std::fill(sendAt.begin(), sendAt.end(), 0);
    for (int64_t j = plan.relaySteps[s]; j < plan.relaySteps[s + 1]; ++j)
      for (RelayTransfer &r : plan.relayPhases[j]) {
        r.roff = recvAt[r.dst];
        recvAt[r.dst] += r.bytes;
        r.soff = 0;
        if (r.runs.size() > 1) {
          r.soff = sendAt[r.src];
          sendAt[r.src] += r.bytes;
        }
      }
    plan.relayRecvScratch = std::max(
        plan.relayRecvScratch, *std::max_element(recvAt.begin(), recvAt.end()));
    plan.relaySendScratch = std::max(
        plan.relaySendScratch, *std::max_element(sendAt.begin(), sendAt.end()));
  }
}

llvm::FailureOr<OperationPlan> phasec::target::buildRelayPlan(
    llvm::StringRef name, const Collective &collective, const ChunkSpec &chunks,
    const Schedule &schedule, const PlanOptions &options, std::string &error) {
  if (failed(checkOperationName(name, error)))
    return llvm::failure();
  OperationPlan plan;
  plan.name = name.str();
  // The chunk table's kind: one_to_all and all_to_one are a scatter and a
  // gather.
  plan.kind = chunks.kind;
  plan.group = collective.group;
  plan.relaying = true;
  plan.chunks = chunks;
  plan.reduceOp = collective.reduceOp;
  plan.options = options;
  plan.schedule = schedule;
  if (collective.elementType)
    plan.elem = getElementCType(*collective.elementType);
  if (chunks.group != collective.group) {
    error = "the schedule's chunks belong to another group";
    return llvm::failure();
  }
  if (chunks.root >= 0)
    plan.root = static_cast<int32_t>(collective.memberOf(chunks.root));
  plan.blockBytes = chunks.offsetOfChunk(chunks.chunksPerMember());
  for (int64_t c = 0; c < chunks.numChunks; ++c)
    if (chunks.sizeOfChunk(c) % plan.elem.size) {
      error = "chunks of " + std::to_string(chunks.sizeOfChunk(c)) +
              " bytes split elements of " + std::to_string(plan.elem.size);
      return llvm::failure();
    }
  // Without sync, steps; else phase after phase.
  if (options.sync == SyncKind::None) {
    for (size_t j : relaySteps(schedule))
      plan.relaySteps.push_back(static_cast<int64_t>(j));
  } else {
    for (size_t j = 0; j <= schedule.phases.size(); ++j)
      plan.relaySteps.push_back(static_cast<int64_t>(j));
  }
  for (const Phase &phase : schedule.phases) {
    std::vector<RelayTransfer> &out = plan.relayPhases.emplace_back();
    // In the order the sends are posted (sendOrder).
    for (size_t i : sendOrder(phase, collective.group)) {
      const Transfer &t = phase.transfers[i];
      int64_t s = collective.memberOf(t.src), d = collective.memberOf(t.dst);
      if (s < 0 || d < 0 || i >= phase.chunks.size()) {
        error = "a transfer of the schedule (" + std::to_string(t.src) +
                " -> " + std::to_string(t.dst) +
                ") leaves the group or carries no chunks; the back ends relay "
                "only through members";
        return llvm::failure();
      }
      RelayTransfer r;
      r.src = static_cast<int32_t>(s);
      r.dst = static_cast<int32_t>(d);
      r.reduce = phase.chunks[i].reduce;
      r.bytes = t.bytes;
      for (int64_t c : phase.chunks[i].ids) {
        if (!r.runs.empty() && r.runs.back().first + r.runs.back().second == c)
          ++r.runs.back().second;
        else
          r.runs.push_back({c, 1});
      }
      out.push_back(std::move(r));
    }
  }
  setRelayOffsets(plan);
  return plan;
}

//===----------------------------------------------------------------------===//
// Shared C
//===----------------------------------------------------------------------===//

static bool isComplex(const ElementCType &e) {
  return e.name == "c64" || e.name == "c128";
}
static bool isFloat(const ElementCType &e) {
  return e.name == "f32" || e.name == "f64";
}
static bool isSigned(const ElementCType &e) {
  return e.name.size() > 1 && e.name[0] == 'i';
}

/// `d = d OP s` for one element of the plan's type, as a C statement.
static std::string combineStatement(const OperationPlan &plan) {
  if (isComplex(plan.elem)) {
    if (plan.reduceOp == ReduceKind::Mul)
      return "{ const double re = d[i].re * s[i].re - d[i].im * s[i].im;\n"
             "      d[i].im = d[i].re * s[i].im + d[i].im * s[i].re; "
             "d[i].re = re; }";
    return "{ d[i].re += s[i].re; d[i].im += s[i].im; }";
  }
  return combineScalars(plan.reduceOp, "d[i]", "s[i]");
}

std::string detail::combineScalars(ReduceKind op, llvm::StringRef acc,
                                   llvm::StringRef x) {
  std::string a = acc.str(), v = x.str();
  switch (op) {
  case ReduceKind::Add:
    return a + " = " + a + " + " + v + ";";
  case ReduceKind::Mul:
    return a + " = " + a + " * " + v + ";";
  case ReduceKind::Min:
    return a + " = " + v + " < " + a + " ? " + v + " : " + a + ";";
  case ReduceKind::Max:
    return a + " = " + v + " > " + a + " ? " + v + " : " + a + ";";
  case ReduceKind::And:
    return a + " = " + a + " & " + v + ";";
  case ReduceKind::Or:
    return a + " = " + a + " | " + v + ";";
  case ReduceKind::Xor:
    return a + " = " + a + " ^ " + v + ";";
  }
  llvm_unreachable("unknown reduction");
}

/// The condition (with " && ", or empty) under which member `me` holds
/// `side`'s data (its input, or its result).
static std::string holdsResult(const OperationPlan &plan, DataSide side) {
  switch (side.holders) {
  case DataHolders::Every:
    return "";
  case DataHolders::Root:
    return "me == " + plan.name + "_ROOT && ";
  case DataHolders::AllButFirst:
    return "me > 0 && ";
  }
  llvm_unreachable("unknown data holders");
}

void detail::emitRelayCommon(llvm::raw_ostream &os, const OperationPlan &plan) {
  const std::string &n = plan.name;
  const ChunkSpec &c = plan.chunks;
  int64_t maxReq = 1, transfers = 0;
  std::vector<int64_t> req(plan.numMembers(), 0);
  for (size_t s = 0; s < plan.numRelaySteps(); ++s) {
    std::fill(req.begin(), req.end(), 0);
    for (int64_t j = plan.relaySteps[s]; j < plan.relaySteps[s + 1]; ++j)
      for (const RelayTransfer &t : plan.relayPhases[j]) {
        ++req[t.src];
        ++req[t.dst];
        ++transfers;
      }
    maxReq = std::max(maxReq, *std::max_element(req.begin(), req.end()));
  }
  const char *per = "per step";
  os << "/*===---- " << n << ": " << stringifyCollectiveKind(plan.kind)
     << ", relayed (" << plan.schedule.algorithm << "), " << plan.numMembers()
     << " members, " << c.numChunks << " chunks of " << c.describeChunkBytes()
     << " bytes, " << plan.relayPhases.size() << " phases ----===*/\n"
     << "#define " << n << "_P " << plan.numMembers() << "\n"
     << "#define " << n << "_C " << c.numChunks << "\n"
     << "#define " << n << "_CB ((size_t)" << c.chunkBytes << ")\n"
     << "#define " << n << "_K " << c.chunksPerMember()
     << " /* chunks per member block */\n"
     << "#define " << n << "_ROOT " << std::max<int32_t>(plan.root, 0) << "\n"
     << "#define " << n << "_NPHASES " << plan.relayPhases.size() << "\n"
     << "#define " << n << "_NSTEPS " << plan.numRelaySteps()
     << " /* posted at once, then applied */\n"
     << "#define " << n << "_RSCR ((size_t)" << plan.relayRecvScratch
     << ") /* receive scratch " << per << " */\n"
     << "#define " << n << "_SSCR ((size_t)" << plan.relaySendScratch
     << ") /* send packing scratch " << per << " */\n"
     << "#define " << n << "_MAXREQ " << maxReq << "\n"
     << "typedef " << plan.elem.cType << " " << n << "_elem_t;\n";
  // Where chunk c starts in the work space: c chunks of _CB bytes, or, where
  // the data did not divide evenly (_CB is then 0), a table.
  if (c.chunkSizes.empty()) {
    os << "#define " << n << "_OFF(c) ((size_t)(c) * " << n << "_CB)\n\n";
  } else {
    os << "static const size_t " << n << "_off[" << n << "_C + 1] = {";
    for (int64_t i = 0; i <= c.numChunks; ++i)
      os << (i ? "," : "") << (i % 12 ? " " : "\n  ") << c.offsetOfChunk(i);
    os << "\n};\n#define " << n << "_OFF(c) (" << n << "_off[c])\n\n";
  }
  // Member m's block (its K chunks; a v-collective's differ in size).
  std::vector<int64_t> blocks = c.blockBytesByMember();
  int64_t largest = blocks.empty() ? 0 : *llvm::max_element(blocks);
  os << "#define " << n << "_BLK(m) " << n << "_OFF((size_t)(m) * " << n
     << "_K)\n"
     << "#define " << n << "_BLEN(m) (" << n << "_BLK((m) + 1) - " << n
     << "_BLK(m))\n"
     << "#define " << n << "_BMAX ((size_t)" << largest
     << ") /* the largest block */\n\n";
  emitMemberMap(os, plan);
  os << "#ifndef PHASEC_RELAY_TYPES\n#define PHASEC_RELAY_TYPES\n"
     << "/* One transfer of a relaying schedule (member indices): runs "
        "[run0, run0 + nruns)\n   of chunks, staged at byte roff of the "
        "receiver's scratch, packed at soff of\n   the sender's. */\n"
     << "typedef struct {\n  int32_t src, dst, reduce, nruns;\n"
     << "  int64_t run0, roff, soff, bytes;\n} phasec_relay_xfer_t;\n"
     << "typedef struct {\n  int64_t chunk, count;\n} phasec_relay_run_t;\n"
     << "#endif\n\n";
  // Tables: transfers in phase order, the phase starts, the runs.
  os << "static const phasec_relay_xfer_t " << n << "_xf["
     << std::max<int64_t>(transfers, 1) << "] = {";
  int64_t run = 0, k = 0;
  std::vector<int64_t> starts{0};
  std::string runs;
  llvm::raw_string_ostream rs(runs);
  for (const auto &phase : plan.relayPhases) {
    for (const RelayTransfer &t : phase) {
      os << (k++ % 2 ? " " : "\n  ") << "{" << t.src << ", " << t.dst << ", "
         << (t.reduce ? 1 : 0) << ", " << t.runs.size() << ", " << run << ", "
         << t.roff << ", " << t.soff << ", " << t.bytes << "},";
      for (auto [chunk, count] : t.runs)
        rs << (run++ % 6 ? " " : "\n  ") << "{" << chunk << ", " << count
           << "},";
    }
    starts.push_back(k);
  }
  if (!transfers)
    os << "{0, 0, 0, 0, 0, 0, 0, 0}";
  os << "\n};\nstatic const int64_t " << n << "_pstart[" << n
     << "_NPHASES + 1] = {";
  for (auto [i, s] : llvm::enumerate(starts))
    os << (i ? ", " : "") << s;
  os << "};\nstatic const int64_t " << n << "_sstart[" << n
     << "_NSTEPS + 1] = {";
  for (auto [i, s] : llvm::enumerate(plan.relaySteps))
    os << (i ? ", " : "") << s;
  os << "};\nstatic const phasec_relay_run_t " << n << "_runs["
     << std::max<int64_t>(run, 1) << "] = {" << (run ? runs : "{0, 0}")
     << "\n};\n\n";

  if (isReduction(plan.kind)) {
    os << "/* The reduction: d = d " << stringifyReduceKind(plan.reduceOp)
       << " s, element-wise. */\n"
       << "static void " << n
       << "_combine(void *dst, const void *src, size_t bytes) {\n"
       << "  " << n << "_elem_t *d = (" << n << "_elem_t *)dst;\n"
       << "  const " << n << "_elem_t *s = (const " << n << "_elem_t *)src;\n"
       << "  for (size_t i = 0; i < bytes / sizeof(" << n
       << "_elem_t); ++i)\n    " << combineStatement(plan) << "\n}\n\n";
  }

  // Applying a phase: copies first, then reductions (the replay's order).
  os << "/* Applies what member `me` received in phase j (staged in scr). */\n"
     << "static void " << n
     << "_apply(int me, int j, char *D, const char "
        "*scr) {\n"
     << "  for (int pass = 0; pass < 2; ++pass)\n"
     << "    for (int64_t t = " << n << "_pstart[j]; t < " << n
     << "_pstart[j + 1]; ++t) {\n"
     << "      const phasec_relay_xfer_t *x = &" << n << "_xf[t];\n"
     << "      if (x->dst != me || x->reduce != pass)\n        continue;\n"
     << "      const char *in = scr + x->roff;\n"
     << "      for (int32_t q = 0; q < x->nruns; ++q) {\n"
     << "        const phasec_relay_run_t *u = &" << n
     << "_runs[x->run0 + q];\n"
     << "        const size_t bytes = " << runBytes(n, "u->") << ";\n";
  if (isReduction(plan.kind))
    os << "        if (pass)\n          " << n << "_combine(D + " << n
       << "_OFF(u->chunk), in, bytes);\n"
       << "        else\n  ";
  os << "        memcpy(D + " << n << "_OFF(u->chunk), in, bytes);\n"
     << "        in += bytes;\n      }\n    }\n}\n\n";

  // Copy in and out of the work space.
  std::string all = n + "_OFF(" + n + "_C)";
  std::string block = n + "_OFF(" + n + "_K)";
  os << "/* The work space from the caller's input (copy in) and the output "
        "from it. */\n"
     << "static void " << n
     << "_enter(int me, const void *sendbuf, char *D) {\n  (void)me;\n";
  // Where the caller's data sits in the work space, as the traits say
  // (chunk c of C is the work space's c-th piece): a member's own block at
  // its place, alltoall's P blocks as the member's row, else the whole.
  const CollectiveTraits &traits = plan.traits();
  bool perPair = traits.chunkParts == ChunkParts::PerPair;
  if (traits.send.part == DataPart::Own)
    os << "  memcpy(D + " << n << "_BLK(me), sendbuf, " << n << "_BLEN(me));\n";
  else if (perPair)
    os << "  memcpy(D + (size_t)me * " << n << "_P * " << block
       << ", sendbuf, (size_t)" << n << "_P * " << block << ");\n";
  else
    os << "  if (" << holdsResult(plan, traits.send)
       << "D != (const char *)sendbuf)\n    memcpy(D, sendbuf, " << all
       << ");\n";
  os << "}\n\nstatic void " << n
     << "_leave(int me, const char *D, void *recvbuf) {\n  (void)me;\n"
     << "  char *r = (char *)recvbuf;\n";
  // The result: the member's own block, its column of alltoall's blocks,
  // else the whole work space (where the member holds a result).
  if (traits.recv.part == DataPart::Own)
    os << "  memcpy(r, D + " << n << "_BLK(me), " << n << "_BLEN(me));\n";
  else if (perPair)
    os << "  for (int i = 0; i < " << n << "_P; ++i)\n"
       << "    memcpy(r + (size_t)i * " << block << ", D + ((size_t)i * " << n
       << "_P + (size_t)me) * " << block << ", " << block << ");\n";
  else
    os << "  if (" << holdsResult(plan, traits.recv)
       << "r != D)\n    memcpy(r, D, " << all << ");\n";
  os << "}\n\n";
}

//===----------------------------------------------------------------------===//
// The operation, over one transport
//===----------------------------------------------------------------------===//

void detail::emitRelayFunction(llvm::raw_ostream &os, const OperationPlan &plan,
                               const CTransport &tr) {
  const std::string &n = plan.name;
  // Without barriers, a step must still end on the sender only when its
  // data has arrived: an eager MPI_Isend completes at once, so one rank's
  // sends of consecutive steps would share its injection port and delay
  // the chunks a later phase forwards (measured in SimGrid: a 4 KiB
  // scatter_allgather broadcast on a 4x4 torus took 222 us with MPI_Isend,
  // the root's first scatter message 96 us instead of 28). A synchronous
  // send completes when the receive matches it, which keeps every rank's
  // steps in order, as the cost model assumes. (One step: nothing to keep
  // in order.)
  bool synchronous =
      plan.options.sync != SyncKind::Barrier && plan.numRelaySteps() > 1;
  // A put may land while its receiver still applies the previous step:
  // one-sided transports alternate between two receive scratch areas.
  const char *areas = tr.oneSided ? "2 * " : "";
  if (tr.oneSided)
    os << "#define " << n << "_NBARRIERS (1 + " << n
       << "_NSTEPS) /* barriers per call, for PEs outside the group */\n"
       << "static inline size_t " << n << "_sym_bytes(void) { return 2 * " << n
       << "_RSCR + 64; }\n";
  os << "/* Allocated on the first call: the work space, the receive scratch"
     << (tr.oneSided ? " (symmetric,\n   two areas, alternating by step)" : "")
     << " and the send packing scratch. */\n"
     << "static char *" << n << "_D, *" << n << "_rscr, *" << n << "_sscr;\n"
     << "/* " << n << ": " << stringifyCollectiveKind(plan.kind)
     << " over the group.\n   " << tr.whoCalls << "\n"
     << describeBuffers(plan, tr.inPlace) << " */\n"
     << "int " << n << "(const void *sendbuf, void *recvbuf" << tr.commParam
     << ") {\n";
  std::string rscrBytes =
      std::string(areas) + n + "_RSCR + " + (tr.oneSided ? "64" : "1");
  tr.prologue(os, plan, [&] {
    os << "  if (!" << n << "_rscr)\n"
       << tr.symmetricAlloc("    ", n + "_rscr", "char", rscrBytes,
                            "receive scratch");
  });
  if (*tr.inPlace)
    os << "  if (sendbuf == " << tr.inPlace << ")\n    sendbuf = recvbuf;\n";
  os << "  if (!" << n << "_D)\n"
     << tr.alloc("    ", n + "_D", "char", n + "_OFF(" + n + "_C) + 1",
                 "work space");
  if (!tr.oneSided)
    os << "  if (!" << n << "_rscr)\n"
       << tr.alloc("    ", n + "_rscr", "char", rscrBytes, "receive scratch");
  os << "  if (!" << n << "_sscr)\n"
     << tr.alloc("    ", n + "_sscr", "char", n + "_SSCR + 1",
                 "packing scratch")
     << "  char *D = " << n << "_D, *rscr = " << n << "_rscr, *sscr = " << n
     << "_sscr;\n"
     << "  " << n << "_enter(me, sendbuf, D);\n";
  if (tr.requestType)
    os << "  " << tr.requestType << " req[" << n << "_MAXREQ];\n"
       << "  int nreq = 0;\n";
  // The receives (two-sided), then the sends, packing runs that are not
  // contiguous, of transfers [first, last) into the receivers' `scr`.
  auto post = [&](llvm::StringRef in, llvm::StringRef first,
                  llvm::StringRef last, bool synchronous) {
    std::string in2 = (in + "    ").str();
    if (tr.recv)
      os << in << "for (int64_t t = " << first << "; t < " << last
         << "; ++t) {\n"
         << in << "  const phasec_relay_xfer_t *x = &" << n << "_xf[t];\n"
         << in << "  if (x->dst == me)\n"
         << tr.recv(in2, plan, "scr + x->roff", "x->bytes", "x->src",
                    "PHASEC_TAG")
         << in << "}\n";
    os << in << "for (int64_t t = " << first << "; t < " << last << "; ++t) {\n"
       << in << "  const phasec_relay_xfer_t *x = &" << n << "_xf[t];\n"
       << in << "  if (x->src != me)\n"
       << in << "    continue;\n"
       << in << "  const phasec_relay_run_t *u = &" << n << "_runs[x->run0];\n"
       << in << "  const char *buf = D + " << n << "_OFF(u->chunk);\n"
       << in << "  if (x->nruns > 1) { /* pack the runs */\n"
       << in << "    char *p = sscr + x->soff;\n"
       << in << "    for (int32_t q = 0; q < x->nruns; ++q) {\n"
       << in << "      memcpy(p, D + " << n << "_OFF(u[q].chunk), "
       << runBytes(n, "u[q].") << ");\n"
       << in << "      p += " << runBytes(n, "u[q].") << ";\n"
       << in << "    }\n"
       << in << "    buf = sscr + x->soff;\n"
       << in << "  }\n"
       << tr.send((in + "  ").str(), plan, "buf", "scr + x->roff", "x->bytes",
                  "x->dst", "PHASEC_TAG", synchronous)
       << in << "}\n";
  };
  // Step by step: a step's messages at once, then its phases applied in
  // order (a step's sends read nothing it delivers: relaySteps).
  os << "  for (int s = 0; s < " << n << "_NSTEPS; ++s) {\n"
     << "    char *scr = rscr"
     << (tr.oneSided ? " + (size_t)(s % 2) * " + n + "_RSCR" : "") << ";\n";
  post("    ", n + "_pstart[" + n + "_sstart[s]]",
       n + "_pstart[" + n + "_sstart[s + 1]]", synchronous);
  // Applied once delivered: after the receives complete, or after the
  // barrier that tells a one-sided transport's puts delivered.
  os << emitDelivered(tr, "    ", plan) << "    for (int64_t j = " << n
     << "_sstart[s]; j < " << n << "_sstart[s + 1]; ++j)\n"
     << "      " << n << "_apply(me, (int)j, D, scr);\n";
  if (!tr.oneSided && plan.options.sync == SyncKind::Barrier)
    os << "    if (s + 1 < " << n << "_NSTEPS)\n"
       << tr.barrier("      ", plan, "congestion control");
  os << "  }\n  " << n << "_leave(me, D, recvbuf);\n"
     << "  return " << tr.success << ";\n}\n\n";
}

//===----------------------------------------------------------------------===//
// Harness helpers
//===----------------------------------------------------------------------===//

/// The value member m contributes at element i, as a C expression of the
/// element type: chosen so that every order of combining gives the same
/// bits (small integers for sums, units and powers of two for products),
/// so the check can demand exact equality with a serial evaluation.
std::string detail::reductionValueExpression(const OperationPlan &plan) {
  const ElementCType &e = plan.elem;
  std::string T = plan.name + "_elem_t";
  if (isComplex(e)) {
    if (plan.reduceOp == ReduceKind::Mul)
      return "(" + T +
             "){(double)((m + i) % 4 == 0) - (double)((m + i) % 4 == 2), "
             "(double)((m + i) % 4 == 1) - (double)((m + i) % 4 == 3)}";
    return "(" + T +
           "){(double)((m * 7 + i * 3) % 9 - 4), (double)((m * 3 + "
           "i) % 7 - 3)}";
  }
  switch (plan.reduceOp) {
  case ReduceKind::Add:
    if (isFloat(e) || isSigned(e))
      return "(" + T + ")((m * 7 + i * 3) % 9 - 4)";
    return "(" + T + ")(m * 37 + i * 11)";
  case ReduceKind::Mul:
    if (isFloat(e))
      return "(" + T +
             ")((m + i) % 3 == 0 ? 2.0 : (m + i) % 3 == 1 ? 0.5 : "
             "-1.0)";
    if (isSigned(e))
      return "(" + T + ")((m + i) % 3 == 0 ? -1 : 1)";
    return "(" + T + ")(m * 2 + i + 3)";
  case ReduceKind::Min:
  case ReduceKind::Max:
    if (isFloat(e) || isSigned(e))
      return "(" + T + ")((m * 13 + i * 7) % 101 - 50)";
    return "(" + T + ")(m * 13 + i * 7)";
  case ReduceKind::And:
  case ReduceKind::Or:
  case ReduceKind::Xor:
    return "(" + T +
           ")((0x9E3779B97F4A7C15ull * (uint64_t)(m * 1000003 + i + "
           "1)) >> 17)";
  }
  llvm_unreachable("unknown reduction");
}

void detail::emitRelayHarnessHelpers(llvm::raw_ostream &os,
                                     const OperationPlan &plan) {
  const std::string &n = plan.name;
  std::string all = n + "_OFF(" + n + "_C)";
  std::string block = n + "_OFF(" + n + "_K)";
  std::string sendBytes = all, recvBytes = all, size = all;
  // A member's block, alltoall's P blocks, else the whole work space; the
  // OSU size is one block where the data is cut per member.
  const CollectiveTraits &traits = plan.traits();
  bool perPair = traits.chunkParts == ChunkParts::PerPair;
  auto bytesOf = [&](DataPart part) {
    if (part == DataPart::Own)
      return n + "_BMAX";
    return perPair ? "(size_t)" + n + "_P * " + block : all;
  };
  sendBytes = bytesOf(traits.send.part);
  recvBytes = bytesOf(traits.recv.part);
  if (perPair)
    size = block;
  else if (traits.chunkParts == ChunkParts::PerMember)
    size = n + "_BMAX";
  os << "/* ---- " << n << ": harness helpers (fill, check, sizes) ---- */\n"
     << "static inline size_t " << n << "_send_bytes(void) { return "
     << sendBytes << "; }\n"
     << "static inline size_t " << n << "_recv_bytes(void) { return "
     << recvBytes << "; }\n"
     << "static inline size_t " << n << "_size(void) { return " << size
     << "; }\n"
     << "static inline size_t " << n << "_buffer_bytes(void) { return " << n
     << "_send_bytes() > " << n << "_recv_bytes() ? " << n
     << "_send_bytes() : " << n << "_recv_bytes(); }\n\n";

  if (!isReduction(plan.kind)) {
    // Blocks: byte i of member s's block for member d is
    // phasec_pattern_byte(s, d, i), d = P where every member gets it alike.
    os << "static inline void " << n << "_fill(int me, void *sendbuf) {\n"
       << "  char *s = (char *)sendbuf;\n  (void)s;\n";
    std::string ifRoot = "  if (me == " + n + "_ROOT)\n  ";
    if (traits.send.part == DataPart::Whole)
      os << "  if (me == " << n << "_ROOT)\n    phasec_fill(s, " << all
         << ", me, " << n << "_P, 0);\n";
    else if (traits.send.part == DataPart::PerMember)
      os << (traits.send.rootOnly() ? ifRoot : "") << "  for (int d = 0; d < "
         << n << "_P; ++d)\n"
         << "      phasec_fill(s + " << n << "_BLK(d), " << n
         << "_BLEN(d), me, d, 0);\n";
    else
      os << "  phasec_fill(s, " << n << "_BLEN(me), me, " << n << "_P, 0);\n";
    os << "}\n\nstatic inline uint64_t " << n
       << "_check(int me, const void *recvbuf, phasec_check_state *st) {\n"
       << "  const char *r = (const char *)recvbuf;\n  uint64_t bad = 0;\n"
       << "  (void)me;\n";
    // Whose data each received byte is: the root's where only the root
    // sends, else member s's block s (for this member, in an alltoall).
    if (traits.recv.part == DataPart::Whole)
      os << "  bad += phasec_check(st, \"block\", r, " << all << ", " << n
         << "_ROOT, " << n << "_P, 0, 0);\n";
    else if (traits.recv.part == DataPart::Own)
      os << "  bad += phasec_check(st, \"block\", r, " << n << "_BLEN(me), "
         << n << "_ROOT, me, 0, 0);\n";
    else if (perPair)
      os << "  for (int s = 0; s < " << n << "_P; ++s)\n"
         << "    bad += phasec_check(st, \"block\", r + (size_t)s * " << block
         << ", " << block << ", s, me, 0, (size_t)s * " << block << ");\n";
    else if (traits.recv.part == DataPart::PerMember)
      os << (traits.recv.rootOnly() ? ifRoot : "") << "  for (int s = 0; s < "
         << n << "_P; ++s)\n"
         << "      bad += phasec_check(st, \"block\", r + " << n << "_BLK(s), "
         << n << "_BLEN(s), s, " << n << "_P, 0, " << n << "_BLK(s));\n";
    else
      // No bytes: the runner counts arrivals instead (emitHarnessRunner).
      os << "  (void)r;\n  (void)st;\n";
    os << "  return bad;\n}\n\n";
    return;
  }

  // Reductions: typed values, checked against a serial fold in member order.
  std::string T = n + "_elem_t";
  os << "/* What member m contributes at element i (exact under every "
        "order). */\n"
     << "static inline " << T << " " << n << "_val(int64_t m, int64_t i) {\n"
     << "  return " << reductionValueExpression(plan) << ";\n}\n\n"
     << "#define " << n << "_ELEMS ((int64_t)(" << all << " / sizeof(" << T
     << ")))\n\n"
     << "static inline void " << n << "_fill(int me, void *sendbuf) {\n"
     << "  " << T << " *s = (" << T << " *)sendbuf;\n"
     << "  for (int64_t i = 0; i < " << n << "_ELEMS; ++i)\n"
     << "    s[i] = " << n << "_val(me, i);\n}\n\n";
  // Which elements member `me` checks, and over which members.
  std::string first = "0", count = n + "_ELEMS", upto = n + "_P", when = "1";
  if (traits.recv.rootOnly())
    when = "me == " + n + "_ROOT";
  if (traits.recv.part == DataPart::Own) {
    count = "(int64_t)(" + n + "_BLEN(me) / sizeof(" + T + "))";
    first = "(int64_t)(" + n + "_BLK(me) / sizeof(" + T + "))";
  }
  if (traits.prefix) {
    // An inclusive prefix folds members 0..me, an exclusive one 0..me-1
    // and gives the first member nothing.
    bool exclusive = traits.recv.holders == DataHolders::AllButFirst;
    upto = exclusive ? "me" : "me + 1";
    if (exclusive)
      when = "me > 0";
  }
  os << "static inline uint64_t " << n
     << "_check(int me, const void *recvbuf, phasec_check_state *st) {\n"
     << "  const " << T << " *r = (const " << T << " *)recvbuf;\n"
     << "  uint64_t bad = 0;\n  (void)me;\n"
     << "  if (!(" << when << "))\n    return 0;\n"
     << "  const int64_t first = " << first << ", count = " << count << ";\n"
     << "  for (int64_t q = 0; q < count; ++q) {\n"
     << "    const int64_t i = first + q;\n"
     << "    " << T << " want = " << n << "_val(0, i);\n"
     << "    for (int64_t m = 1; m < " << upto << "; ++m) {\n"
     << "      const " << T << " v = " << n << "_val(m, i);\n"
     << "      " << n << "_combine(&want, &v, sizeof(" << T << "));\n    }\n"
     << "    if (memcmp(&want, &r[q], sizeof(" << T << "))) {\n"
     << "      bad += sizeof(" << T << ");\n"
     << "      st->mismatches += sizeof(" << T << ");\n"
     << "      if (st->printed++ < st->max_print)\n"
     << "        fprintf(stderr, \"phasec: %s: rank %d: element %lld of the "
     << stringifyReduceKind(plan.reduceOp)
     << " reduction is wrong\\n\", st->what, st->rank, (long long)i);\n"
     << "    }\n  }\n  return bad;\n}\n\n";
}
