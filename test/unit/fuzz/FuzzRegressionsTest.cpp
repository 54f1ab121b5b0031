//===- test/unit/fuzz/FuzzRegressionsTest.cpp - What the fuzzers found ----===//
//
// Part of Plumb. Every input with which a fuzz target (test/fuzz) crashed,
// tripped a sanitizer, hung or ran out of memory is kept under
// test/fuzz/regressions/<target>/ and fed here to the same library entry
// point, which must now answer it cleanly: the error it gives is checked.
// (ctest's FuzzReplay.<target> also replays each through its harness.)
//
//===----------------------------------------------------------------------===//
#include "plumb/Driver/TensorIO.h"

#include <gtest/gtest.h>

#include <string>

using namespace plumb;

namespace {

std::string regression(const std::string &target, const std::string &name) {
  return std::string(PLUMB_FUZZ_REGRESSIONS) + "/" + target + "/" + name;
}

// An empty tensor (shape [0, 4]) has no storage: the reader passed its null
// data pointer to memcpy (UBSan: null pointer passed as argument 1). It
// reads as the empty tensor it is.
TEST(FuzzRegressions, TensorProtoEmptyTensor) {
  exec::Tensor t;
  std::string err;
  ASSERT_TRUE(driver::readTensorProto(
      regression("tensorpb", "empty-f32-0x4.pb"), t, err))
      << err;
  EXPECT_EQ(t.type, exec::ElemType::F32);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(t.numElements(), 0);
}

} // namespace
