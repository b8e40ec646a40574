//===- Datatypes.cpp - Datatype layouts and byte views of buffers ---------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "Pmpi.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace phasec::pmpi {

namespace {

/// The datatype attribute that keeps a derived type's layout (the verdict
/// + 1, so that 0 is "not measured"). MPI_Type_dup copies it (a duplicate
/// has the same type map); it goes when the type is freed, so that a
/// handle reused for another type is measured again.
int layoutKey = MPI_KEYVAL_INVALID;

/// Derived types up to this size are measured by packing one element;
/// larger ones are packed and unpacked (always right, maybe slower).
constexpr int kMaxMeasuredBytes = 1 << 24;

/// A type's layout, measured. The bounds say whether an array of it is
/// dense (no holes, nothing before 0, one element every `size` bytes).
/// Named types are their single basic type or a pair packed in order
/// (MPI_FLOAT_INT): dense means identity. A derived type may reorder its
/// bytes (MPI_Type_indexed with displacements {1, 0}, a column type
/// resized to one element): one element is packed from memory whose byte
/// j holds digit k of j in base 256, once per digit; the packed byte i
/// came from offset i in every pass exactly when the map is the identity.
Layout measure(MPI_Datatype type) {
  int size = 0;
  MPI_Aint lb, extent, trueLb, trueExtent;
  PMPI_Type_size(type, &size);
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_get_true_extent(type, &trueLb, &trueExtent);
  if (lb != 0 || trueLb != 0 || extent != size || trueExtent != size)
    return Layout::Sparse;
  int integers, addresses, types, combiner;
  PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  if (combiner == MPI_COMBINER_NAMED || size == 0)
    return Layout::Identity;
  if (size > kMaxMeasuredBytes)
    return Layout::Dense;
  std::vector<unsigned char> memory(static_cast<size_t>(size)),
      packed(static_cast<size_t>(size));
  for (int shift = 0; shift == 0 || ((size - 1) >> shift) != 0; shift += 8) {
    for (int j = 0; j < size; ++j)
      memory[j] = static_cast<unsigned char>((j >> shift) & 0xff);
    int position = 0;
    if (PMPI_Pack(memory.data(), 1, type, packed.data(), size, &position,
                  MPI_COMM_SELF) != MPI_SUCCESS ||
        position != size)
      return Layout::Dense;
    for (int i = 0; i < size; ++i)
      if (packed[i] != static_cast<unsigned char>((i >> shift) & 0xff))
        return Layout::Dense;
  }
  return Layout::Identity;
}

} // namespace

void createLayoutKey() {
  PMPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &layoutKey,
                          nullptr);
}

void freeLayoutKey() {
  if (layoutKey != MPI_KEYVAL_INVALID)
    PMPI_Type_free_keyval(&layoutKey);
}

Layout layoutOf(MPI_Datatype type) {
  int integers, addresses, types, combiner;
  PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  if (combiner == MPI_COMBINER_NAMED || layoutKey == MPI_KEYVAL_INVALID)
    return measure(type);
  void *value = nullptr;
  int found = 0;
  PMPI_Type_get_attr(type, layoutKey, &value, &found);
  if (found && value)
    return static_cast<Layout>(reinterpret_cast<intptr_t>(value) - 1);
  Layout layout = measure(type);
  PMPI_Type_set_attr(
      type, layoutKey,
      reinterpret_cast<void *>(static_cast<intptr_t>(layout) + 1));
  return layout;
}

int64_t typeSize(MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return size;
}

/// Packs or unpacks `count` elements in pieces whose bytes fit an int. The
/// machine is homogeneous (one Open MPI job): packing for MPI_COMM_SELF is
/// packing for any communicator, and the caller's communicator may be gone
/// when a nonblocking call unpacks.
static void packPieces(char *user, int64_t count, MPI_Datatype type,
                       char *packed, bool unpack) {
  if (count <= 0)
    return;
  MPI_Aint lb, extent;
  PMPI_Type_get_extent(type, &lb, &extent);
  const int64_t size = typeSize(type);
  if (!size)
    return;
  const int64_t step = std::max<int64_t>(1, INT32_MAX / size);
  for (int64_t at = 0; at < count; at += step) {
    int n = static_cast<int>(std::min<int64_t>(count - at, step));
    int position = 0;
    int bytes = static_cast<int>(n * size);
    if (unpack)
      PMPI_Unpack(packed + at * size, bytes, &position, user + at * extent, n,
                  type, MPI_COMM_SELF);
    else
      PMPI_Pack(user + at * extent, n, type, packed + at * size, bytes,
                &position, MPI_COMM_SELF);
  }
}

void packTo(const void *user, int64_t count, MPI_Datatype type, char *out) {
  packPieces(const_cast<char *>(static_cast<const char *>(user)), count, type,
             out, /*unpack=*/false);
}

void unpackFrom(const char *in, int64_t count, MPI_Datatype type, void *user) {
  packPieces(static_cast<char *>(user), count, type, const_cast<char *>(in),
             /*unpack=*/true);
}

/// The send side as bytes: `count` elements of `type` at `buf`, the
/// caller's memory itself where the type map is the identity, else packed
/// (the wire carries the type's signature in order, as MPI's own does).
void viewSend(const void *buf, int64_t count, MPI_Datatype type,
              ByteView &view) {
  view.elementBytes = typeSize(type);
  if (layoutOf(type) == Layout::Identity) {
    view.bytes = const_cast<char *>(static_cast<const char *>(buf));
    return;
  }
  view.packed.resize(static_cast<size_t>(count * view.elementBytes));
  packTo(buf, count, type, view.packed.data());
  view.bytes = view.packed.data();
  view.isPacked = true;
}

/// The receive side as bytes. A packed view starts as a copy of the
/// buffer, so that unpacking leaves what no block covers as it was.
void viewRecv(void *buf, int64_t count, MPI_Datatype type, ByteView &view) {
  viewSend(buf, count, type, view);
}

/// MPI_IN_PLACE: what to send is in the receive buffer, which the call
/// overwrites: a copy of its `count` elements, as bytes.
void viewInPlace(void *recvbuf, int64_t count, MPI_Datatype type,
                 ByteView &view) {
  ByteView current;
  viewSend(recvbuf, count, type, current);
  view.packed.assign(current.bytes,
                     current.bytes + count * current.elementBytes);
  view.bytes = view.packed.data();
  view.elementBytes = current.elementBytes;
}

void unpackRecv(void *buf, int64_t count, MPI_Datatype type, ByteView &view) {
  if (!view.isPacked)
    return;
  unpackFrom(view.packed.data(), count, type, buf);
}

std::function<int()> unpackLater(void *buf, int64_t count, MPI_Datatype type,
                                 ByteView &view) {
  if (!view.isPacked)
    return nullptr;
  return [buf, count, type, &view] {
    unpackRecv(buf, count, type, view);
    return int(MPI_SUCCESS);
  };
}

} // namespace phasec::pmpi
