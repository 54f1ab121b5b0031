//===- test/unit/cost/GasTest.cpp - Op counts, schedules and gas ----------===//
//
// Part of Plumb. Hand-computed op counts for each op family, the checked
// arithmetic, the schedule registry, and computeGas's refusals.
//
//===----------------------------------------------------------------------===//
#include "plumb/Cost/Gas.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/InitAll.h"
#include "plumb/Support/Nodes.h"

#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <set>

using namespace mlir;
using namespace plumb;

namespace {

OpCounts counts(uint64_t macs, uint64_t elem, uint64_t trans, uint64_t read,
                uint64_t written, uint64_t compare = 0, uint64_t indexed = 0) {
  OpCounts c;
  c.macs = macs, c.elementwise = elem, c.transcendental = trans;
  c.compare = compare, c.indexed = indexed;
  c.bytesRead = read, c.bytesWritten = written;
  return c;
}

class GasTest : public ::testing::Test {
protected:
  GasTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    ctx.disableMultithreading();
  }

  /// Parses `body` as the body of @main with the given signature.
  OwningOpRef<ModuleOp> parse(const std::string &sig, const std::string &body) {
    std::string text = "func.func @main" + sig + " {\n" + body + "\n}\n";
    return parseSourceString<ModuleOp>(text, &ctx);
  }

  /// The counts of the first node of @main.
  OpCounts countsOfFirst(ModuleOp m) {
    auto nodes = graphNodes(getMainFunc(m));
    EXPECT_FALSE(nodes.empty());
    auto c = cast<CostOpInterface>(nodes.front()).getCounts();
    EXPECT_TRUE(succeeded(c));
    return succeeded(c) ? *c : OpCounts();
  }

  MLIRContext ctx;
};

void expectCounts(const OpCounts &got, const OpCounts &want) {
  EXPECT_EQ(got.macs, want.macs);
  EXPECT_EQ(got.elementwise, want.elementwise);
  EXPECT_EQ(got.transcendental, want.transcendental);
  EXPECT_EQ(got.compare, want.compare);
  EXPECT_EQ(got.indexed, want.indexed);
  EXPECT_EQ(got.bytesRead, want.bytesRead);
  EXPECT_EQ(got.bytesWritten, want.bytesWritten);
}

/// A schedule with distinct prime weights, so every count shows in the gas.
// base 101, mac 3, elementwise 5, transcendental 7, compare 17, indexed 19,
// byte read 11, byte written 13.
const GasSchedule kPrimes{"test-primes", "", 101, 3, 5, 7, 17, 19, 11, 13};

TEST(CheckedCountTest, AddAndMultiplyDetectOverflow) {
  CheckedCount a(UINT64_MAX - 1);
  EXPECT_FALSE((a + 1).overflowed());
  EXPECT_EQ((a + 1).value(), UINT64_MAX);
  EXPECT_TRUE((a + 2).overflowed());
  CheckedCount b(uint64_t(1) << 32);
  EXPECT_FALSE((b * (uint64_t(1) << 31)).overflowed());
  EXPECT_TRUE((b * b).overflowed());
  // Sticky: an overflowed count stays overflowed through later arithmetic.
  CheckedCount c = b * b;
  EXPECT_TRUE((c * 0).overflowed());
  EXPECT_TRUE((c + 0).overflowed());
  EXPECT_TRUE(CheckedCount::fromDim(-1).overflowed());
}

TEST(OpCountsTest, FlopsAndBytes) {
  OpCounts c;
  c.macs = 10, c.elementwise = 3, c.transcendental = 2;
  c.bytesRead = 40, c.bytesWritten = 8;
  uint64_t f = 0, b = 0;
  ASSERT_TRUE(c.flops(f));
  ASSERT_TRUE(c.bytes(b));
  EXPECT_EQ(f, 25u);
  EXPECT_EQ(b, 48u);
  c.macs = UINT64_MAX / 2 + 1;
  EXPECT_FALSE(c.flops(f));
  OpCounts d;
  d.bytesRead = UINT64_MAX;
  OpCounts e;
  e.bytesRead = 1;
  EXPECT_FALSE(d.add(e));
}

TEST(ScheduleTest, RegistryKeepsEveryVersionByName) {
  ASSERT_FALSE(gasSchedules().empty());
  std::set<std::string> names;
  for (const GasSchedule &s : gasSchedules()) {
    EXPECT_TRUE(names.insert(s.name.str()).second)
        << "duplicate " << s.name.str();
    EXPECT_EQ(lookupGasSchedule(s.name), &s);
    EXPECT_TRUE(s.name.starts_with("plumb-gas-v"));
  }
  EXPECT_NE(lookupGasSchedule("plumb-gas-v1"), nullptr);
  EXPECT_EQ(lookupGasSchedule("plumb-gas-v0"), nullptr);
  EXPECT_EQ(lookupGasSchedule(""), nullptr);
  EXPECT_EQ(&latestGasSchedule(), &gasSchedules().back());
  EXPECT_NE(gasScheduleNames().find("plumb-gas-v1"), std::string::npos);
}

TEST(ScheduleTest, PriceIsTheWeightedSum) {
  OpCounts c = counts(2, 3, 4, 5, 6, 8, 9);
  // 101 + 3*2 + 5*3 + 7*4 + 11*5 + 13*6 + 17*8 + 19*9
  //   = 101 + 6 + 15 + 28 + 55 + 78 + 136 + 171.
  EXPECT_EQ(priceCounts(c, kPrimes), std::optional<uint64_t>(590));
  EXPECT_EQ(priceCounts(OpCounts(), kPrimes), std::optional<uint64_t>(101));
  c.macs = UINT64_MAX / 3 + 1;
  EXPECT_EQ(priceCounts(c, kPrimes), std::nullopt);
}

TEST_F(GasTest, MatMulAndGemm) {
  auto m =
      parse("(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32>",
            "%c = plumb.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) "
            "-> tensor<2x3x5xf32>\nreturn %c : tensor<2x3x5xf32>");
  ASSERT_TRUE(m);
  // 30 outputs x K=4; reads 24*4 + 20*4, writes 30*4.
  expectCounts(countsOfFirst(*m), counts(120, 0, 0, 176, 120));

  auto g = parse(
      "(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>) -> "
      "tensor<2x4xf32>",
      "%y = plumb.gemm %a, %b, %c {alpha = 2.0 : f32, beta = 0.5 : f32, "
      "trans_a = true, trans_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>, "
      "tensor<4xf32>) -> tensor<2x4xf32>\nreturn %y : tensor<2x4xf32>");
  ASSERT_TRUE(g);
  // M=2, N=4, K=3: 24 MACs; alpha (1) + beta*c (1) + add (1) per output.
  expectCounts(countsOfFirst(*g), counts(24, 24, 0, 24 + 48 + 16, 32));
}

TEST_F(GasTest, ConvCountsPaddingTermsAndGroups) {
  auto m = parse(
      "(%x: tensor<1x4x5x5xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>) "
      "-> tensor<1x4x5x5xf32>",
      "%y = plumb.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = "
      "array<i64: 1, 1, 1, 1>, "
      "dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x5x5xf32>, "
      "tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>\n"
      "return %y : tensor<1x4x5x5xf32>");
  ASSERT_TRUE(m);
  // Depthwise: 100 outputs x (1 channel x 9 taps), bias add per output.
  expectCounts(countsOfFirst(*m), counts(900, 100, 0, 400 + 144 + 16, 400));
}

TEST_F(GasTest, ElementwiseByteSizesFollowTheElementType) {
  auto m = parse("(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi1>",
                 "%c = plumb.less %a, %b : (tensor<4xi64>, tensor<4xi64>) -> "
                 "tensor<4xi1>\n"
                 "return %c : tensor<4xi1>");
  ASSERT_TRUE(m);
  expectCounts(countsOfFirst(*m), counts(0, 4, 0, 64, 4));
  auto e = parse(
      "(%a: tensor<2x3xf32>) -> tensor<2x3xf32>",
      "%c = plumb.tanh %a : tensor<2x3xf32>\nreturn %c : tensor<2x3xf32>");
  ASSERT_TRUE(e);
  expectCounts(countsOfFirst(*e), counts(0, 0, 6, 24, 24));
}

TEST_F(GasTest, EveryPlumbOpHasACost) {
  // The interface is declared on Plumb_Op, so this holds by construction;
  // the test guards against an op defined outside that base class.
  size_t plumbOps = 0;
  for (RegisteredOperationName name : ctx.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "plumb")
      continue;
    ++plumbOps;
    EXPECT_TRUE(name.hasInterface<CostOpInterface>())
        << name.getStringRef().str();
  }
  EXPECT_GT(plumbOps, 60u);
}

TEST_F(GasTest, CompareAndIndexedCounters) {
  auto m = parse(
      "(%x: tensor<1x2x6x6xf32>, %s: tensor<4x10xf32>) -> "
      "(tensor<1x2x3x3xf32>, "
      "tensor<4x10xf32>, tensor<10x4xf32>)",
      "%p = plumb.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = "
      "array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: "
      "1, 1>, ceil_mode = false} : tensor<1x2x6x6xf32> -> tensor<1x2x3x3xf32>\n"
      "%y = plumb.softmax %s {axis = 1 : i64} : tensor<4x10xf32>\n"
      "%t = plumb.transpose %s {perm = array<i64: 1, 0>} : tensor<4x10xf32> -> "
      "tensor<10x4xf32>\n"
      "return %p, %y, %t : tensor<1x2x3x3xf32>, tensor<4x10xf32>, "
      "tensor<10x4xf32>");
  ASSERT_TRUE(m);
  auto nodes = graphNodes(getMainFunc(*m));
  ASSERT_EQ(nodes.size(), 3u);
  auto at = [&](size_t i) {
    return *cast<CostOpInterface>(nodes[i]).getCounts();
  };
  // 18 outputs x 4 window positions: each an indexed read and a compare.
  expectCounts(at(0), counts(0, 0, 0, 288, 72, /*compare=*/72, /*indexed=*/72));
  // 40 elements: a max step, sub, exp, sum step, division.
  expectCounts(at(1), counts(0, 120, 40, 160, 160, /*compare=*/40));
  expectCounts(at(2), counts(0, 0, 0, 160, 160, 0, /*indexed=*/40));
  uint64_t flops = 0;
  ASSERT_TRUE(at(1).flops(flops));
  EXPECT_EQ(flops, 200u); // 120 + 40 + 40
}

TEST_F(GasTest, ConstantsAreNotNodesButTheirBytesAreRead) {
  auto m =
      parse("(%a: tensor<4xf32>) -> tensor<4xf32>",
            "%w = plumb.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n"
            "%c = plumb.add %a, %w : (tensor<4xf32>, tensor<4xf32>) -> "
            "tensor<4xf32>\n"
            "return %c : tensor<4xf32>");
  ASSERT_TRUE(m);
  auto report = computeGas(*m, kPrimes);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  ASSERT_EQ(report->nodes.size(), 1u);
  EXPECT_EQ(report->nodes[0].op, "plumb.add");
  expectCounts(report->nodes[0].counts, counts(0, 4, 0, 32, 16));
  // 101 + 5*4 + 11*32 + 13*16.
  EXPECT_EQ(report->totalGas, 101u + 20 + 352 + 208);
  EXPECT_EQ(report->schedule, "test-primes");
  EXPECT_EQ(report->nodes[0].flops, 4u);
  EXPECT_EQ(report->nodes[0].bytes, 48u);
}

TEST_F(GasTest, IfCostsItsBasePlusTheDearerBranch) {
  auto m = parse("(%c: tensor<i1>, %a: tensor<8xf32>) -> tensor<8xf32>",
                 "%r = plumb.if %c : tensor<i1> -> tensor<8xf32> {\n"
                 "  %e = plumb.exp %a : tensor<8xf32>\n"
                 "  %f = plumb.exp %e : tensor<8xf32>\n"
                 "  plumb.yield %f : tensor<8xf32>\n"
                 "} else {\n"
                 "  %n = plumb.neg %a : tensor<8xf32>\n"
                 "  plumb.yield %n : tensor<8xf32>\n"
                 "}\n"
                 "return %r : tensor<8xf32>");
  ASSERT_TRUE(m);
  auto report = computeGas(*m, kPrimes);
  ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
  ASSERT_EQ(report->nodes.size(), 1u);
  // Own: base 101 + 1 byte of condition * 11. Then: 2 x (101 + 7*8 + 11*32 +
  // 13*32) = 2 x 925. Else: 101 + 5*8 + 11*32 + 13*32 = 909.
  EXPECT_EQ(report->totalGas, 112u + 1850);
  expectCounts(report->nodes[0].counts, counts(0, 0, 16, 1 + 64, 64));
}

TEST_F(GasTest, OverflowingShapesAreRefused) {
  // 2^20 x 2^20 times 2^20 x 2^20: 2^60 MACs fit, but 16 gas each do not.
  const GasSchedule heavy{"test-heavy", "", 0, 16, 0, 0, 0, 0, 0, 0};
  auto m = parse("(%a: tensor<1048576x1048576xf32>, %b: "
                 "tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32>",
                 "%c = plumb.matmul %a, %b : (tensor<1048576x1048576xf32>, "
                 "tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32>\n"
                 "return %c : tensor<1048576x1048576xf32>");
  ASSERT_TRUE(m);
  auto c =
      cast<CostOpInterface>(graphNodes(getMainFunc(*m)).front()).getCounts();
  ASSERT_TRUE(succeeded(c));
  EXPECT_EQ(c->macs, uint64_t(1) << 60);
  ASSERT_TRUE(bool(computeGas(*m, kPrimes))); // 3 gas per MAC still fits
  auto report = computeGas(*m, heavy);
  ASSERT_FALSE(bool(report));
  std::string msg = llvm::toString(report.takeError());
  EXPECT_NE(msg.find("node 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("gas overflows 64 bits"), std::string::npos) << msg;

  // Counts that do not fit: 2^40 outputs x K = 2^30.
  auto big =
      parse("(%a: tensor<1048576x1073741824xf32>, %b: "
            "tensor<1073741824x1048576xf32>) -> tensor<1048576x1048576xf32>",
            "%c = plumb.matmul %a, %b : (tensor<1048576x1073741824xf32>, "
            "tensor<1073741824x1048576xf32>) -> tensor<1048576x1048576xf32>\n"
            "return %c : tensor<1048576x1048576xf32>");
  ASSERT_TRUE(big);
  auto r2 = computeGas(*big, kPrimes);
  ASSERT_FALSE(bool(r2));
  EXPECT_NE(llvm::toString(r2.takeError()).find("op counts overflow"),
            std::string::npos);
}

TEST_F(GasTest, ReportIsDeterministic) {
  auto m = parse("(%a: tensor<4x4xf32>) -> tensor<4x4xf32>",
                 "%e = plumb.exp %a : tensor<4x4xf32>\n"
                 "%r = plumb.relu %e : tensor<4x4xf32>\n"
                 "%s = plumb.add %e, %r : (tensor<4x4xf32>, tensor<4x4xf32>) "
                 "-> tensor<4x4xf32>\n"
                 "return %s : tensor<4x4xf32>");
  ASSERT_TRUE(m);
  auto a = computeGas(*m, latestGasSchedule());
  auto b = computeGas(*m, latestGasSchedule());
  ASSERT_TRUE(bool(a) && bool(b));
  EXPECT_EQ(a->graphHash, b->graphHash);
  ASSERT_EQ(a->nodes.size(), 3u);
  uint64_t sum = 0;
  for (size_t i = 0; i < a->nodes.size(); ++i) {
    EXPECT_EQ(a->nodes[i].index, (int64_t)i);
    EXPECT_EQ(a->nodes[i].gas, b->nodes[i].gas);
    EXPECT_EQ(a->nodes[i].id, b->nodes[i].id);
    sum += a->nodes[i].gas;
  }
  EXPECT_EQ(a->totalGas, sum);
  // Op types: dearest first, their gas sums to the total.
  uint64_t typeSum = 0;
  for (size_t i = 0; i < a->opTypes.size(); ++i) {
    typeSum += a->opTypes[i].gas;
    if (i)
      EXPECT_GE(a->opTypes[i - 1].gas, a->opTypes[i].gas);
  }
  EXPECT_EQ(typeSum, a->totalGas);
}

} // namespace
