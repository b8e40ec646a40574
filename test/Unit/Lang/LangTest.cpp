//===- LangTest.cpp - Unit tests for the .sched front end -----------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Runs parseAndCheck() on small in-memory programs and checks the evaluated
/// AST and the diagnostics (text, line and column). The lit tests in
/// test/Lang check the same diagnostics through the phasec driver; these run
/// without it and check the values lowering depends on.
///
//===----------------------------------------------------------------------===//

#include "phasec/Lang/Parser.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>

using namespace phasec;
using namespace phasec::lang;

namespace {

struct Result {
  std::unique_ptr<Program> program;
  std::string diags;
  unsigned errors = 0;
};

/// Parses and checks one buffer, collecting its diagnostics.
Result check(std::unique_ptr<llvm::MemoryBuffer> buf,
             const FrontendOptions &opts) {
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(std::move(buf), llvm::SMLoc());
  Result r;
  llvm::raw_string_ostream os(r.diags);
  DiagnosticEngine diag(sm, os);
  r.program = parseAndCheck(sm, opts, diag);
  r.errors = diag.numErrors();
  os.flush();
  return r;
}

Result run(llvm::StringRef text, FrontendOptions opts = {}) {
  return check(llvm::MemoryBuffer::getMemBufferCopy(text, "t.sched"), opts);
}

Result runFile(llvm::StringRef path, FrontendOptions opts = {}) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(static_cast<bool>(buf)) << path.str();
  return check(std::move(*buf), opts);
}

const char *kT3d = R"(
machine t3d {
  topology = torus(8, 4, 8, 2);
  bandwidth = 75 MB/s;
  latency = 1 us;
  ranks_per_node = 1;
  routing = dimension_order(0, 1, 2, 3);
  injection = 75 MB/s;
}
)";

/// Whether `r`'s diagnostics contain `needle`; a failure shows them all.
testing::AssertionResult hasDiag(const Result &r, llvm::StringRef needle) {
  if (r.diags.find(needle.str()) != std::string::npos)
    return testing::AssertionSuccess();
  return testing::AssertionFailure() << r.diags;
}

/// Seed 002's all-to-all on one PERCS supernode of 4 nodes x 4 ranks,
/// written by hand: the first `phases` of its 4 phases (fewer leave pairs
/// unsent).
std::string seed002Schedule(int phases) {
  return R"(
machine p { topology = percs(1, 1, 4); ranks_per_node = 4; }
alltoall a { block = 1 KiB;
  schedule { for i in 0 .. )" +
         std::to_string(phases) + R"( { phase { for n in 0 .. 4 {
    for j in 0 .. 4 { for c in 0 .. 4 {
      send rank(n, j) -> rank((n + j + i) % 4, c); } } } } } }
}
)";
}

} // namespace

TEST(LangTest, MachineIsEvaluated) {
  Result r = run(std::string(kT3d) + "alltoall aapc { block = 32 KiB; }\n");
  ASSERT_TRUE(r.program) << r.diags;
  ASSERT_EQ(r.program->machines.size(), 1u);
  const Machine &m = *r.program->machines[0];
  EXPECT_EQ(m.kind, TopologyKind::Torus);
  EXPECT_EQ(m.dims, (llvm::SmallVector<int64_t, 4>{8, 4, 8, 2}));
  EXPECT_EQ(m.numNodes(), 512);
  EXPECT_DOUBLE_EQ(m.bandwidth, 75e6);
  EXPECT_DOUBLE_EQ(m.latency, 1e-6);
  EXPECT_DOUBLE_EQ(m.injectionBandwidth, 75e6);
  EXPECT_EQ(m.dimOrder, (llvm::SmallVector<unsigned, 4>{0, 1, 2, 3}));
  ASSERT_EQ(r.program->operations.size(), 1u);
  const Operation &op = *r.program->operations[0];
  EXPECT_EQ(op.kind, CollectiveKind::Alltoall);
  EXPECT_EQ(op.name, "aapc");
  EXPECT_EQ(op.blockBytes, 32768);
  EXPECT_EQ(op.group->size(), 512);
  EXPECT_TRUE(op.group->implicitAll);
  EXPECT_EQ(op.directives.algorithm, Algorithm::Auto);
  EXPECT_TRUE(op.loc.isValid());
}

TEST(LangTest, UnitsAndConstants) {
  Result r = run(R"(
const K = 3;
const SZ = 2 KB;
machine m {
  topology = mesh(4, 4);
  bandwidth = 2.5 GB/s;
  latency = 250 ns;
  setup_cost = 35 us;
  packet_length = 512 B;
  copy_rate.contiguous = 1 GiB/s;
  copy_rate.strided = 100 KiB/s;
  routing = dimension_order(1, 0);
}
alltoall a { block = K * SZ; }
alltoall b { block = 1 MiB; }
)");
  ASSERT_TRUE(r.program) << r.diags;
  const Machine &m = *r.program->machines[0];
  EXPECT_DOUBLE_EQ(m.bandwidth, 2.5e9);
  EXPECT_DOUBLE_EQ(m.latency, 250e-9);
  EXPECT_DOUBLE_EQ(m.cost.setupCost, 35e-6);
  EXPECT_EQ(m.cost.packetLength, 512);
  EXPECT_DOUBLE_EQ(m.cost.copyRateContiguous, 1073741824.0);
  EXPECT_DOUBLE_EQ(m.cost.copyRateStrided, 102400.0);
  EXPECT_EQ(m.dimOrder, (llvm::SmallVector<unsigned, 4>{1, 0}));
  EXPECT_EQ(r.program->operations[0]->blockBytes, 6000);
  EXPECT_EQ(r.program->operations[1]->blockBytes, 1048576);
}

TEST(LangTest, GroupsArePredicatesOverCoordinates) {
  Result r = run(std::string(kT3d) + R"(
group plane0 = nodes where z == 0;
group odd = ranks 1 .. 16 step 2;
group some = nodes { 5, 3, 1 };
group both = nodes where x == 0 && (y == 1 || d3 == 1);
)");
  ASSERT_TRUE(r.program) << r.diags;
  const Group *plane0 = r.program->lookupGroup("plane0");
  ASSERT_TRUE(plane0);
  EXPECT_EQ(plane0->size(), 8 * 4 * 2);
  EXPECT_TRUE(plane0->overNodes);
  for (int32_t n : plane0->nodes)
    EXPECT_EQ(plane0->machine->coord(n, 2), 0);
  const Group *odd = r.program->lookupGroup("odd");
  EXPECT_EQ(odd->ranks, (std::vector<int32_t>{1, 3, 5, 7, 9, 11, 13, 15}));
  EXPECT_FALSE(odd->overNodes);
  const Group *some = r.program->lookupGroup("some");
  EXPECT_EQ(some->ranks, (std::vector<int32_t>{1, 3, 5}));
  const Group *both = r.program->lookupGroup("both");
  for (int32_t n : both->nodes) {
    EXPECT_EQ(both->machine->coord(n, 0), 0);
    EXPECT_TRUE(both->machine->coord(n, 1) == 1 ||
                both->machine->coord(n, 3) == 1);
  }
  // x == 0: 4 * 8 * 2 nodes, minus those with y != 1 and w != 1.
  EXPECT_EQ(both->size(), 4 * 8 * 2 - 3 * 8 * 1);
}

TEST(LangTest, PercsCoordinatesAndRanksPerNode) {
  Result r = run(R"(
machine p { topology = percs(2, 4, 8); ranks_per_node = 4; }
group drawer1 = nodes where supernode == 1 && drawer == 1;
group cores0 = ranks where core == 0 && index < 2;
)");
  ASSERT_TRUE(r.program) << r.diags;
  const Machine &m = *r.program->machines[0];
  EXPECT_EQ(m.routing, Routing::Direct);
  EXPECT_DOUBLE_EQ(m.llBandwidth, 24e9);
  EXPECT_DOUBLE_EQ(m.lrBandwidth, 5e9);
  EXPECT_DOUBLE_EQ(m.dBandwidth, 10e9);
  const Group *d1 = r.program->lookupGroup("drawer1");
  EXPECT_EQ(d1->nodes.front(), 32 + 8);
  EXPECT_EQ(d1->nodes.size(), 8u);
  EXPECT_EQ(d1->ranks.size(), 32u);
  const Group *c0 = r.program->lookupGroup("cores0");
  // 2 supernodes * 4 drawers * 2 nodes, core 0 each.
  EXPECT_EQ(c0->size(), 16);
  EXPECT_EQ(c0->ranks[1], 4);
}

TEST(LangTest, HandWrittenSeed002Schedule) {
  Result r = run(seed002Schedule(4));
  ASSERT_TRUE(r.program) << r.diags;
  const Operation &op = *r.program->operations[0];
  EXPECT_EQ(op.directives.algorithm, Algorithm::Schedule);
  ASSERT_EQ(op.phases.size(), 4u);
  EXPECT_EQ(op.numScheduledTransfers(), 4u * 4 * 4 * 4);
  const Transfer &t = op.phases[1].transfers[5];
  // i = 1, n = 0, j = 1, c = 1: rank 1 -> node 2 core 1 = rank 9.
  EXPECT_EQ(t.src, 1);
  EXPECT_EQ(t.dst, 9);
  EXPECT_EQ(t.bytes, 1024);
  EXPECT_TRUE(t.loc.isValid());
}

/// The front end unrolls a hand-written schedule but leaves its traffic to
/// comm-verify-schedule (Problem::verify, the one completeness check): an
/// incomplete one (3 of 4 phases) is a valid program.
TEST(LangTest, HandWrittenScheduleTrafficIsNotSemas) {
  Result r = run(seed002Schedule(3));
  ASSERT_TRUE(r.program) << r.diags;
  EXPECT_EQ(r.program->operations[0]->phases.size(), 3u);
}

TEST(LangTest, Permutations) {
  Result r = run(R"(
machine m { topology = hypercube(3); bandwidth = 1 GB/s; }
permute a { pattern = bit_reversal; block = 8 B; }
permute b { pattern = xor(5); block = 8 B; }
permute c { pattern = shift(-1); block = 8 B; }
permute d { pattern = random(7); block = 8 B; }
)");
  ASSERT_TRUE(r.program) << r.diags;
  // Sema records each rule; Collective::getPermutation materialises it
  // (CollectivesTest checks the values).
  auto &ops = r.program->operations;
  EXPECT_EQ(ops[0]->permuteKind, PermuteKind::BitReversal);
  EXPECT_EQ(ops[1]->permuteKind, PermuteKind::Xor);
  EXPECT_EQ(ops[1]->mask, 5);
  EXPECT_EQ(ops[2]->permuteKind, PermuteKind::Shift);
  EXPECT_EQ(ops[2]->shift, -1);
  EXPECT_EQ(ops[3]->permuteKind, PermuteKind::Random);
  EXPECT_EQ(ops[3]->seed, 7u);
  for (const auto &op : ops)
    EXPECT_TRUE(op->permutation.empty());
}

TEST(LangTest, ElementPermuteLeavesTrafficToTheCollective) {
  Result r = run(R"(
machine m { topology = mesh(2); bandwidth = 1 GB/s; }
array A : int32[4] by rows over all;
permute p { from = A; pattern = shift(1); }
)");
  ASSERT_TRUE(r.program) << r.diags;
  const Operation &op = *r.program->operations[0];
  EXPECT_TRUE(op.elementLevel);
  EXPECT_EQ(op.from->name, "A");
  EXPECT_EQ(op.elementType, ElementType::Int32);
  // The rank-to-rank bytes are Collective::lower's (CollectivesTest);
  // Sema derives no size matrix for a permute.
  EXPECT_TRUE(op.sizes.empty());
}

TEST(LangTest, TransposeBlocks) {
  Result r = run(std::string(kT3d) + R"(
array A : complex128[4096, 4096] by rows over all;
array B : complex128[4096, 4096] by rows over all;
transpose tp { from = A; to = B; style = direct_deposit; }
)");
  ASSERT_TRUE(r.program) << r.diags;
  const Operation &op = *r.program->operations[0];
  EXPECT_EQ(op.blockBytes, 8 * 8 * 16);
  EXPECT_EQ(op.directives.style, TransferStyle::DirectDeposit);
  EXPECT_EQ(op.from->name, "A");
}

TEST(LangTest, AlltoallvRule) {
  Result r = run(R"(
machine m { topology = torus(3); bandwidth = 1 GB/s; }
alltoallv v { sizes = (src + 2 * dst) KiB; }
)");
  ASSERT_TRUE(r.program) << r.diags;
  const Operation &op = *r.program->operations[0];
  ASSERT_EQ(op.sizes.size(), 9u);
  EXPECT_EQ(op.sizes[1 * 3 + 2], (1 + 4) * 1024);
}

TEST(LangTest, ReductionsAndPapers) {
  Result r = run(R"(
machine m { topology = hypercube(2); bandwidth = 1 GB/s; }
group evens = ranks where rank % 2 == 0;
reduce r { root = 2; op = max; type = f64; count = 10; }
any a on evens;
putget pg on evens { source = (rank + 2) % 4; type = int64; }
population pop;
)");
  ASSERT_TRUE(r.program) << r.diags;
  auto &ops = r.program->operations;
  EXPECT_EQ(ops[0]->root, 2);
  EXPECT_EQ(ops[0]->blockBytes, 80);
  EXPECT_EQ(ops[1]->kind, CollectiveKind::Allreduce);
  EXPECT_EQ(ops[1]->aggregate, Aggregate::Any);
  EXPECT_EQ(ops[1]->reduceOp, ReduceKind::Or);
  EXPECT_EQ(ops[2]->kind, CollectiveKind::Alltoallv);
  EXPECT_EQ(ops[2]->sizes, (std::vector<int64_t>{0, 8, 8, 0}));
  EXPECT_EQ(ops[3]->kind, CollectiveKind::Local);
}

TEST(LangTest, TopologyOverride) {
  FrontendOptions opts;
  opts.topologyOverride = "mesh:16x16";
  opts.ranksPerNodeOverride = 2;
  Result r = run(std::string(kT3d) + "alltoall a { block = 1 KiB; }\n", opts);
  ASSERT_TRUE(r.program) << r.diags;
  const Machine &m = *r.program->machines[0];
  EXPECT_EQ(m.kind, TopologyKind::Mesh);
  EXPECT_EQ(m.numRanks(), 512);
  EXPECT_EQ(m.dimOrder, (llvm::SmallVector<unsigned, 4>{0, 1}));

  opts.topologyOverride = "percs:supernodes=1,drawers=4,nodes=8";
  opts.ranksPerNodeOverride = 0;
  r = run("machine m { topology = mesh(2); bandwidth = 1 GB/s; }\n", opts);
  ASSERT_TRUE(r.program) << r.diags;
  // The grid's one link rate applies to every PERCS link class.
  EXPECT_EQ(r.program->machines[0]->kind, TopologyKind::Percs);
  EXPECT_DOUBLE_EQ(r.program->machines[0]->llBandwidth, 1e9);
  EXPECT_DOUBLE_EQ(r.program->machines[0]->dBandwidth, 1e9);
  EXPECT_EQ(r.program->machines[0]->numNodes(), 32);

  opts.topologyOverride = "torus:8xq";
  r = run(kT3d, opts);
  EXPECT_FALSE(r.program);
  EXPECT_TRUE(hasDiag(r, "<command line>: error: invalid --topology "
                         "'torus:8xq'"));
}

TEST(LangTest, DiagnosticFormat) {
  Result r = run("machine m { topology = mesh(4); bandwidth = 1 GB/s; }\n"
                 "alltoall a { block = 0 B; }\n"
                 "alltoall b { block = 4 KiB; bogus = 1; }\n");
  EXPECT_FALSE(r.program);
  EXPECT_EQ(r.errors, 2u);
  EXPECT_TRUE(hasDiag(r, "t.sched:2:22: error: block size must be "
                         "positive, got 0 bytes\n"
                         "alltoall a { block = 0 B; }\n"
                         "                     ^\n"));
  EXPECT_TRUE(hasDiag(r, "t.sched:3:29: error: unknown directive 'bogus'"));
  EXPECT_TRUE(hasDiag(r, "t.sched:3:29: note: 'alltoall' takes:"));
}

TEST(LangTest, SyntaxErrorsAreReportedWithColumns) {
  Result r = run("machine m { topology = mesh(4) bandwidth = 1 GB/s; }\n"
                 "alltoall a { block = 4 KiB }\n"
                 "#\n");
  EXPECT_FALSE(r.program);
  EXPECT_GE(r.errors, 2u);
  // `mesh(4) bandwidth` reads as a value with the unit 'bandwidth', so the
  // parser stops at the '='.
  EXPECT_TRUE(hasDiag(r, "t.sched:1:42: error: syntax error: mismatched "
                         "input '=' expecting ';'"));
  EXPECT_TRUE(hasDiag(r, "t.sched:2:28: error: syntax error: missing "
                         "';' at '}'"));
  EXPECT_TRUE(hasDiag(r, "t.sched:3:1: error: syntax error: invalid "
                         "character '#'"));
}

TEST(LangTest, ArrayNotDivisibleHasNote) {
  Result r = run(std::string(kT3d) + R"(
group g = nodes 0 .. 48;
array A : f64[4096, 4096] by rows over g;
)");
  EXPECT_FALSE(r.program);
  EXPECT_TRUE(hasDiag(r, "array 'A' has 4096 rows, which group 'g' of "
                         "48 ranks cannot divide evenly"));
  EXPECT_TRUE(hasDiag(r, "note: group sizes that divide 4096 (up to the "
                         "machine's 512 ranks): 1, 2, 4, 8, 16, 32, "
                         "64, 128, 256, 512"));
}

TEST(LangTest, LimitsAreErrorsNotHangs) {
  FrontendOptions opts;
  opts.maxUnrolledTransfers = 1000;
  Result r = run(R"(
machine m { topology = torus(64); bandwidth = 1 GB/s; }
alltoall a { block = 8 B; schedule { for i in 0 .. 1000000 { phase {
  for j in 0 .. 64 { send j -> (j + i) % 64; } } } } }
)",
                 opts);
  EXPECT_FALSE(r.program);
  EXPECT_TRUE(hasDiag(r, "unroll to more than 1000 transfers"));

  std::string deep = "const X = " + std::string(5000, '(') + "1" +
                     std::string(5000, ')') + ";\n";
  r = run(deep);
  EXPECT_FALSE(r.program);
  EXPECT_TRUE(hasDiag(r, "nesting deeper than 200 levels"));

  std::string chain = "const X = 1";
  for (int i = 0; i < 100000; ++i)
    chain += "+1";
  r = run(chain + ";\n");
  EXPECT_FALSE(r.program);
  EXPECT_TRUE(hasDiag(r, "operators is not supported"));
}

TEST(LangTest, GarbageBytesDoNotCrash) {
  std::string bytes;
  for (int i = 0; i < 256; ++i)
    bytes += static_cast<char>(i);
  Result r = run(bytes);
  EXPECT_FALSE(r.program);
  EXPECT_GE(r.errors, 1u);
  // Non-ASCII bytes inside comments are fine.
  r = run("// caf\xc3\xa9 \xff\n machine m { topology = mesh(2); bandwidth = "
          "1 GB/s; }\n");
  EXPECT_TRUE(r.program) << r.diags;
}

TEST(LangTest, ErrorLimitStopsOutput) {
  std::string many;
  for (int i = 0; i < 100; ++i)
    many += "machine m" + std::to_string(i) + " { topology = mesh(0); }\n";
  Result r = run(many);
  EXPECT_FALSE(r.program);
  EXPECT_TRUE(hasDiag(r, "error: too many errors emitted, stopping now"));
}

TEST(LangTest, ExamplesParseAndCheck) {
  for (const char *name :
       {"t3d_aapc", "t3d_transpose", "random_permute", "radix_sort",
        "percs_alltoall", "delta_one_to_all", "delta_alltoall",
        "papers_aggregates"}) {
    llvm::SmallString<256> path(PHASEC_EXAMPLES_DIR);
    llvm::sys::path::append(path, std::string(name) + ".sched");
    Result r = runFile(path);
    EXPECT_TRUE(r.program) << name << ":\n" << r.diags;
    EXPECT_EQ(r.errors, 0u) << name;
    if (!r.program)
      continue;
    std::string a, b;
    llvm::raw_string_ostream osa(a), osb(b);
    r.program->print(osa);
    r.program->print(osb);
    EXPECT_EQ(osa.str(), osb.str());
  }
  llvm::SmallString<256> path(PHASEC_EXAMPLES_DIR);
  llvm::sys::path::append(path, "t3d_aapc.sched");
  Result r = runFile(path);
  ASSERT_TRUE(r.program);
  const Operation *aapc = r.program->lookupOperation("aapc");
  ASSERT_TRUE(aapc);
  EXPECT_EQ(aapc->blockBytes, 32 * 1024);
  EXPECT_EQ(aapc->group->size(), 512);
}

TEST(LangTest, OptionLimits) {
  FrontendOptions opts;
  opts.maxFileBytes = 16;
  Result r =
      run("machine m { topology = mesh(2); bandwidth = 1 GB/s; }\n", opts);
  EXPECT_FALSE(r.program);
  EXPECT_TRUE(hasDiag(r, "t.sched:1:1: error: input of 54 bytes exceeds "
                         "the limit of 16 bytes"));

  opts = FrontendOptions();
  opts.allowFileReads = false;
  r = run("machine m { topology = mesh(2); bandwidth = 1 GB/s; }\n"
          "alltoallv v { sizes = file(\"x.txt\"); }\n",
          opts);
  EXPECT_FALSE(r.program);
  EXPECT_TRUE(hasDiag(r, "error: reading files is disabled"));

  // Predicates count as evaluation steps too.
  opts = FrontendOptions();
  opts.maxLoopIterations = 100;
  r = run("machine m { topology = mesh(256); bandwidth = 1 GB/s; }\n"
          "group g = nodes where x % 2 == 0;\n",
          opts);
  EXPECT_FALSE(r.program);
  EXPECT_TRUE(hasDiag(r, "error: evaluation exceeds the limit of 100 "
                         "loop iterations"));

  // Nested loops whose inner trip count fits but whose total does not.
  opts = FrontendOptions();
  opts.maxLoopIterations = 1000;
  r = run("machine m { topology = mesh(64); bandwidth = 1 GB/s; }\n"
          "alltoall a { block = 1 B; schedule { for i in 0 .. 100 { for j in "
          "0 .. 100 { } } } }\n",
          opts);
  EXPECT_FALSE(r.program);
  EXPECT_TRUE(hasDiag(r, "error: loop of 100 iterations exceeds the "
                         "limit of 1000 loop iterations"));
}

TEST(LangTest, OperationDiagnosticsKeepTheirOrder) {
  // Sema checks operations through a table of operation kinds; the generic
  // checks it drives must keep the order of the diagnostics: several
  // directive errors per operation, and at most one error of the later
  // checks (a bad root before a missing block, a missing op before a bad
  // type of a reduction, a bad type of a putget before a missing source).
  Result r = run(R"(machine m { topology = mesh(4); bandwidth = 1 GB/s; }
array A : f64[4, 4] by rows over m;
alltoall a { block = 1 KiB; block = 2 KiB; root = 0; weird = 1; }
gather g { root = 9; }
reduce r { type = banana; }
putget p { type = banana; }
transpose t { from = A; }
frobnicate f;
)");
  EXPECT_FALSE(r.program);
  std::string got;
  llvm::StringRef rest(r.diags);
  while (!rest.empty()) {
    auto [line, tail] = rest.split('\n');
    if (line.contains(": error: ") || line.contains(": note: "))
      got += line.str() + "\n";
    rest = tail;
  }
  EXPECT_EQ(got,
            "t.sched:3:29: error: duplicate directive 'block'\n"
            "t.sched:3:14: note: previous definition is here\n"
            "t.sched:3:44: error: 'root' is not a directive of 'alltoall'\n"
            "t.sched:3:44: note: 'alltoall' takes: algorithm, sync, rlimit, "
            "machine, block\n"
            "t.sched:3:54: error: unknown directive 'weird'\n"
            "t.sched:3:54: note: 'alltoall' takes: algorithm, sync, rlimit, "
            "machine, block\n"
            "t.sched:4:19: error: root 9 is not in group 'all'\n"
            "t.sched:1:9: note: machine 'm' has ranks 0..3\n"
            "t.sched:5:8: error: operation 'r' needs 'op = "
            "add|mul|min|max|and|or|xor;'\n"
            "t.sched:6:19: error: unknown element type 'banana'\n"
            "t.sched:6:19: note: valid values: int8, int16, int32, int64, "
            "uint8, uint16, uint32, uint64, f32, f64, complex64, complex128\n"
            "t.sched:7:11: error: transpose 't' needs 'from = ARRAY;' and "
            "'to = ARRAY;'\n"
            "t.sched:8:1: error: unknown operation 'frobnicate'\n"
            "t.sched:8:1: note: operations: alltoall, alltoallv, transpose, "
            "permute, gather, scatter, allgather, broadcast, reduce, "
            "allreduce, scan, exscan, reduce_scatter, one_to_all, all_to_one, "
            "barrier, local, allgatherv, gatherv, scatterv; PAPERS "
            "aggregates: wait, waitvec, any, all, putget, bcast, rank, vote, "
            "match, population, enumerate, select_first, select_one; in "
            "'papers on GROUP { ... }' also gather, reduce, scan\n");
}
