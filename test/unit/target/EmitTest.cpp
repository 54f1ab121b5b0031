//===- test/unit/target/EmitTest.cpp - The emitters -----------------------===//
//
// Part of Plumb. Float literals are exact bit patterns; literal arrays are
// emitted once; emitted sources are a function of the IR (two parses, same
// bytes) and call the hook with canonical indices in order.
//
//===----------------------------------------------------------------------===//
#include "plumb/Target/Cpp/CppEmitter.h"
#include "plumb/Target/Cpp/KernelCalls.h"
#include "plumb/Target/Cuda/CudaEmitter.h"

#include "plumb/InitAll.h"
#include "plumb/Support/Nodes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>

using namespace mlir;
using namespace plumb;
using namespace plumb::target;

namespace {

const char *kModel = R"mlir(
module {
  func.func @main(%x: tensor<2x3xf32> {plumb.name = "x"}, %c: tensor<i1> {plumb.name = "c"}) -> (tensor<2xf32> {plumb.name = "y"}) {
    %w = plumb.constant dense<[[0.5], [-0.25], [3.0]]> : tensor<3x1xf32>
    %0 = plumb.matmul %x, %w {tree = #plumb.tree<blocked 2>} : (tensor<2x3xf32>, tensor<3x1xf32>) -> tensor<2x1xf32>
    %1 = plumb.reshape %0 : tensor<2x1xf32> -> tensor<2xf32>
    %2 = plumb.if %c : tensor<i1> -> tensor<2xf32> {
      %3 = plumb.tanh %1 : tensor<2xf32>
      plumb.yield %3 : tensor<2xf32>
    } else {
      plumb.yield %1 : tensor<2xf32>
    }
    %4 = plumb.clip %2 {min = -1.5 : f32, max = 0.1 : f32} : tensor<2xf32>
    return %4 : tensor<2xf32>
  }
}
)mlir";

struct EmitFixture : ::testing::Test {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> ctx;
  EmitFixture() {
    registerAllDialects(registry);
    ctx = std::make_unique<MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
  }
  std::string emit(bool cuda) {
    auto m = parseSourceString<ModuleOp>(kModel, ctx.get());
    EXPECT_TRUE(m);
    auto plan = planModel(*m, {cuda});
    EXPECT_TRUE(!!plan);
    EmitHeader h{std::string(64, 'a'), "9.9.9", "plumb-det-v1"};
    auto src = cuda ? emitCuda(*plan, h) : emitCpp(*plan, h);
    EXPECT_TRUE(!!src);
    return *src;
  }
};

TEST(Literals, FloatsAreBitPatterns) {
  EXPECT_EQ(floatLiteral(1.0f), "plumb_f32(0x3F800000u)");
  EXPECT_EQ(floatLiteral(-0.0f), "plumb_f32(0x80000000u)");
  EXPECT_EQ(floatLiteral(std::numeric_limits<float>::infinity()),
            "plumb_f32(0x7F800000u)");
  EXPECT_EQ(floatLiteral(std::numeric_limits<float>::denorm_min()),
            "plumb_f32(0x00000001u)");
  EXPECT_EQ(floatLiteral(0.1f), "plumb_f32(0x3DCCCCCDu)");
}

TEST(Literals, ArraysAreInternedInFirstUseOrder) {
  LiteralPool pool;
  std::string a = pool.i64({1, 2, 3});
  std::string b = pool.i64({4});
  EXPECT_EQ(pool.i64({1, 2, 3}), a);
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.i64({}), pool.i64({}));
  EXPECT_NE(pool.i32({1, 2, 3}), a); // another element type, another array
  EXPECT_EQ(pool.text().find("static const int64_t kI0[3] = {1, 2, 3};"), 0u);
  EXPECT_NE(pool.text().find("[1] = {0};"), std::string::npos); // empty
  EXPECT_NE(pool.i64({INT64_MIN}), "");
  EXPECT_NE(pool.text().find("INT64_MIN"), std::string::npos);
}

TEST_F(EmitFixture, CppIsAFunctionOfTheIR) {
  std::string a = emit(false), b = emit(false);
  EXPECT_EQ(a, b);
  // Both branches, the tree as a literal, hooks in canonical order, the
  // reshape without a copy, exact attribute literals.
  EXPECT_NE(a.find("plumb_rt_matmul_f32("), std::string::npos);
  EXPECT_NE(a.find(", 2);\n"), std::string::npos); // blocked 2
  EXPECT_NE(a.find("} else {"), std::string::npos);
  size_t h0 = a.find("hook(user, 0, 1, r);"), h1 = a.find("hook(user, 1, 1, r);");
  size_t h2 = a.find("hook(user, 2, 1, r);"), h3 = a.find("hook(user, 3, 1, r);");
  ASSERT_NE(h3, std::string::npos);
  EXPECT_TRUE(h0 < h1 && h1 < h2 && h2 < h3);
  EXPECT_EQ(a.find("memcpy", a.find("// node 1: plumb.reshape")),
            a.find("memcpy", a.find("// node 2: plumb.if"))); // none between
  EXPECT_EQ(a.find("plumb_rt_copy", a.find("// node 1: plumb.reshape")),
            a.find("plumb_rt_copy", a.find("// node 2: plumb.if")));
  EXPECT_NE(a.find(floatLiteral(0.1f)), std::string::npos);
  EXPECT_NE(a.find("9.9.9"), std::string::npos);
  EXPECT_EQ(a.find("/work/"), std::string::npos); // no machine paths
}

TEST_F(EmitFixture, CudaIsAFunctionOfTheIR) {
  std::string a = emit(true), b = emit(true);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("#include \"plumb_cuda.h\""), std::string::npos);
  EXPECT_NE(a.find("plumb_cuda_matmul_f32("), std::string::npos);
  EXPECT_NE(a.find("plumb_cuda_unary_f32(PLUMB_RT_TANH"), std::string::npos);
  EXPECT_NE(a.find("plumb_cuda_download(&cond"), std::string::npos);
}

TEST_F(EmitFixture, DeviceKernelsOrHostFallback) {
  auto m = parseSourceString<ModuleOp>(R"mlir(
module {
  func.func @main(%x: tensor<2x3xf32>, %i: tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x3xf32>) {
    %0 = plumb.gather %x, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x2xf32>
    %1 = plumb.exp %x : tensor<2x3xf32>
    return %0, %1 : tensor<2x2xf32>, tensor<2x3xf32>
  }
}
)mlir", ctx.get());
  ASSERT_TRUE(m);
  auto plan = planModel(*m, {true});
  ASSERT_TRUE(!!plan);
  auto nodes = graphNodes(getMainFunc(*m));
  EXPECT_FALSE(hasDeviceKernel(nodes[0], *plan)); // gather: host kernel
  EXPECT_TRUE(hasDeviceKernel(nodes[1], *plan));
  auto src = emitCuda(*plan, {std::string(64, 'b'), "1", "plumb-det-v1"});
  ASSERT_TRUE(!!src);
  EXPECT_NE(src->find("plumb_rt_gather("), std::string::npos);
  EXPECT_NE(src->find("(host kernel)"), std::string::npos);
}

} // namespace
