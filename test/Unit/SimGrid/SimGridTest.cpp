//===- SimGridTest.cpp - Unit tests of the SimGrid back end ---------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The parts of the SimGrid target that need no simulator: which route each
/// rank pair gets, the binary phase tables program.c reads, the analytic
/// phase model the integration tests compare against, and the JSON reader.
///
//===----------------------------------------------------------------------===//

#include "phasec/Target/SimGrid/SimGrid.h"
#include "phasec/Target/SimGrid/Runner.h"
#include "phasec/Target/SimGrid/SimTarget.h"
#include "phasec/Scheduling/ScheduleJSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace phasec;
using namespace phasec::simgrid;
using phasec::test::makeTopology;

namespace {

/// Ring of 4: phase 0 "+1" shift, phase 1 "-1" shift, phase 2 the ties,
/// 0<->2 "+" and 1<->3 "-" (congestion-free).
Schedule ring4Schedule(int64_t bytes) {
  Schedule s;
  s.phases.resize(3);
  for (RankId r = 0; r < 4; ++r) {
    s.phases[0].transfers.push_back({r, (r + 1) % 4, bytes, 0});
    s.phases[1].transfers.push_back({r, (r + 3) % 4, bytes, 0});
  }
  s.phases[2].transfers = {
      {0, 2, bytes, 0}, {2, 0, bytes, 0}, {1, 3, bytes, 1}, {3, 1, bytes, 1}};
  return s;
}

int64_t readInt(llvm::StringRef data, size_t index) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | static_cast<uint8_t>(data[8 + 8 * index + i]);
  return static_cast<int64_t>(v);
}

} // namespace

TEST(SimGridTieTable, FirstChoiceWinsAndConflictsAreCounted) {
  Topology topo = makeTopology("torus:4");
  Schedule s = ring4Schedule(10);
  // A second transfer of 1->3 that asks for "+" instead.
  s.phases[0].transfers.push_back({1, 3, 5, 0});
  int64_t conflicts = -1;
  std::vector<TieMask> ties = buildTieTable(topo, s, &conflicts);
  ASSERT_EQ(ties.size(), 16u);
  EXPECT_EQ(ties[0 * 4 + 2], 0u);
  // Phase 0 comes first: its "+" choice for 1->3 wins, phase 2's "-" counts.
  EXPECT_EQ(ties[1 * 4 + 3], 0u);
  EXPECT_EQ(ties[3 * 4 + 1], 1u);
  EXPECT_EQ(conflicts, 1);
  // Tie bits where there is no tie are dropped.
  Schedule noTie;
  noTie.phases.resize(1);
  noTie.phases[0].transfers.push_back({0, 1, 10, 1});
  EXPECT_EQ(buildTieTable(topo, noTie)[0 * 4 + 1], 0u);
}

TEST(SimGridPlatform, RoutesFollowTiesAndInjectionPorts) {
  Topology topo = makeTopology("torus:4;bw=1e9;injection=link");
  std::vector<TieMask> ties = buildTieTable(topo, ring4Schedule(10));
  std::string text;
  llvm::raw_string_ostream os(text);
  PlatformStats stats;
  writePlatformData(os, topo, ties, PlatformOptions(), stats);
  os.flush();
  EXPECT_EQ(stats.hosts, 4);
  // 8 ring links, 2 x 4 injection/ejection ports, 4 memory links.
  EXPECT_EQ(stats.links, 20);
  EXPECT_EQ(stats.routes, 16);
  EXPECT_NE(text.find("inj0_up 1e+09 0 S\ninj0_down 1e+09 0 S\n"),
            std::string::npos);
  // 1 -> 3 goes "-": up port of node 1 (id 10), links 1->0 (3) and 0->3 (1),
  // down port of node 3 (id 8 + 2*3 + 1 = 15).
  EXPECT_NE(text.find("\n1 3 4 10 3 1 15\n"), std::string::npos) << text;
  // 0 -> 2 goes "+": 8, 0->1 (0), 1->2 (2), 13.
  EXPECT_NE(text.find("\n0 2 4 8 0 2 13\n"), std::string::npos) << text;
  // A rank to itself: its node's memory link (ids 16..19).
  EXPECT_NE(text.find("\n2 2 1 18\n"), std::string::npos) << text;
}

TEST(SimGridPlatform, RanksOfOneNodeShareTheMemoryLink) {
  Topology topo = makeTopology("torus:2;ranks=2;bw=1e9");
  std::string text;
  llvm::raw_string_ostream os(text);
  PlatformStats stats;
  writePlatformData(os, topo, {}, PlatformOptions(), stats);
  os.flush();
  EXPECT_EQ(stats.hosts, 4);
  // Ranks 0 and 1 live on node 0: memory link of node 0 (after 2 ring-of-2
  // links each way = 4 links).
  EXPECT_NE(text.find("\n0 1 1 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n2 3 1 5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("mem0 1e+12 0 F"), std::string::npos) << text;
}

TEST(SimGridScheduleData, LayoutOffsetsAndOrder) {
  Schedule s = ring4Schedule(1000);
  std::string data;
  llvm::raw_string_ostream os(data);
  writeScheduleData(os, 4, s, 1000);
  os.flush();
  ASSERT_EQ(data.substr(0, 8), "PHSIM001");
  EXPECT_EQ(readInt(data, 0), 4);    // ranks
  EXPECT_EQ(readInt(data, 1), 3);    // phases
  EXPECT_EQ(readInt(data, 2), 1000); // uniform block
  // Every rank sends 3 and receives 3 transfers: offsets 0, 6, 12, 18, 24.
  for (int r = 0; r <= 4; ++r)
    EXPECT_EQ(readInt(data, 3 + r), 6 * r);
  ASSERT_EQ(data.size(), 8 + 8 * (3 + 5) + 32 * 24u);
  // Rank 0's records: phase 0 receive from 3 before send to 1.
  size_t rec = 3 + 5;
  EXPECT_EQ(readInt(data, rec + 0), 0);
  EXPECT_EQ(readInt(data, rec + 1), 3);
  EXPECT_EQ(readInt(data, rec + 2), 1000);
  EXPECT_EQ(readInt(data, rec + 3), 1);
  EXPECT_EQ(readInt(data, rec + 4), 0);
  EXPECT_EQ(readInt(data, rec + 5), 1);
  EXPECT_EQ(readInt(data, rec + 7), 0);
}

// The cost model on the machine as SimGrid simulates it: every message
// carries SMPI's 16-byte envelope, so a 1 MB message takes (1e6 + 16) / bw.
TEST(SimGridModel, PhaseTimeIsTheBusiestResource) {
  Topology topo = makeTopology("torus:4;bw=1e9");
  const double mb = (1000000 + 16) / 1e9;
  std::vector<double> ring =
      predictPhaseTimes(topo, nullptr, ring4Schedule(1000000), {});
  ASSERT_EQ(ring.size(), 3u);
  for (double t : ring)
    EXPECT_DOUBLE_EQ(t, mb);
  // With barriers and no latency or set-up, an SMPI barrier still moves
  // empty envelopes: 4 members, two pair rounds of one hop, 16 B / 1 GB/s.
  PlatformOptions barriers;
  barriers.sync = SyncKind::Barrier;
  EXPECT_DOUBLE_EQ(
      predictSimulatedTime(topo, nullptr, ring4Schedule(1000000), barriers),
      3 * mb + 2 * (2 * 16 / 1e9));

  // Two transfers of one source over the same link serialise.
  Schedule two;
  two.phases.resize(1);
  two.phases[0].transfers = {{0, 1, 1000000, 0}, {0, 2, 1000000, 0}};
  EXPECT_DOUBLE_EQ(predictPhaseTimes(topo, nullptr, two, {})[0], 2 * mb);

  // Latency: the longest route of the phase (2 hops of 1 us).
  PlatformOptions lat;
  lat.linkLatency = 1e-6;
  EXPECT_DOUBLE_EQ(predictPhaseTimes(topo, nullptr, two, lat)[0],
                   2 * mb + 2e-6);

  // A one-port node sending to two neighbours over two links: its port is
  // the bottleneck.
  Topology onePort = makeTopology("torus:4;bw=1e9;injection=link");
  Schedule fan;
  fan.phases.resize(1);
  fan.phases[0].transfers = {{0, 1, 1000000, 0}, {0, 3, 1000000, 0}};
  EXPECT_DOUBLE_EQ(predictPhaseTimes(onePort, nullptr, fan, {})[0], 2 * mb);
  EXPECT_DOUBLE_EQ(predictPhaseTimes(topo, nullptr, fan, {})[0], mb);

  // The set-up cost: SMPI charges it to the sender, one message after
  // another, so a phase pays it for the most messages one rank sends (two
  // for rank 0 here; rank 1's one message is in the same phase).
  PlatformOptions setup;
  setup.setupCost = 5e-6;
  Schedule mixed;
  mixed.phases.resize(2);
  mixed.phases[0].transfers = {
      {0, 1, 1000000, 0}, {0, 3, 1000000, 0}, {1, 2, 1000000, 0}};
  mixed.phases[1].transfers = {{2, 3, 1000000, 0}};
  std::vector<double> withSetup = predictPhaseTimes(topo, nullptr, mixed, setup);
  ASSERT_EQ(withSetup.size(), 2u);
  EXPECT_DOUBLE_EQ(withSetup[0], mb + 2 * 5e-6);
  EXPECT_DOUBLE_EQ(withSetup[1], mb + 5e-6);
}

// The platform has one route per rank pair: a transfer whose tie differs
// from its pair's platform route is charged on that route, as SimGrid
// sends it.
TEST(SimGridModel, TransfersTakeTheirPairsPlatformRoute) {
  Topology topo = makeTopology("torus:4;bw=1e9");
  const double mb = (1000000 + 16) / 1e9;
  // 0->2 "+" (over 0->1) and 1->3 "-" (over 1->0): disjoint links.
  Schedule s;
  s.phases.resize(1);
  s.phases[0].transfers = {{0, 2, 1000000, 0}, {1, 3, 1000000, 1}};
  EXPECT_DOUBLE_EQ(predictPhaseTimes(topo, nullptr, s, {})[0], mb);
  EXPECT_DOUBLE_EQ(predictSimulatedTime(topo, nullptr, s, {}), mb);
  // A platform written for a schedule that sent 1->3 "+": both cross 1->2.
  Schedule other = s;
  other.phases[0].transfers[1].ties = 0;
  std::vector<TieMask> routes = buildTieTable(topo, other);
  EXPECT_DOUBLE_EQ(predictPhaseTimes(topo, nullptr, s, {}, routes)[0],
                   2 * mb);
  EXPECT_DOUBLE_EQ(predictSimulatedTime(topo, nullptr, s, {}, routes),
                   2 * mb);
}

// Which MPI call and smpi/<collective> setting --compare runs for a direct
// operation: the one that actually runs the same operation.
TEST(SimGridBuiltins, DirectOperationsUseTheirOwnCall) {
  Topology topo = makeTopology("torus:4;bw=1e9");
  auto demands = [](std::vector<Demand> d) { return TransferSet(d); };
  std::vector<Demand> all;
  for (RankId s = 0; s < 4; ++s)
    for (RankId d = 0; d < 4; ++d)
      if (s != d)
        all.push_back({s, d, 64});
  TransferSet uniform = demands(all);
  all[1].bytes = 128;
  TransferSet skewed = demands(all);

  // Uniform over every pair: program.c calls MPI_Alltoall.
  BuiltinCall a = directBuiltinCall("alltoall", topo, uniform);
  EXPECT_EQ(a.collective, "alltoall");
  EXPECT_FALSE(a.viaColl);
  EXPECT_EQ(a.settingFor("pair"), "smpi/alltoall:pair");
  EXPECT_EQ(directBuiltinCall("transpose", topo, uniform).collective,
            "alltoall");
  // Anything else program.c runs as MPI_Alltoallv, which only
  // smpi/alltoallv steers.
  EXPECT_EQ(directBuiltinCall("alltoallv", topo, skewed).collective,
            "alltoallv");
  EXPECT_EQ(directBuiltinCall("alltoall", topo, skewed).collective,
            "alltoallv");
  TransferSet perm = demands({{0, 2, 64}, {2, 1, 64}, {1, 3, 64}, {3, 0, 64}});
  BuiltinCall p = directBuiltinCall("permute", topo, perm);
  EXPECT_EQ(p.collective, "alltoallv");
  EXPECT_TRUE(p.notApplicable.empty());

  // Rooted kinds: the plain MPI call through coll.c, with the root and the
  // block.
  TransferSet toOne = demands({{0, 2, 20}, {1, 2, 20}, {3, 2, 20}});
  for (const char *kind : {"gather", "all_to_one"}) {
    BuiltinCall g = directBuiltinCall(kind, topo, toOne);
    EXPECT_EQ(g.collective, "gather") << kind;
    EXPECT_TRUE(g.viaColl);
    EXPECT_EQ(g.root, 2);
    EXPECT_EQ(g.count, 20);
    EXPECT_TRUE(g.notApplicable.empty());
    EXPECT_EQ(g.settingFor("ompi_binomial"), "smpi/gather:ompi_binomial");
  }
  TransferSet fromOne = demands({{1, 0, 24}, {1, 2, 24}, {1, 3, 24}});
  BuiltinCall o = directBuiltinCall("one_to_all", topo, fromOne);
  EXPECT_EQ(o.collective, "scatter");
  EXPECT_EQ(o.root, 1);
  EXPECT_EQ(o.count, 24);
  BuiltinCall ag = directBuiltinCall("allgather", topo, uniform);
  EXPECT_EQ(ag.collective, "allgather");
  EXPECT_TRUE(ag.viaColl);
  EXPECT_EQ(ag.count, 64);

  // A gather over 3 of the 4 ranks: MPI_Gather on MPI_COMM_WORLD is another
  // operation, so no built-in runs it, and the rows say why.
  TransferSet sub = demands({{0, 2, 20}, {1, 2, 20}});
  BuiltinCall s = directBuiltinCall("gather", topo, sub);
  EXPECT_EQ(s.collective, "gather");
  EXPECT_EQ(s.notApplicable, subGroupReason(3, 4));

  // scan and exscan have no selector: the column names the MPI call.
  BuiltinCall scan;
  scan.collective = "scan";
  EXPECT_FALSE(scan.selectable());
  EXPECT_EQ(scan.settingFor("default"), "MPI_Scan");
}

TEST(SimGridModel, LinkBytesByPhase) {
  Topology topo = makeTopology("torus:4;bw=1e9");
  auto bytes = linkBytesByPhase(topo, ring4Schedule(7));
  ASSERT_EQ(bytes.size(), 3u);
  double total = 0;
  for (const auto &phase : bytes)
    for (double b : phase)
      total += b;
  // 8 one-hop transfers and 4 two-hop transfers of 7 bytes.
  EXPECT_DOUBLE_EQ(total, 7.0 * (8 + 8));
  for (double b : bytes[2])
    EXPECT_DOUBLE_EQ(b, 7.0);
}

TEST(SimGridStock, OnlyToriWithOneRankPerNode) {
  std::string error;
  std::string text;
  llvm::raw_string_ostream os(text);
  EXPECT_TRUE(
      succeeded(writeStockTorus(os, makeTopology("torus:8x4x8x2"), {}, error)));
  os.flush();
  EXPECT_NE(text.find("topology=\"TORUS\" topo_parameters=\"8,4,8,2\""),
            std::string::npos);
  EXPECT_NE(text.find("radical=\"0-511\""), std::string::npos);
  EXPECT_TRUE(failed(writeStockTorus(os, makeTopology("mesh:4x4"), {}, error)));
  EXPECT_NE(error.find("torus or hypercube"), std::string::npos);
  EXPECT_TRUE(
      failed(writeStockTorus(os, makeTopology("torus:4;ranks=2"), {}, error)));
}

TEST(SimGridStock, UniformBlockOnlyForCompleteAlltoall) {
  Topology topo = makeTopology("torus:4");
  TransferSet all;
  for (RankId s = 0; s < 4; ++s)
    for (RankId d = 0; d < 4; ++d)
      if (s != d)
        all.add(s, d, 64);
  all.canonicalize();
  EXPECT_EQ(uniformAlltoallBlock(topo, all), 64);
  TransferSet partial;
  partial.add(0, 1, 64);
  partial.canonicalize();
  EXPECT_EQ(uniformAlltoallBlock(topo, partial), 0);
}

// phasec-sim reads schedules with the scheduling library's one reader; what
// the simulator needs of it beyond the spec is the extra "link_latency".
TEST(SimGridInput, ReadsLinkLatencyAndTies) {
  const char *doc = R"({
    "format": "phasec-schedule/1", "operation": "op",
    "collective": {"kind": "permute", "pairs": [[0, 2, 16], [1, 2, 8]]},
    "topology": {"kind": "torus", "dims": [4, 3], "link_bandwidth": 2e9,
                 "injection_bandwidth": 1e9, "link_latency": 1e-6},
    "ranks": 12,
    "phases": [[[0, 2, 8, {"dirs": [-1, 0]}], [1, 2, 8]], [[0, 2, 8]]]
  })";
  std::string error;
  auto docs = readScheduleJSON(doc, error);
  ASSERT_TRUE(succeeded(docs)) << error;
  ASSERT_EQ(docs->size(), 1u);
  const ParsedScheduleDocument &op = (*docs)[0];
  EXPECT_EQ(op.info.operation, "op");
  EXPECT_DOUBLE_EQ(op.topology.linkBandwidth, 2e9);
  EXPECT_DOUBLE_EQ(op.topology.injectionBandwidth, 1e9);
  EXPECT_DOUBLE_EQ(op.topology.linkLatency, 1e-6);
  ASSERT_EQ(op.schedule.phases.size(), 2u);
  EXPECT_EQ(op.schedule.phases[0].transfers[0].ties, 1u);
  EXPECT_EQ(op.schedule.phases[0].transfers[1].ties, 0u);
  EXPECT_EQ(op.transfers.lookup(0, 2), 16);
  EXPECT_EQ(op.transfers.lookup(1, 2), 8);
}

TEST(SimGridSources, EmbeddedSupportFiles) {
  EXPECT_NE(platformSource().find("load_platform"), llvm::StringRef::npos);
  EXPECT_NE(programSource().find("PHASEC_SIM_TIME"), llvm::StringRef::npos);
  EXPECT_NE(reportScript().find("timeline_from_trace"), llvm::StringRef::npos);
}

TEST(SimGridSources, EmbeddedRelaySupportFiles) {
  EXPECT_NE(collSource().find("PHASEC_SIM_VERIFIED"), llvm::StringRef::npos);
  EXPECT_NE(runtimeHeader().find("phasec_wtime"), llvm::StringRef::npos);
  EXPECT_NE(runtimeMPIHeader().find("phasec_mpi_init"), llvm::StringRef::npos);
  EXPECT_NE(runtimeCoreSource().find("clock_gettime"), llvm::StringRef::npos);
  EXPECT_NE(runtimeMPISource().find("phasec_mpi_phase_barrier"),
            llvm::StringRef::npos);
}

// SimGrid 3.32's own lists, in its order; `automatic` is listed (and
// skipped with its reason), scan and exscan have the one `default`.
TEST(SimGridBuiltins, ListsPerCollective) {
  struct Expect {
    const char *collective;
    size_t size;
    const char *first, *last;
  } expects[] = {{"bcast", 25, "default", "automatic"},
                 {"allreduce", 22, "default", "automatic"},
                 {"reduce", 20, "default", "automatic"},
                 {"allgather", 22, "default", "automatic"},
                 {"reduce_scatter", 12, "default", "automatic"},
                 {"gather", 10, "default", "automatic"},
                 {"scatter", 11, "default", "automatic"},
                 {"barrier", 14, "default", "automatic"},
                 {"alltoall", 21, "default", "automatic"},
                 {"alltoallv", 16, "default", "automatic"},
                 {"scan", 1, "default", "default"},
                 {"exscan", 1, "default", "default"}};
  for (const Expect &e : expects) {
    llvm::ArrayRef<const char *> list = collectiveBuiltins(e.collective);
    ASSERT_EQ(list.size(), e.size) << e.collective;
    EXPECT_STREQ(list.front(), e.first) << e.collective;
    EXPECT_STREQ(list.back(), e.last) << e.collective;
  }
  EXPECT_TRUE(collectiveBuiltins("allgatherv").empty());
  EXPECT_FALSE(builtinSkipReason("automatic").empty());
  EXPECT_TRUE(builtinSkipReason("rab2").empty());
}

// The library refuses a report for a relaying operation (the driver says so
// at the operation first: test/Driver/emit-errors.test), before writing
// anything.
TEST(SimGridRelay, ReportIsRefusedBeforeAnythingIsWritten) {
  Topology topo = makeTopology("torus:4");
  ChunkSpec chunks;
  chunks.kind = CollectiveKind::Broadcast;
  chunks.group = {0, 1, 2, 3};
  chunks.root = 0;
  chunks.numChunks = 1;
  chunks.chunkBytes = 8;
  Problem problem(topo, chunks, CostModel(topo));
  Schedule schedule;
  RelayProgram relay;
  relay.builtin.collective = "bcast";
  SimOperation op{{"b", &topo, &problem, &schedule}, &relay};
  SimTargetOptions options;
  options.outDir = "/nonexistent/phasec-sim-test";
  options.reportDir = "/nonexistent/phasec-sim-report";
  std::string out, diag;
  llvm::raw_string_ostream outOS(out), diagOS(diag);
  EXPECT_TRUE(llvm::failed(runSimTarget({op}, options, outOS, diagOS)));
  EXPECT_EQ(diag,
            "error: b: --report is not supported for a relaying operation\n");
  EXPECT_TRUE(out.empty());
}
