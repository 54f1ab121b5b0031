//===- test/fuzz/fuzz_npy.cpp - The .npy reader ---------------------------===//
//
// Part of Plumb. The input is a .npy file for driver::readNpy. A tensor it
// accepts is written back with writeNpy and read again: the same type, shape
// and bytes (a reader that accepts what it cannot represent fails here).
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "plumb/Driver/TensorIO.h"

#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace plumb;
  static const std::string path = fuzz::scratchDir() + "/t.npy";
  static const std::string again = fuzz::scratchDir() + "/again.npy";
  fuzz::writeFile(path, data, size);
  exec::Tensor t;
  std::string err;
  if (!driver::readNpy(path, t, err)) {
    if (err.empty())
      std::abort();
    return 0;
  }
  exec::Tensor back;
  if (!driver::writeNpy(again, t, err) || !driver::readNpy(again, back, err)) {
    std::fprintf(stderr, "plumb-fuzz-npy: round trip failed: %s\n",
                 err.c_str());
    std::abort();
  }
  if (back.type != t.type || back.shape != t.shape ||
      back.byteSize() != t.byteSize() ||
      (t.byteSize() && std::memcmp(back.raw(), t.raw(), t.byteSize()) != 0)) {
    std::fprintf(stderr, "plumb-fuzz-npy: round trip changed the tensor\n");
    std::abort();
  }
  return 0;
}
