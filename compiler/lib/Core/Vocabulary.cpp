//===- Vocabulary.cpp - phasec's closed sets, declared once ---------------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Core/Vocabulary.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

#include "phasec/Core/Vocabulary.cpp.inc"

int64_t phasec::elementTypeBytes(ElementType type) {
  switch (type) {
  case ElementType::Int8:
  case ElementType::UInt8:
    return 1;
  case ElementType::Int16:
  case ElementType::UInt16:
    return 2;
  case ElementType::Int32:
  case ElementType::UInt32:
  case ElementType::F32:
    return 4;
  case ElementType::Int64:
  case ElementType::UInt64:
  case ElementType::F64:
  case ElementType::Complex64:
    return 8;
  case ElementType::Complex128:
    return 16;
  }
  llvm_unreachable("unknown element type");
}
