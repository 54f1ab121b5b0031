//===- test/unit/dispute/SliceTest.cpp - Sub-node re-execution ------------===//
//
// Part of Plumb. A slice of a node (Dispute/Slice.h) computes the same bits
// as the whole node, for every op the referee slices: random element
// ranges of each op's output, computed from the operand boxes the plan
// asks for, compared bit for bit with the full execution.
//
//===----------------------------------------------------------------------===//
#include "plumb/Dispute/Slice.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/InitAll.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/Support/Nodes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <tuple>

using namespace plumb;
using namespace plumb::dispute;

namespace {

struct SliceTest : ::testing::Test {
  mlir::MLIRContext ctx;
  SliceTest() {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Parses a one-op @main, fills its arguments with random values (some
  /// NaN, infinities and signed zeros for floats), executes the op whole,
  /// then `trials` random ranges (and the first and last elements) sliced.
  /// Returns the mean fraction of the output the slices computed.
  /// `ranges`: element ranges checked besides the random ones (chunk
  /// boundaries: 4096 f32 elements a chunk).
  double check(const std::string &body, int trials = 60,
               int64_t maxCount = 64,
               std::vector<std::pair<int64_t, int64_t>> ranges = {}) {
    std::string text = "func.func @main" + body;
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
    EXPECT_TRUE(module) << text;
    if (!module)
      return 0;
    auto main = getMainFunc(*module);
    mlir::Operation *op = graphNodes(main).front();
    std::mt19937 rng(42);
    std::vector<exec::Tensor> args;
    for (mlir::BlockArgument a : main.getArguments()) {
      auto t = mlir::cast<mlir::RankedTensorType>(a.getType());
      exec::ElemType et;
      exec::elemTypeOf(t.getElementType(), et);
      exec::Tensor x = exec::Tensor::make(
          et, std::vector<int64_t>(t.getShape().begin(), t.getShape().end()));
      for (int64_t i = 0; i < x.numElements(); ++i) {
        if (et == exec::ElemType::F32) {
          float v = std::uniform_real_distribution<float>(-2, 2)(rng);
          int pick = rng() % 97;
          if (pick == 0)
            v = NAN;
          else if (pick == 1)
            v = -0.0f;
          else if (pick == 2)
            v = INFINITY;
          x.as<float>()[i] = v;
        } else if (et == exec::ElemType::Bool) {
          x.as<uint8_t>()[i] = rng() & 1;
        } else if (et == exec::ElemType::I64) {
          x.as<int64_t>()[i] = (int64_t)(rng() % 200) - 100;
        } else {
          x.as<int32_t>()[i] = (int32_t)(rng() % 200) - 100;
        }
      }
      args.push_back(std::move(x));
    }
    // The whole node, as a run computes it (@main returns its result).
    std::vector<exec::Tensor> full;
    std::string err;
    EXPECT_TRUE(exec::runFunction(main, args, full, err)) << err;
    if (full.empty())
      return 0;
    const exec::Tensor &y = full[0];
    int64_t n = y.numElements();
    size_t es = exec::elemSize(y.type);
    double fraction = 0;
    int total = trials + 2 + (int)ranges.size();
    for (int t = 0; t < total; ++t) {
      int64_t count = 1 + (int64_t)(rng() % std::min<int64_t>(n, maxCount));
      int64_t first = t == 0 ? 0 : t == 1 ? n - count : (int64_t)(rng() % (n - count + 1));
      if (t >= trials + 2) {
        std::tie(first, count) = ranges[t - trials - 2];
        EXPECT_LE(first + count, n) << body;
      }
      SlicePlan plan;
      std::string why;
      EXPECT_TRUE(planSlice(op, first, count, plan, why)) << why;
      std::vector<exec::Tensor> parts;
      for (const auto &[v, box] : plan.reads)
        parts.push_back(extractBox(
            args[mlir::cast<mlir::BlockArgument>(v).getArgNumber()], box));
      std::vector<const exec::Tensor *> pp;
      for (auto &p : parts)
        pp.push_back(&p);
      exec::Tensor outBox;
      EXPECT_TRUE(executeSlice(op, plan, pp, outBox, err)) << err;
      exec::Tensor got = gatherRange(outBox, plan.out, y.shape, first, count);
      EXPECT_EQ(0, std::memcmp(got.raw(),
                               static_cast<const uint8_t *>(y.raw()) + first * es,
                               count * es))
          << body << ": elements [" << first << ", " << first + count << ")";
      // The box covers the range and lies inside the output.
      EXPECT_LE(count, plan.out.numElements());
      fraction += (double)plan.out.numElements() / (double)n;
    }
    return fraction / total;
  }
};

TEST_F(SliceTest, ElementwiseWithBroadcasting) {
  check("(%a: tensor<2x3x5x7xf32>, %b: tensor<3x1x7xf32>) -> tensor<2x3x5x7xf32> {"
        " %0 = plumb.add %a, %b : (tensor<2x3x5x7xf32>, tensor<3x1x7xf32>) -> tensor<2x3x5x7xf32>"
        " return %0 : tensor<2x3x5x7xf32> }");
  check("(%a: tensor<4x9xf32>) -> tensor<4x9xf32> {"
        " %0 = plumb.exp %a : tensor<4x9xf32> return %0 : tensor<4x9xf32> }");
  check("(%a: tensor<6x1xf32>, %b: tensor<1x8xf32>) -> tensor<6x8xf32> {"
        " %0 = plumb.div %a, %b : (tensor<6x1xf32>, tensor<1x8xf32>) -> tensor<6x8xf32>"
        " return %0 : tensor<6x8xf32> }");
  check("(%c: tensor<5x6xi1>, %a: tensor<6xf32>, %b: tensor<5x6xf32>) -> tensor<5x6xf32> {"
        " %0 = plumb.where %c, %a, %b : (tensor<5x6xi1>, tensor<6xf32>, tensor<5x6xf32>) -> tensor<5x6xf32>"
        " return %0 : tensor<5x6xf32> }");
}

TEST_F(SliceTest, MatMulRowsOfA) {
  double f = check(
      "(%a: tensor<37x20xf32>, %b: tensor<20x11xf32>) -> tensor<37x11xf32> {"
      " %0 = plumb.matmul %a, %b {tree = #plumb.tree<blocked 8>} : (tensor<37x20xf32>, tensor<20x11xf32>) -> tensor<37x11xf32>"
      " return %0 : tensor<37x11xf32> }",
      60, 16);
  EXPECT_LT(f, 0.25); // a few rows, not the whole node
  check("(%a: tensor<3x1x9x20xf32>, %b: tensor<4x20x6xf32>) -> tensor<3x4x9x6xf32> {"
        " %0 = plumb.matmul %a, %b {tree = #plumb.tree<blocked 256>} : (tensor<3x1x9x20xf32>, tensor<4x20x6xf32>) -> tensor<3x4x9x6xf32>"
        " return %0 : tensor<3x4x9x6xf32> }");
}

TEST_F(SliceTest, GemmRowsOfA) {
  check("(%a: tensor<30x17xf32>, %b: tensor<13x17xf32>, %c: tensor<13xf32>) -> tensor<30x13xf32> {"
        " %0 = plumb.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true, tree = #plumb.tree<blocked 4>}"
        " : (tensor<30x17xf32>, tensor<13x17xf32>, tensor<13xf32>) -> tensor<30x13xf32>"
        " return %0 : tensor<30x13xf32> }");
  check("(%a: tensor<17x30xf32>, %b: tensor<17x13xf32>, %c: tensor<30x13xf32>) -> tensor<30x13xf32> {"
        " %0 = plumb.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_a = true, trans_b = false, tree = #plumb.tree<blocked 256>}"
        " : (tensor<17x30xf32>, tensor<17x13xf32>, tensor<30x13xf32>) -> tensor<30x13xf32>"
        " return %0 : tensor<30x13xf32> }");
}

TEST_F(SliceTest, ConvInputWindowOfOutputRows) {
  // Padding, stride 2, dilation 2, a ragged last window.
  double f = check(
      "(%x: tensor<2x3x17x13xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<2x8x8x7xf32> {"
      " %0 = plumb.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 2, 1, 1>, dilations = array<i64: 2, 1>, group = 1 : i64, tree = #plumb.tree<blocked 5>}"
      " : (tensor<2x3x17x13xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x8x7xf32>"
      " return %0 : tensor<2x8x8x7xf32> }",
      80, 20);
  EXPECT_LT(f, 0.1);
  // Grouped and depthwise.
  check("(%x: tensor<1x4x9x9xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x9x9xf32> {"
        " %0 = plumb.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2 : i64, tree = #plumb.tree<blocked 256>}"
        " : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x9x9xf32>"
        " return %0 : tensor<1x6x9x9xf32> }");
  check("(%x: tensor<1x5x7x6xf32>, %w: tensor<5x1x3x3xf32>, %b: tensor<5xf32>) -> tensor<1x5x7x6xf32> {"
        " %0 = plumb.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 5 : i64, tree = #plumb.tree<blocked 256>}"
        " : (tensor<1x5x7x6xf32>, tensor<5x1x3x3xf32>, tensor<5xf32>) -> tensor<1x5x7x6xf32>"
        " return %0 : tensor<1x5x7x6xf32> }");
  // conv1d.
  check("(%x: tensor<2x3x20xf32>, %w: tensor<4x3x5xf32>) -> tensor<2x4x8xf32> {"
        " %0 = plumb.conv %x, %w {strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, group = 1 : i64, tree = #plumb.tree<blocked 256>}"
        " : (tensor<2x3x20xf32>, tensor<4x3x5xf32>) -> tensor<2x4x8xf32>"
        " return %0 : tensor<2x4x8xf32> }");
}

TEST_F(SliceTest, BatchNormPerChannel) {
  check("(%x: tensor<2x6x5x7xf32>, %s: tensor<6xf32>, %b: tensor<6xf32>, %m: tensor<6xf32>, %v: tensor<6xf32>) -> tensor<2x6x5x7xf32> {"
        " %0 = plumb.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32}"
        " : (tensor<2x6x5x7xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5x7xf32>"
        " return %0 : tensor<2x6x5x7xf32> }");
}

TEST_F(SliceTest, FusedThroughItsBody) {
  // conv head, then relu and an add of another value: every body op on the
  // head's output box.
  double f = check(
      "(%x: tensor<1x3x16x16xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>, %r: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {"
      " %0 = plumb.fused -> tensor<1x8x16x16xf32> {"
      "   %c = plumb.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64, tree = #plumb.tree<blocked 7>}"
      "     : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>"
      "   %a = plumb.add %r, %c : (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>"
      "   %y = plumb.relu %a : tensor<1x8x16x16xf32>"
      "   plumb.yield %y : tensor<1x8x16x16xf32>"
      " }"
      " return %0 : tensor<1x8x16x16xf32> }",
      60, 40);
  EXPECT_LT(f, 0.1);
  // gemm head, batch_norm-free elementwise tail with a broadcast operand.
  check("(%a: tensor<20x9xf32>, %b: tensor<9x6xf32>, %s: tensor<6xf32>) -> tensor<20x6xf32> {"
        " %0 = plumb.fused -> tensor<20x6xf32> {"
        "   %g = plumb.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false, tree = #plumb.tree<blocked 256>}"
        "     : (tensor<20x9xf32>, tensor<9x6xf32>) -> tensor<20x6xf32>"
        "   %m = plumb.mul %g, %s : (tensor<20x6xf32>, tensor<6xf32>) -> tensor<20x6xf32>"
        "   %y = plumb.sigmoid %m : tensor<20x6xf32>"
        "   plumb.yield %y : tensor<20x6xf32>"
        " }"
        " return %0 : tensor<20x6xf32> }");
}

/// The chunks of a result of `n` f32 elements (4096 a chunk).
static std::vector<std::pair<int64_t, int64_t>> chunksOf(int64_t n) {
  std::vector<std::pair<int64_t, int64_t>> r;
  for (int64_t f = 0; f < n; f += 4096)
    r.push_back({f, std::min<int64_t>(4096, n - f)});
  return r;
}

TEST_F(SliceTest, ReshapeSameFlatRun) {
  check("(%a: tensor<3x5x7xf32>) -> tensor<7x15xf32> {"
        " %0 = plumb.reshape %a : tensor<3x5x7xf32> -> tensor<7x15xf32>"
        " return %0 : tensor<7x15xf32> }");
  check("(%a: tensor<2x3x4x5xi1>) -> tensor<6x1x20xi1> {"
        " %0 = plumb.reshape %a : tensor<2x3x4x5xi1> -> tensor<6x1x20xi1>"
        " return %0 : tensor<6x1x20xi1> }");
  // Odd shapes over three chunks (the last one ragged): a chunk's part,
  // not the whole tensor.
  double f = check(
      "(%a: tensor<5x13x127xf32>) -> tensor<5x1651xf32> {"
      " %0 = plumb.reshape %a : tensor<5x13x127xf32> -> tensor<5x1651xf32>"
      " return %0 : tensor<5x1651xf32> }",
      40, 64, chunksOf(8255));
  EXPECT_LT(f, 0.25);
  check("(%a: tensor<1x8255xf32>) -> tensor<65x127xf32> {"
        " %0 = plumb.reshape %a : tensor<1x8255xf32> -> tensor<65x127xf32>"
        " return %0 : tensor<65x127xf32> }",
        20, 300, chunksOf(8255));
}

TEST_F(SliceTest, TransposePermutedBox) {
  check("(%a: tensor<2x3x5x7xf32>) -> tensor<2x5x7x3xf32> {"
        " %0 = plumb.transpose %a {perm = array<i64: 0, 2, 3, 1>} : tensor<2x3x5x7xf32> -> tensor<2x5x7x3xf32>"
        " return %0 : tensor<2x5x7x3xf32> }");
  double f = check(
      "(%a: tensor<3x50x61xf32>) -> tensor<61x3x50xf32> {"
      " %0 = plumb.transpose %a {perm = array<i64: 2, 0, 1>} : tensor<3x50x61xf32> -> tensor<61x3x50xf32>"
      " return %0 : tensor<61x3x50xf32> }",
      40, 64, chunksOf(9150));
  EXPECT_LT(f, 0.5);
  check("(%a: tensor<4x9xi64>) -> tensor<9x4xi64> {"
        " %0 = plumb.transpose %a {perm = array<i64: 1, 0>} : tensor<4x9xi64> -> tensor<9x4xi64>"
        " return %0 : tensor<9x4xi64> }");
}

TEST_F(SliceTest, SliceStridedRange) {
  check("(%a: tensor<9x20xf32>) -> tensor<4x6xf32> {"
        " %0 = plumb.slice %a {starts = array<i64: 1, 2>, steps = array<i64: 2, 3>} : tensor<9x20xf32> -> tensor<4x6xf32>"
        " return %0 : tensor<4x6xf32> }");
  // Negative steps walk backwards.
  check("(%a: tensor<9x20xf32>) -> tensor<9x10xf32> {"
        " %0 = plumb.slice %a {starts = array<i64: 8, 19>, steps = array<i64: -1, -2>} : tensor<9x20xf32> -> tensor<9x10xf32>"
        " return %0 : tensor<9x10xf32> }");
  double f = check(
      "(%a: tensor<40x300xf32>) -> tensor<37x295xf32> {"
      " %0 = plumb.slice %a {starts = array<i64: 3, 5>, steps = array<i64: 1, 1>} : tensor<40x300xf32> -> tensor<37x295xf32>"
      " return %0 : tensor<37x295xf32> }",
      40, 64, chunksOf(37 * 295));
  EXPECT_LT(f, 0.25);
}

TEST_F(SliceTest, ConcatPartsAlongTheAxis) {
  check("(%a: tensor<2x3x5xf32>, %b: tensor<2x4x5xf32>, %c: tensor<2x1x5xf32>) -> tensor<2x8x5xf32> {"
        " %0 = plumb.concat %a, %b, %c {axis = 1 : i64} : (tensor<2x3x5xf32>, tensor<2x4x5xf32>, tensor<2x1x5xf32>) -> tensor<2x8x5xf32>"
        " return %0 : tensor<2x8x5xf32> }");
  check("(%a: tensor<3x7xf32>, %b: tensor<2x7xf32>) -> tensor<5x7xf32> {"
        " %0 = plumb.concat %a, %b {axis = 0 : i64} : (tensor<3x7xf32>, tensor<2x7xf32>) -> tensor<5x7xf32>"
        " return %0 : tensor<5x7xf32> }");
  check("(%a: tensor<4x3xi64>, %b: tensor<4x5xi64>) -> tensor<4x8xi64> {"
        " %0 = plumb.concat %a, %b {axis = 1 : i64} : (tensor<4x3xi64>, tensor<4x5xi64>) -> tensor<4x8xi64>"
        " return %0 : tensor<4x8xi64> }");
  double f = check(
      "(%a: tensor<1x50x100xf32>, %b: tensor<1x37x100xf32>) -> tensor<1x87x100xf32> {"
      " %0 = plumb.concat %a, %b {axis = 1 : i64} : (tensor<1x50x100xf32>, tensor<1x37x100xf32>) -> tensor<1x87x100xf32>"
      " return %0 : tensor<1x87x100xf32> }",
      40, 64, chunksOf(8700));
  EXPECT_LT(f, 0.25);
}

TEST_F(SliceTest, BoxRunsAndExtraction) {
  using Run = std::pair<int64_t, int64_t>;
  Box b;
  b.lo = {1, 0, 2};
  b.hi = {2, 3, 4};
  auto runs = boxRuns({3, 3, 5}, b);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0], Run(17, 19));
  EXPECT_EQ(runs[2], Run(27, 29));
  b.lo = {1, 0, 0};
  b.hi = {3, 3, 5};
  runs = boxRuns({3, 3, 5}, b);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0], Run(15, 45));
  exec::Tensor t = exec::Tensor::make(exec::ElemType::I32, {3, 3, 5});
  for (int i = 0; i < 45; ++i)
    t.as<int32_t>()[i] = i;
  b.lo = {0, 1, 1};
  b.hi = {3, 2, 3};
  exec::Tensor e = extractBox(t, b);
  ASSERT_EQ(e.shape, (std::vector<int64_t>{3, 1, 2}));
  EXPECT_EQ(e.as<int32_t>()[0], 6);
  EXPECT_EQ(e.as<int32_t>()[3], 22);
  EXPECT_EQ(e.as<int32_t>()[5], 37);
}

TEST_F(SliceTest, OtherOpsAreExecutedWhole) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      "func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {"
      " %0 = plumb.softmax %a {axis = 1 : i64, tree = #plumb.tree<blocked 256>} : tensor<4x8xf32>"
      " return %0 : tensor<4x8xf32> }",
      &ctx);
  ASSERT_TRUE(module);
  mlir::Operation *op = graphNodes(getMainFunc(*module)).front();
  std::string why;
  EXPECT_FALSE(canSlice(op, why));
  EXPECT_NE(why.find("executed whole"), std::string::npos) << why;
}

// A conv with 3 spatial dims (and a fused chain with such a head) has no
// sub-node rule: canSlice and planSlice say why, and nothing crashes.
TEST_F(SliceTest, Conv3dIsExecutedWhole) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      "func.func @main(%x: tensor<1x2x5x6x7xf32>, %w: tensor<4x1x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x3x6x3xf32>, tensor<1x4x3x6x3xf32>) {"
      " %0 = plumb.conv %x, %w, %b {strides = array<i64: 2, 1, 2>, pads = array<i64: 1, 1, 1, 1, 1, 0>, dilations = array<i64: 1, 1, 1>, group = 2 : i64, tree = #plumb.tree<blocked 5>}"
      "   : (tensor<1x2x5x6x7xf32>, tensor<4x1x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x6x3xf32>"
      " %1 = plumb.fused -> tensor<1x4x3x6x3xf32> {"
      "   %c = plumb.conv %x, %w {strides = array<i64: 2, 1, 2>, pads = array<i64: 1, 1, 1, 1, 1, 0>, dilations = array<i64: 1, 1, 1>, group = 2 : i64, tree = #plumb.tree<blocked 256>}"
      "     : (tensor<1x2x5x6x7xf32>, tensor<4x1x3x3x3xf32>) -> tensor<1x4x3x6x3xf32>"
      "   %y = plumb.relu %c : tensor<1x4x3x6x3xf32>"
      "   plumb.yield %y : tensor<1x4x3x6x3xf32>"
      " }"
      " return %0, %1 : tensor<1x4x3x6x3xf32>, tensor<1x4x3x6x3xf32> }",
      &ctx);
  ASSERT_TRUE(module);
  auto nodes = graphNodes(getMainFunc(*module));
  ASSERT_EQ(nodes.size(), 2u);
  for (mlir::Operation *op : nodes) {
    std::string why;
    EXPECT_FALSE(canSlice(op, why));
    EXPECT_NE(why.find("executed whole"), std::string::npos) << why;
    SlicePlan plan;
    why.clear();
    EXPECT_FALSE(planSlice(op, 0, 10, plan, why));
    EXPECT_FALSE(why.empty());
  }
}

} // namespace
