//===- OperationPlanTest.cpp - Plans from verified schedules --------------===//
//
// Part of phasec. Unit tests of buildOperationPlan: member mapping, offsets
// of split transfers, phase formulas, and the checks against the operation.
//
//===----------------------------------------------------------------------===//

#include "phasec/Target/OperationPlan.h"
#include "phasec/Scheduling/Baselines.h"
#include "phasec/Target/MPI/MPIEmitter.h"
#include "phasec/Target/SHMEM/SHMEMEmitter.h"

#include "TestSchedules.h"

#include "gtest/gtest.h"

using namespace phasec;
using namespace phasec::target;
using phasec::target::test::alltoall;

namespace {

/// A linear-shift schedule of `req` on the machine `spec`.
Schedule shiftSchedule(const Collective &req, int p, const char *spec) {
  (void)p;
  return test::scheduleOn(spec, req, scheduleLinearShift);
}

/// The back ends' element type `name`, which must exist.
ElementCType elementType(llvm::StringRef name) {
  std::string error;
  auto elem = parseElementType(name, error);
  EXPECT_TRUE(succeeded(elem)) << error;
  return succeeded(elem) ? *elem : ElementCType();
}

/// A transpose of a rows x cols array of `bytes`-byte elements.
Collective transpose(int p, int64_t rows, int64_t cols, int64_t bytes) {
  Collective r = alltoall(p, 0);
  r.kind = CollectiveKind::Transpose;
  ArrayLayout a;
  a.shape = {rows, cols};
  a.elementBytes = bytes;
  r.from = a;
  a.shape = {cols, rows};
  r.to = a;
  return r;
}

TEST(OperationPlan, ShiftFormulaOnOneNode) {
  Collective req = alltoall(4, 64);
  Schedule s = shiftSchedule(req, 4, "torus:1;ranks=4");
  std::string error;
  auto plan = buildOperationPlan("a2a", req, elementType("u8"), s,
                                 PlanOptions(), error);
  ASSERT_TRUE(succeeded(plan)) << error;
  EXPECT_EQ(plan->phases.size(), 3u);
  EXPECT_TRUE(plan->useFormulas);
  EXPECT_TRUE(plan->consecutiveFormula);
  for (auto [j, ph] : llvm::enumerate(plan->phases)) {
    EXPECT_EQ(ph.formula, PhaseFormula::Shift);
    EXPECT_EQ(ph.k, static_cast<int64_t>(j) + 1);
  }
}

TEST(OperationPlan, RingNeedsTablesAndSplitsGetOffsets) {
  Collective req = alltoall(4, 64);
  Schedule s = shiftSchedule(req, 4, "torus:4");
  // Split every transfer in two halves in the same phase.
  for (Phase &ph : s.phases) {
    std::vector<Transfer> out;
    for (const Transfer &t : ph.transfers) {
      out.push_back({t.src, t.dst, t.bytes / 2, t.ties});
      out.push_back({t.src, t.dst, t.bytes - t.bytes / 2, t.ties});
    }
    ph.transfers = out;
  }
  std::string error;
  auto plan = buildOperationPlan("a2a", req, ElementCType{"u8", "uint8_t", 1},
                                 s, PlanOptions(), error);
  ASSERT_TRUE(succeeded(plan)) << error;
  EXPECT_FALSE(plan->useFormulas);
  for (const PlannedPhase &ph : plan->phases)
    for (size_t i = 0; i + 1 < ph.transfers.size(); i += 2) {
      EXPECT_EQ(ph.transfers[i].offset, 0);
      EXPECT_EQ(ph.transfers[i + 1].offset, 32);
      EXPECT_EQ(ph.transfers[i + 1].src, ph.transfers[i].src);
    }
}

TEST(OperationPlan, RectangularTranspose) {
  // An 8 x 12 f64 array on 4 members: 2 x 3 blocks of 48 bytes, the
  // traffic of an all-to-all.
  Collective req = transpose(4, 8, 12, 8);
  Schedule s = shiftSchedule(req, 4, "torus:1;ranks=4");
  ElementCType elem = elementType("f64");
  std::string error;
  auto plan = buildOperationPlan("t", req, elem, s, PlanOptions(), error);
  ASSERT_TRUE(succeeded(plan)) << error;
  EXPECT_EQ(plan->kind, CollectiveKind::Transpose);
  EXPECT_FALSE(plan->isSquare());
  EXPECT_EQ(plan->rowsPerMember(), 2);
  EXPECT_EQ(plan->colsPerMember(), 3);
  EXPECT_EQ(plan->demand(0, 1), 48);
  EXPECT_EQ(plan->demand(2, 2), 0);
  EXPECT_TRUE(plan->useFormulas);

  // A schedule of blocks of another size is refused.
  auto other = buildOperationPlan("t", transpose(4, 8, 16, 8), elem, s,
                                  PlanOptions(), error);
  EXPECT_TRUE(failed(other));
  // Extents the group does not divide.
  auto indivisible = buildOperationPlan("t", transpose(4, 8, 10, 8), elem, s,
                                        PlanOptions(), error);
  EXPECT_TRUE(failed(indivisible));
  EXPECT_NE(error.find("do not both divide evenly over 4 ranks"),
            std::string::npos)
      << error;
}

TEST(OperationPlan, RefusesArraysDistributedByCols) {
  // The generators lay arrays out as slabs of rows: a permute of arrays by
  // cols moves other elements (Collective::lower counts them right), so it
  // is refused rather than emitted wrong.
  Collective req = alltoall(2, 0);
  req.kind = CollectiveKind::Permute;
  req.permutation.kind = PermuteKind::Shift;
  req.permutation.shift = 1;
  ArrayLayout a;
  a.shape = {2, 2};
  a.elementBytes = 4;
  a.distribution = Distribution::Cols;
  req.from = req.to = a;
  Schedule s = shiftSchedule(req, 2, "torus:2");
  std::string error;
  auto plan = buildOperationPlan("p", req, ElementCType{"u32", "uint32_t", 4},
                                 s, PlanOptions(), error);
  EXPECT_TRUE(failed(plan));
  EXPECT_EQ(error, "not yet supported: generated code for a permute of arrays "
                   "distributed by cols");
}

TEST(OperationPlan, RefusesAnElementTypeOfAnotherSize) {
  // The arrays hold 8-byte elements; a plan of 16-byte ones would move
  // twice the bytes the schedule delivers.
  Collective req = transpose(4, 8, 8, 8);
  Schedule s = shiftSchedule(req, 4, "torus:1;ranks=4");
  std::string error;
  auto plan =
      buildOperationPlan("t", req, ElementCType{"c128", "phasec_c128_t", 16}, s,
                         PlanOptions(), error);
  EXPECT_TRUE(failed(plan));
  EXPECT_EQ(error,
            "the element type c128 has 16 bytes, the array's elements 8");
}

TEST(OperationPlan, RejectsIncompleteSchedules) {
  Collective req = alltoall(3, 16);
  Schedule s = shiftSchedule(req, 3, "torus:1;ranks=3");
  s.phases.back().transfers.pop_back();
  std::string error;
  auto plan = buildOperationPlan("a2a", req, ElementCType{"u8", "uint8_t", 1},
                                 s, PlanOptions(), error);
  EXPECT_TRUE(failed(plan));
  EXPECT_NE(error.find("the schedule delivers 0 of the 16 bytes"),
            std::string::npos)
      << error;
}

TEST(OperationPlan, EmittersAreDeterministic) {
  ElementCType elem = elementType("c128");
  Collective req = transpose(4, 64, 64, elem.size);
  Schedule s = shiftSchedule(req, 4, "torus:4");
  std::string error;
  auto plan = buildOperationPlan("t", req, elem, s, PlanOptions(), error);
  ASSERT_TRUE(succeeded(plan)) << error;
  std::string a, b, c;
  llvm::raw_string_ostream oa(a), ob(b), oc(c);
  MPIOptions mo;
  mo.main = true;
  ASSERT_TRUE(succeeded(emitMPI(*plan, oa, mo, error))) << error;
  ASSERT_TRUE(succeeded(emitMPI(*plan, ob, mo, error))) << error;
  EXPECT_EQ(a, b);
  ASSERT_TRUE(succeeded(emitSHMEM(*plan, oc, SHMEMOptions(), error)));
  EXPECT_NE(c.find("shmem_ptr(b,"), std::string::npos);
  // Never a P x P table: a ring's shift repeats under translations, so a
  // representative's tables serve its orbit (moved at run time)...
  EXPECT_NE(a.find("t_rsend_o0[]"), std::string::npos);
  EXPECT_EQ(a.find("t_rsend_o2[]"), std::string::npos);
  EXPECT_NE(a.find("t_expand(me);"), std::string::npos);
  EXPECT_EQ(a.find("t_send_m3[]"), std::string::npos);
  // ... and without translations one table per member.
  PlanOptions perMember;
  perMember.translations = false;
  auto plain = buildOperationPlan("t", req, elem, s, perMember, error);
  ASSERT_TRUE(succeeded(plain)) << error;
  EXPECT_TRUE(plain->tableReps.empty());
  std::string d;
  llvm::raw_string_ostream od(d);
  ASSERT_TRUE(succeeded(emitMPI(*plain, od, mo, error))) << error;
  EXPECT_NE(d.find("t_send_m3[]"), std::string::npos);
  EXPECT_EQ(d.find("_expand"), std::string::npos);
}

} // namespace
