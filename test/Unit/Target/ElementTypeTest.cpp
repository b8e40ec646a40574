//===- ElementTypeTest.cpp - The back ends' view of element types ---------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Target/OperationPlan.h"

#include "gtest/gtest.h"

using namespace phasec;
using namespace phasec::target;

namespace {

// Every element type of the vocabulary has one C view, whose size is the
// vocabulary's and whose short name and vocabulary spelling both parse back
// to it.
TEST(ElementCType, EveryVocabularyTypeRoundTrips) {
  for (uint32_t i = 0; i <= getMaxEnumValForElementType(); ++i) {
    std::optional<ElementType> type = symbolizeElementType(i);
    ASSERT_TRUE(type.has_value());
    ElementCType ctype = getElementCType(*type);
    EXPECT_EQ(ctype.size, elementTypeBytes(*type));
    for (llvm::StringRef name :
         {llvm::StringRef(ctype.name), stringifyElementType(*type)}) {
      std::string error;
      auto parsed = parseElementType(name, error);
      ASSERT_TRUE(succeeded(parsed)) << error;
      EXPECT_EQ(parsed->name, ctype.name);
      EXPECT_EQ(parsed->cType, ctype.cType);
    }
  }
}

TEST(ElementCType, AliasesAndErrors) {
  std::string error;
  EXPECT_EQ(parseElementType("byte", error)->name, "u8");
  EXPECT_EQ(parseElementType("double", error)->cType, "double");
  EXPECT_EQ(parseElementType("float32", error)->name, "f32");
  EXPECT_TRUE(failed(parseElementType("i128", error)));
  EXPECT_EQ(error, "unknown element type 'i128' (expected i8, u8, i16, u16, "
                   "i32, u32, i64, u64, f32, f64, c64 or c128)");
}

} // namespace
