//===- ScheduleJSONTest.cpp - phasec-schedule/1 writer --------------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Writes documents for small machines and checks them twice: structurally
/// here (llvm::json), and with the spec's independent checker
/// ../shared/tools/verify_schedule.py, which must accept every schedule
/// phasec emits and reject a congested one.
///
//===----------------------------------------------------------------------===//

#include "phasec/Scheduling/ScheduleJSON.h"

#include "phasec/Scheduling/Baselines.h"
#include "phasec/Scheduling/Bounds.h"

#include "TestUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

using namespace phasec;
using namespace phasec::test;

namespace {

std::string write(const Problem &p, const Schedule &s,
                  const CollectiveInfo &info) {
  std::string out;
  llvm::raw_string_ostream os(out);
  writeScheduleJSON(os, p, s, info);
  return out;
}

/// Runs the spec's checker on `text`; returns its exit code, and its output.
int runChecker(const std::string &text, std::string &output,
               llvm::ArrayRef<llvm::StringRef> extra = {}) {
  llvm::SmallString<128> in, out;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("phasec-sched", "json", in));
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("phasec-check", "txt", out));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    EXPECT_FALSE(ec);
    os << text;
  }
  std::string script = PHASEC_SHARED_DIR "/tools/verify_schedule.py";
  std::vector<llvm::StringRef> args = {PHASEC_PYTHON, script, in.str()};
  args.insert(args.end(), extra.begin(), extra.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, out.str(),
                                                out.str()};
  int rc =
      llvm::sys::ExecuteAndWait(PHASEC_PYTHON, args, std::nullopt, redirects);
  auto buf = llvm::MemoryBuffer::getFile(out);
  output = buf ? (*buf)->getBuffer().str() : "";
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  return rc;
}

TEST(ScheduleJSON, TorusWithTiesPassesChecker) {
  Topology t = makeTopology("torus:4x2");
  Problem p(t, alltoall(t, 32));
  Schedule s;
  ASSERT_TRUE(scheduleGreedily(p, s));
  // Flip some ties to "-" where that stays congestion-free: put every tie
  // transfer in a phase of its own with "-" everywhere it may.
  Schedule alt;
  alt.bound = s.bound;
  alt.algorithm = "test";
  for (const Demand &d : p.transfers()) {
    TieMask m = t.tieMask(t.nodeOfRank(d.src), t.nodeOfRank(d.dst));
    alt.phases.push_back({{{d.src, d.dst, d.bytes, m}}});
  }
  ASSERT_TRUE(verifies(p, alt));
  std::string text = write(p, alt, {"aapc", "alltoall"});

  auto doc = llvm::json::parse(text);
  ASSERT_TRUE(bool(doc)) << llvm::toString(doc.takeError());
  llvm::json::Object *o = doc->getAsObject();
  EXPECT_EQ(o->getString("format"), "phasec-schedule/1");
  EXPECT_EQ(o->getString("operation"), "aapc");
  EXPECT_EQ(o->getObject("collective")->getString("kind"), "alltoall");
  EXPECT_EQ(o->getObject("collective")->getInteger("bytes"), 32);
  EXPECT_EQ(o->getObject("topology")->getString("kind"), "torus");
  EXPECT_EQ(o->getInteger("ranks"), 8);
  // lower_bound.phases is the proven phase count, never the time in blocks
  // (56 here; a schedule may use fewer phases than blocks).
  const llvm::json::Object *lb = o->getObject("lower_bound");
  EXPECT_EQ(lb->getInteger("phases"), s.bound.minPhases);
  EXPECT_LE(*lb->getInteger("phases"), 56);
  EXPECT_EQ(lb->getString("reason"), s.bound.phasesReason);
  EXPECT_EQ(lb->getNumber("time"), s.bound.time);
  EXPECT_EQ(lb->getString("time_reason"), s.bound.reason);
  // 0 -> 1: no tie, no dirs. 0 -> 2: tie in dim 0 only, "-": [-1, 0].
  // 0 -> 4: tie in the ring of 2 (dim 1): [0, -1].
  const llvm::json::Array *phases = o->getArray("phases");
  ASSERT_EQ(phases->size(), 56u);
  auto first = [&](size_t i) {
    return (*(*phases)[i].getAsArray())[0].getAsArray();
  };
  EXPECT_EQ(first(0)->size(), 3u); // 0 -> 1
  const llvm::json::Array *t02 = first(1);
  ASSERT_EQ(t02->size(), 4u);
  const llvm::json::Array *dirs = (*t02)[3].getAsObject()->getArray("dirs");
  ASSERT_TRUE(dirs);
  EXPECT_EQ((*dirs)[0].getAsInteger(), -1);
  EXPECT_EQ((*dirs)[1].getAsInteger(), 0);
  const llvm::json::Array *t04 = first(3);
  ASSERT_EQ(t04->size(), 4u);
  dirs = (*t04)[3].getAsObject()->getArray("dirs");
  EXPECT_EQ((*dirs)[0].getAsInteger(), 0);
  EXPECT_EQ((*dirs)[1].getAsInteger(), -1);

  std::string out;
  EXPECT_EQ(runChecker(text, out), 0) << out;
  EXPECT_NE(out.find("\"ok\": true"), std::string::npos) << out;
}

TEST(ScheduleJSON, CheckerRejectsCongestedSchedule) {
  Topology t = makeTopology("torus:4");
  Problem p(t, alltoall(t, 1));
  Schedule s;
  s.phases.push_back({});
  for (const Demand &d : p.transfers())
    s.phases[0].transfers.push_back({d.src, d.dst, d.bytes, 0});
  std::string out;
  EXPECT_EQ(runChecker(write(p, s, {"bad", "alltoall"}), out), 1) << out;
  EXPECT_NE(out.find("carries ranks"), std::string::npos) << out;
}

TEST(ScheduleJSON, BaselinesOfManyMachinesPassChecker) {
  struct Case {
    const char *spec;
    const char *kind;
  } cases[] = {{"torus:8x4", "alltoall"},
               {"torus:2x2x2;ranks=2", "transpose"},
               {"mesh:3x4", "alltoall"},
               {"hypercube:3;injection=1", "alltoall"},
               {"percs:supernodes=1,drawers=2,nodes=4,ranks=2", "alltoall"},
               {"percs:supernodes=2,drawers=2,nodes=2", "alltoall"}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.spec);
    Topology t = makeTopology(c.spec);
    Problem p(t, alltoall(t, 100));
    Schedule s;
    ASSERT_TRUE(scheduleGreedily(p, s));
    std::string out;
    EXPECT_EQ(runChecker(write(p, s, {"op", c.kind}), out), 0) << out;
  }
}

TEST(ScheduleJSON, PartialOperationsAreWrittenAsPermute) {
  Topology t = makeTopology("torus:4x4");
  Collective gather = collectiveOver(t, CollectiveKind::Gather);
  gather.root = 5;
  gather.blockBytes = 64;
  TransferSet traffic;
  ASSERT_TRUE(lowers(gather, traffic));
  Problem p(t, traffic);
  Schedule s;
  ASSERT_TRUE(scheduleGreedily(p, s));
  std::string text = write(p, s, {"collect", "gather"});
  auto doc = llvm::json::parse(text);
  ASSERT_TRUE(bool(doc)) << llvm::toString(doc.takeError());
  const llvm::json::Object *coll = doc->getAsObject()->getObject("collective");
  EXPECT_EQ(coll->getString("kind"), "permute");
  EXPECT_EQ(coll->getString("op"), "gather");
  EXPECT_EQ(coll->getArray("pairs")->size(), 15u);
  std::string out;
  EXPECT_EQ(runChecker(text, out), 0) << out;
}

TEST(ScheduleJSON, SeveralOperations) {
  Topology t = makeTopology("mesh:4");
  Problem a(t, alltoall(t, 8));
  Problem b(t, TransferSet({{0, 3, 5}}));
  Schedule sa, sb;
  ASSERT_TRUE(scheduleGreedily(a, sa));
  ASSERT_TRUE(scheduleGreedily(b, sb));
  std::string text;
  llvm::raw_string_ostream os(text);
  ScheduleDocument docs[] = {{&a, &sa, {"first", "alltoall"}},
                             {&b, &sb, {"second", "permute"}}};
  writeScheduleJSON(os, docs);
  auto doc = llvm::json::parse(text);
  ASSERT_TRUE(bool(doc)) << llvm::toString(doc.takeError());
  const llvm::json::Array *ops = doc->getAsObject()->getArray("operations");
  ASSERT_EQ(ops->size(), 2u);
  EXPECT_FALSE((*ops)[0].getAsObject()->get("format"));
  std::string out;
  EXPECT_EQ(runChecker(text, out), 0) << out;
  EXPECT_EQ(runChecker(text, out, {"--op", "second"}), 0) << out;
  EXPECT_NE(out.find("\"operation\": \"second\""), std::string::npos) << out;
}

TEST(ScheduleJSON, VerifyAgreesWithTheIndependentChecker) {
  // Random schedules (random phases, random tie directions, sometimes a
  // transfer dropped or repeated): Problem::verify and the spec's checker
  // must reach the same verdict on every one.
  uint64_t state = 2024;
  auto next = [&](uint64_t n) { return splitmix64(state) % n; };
  int accepted = 0, rejected = 0;
  for (const char *spec :
       {"torus:4x2", "torus:3x3", "mesh:3x3", "hypercube:3", "torus:4;ranks=2",
        "percs:supernodes=2,drawers=2,nodes=2"}) {
    Topology t = makeTopology(spec);
    Problem p(t, alltoall(t, 4));
    for (int trial = 0; trial < 6; ++trial) {
      SCOPED_TRACE(std::string(spec) + " trial " + std::to_string(trial));
      Schedule s;
      std::vector<Transfer> ts;
      for (const Demand &d : p.transfers()) {
        TieMask m = t.tieMask(t.nodeOfRank(d.src), t.nodeOfRank(d.dst));
        ts.push_back(
            {d.src, d.dst, d.bytes, static_cast<TieMask>(next(64)) & m});
      }
      if (trial < 3) {
        // Random phases: congestion likely.
        size_t numPhases = 2 + next(6);
        s.phases.resize(numPhases);
        for (const Transfer &tr : ts)
          s.phases[next(numPhases)].transfers.push_back(tr);
      } else {
        // Packed: congestion-free, then perhaps spoiled below.
        packFirstFit(t, ts, s);
      }
      llvm::erase_if(s.phases,
                     [](const Phase &ph) { return ph.transfers.empty(); });
      if (trial == 4) // repeat a transfer in a phase of its own
        s.phases.push_back({{s.phases[0].transfers.front()}});
      if (trial == 5) // lose one
        s.phases[0].transfers.pop_back();
      llvm::SmallVector<ScheduleViolation> vs;
      bool ours = succeeded(p.verify(s, vs));
      std::string out;
      int rc = runChecker(write(p, s, {"r", "alltoall"}), out);
      EXPECT_EQ(ours, rc == 0) << describe(vs) << out;
      (ours ? accepted : rejected)++;
    }
  }
  // The trials exercise both verdicts.
  EXPECT_GT(accepted, 0);
  EXPECT_GT(rejected, 0);
}

TEST(ScheduleJSON, ReadBackRoundTrips) {
  for (const char *spec : {"torus:4x2", "percs:supernodes=3,drawers=2,nodes=2",
                           "percs:supernodes=2,drawers=2,nodes=2,dlinks=3",
                           "hypercube:3;ranks=2", "mesh:3x2;order=1.0"}) {
    SCOPED_TRACE(spec);
    Topology t = makeTopology(spec);
    Problem p(t, alltoall(t, 16));
    Schedule s;
    std::string error;
    ASSERT_TRUE(scheduleGreedily(p, s));
    // Flip every tie to "-" where it stays alone in its own phase.
    for (const Demand &d : p.transfers())
      if (TieMask m = t.tieMask(t.nodeOfRank(d.src), t.nodeOfRank(d.dst)))
        for (Phase &ph : s.phases)
          for (Transfer &tr : ph.transfers)
            if (tr.src == d.src && tr.dst == d.dst && ph.transfers.size() == 1)
              tr.ties = m;
    std::string text = write(p, s, {"x", "alltoall"});
    auto docs = readScheduleJSON(text, error);
    ASSERT_TRUE(succeeded(docs)) << error;
    ASSERT_EQ(docs->size(), 1u);
    ParsedScheduleDocument &doc = (*docs)[0];
    EXPECT_EQ(doc.topology.str(), t.desc().str());
    EXPECT_TRUE(doc.transfers == p.transfers());
    EXPECT_EQ(doc.info.operation, "x");
    EXPECT_EQ(doc.info.kind, "alltoall");
    EXPECT_EQ(doc.schedule.bound.minPhases, s.bound.minPhases);
    EXPECT_EQ(doc.schedule.bound.time, s.bound.time);
    ASSERT_EQ(doc.schedule.phases.size(), s.phases.size());
    for (size_t i = 0; i < s.phases.size(); ++i) {
      ASSERT_EQ(doc.schedule.phases[i].transfers.size(),
                s.phases[i].transfers.size());
      for (size_t j = 0; j < s.phases[i].transfers.size(); ++j) {
        const Transfer &a = s.phases[i].transfers[j];
        const Transfer &b = doc.schedule.phases[i].transfers[j];
        EXPECT_TRUE(a.src == b.src && a.dst == b.dst && a.bytes == b.bytes &&
                    a.ties == b.ties);
      }
    }
    auto topo = Topology::create(doc.topology, error);
    ASSERT_TRUE(succeeded(topo)) << error;
    Problem again(*topo, doc.transfers);
    EXPECT_TRUE(verifies(again, doc.schedule));
  }
}

TEST(ScheduleJSON, ReaderErrors) {
  std::string error;
  auto expectError = [&](const std::string &text, llvm::StringRef msg) {
    EXPECT_TRUE(failed(readScheduleJSON(text, error))) << text;
    EXPECT_NE(error.find(msg.str()), std::string::npos) << error;
  };
  std::string head = R"({"format": "phasec-schedule/1", "operation": "op",
      "topology": {"kind": "torus", "dims": [8]}, "ranks": 8,
      "collective": {"kind": "permute", "pairs": [[0, 3, 4]]}, "phases": )";
  EXPECT_TRUE(succeeded(readScheduleJSON(head + "[[[0, 3, 4]]]}", error)))
      << error;
  // Nesting: 64 levels are read (and rejected for what they are), one more
  // is refused before parsing; a million would overflow the parser's stack.
  expectError(std::string(63, '[') + std::string(63, ']'),
              "not a phasec-schedule/1 or /2 document");
  expectError(std::string(65, '[') + std::string(65, ']'),
              "invalid JSON: arrays and objects nested deeper than 64 levels "
              "(at byte 64)");
  expectError(head + "[[[0, 3, 4, {\"x\": \"[[[[\\\"\" " +
                  std::string(70, '{'),
              "nested deeper than 64 levels (at byte ");
  expectError(std::string(1 << 20, '['), "nested deeper than 64 levels");
  expectError(head + "[[[0, 3, 4, {\"dirs\": [-1]}]]]}",
              "operation 'op': phase 0, transfer 0: \"dirs\" asks for - in "
              "dimension 0 from node 0 to node 3, the longer way");
  expectError(head + "[[[0, 3, 4, {\"path\": [0, 7, 6, 5, 4, 3]}]]]}",
              "phase 0, transfer 0: \"path\" is not the route");
  expectError(head + "[[[0, 8, 4]]]}", "rank out of range");
  expectError(head + "[[[0, 3]]]}", "expected [src, dst, bytes]");
  expectError("{\"format\": \"other\"}", "not a phasec-schedule/1 or /2 document");
  expectError("{", "invalid JSON");
  // Relaying documents (/2).
  std::string relay = R"({"format": "phasec-schedule/2", "operation": "op",
      "topology": {"kind": "torus", "dims": [4]}, "ranks": 4, "phases": [],
      "collective": )";
  EXPECT_TRUE(succeeded(readScheduleJSON(
      relay + R"({"kind": "broadcast", "root": 0, "chunks": 2,
      "chunk_bytes": 8}})",
      error)))
      << error;
  expectError(R"({"format": "phasec-schedule/1", "operation": "op",
      "topology": {"kind": "torus", "dims": [4]}, "ranks": 4, "phases": [],
      "collective": {"kind": "broadcast", "root": 0, "chunks": 2,
      "chunk_bytes": 8}})",
              "\"chunks\" needs format phasec-schedule/2");
  expectError(relay + R"({"kind": "transpose", "chunks": 2,
      "chunk_bytes": 8}})",
              "collective kind 'transpose' has no chunk semantics");
  expectError(relay + R"({"kind": "broadcast", "root": 0, "chunks": 2}})",
              "a relaying collective needs integer \"chunks\" and "
              "\"chunk_bytes\"");
  expectError(relay + R"({"kind": "allreduce", "chunks": 2, "chunk_bytes": 8,
      "group": ["a"]}})",
              "\"group\" must hold ranks");
  expectError(relay + R"({"kind": "barrier", "chunks": 2, "chunk_bytes": 8}})",
              "a barrier has one chunk of 0 bytes");
  expectError(relay + R"({"kind": "gather", "root": 0, "chunks": 6,
      "chunk_bytes": 8}})",
              "gather: 6 chunks are not a multiple of 4");
  expectError(relay + R"({"kind": "reduce", "root": 9, "chunks": 1,
      "chunk_bytes": 8}})",
              "root rank 9 is not in the group");
  expectError(R"({"format": "phasec-schedule/2", "operation": "op",
      "topology": {"kind": "torus", "dims": [4]}, "ranks": 4,
      "collective": {"kind": "broadcast", "root": 0, "chunks": 1,
      "chunk_bytes": 8}, "phases": [[[0, 1, 8, {"chunks": ["x"]}]]]})",
              "phase 0, transfer 0: \"chunks\" must hold integers");
  expectError(R"({"format": "phasec-schedule/1", "topology": {"kind": "graph",
      "nodes": 2, "links": []}, "ranks": 2, "collective": {"kind": "permute",
      "pairs": []}, "phases": []})",
              "topology kind 'graph' is not supported");
  expectError(R"({"format": "phasec-schedule/1", "topology": {"kind": "mesh",
      "dims": [4]}, "ranks": 5, "collective": {"kind": "permute",
      "pairs": []}, "phases": []})",
              "\"ranks\" must equal the machine's 4 ranks");
}

TEST(ScheduleJSON, ReadCongestedScheduleFailsVerify) {
  // A hand-made document: 0 -> 2 and 1 -> 3 both cross 1->2 in phase 0.
  std::string text = R"({"format": "phasec-schedule/1", "operation": "hand",
      "topology": {"kind": "mesh", "dims": [4]}, "ranks": 4,
      "collective": {"kind": "permute", "pairs": [[0, 2, 1], [1, 3, 1]]},
      "phases": [[[0, 2, 1], [1, 3, 1]]]})";
  std::string error;
  auto docs = readScheduleJSON(text, error);
  ASSERT_TRUE(succeeded(docs)) << error;
  auto topo = Topology::create((*docs)[0].topology, error);
  ASSERT_TRUE(succeeded(topo));
  Problem p(*topo, (*docs)[0].transfers);
  llvm::SmallVector<ScheduleViolation> vs;
  EXPECT_TRUE(failed(p.verify((*docs)[0].schedule, vs)));
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(vs[0].kind, ViolationKind::Congestion);
  std::string out;
  EXPECT_EQ(runChecker(text, out), 1) << out;
}

} // namespace

// The shared spec's /2 samples: phasec's reader and chunk replay agree with
// each file's verdict (`_ok` accepted, `_bad` rejected), independently of
// the shared verifier that produced those verdicts.
TEST(ScheduleJSON, SharedRelayingSamples) {
  std::error_code ec;
  int seen = 0;
  for (llvm::sys::fs::directory_iterator it(
           PHASEC_SHARED_DIR "/spec/examples", ec),
       end;
       it != end && !ec; it.increment(ec)) {
    llvm::StringRef path = it->path();
    if (!path.ends_with(".json"))
      continue;
    ++seen;
    bool ok = path.ends_with("_ok.json");
    auto buf = llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE(bool(buf)) << path.str();
    std::string error;
    auto docs = readScheduleJSON((*buf)->getBuffer(), error);
    ASSERT_TRUE(succeeded(docs)) << path.str() << ": " << error;
    for (ParsedScheduleDocument &doc : *docs) {
      ASSERT_TRUE(doc.chunks.has_value()) << path.str();
      auto topo = Topology::create(doc.topology, error);
      ASSERT_TRUE(succeeded(topo)) << error;
      Problem problem(*topo, *doc.chunks, CostModel(*topo));
      llvm::SmallVector<ScheduleViolation, 4> violations;
      bool verified = succeeded(problem.verify(doc.schedule, violations));
      EXPECT_EQ(verified, ok)
          << path.str() << ": "
          << (violations.empty() ? "" : violations.front().message);
    }
  }
  EXPECT_GE(seen, 10);
}
