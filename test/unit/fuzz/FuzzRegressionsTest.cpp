//===- test/unit/fuzz/FuzzRegressionsTest.cpp - What the fuzzers found ----===//
//
// Part of Plumb. Every input with which a fuzz target (test/fuzz) crashed,
// tripped a sanitizer, hung or ran out of memory is kept under
// test/fuzz/regressions/<target>/ and fed here to the same library entry
// point, which must now answer it cleanly: the error it gives is checked.
// (ctest's FuzzReplay.<target> also replays each through its harness.)
//
//===----------------------------------------------------------------------===//
#include "test/fuzz/FuzzSupport.h"
#include "test/fuzz/ScriptChannel.h"

#include "plumb/Bundle/Bundle.h"
#include "plumb/Dispute/Party.h"
#include "plumb/Dispute/Referee.h"
#include "plumb/Driver/Pipeline.h"
#include "plumb/InitAll.h"
#include "plumb/Driver/TensorIO.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"

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

// A .npy shape with a zero dimension and others whose product overflows
// int64_t, (77777777777777017, 777777771, 0): accepted as empty, then
// Tensor::numElements overflowed (UBSan: signed integer overflow,
// Tensor.cpp; found by plumb-fuzz-npy, found-3ba6269b.npy). Refused.
TEST(FuzzRegressions, NpyEmptyWithHugeDimensions) {
  exec::Tensor t;
  std::string err;
  std::string path = regression("npy", "empty-with-huge-dims.npy");
  EXPECT_FALSE(driver::readNpy(path, t, err));
  EXPECT_EQ(err, "'" + path +
                     "' is not a supported .npy file: shape "
                     "(77777777777777017, 777777771, 0) is empty, but its "
                     "other dimensions have a product over 2^40");
  path = regression("npy", "found-3ba6269b.npy");
  EXPECT_FALSE(driver::readNpy(path, t, err));
  EXPECT_NE(err.find("is empty, but its other dimensions have a product over "
                     "2^40"),
            std::string::npos)
      << err;
}

/// The members of the archive `name` of `target`'s regressions, written
/// into a fresh folder (as the harnesses do); its path.
std::string unpack(const std::string &target, const std::string &name) {
  auto buf = llvm::MemoryBuffer::getFile(regression(target, name));
  EXPECT_TRUE((bool)buf) << name;
  if (!buf)
    return "";
  std::string dir = fuzz::freshDir(target + "-" + name);
  fuzz::writeMembers(dir, fuzz::splitArchive(
      reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
      (*buf)->getBufferSize()));
  return dir;
}

std::string openError(const std::string &dir) {
  auto b = bundle::openBundle(dir, bundle::OpenOptions());
  return b ? std::string("opened") : llvm::toString(b.takeError());
}

// A weights entry at offset 2^63 - 64: offset + bytes overflowed int64_t in
// the bounds check (UBSan: signed integer overflow, BundleReader.cpp).
TEST(FuzzRegressions, BundleWeightsOffsetOverflow) {
  EXPECT_EQ(openError(unpack("bundle", "weights-offset-overflow.archive")),
            "manifest.json: weights entry at offset 9223372036854775744 lies "
            "outside weights.bin");
}

/// The party over the fixed trace answers each line of the regression
/// `name`; the messages of its error replies, in order ("" for an answer
/// that is not an error).
std::vector<std::string> partyErrors(const std::string &name) {
  std::string err;
  auto party = dispute::TraceParty::open(PLUMB_FUZZ_PARTY_TRACE,
                                         dispute::Behaviour(), err);
  EXPECT_TRUE(party) << err;
  std::vector<std::string> out;
  auto buf = llvm::MemoryBuffer::getFile(regression("party-req", name));
  EXPECT_TRUE((bool)buf) << name;
  if (!party || !buf)
    return out;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buf)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    std::string reply, attachment, type;
    EXPECT_TRUE(party->respond(line.str(), reply, attachment));
    llvm::json::Object msg;
    EXPECT_TRUE(dispute::parseMessage(reply, msg, type, err)) << err;
    out.push_back(type == "error" ? msg.getString("message")->str() : "");
  }
  return out;
}

// query_subtrees of a chunk tree without 'index' and 'result': the party
// read both (std::optional dereferenced empty, an indeterminate value in
// its answer) before checking them.
TEST(FuzzRegressions, PartySubtreesOfChunksWithoutIndex) {
  EXPECT_EQ(partyErrors("subtrees-chunks-without-index"),
            (std::vector<std::string>{
                "the trace has no such node result"}));
}

// Input and result positions of 2^32 wrapped around to 0 (the unsigned
// 32-bit positions of the trace readers): the party sent input 0 and
// result 0 of node 1 for positions that do not exist (query_tensors, then
// query_tensor_chunks).
TEST(FuzzRegressions, PartyTensorPositionsPast32Bits) {
  EXPECT_EQ(partyErrors("tensor-positions-past-32-bits"),
            (std::vector<std::string>{
                "the trace has no input 4294967296",
                "the trace has no result 4294967296 of node 1",
                "the trace has no input 4294967296"}));
}

/// The dispute over the canonical small program between the parties the
/// referee-msg regression `name` scripts (members A and B).
dispute::DisputeResult scriptedDispute(const std::string &name) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ctx.disableMultithreading();
  auto module =
      mlir::parseSourceFile<mlir::ModuleOp>(PLUMB_FUZZ_SMALL_MLIR, &ctx);
  EXPECT_TRUE(module);
  std::string err;
  EXPECT_TRUE(module && driver::canonicalize(*module, err)) << err;
  auto buf = llvm::MemoryBuffer::getFile(regression("referee-msg", name));
  EXPECT_TRUE((bool)buf) << name;
  if (!module || !buf)
    return {};
  auto files = fuzz::splitArchive(
      reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
      (*buf)->getBufferSize());
  fuzz::ScriptChannel a(files["A"]), b(files["B"]);
  dispute::Referee referee(*module);
  std::string names[2] = {"A", "B"};
  return referee.run(a, b, names, dispute::RefereeOptions());
}

// A party supplying a node's input sent a header claiming float32
// [1099511627776] (4 TiB): the referee made that tensor only to describe
// it in the verdict (AddressSanitizer: allocation-size-too-big; a plain
// build ends in std::bad_alloc, a crashed referee). It is described
// without being made, and that party loses. (B, whose script has no
// answer to the node query that follows, loses by silence.)
TEST(FuzzRegressions, RefereeTensorShapeOf4TiB) {
  dispute::DisputeResult r = scriptedDispute("tensor-shape-of-4-tib.archive");
  EXPECT_EQ(r.loser(), "both");
  EXPECT_EQ(r.parties[0].reason,
            "sent a float32[1099511627776] tensor for result 0 of node 1, "
            "which is float32[2x4]");
  EXPECT_EQ(r.parties[1].reason.rfind("no valid answer to 'query_node'", 0),
            0u)
      << r.parties[1].reason;
}

} // namespace
