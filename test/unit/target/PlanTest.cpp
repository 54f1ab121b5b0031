//===- test/unit/target/PlanTest.cpp - The compile-time memory plan -------===//
//
// Part of Plumb. Properties of the plan: buffers live at the same time never
// overlap, buffers are reused, reshapes alias only when nobody can tell,
// identical constants are stored once at aligned offsets, outputs are
// computed in place (not on devices), and the plan is a function of the IR.
//
//===----------------------------------------------------------------------===//
#include "plumb/Target/Plan/ModelPlan.h"

#include "plumb/InitAll.h"
#include "plumb/Support/Nodes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace plumb;
using namespace plumb::target;

namespace {

struct PlanFixture : ::testing::Test {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> ctx;
  PlanFixture() {
    registerAllDialects(registry);
    ctx = std::make_unique<MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
  }
  OwningOpRef<ModuleOp> parse(const char *text) {
    return parseSourceString<ModuleOp>(text, ctx.get());
  }
};

const char *kChain = R"mlir(
module {
  func.func @main(%x: tensor<1x64xf32> {plumb.name = "x"}) -> (tensor<8x8xf32> {plumb.name = "y"}, tensor<1x64xf32> {plumb.name = "z"}) {
    %w = plumb.constant dense<2.0> : tensor<1x64xf32>
    %w2 = plumb.constant dense<2.0> : tensor<1x64xf32>
    %0 = plumb.mul %x, %w : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
    %1 = plumb.relu %0 : tensor<1x64xf32>
    %2 = plumb.exp %1 : tensor<1x64xf32>
    %3 = plumb.tanh %2 : tensor<1x64xf32>
    %4 = plumb.mul %3, %w2 : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
    %5 = plumb.reshape %4 : tensor<1x64xf32> -> tensor<8x8xf32>
    %6 = plumb.sigmoid %5 : tensor<8x8xf32>
    %7 = plumb.reshape %1 : tensor<1x64xf32> -> tensor<8x8xf32>
    %8 = plumb.add %6, %7 : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    return %8, %3 : tensor<8x8xf32>, tensor<1x64xf32>
  }
}
)mlir";

/// [def, last use] of every top-level value in positions (a test-side
/// liveness, independent of the planner's).
std::map<Value, std::pair<int, int>, bool (*)(Value, Value)> lifetimes(
    func::FuncOp main) {
  std::map<Value, std::pair<int, int>, bool (*)(Value, Value)> live(
      [](Value a, Value b) {
        return a.getAsOpaquePointer() < b.getAsOpaquePointer();
      });
  int pos = 0;
  Block &body = main.getBody().front();
  int end = (int)body.getOperations().size();
  for (Operation &op : body) {
    for (Value v : op.getOperands())
      if (live.count(v))
        live[v].second = isa<func::ReturnOp>(op) ? end : pos;
    for (Value r : op.getResults())
      live[r] = {pos, pos};
    ++pos;
  }
  return live;
}

TEST_F(PlanFixture, LiveBuffersNeverOverlapAndAreReused) {
  auto m = parse(kChain);
  ASSERT_TRUE(m);
  auto plan = planModel(*m);
  ASSERT_TRUE(!!plan) << llvm::toString(plan.takeError());
  auto live = lifetimes(getMainFunc(*m));
  std::vector<Value> arena;
  for (auto &kv : live)
    if (plan->info(kv.first).storage.kind == StorageKind::Arena)
      arena.push_back(kv.first);
  for (Value a : arena)
    for (Value b : arena) {
      if (a == b)
        continue;
      const ValueInfo &ia = plan->info(a), &ib = plan->info(b);
      if (ia.aliased || ib.aliased)
        continue; // checked below
      auto la = live[a], lb = live[b];
      bool together = la.first <= lb.second && lb.first <= la.second;
      int64_t a0 = ia.storage.offset, a1 = a0 + ia.bytes;
      int64_t b0 = ib.storage.offset, b1 = b0 + ib.bytes;
      if (together)
        EXPECT_TRUE(a1 <= b0 || b1 <= a0);
    }
  EXPECT_LT(plan->arenaBytes, plan->unplannedBytes);
  for (Value v : arena)
    EXPECT_EQ(plan->info(v).storage.offset % kPlanAlignment, 0);
}

// Traced runs' plans: node k's results keep their bytes while nodes
// k+1 .. k+lag+1 run (the fence before node k+lag+1 waits for their
// hashes), whatever their last use; with a small lag buffers are still
// reused, and a lag beyond the node count reuses none but the reshapes'.
/// No node j in k+1 .. until[k] writes over node k's results (arena values;
/// an aliased reshape writes nothing).
void expectResultsKept(const ModelPlan &plan,
                       const std::vector<int64_t> &until) {
  const std::vector<Operation *> &nodes = plan.nodes;
  int64_t n = (int64_t)nodes.size();
  auto range = [&](Value v) {
    const ValueInfo &i = plan.info(v);
    return std::make_pair(i.storage.offset, i.storage.offset + i.bytes);
  };
  for (int64_t k = 0; k < n; ++k)
    for (Value r : nodes[k]->getResults()) {
      if (plan.info(r).storage.kind != StorageKind::Arena)
        continue;
      for (int64_t j = k + 1; j < n && j <= until[k]; ++j)
        for (Value w : nodes[j]->getResults()) {
          const ValueInfo &iw = plan.info(w);
          if (iw.storage.kind != StorageKind::Arena || iw.aliased)
            continue;
          auto a = range(r), b = range(w);
          EXPECT_TRUE(a.second <= b.first || b.second <= a.first)
              << "node " << j << " overwrites node " << k;
        }
    }
}

TEST_F(PlanFixture, TracePlanKeepsResultsForTheLag) {
  auto m = parse(kChain);
  ASSERT_TRUE(m);
  for (int64_t lag : {0, 1, 2, 3, 100}) {
    PlanOptions options;
    options.resultLag = lag;
    auto plan = planModel(*m, options);
    ASSERT_TRUE(!!plan) << llvm::toString(plan.takeError());
    EXPECT_EQ(plan->resultLag, lag);
    const std::vector<Operation *> &nodes = plan->nodes;
    std::vector<int64_t> until;
    for (int64_t k = 0; k < (int64_t)nodes.size(); ++k)
      until.push_back(k + lag + 1);
    SCOPED_TRACE("lag " + std::to_string(lag));
    expectResultsKept(*plan, until);
    if (lag == 0)
      EXPECT_LT(plan->arenaBytes, plan->unplannedBytes);
    if (lag == 100) { // only the two reshapes share (their operands' bytes)
      int aliased = 0;
      for (Operation *op : nodes)
        aliased += plan->info(op->getResult(0)).aliased;
      EXPECT_EQ(aliased, 2);
      EXPECT_EQ(plan->reusedBuffers, aliased);
    }
  }
  // Fences: before node j, one for node j - lag - 1 (nothing before).
  PlanOptions options;
  options.resultLag = 2;
  auto plan = planModel(*m, options);
  ASSERT_TRUE(!!plan);
  for (int64_t j = 0; j < (int64_t)plan->nodes.size(); ++j)
    EXPECT_EQ(plan->fenceBefore[j], j >= 3 ? j - 3 : -1) << "node " << j;
}

// Per-node lags (resultUntil): node k's results keep their bytes through
// node until[k]; before node j the run fences the last node k with
// until[k] <= j, once (a later node with the same fence has none).
TEST_F(PlanFixture, TracePlanKeepsResultsUntilTheirNode) {
  auto m = parse(kChain);
  ASSERT_TRUE(m);
  int64_t n = (int64_t)graphNodes(getMainFunc(*m)).size();
  ASSERT_EQ(n, 9);
  std::vector<int64_t> until = {2, 2, 5, 5, 5, 8, 9, 9, 9};
  PlanOptions options;
  options.resultUntil = until;
  auto plan = planModel(*m, options);
  ASSERT_TRUE(!!plan) << llvm::toString(plan.takeError());
  expectResultsKept(*plan, until);
  std::vector<int64_t> fences(n, -1);
  fences[2] = 1; // nodes 0 and 1 stay through node 2
  fences[5] = 4; // nodes 2..4 through node 5
  fences[8] = 5;
  EXPECT_EQ(plan->fenceBefore, fences);
  EXPECT_EQ(plan->resultLag, 2); // nodes 2 and 5: through 3 nodes later
}

// resultUntil must name a later node for every node, in order.
TEST_F(PlanFixture, RefusesMalformedResultUntil) {
  auto m = parse(kChain);
  ASSERT_TRUE(m);
  for (std::vector<int64_t> bad :
       {std::vector<int64_t>{2, 2, 5}, {0, 2, 5, 5, 5, 8, 9, 9, 9},
        {2, 2, 5, 4, 5, 8, 9, 9, 9}, {2, 2, 5, 5, 5, 8, 9, 9, 10}}) {
    PlanOptions options;
    options.resultUntil = bad;
    auto plan = planModel(*m, options);
    ASSERT_FALSE(!!plan);
    EXPECT_NE(llvm::toString(plan.takeError()).find("resultUntil"),
              std::string::npos);
  }
}

// The trace plan's lags come from the estimate: non-decreasing, at least
// one node, at most kTraceResultLag, and a function of the module.
TEST_F(PlanFixture, TraceResultUntilIsBoundedAndMonotone) {
  auto m = parse(kChain);
  ASSERT_TRUE(m);
  auto until = traceResultUntil(*m);
  ASSERT_TRUE(!!until) << llvm::toString(until.takeError());
  int64_t n = (int64_t)until->size();
  ASSERT_EQ(n, 9);
  for (int64_t k = 0; k < n; ++k) {
    EXPECT_GE((*until)[k], std::min<int64_t>(k + 2, n)) << k;
    EXPECT_LE((*until)[k], std::min<int64_t>(k + kTraceResultLag + 1, n)) << k;
    if (k)
      EXPECT_GE((*until)[k], (*until)[k - 1]) << k;
  }
  auto again = traceResultUntil(*m);
  ASSERT_TRUE(!!again);
  EXPECT_EQ(*until, *again);
  auto traced = planForTraces(*m);
  ASSERT_TRUE(!!traced) << llvm::toString(traced.takeError());
  ASSERT_TRUE(traced->has_value());
  EXPECT_GE((*traced)->resultLag, 1);
  EXPECT_LE((*traced)->resultLag, kTraceResultLag);
}

// A node that computes for long and writes little frees its results after
// one more node; a node that writes much and computes little keeps them
// for longer (the estimate of when a hash thread is done with them).
TEST_F(PlanFixture, TraceLagsFollowComputeAndBytes) {
  auto m = parse(R"mlir(
module {
  func.func @main(%x: tensor<1x256xf32>, %w: tensor<256x256xf32>) -> tensor<1x256xf32> {
    %0 = plumb.relu %x : tensor<1x256xf32>
    %1 = plumb.matmul %0, %w : (tensor<1x256xf32>, tensor<256x256xf32>) -> tensor<1x256xf32>
    %2 = plumb.matmul %1, %w : (tensor<1x256xf32>, tensor<256x256xf32>) -> tensor<1x256xf32>
    %3 = plumb.matmul %2, %w : (tensor<1x256xf32>, tensor<256x256xf32>) -> tensor<1x256xf32>
    %4 = plumb.matmul %3, %w : (tensor<1x256xf32>, tensor<256x256xf32>) -> tensor<1x256xf32>
    %5 = plumb.relu %4 : tensor<1x256xf32>
    return %5 : tensor<1x256xf32>
  }
}
)mlir");
  ASSERT_TRUE(m);
  auto until = traceResultUntil(*m);
  ASSERT_TRUE(!!until) << llvm::toString(until.takeError());
  // 1 KiB results: hashed long before a 256x256 matmul ends.
  EXPECT_EQ(*until, (std::vector<int64_t>{2, 3, 4, 5, 6, 6}));
}

TEST_F(PlanFixture, ReshapeAliasesOnlyAtTheLastUse) {
  auto m = parse(kChain);
  auto plan = planModel(*m);
  ASSERT_TRUE(!!plan);
  std::vector<Operation *> nodes = graphNodes(getMainFunc(*m));
  // %5 = reshape %4: %4's last use -> same buffer, no copy.
  Operation *r5 = nodes[5], *r7 = nodes[7];
  ASSERT_TRUE(isa<ReshapeOp>(r5) && isa<ReshapeOp>(r7));
  EXPECT_TRUE(plan->info(r5->getResult(0)).aliased);
  EXPECT_EQ(plan->info(r5->getResult(0)).storage.offset,
            plan->info(r5->getOperand(0)).storage.offset);
  // %7 = reshape %1: %1 is also read by the exp: wait, %1's last use IS %7.
  EXPECT_TRUE(plan->info(r7->getResult(0)).aliased);
  // Traced plans too: keeping %4 for the trace recorder only reads it, as
  // reading %5 does (the same bytes).
  PlanOptions options;
  options.resultLag = 4;
  auto traced = planModel(*m, options);
  ASSERT_TRUE(!!traced);
  EXPECT_TRUE(traced->info(r5->getResult(0)).aliased);
  EXPECT_EQ(traced->info(r5->getResult(0)).storage.offset,
            traced->info(r5->getOperand(0)).storage.offset);
}

TEST_F(PlanFixture, NoAliasWhenTheOperandLivesOn) {
  auto m = parse(R"mlir(
module {
  func.func @main(%x: tensor<4xf32>) -> (tensor<2x2xf32>, tensor<4xf32>) {
    %0 = plumb.relu %x : tensor<4xf32>
    %1 = plumb.reshape %0 : tensor<4xf32> -> tensor<2x2xf32>
    %2 = plumb.exp %0 : tensor<4xf32>
    return %1, %2 : tensor<2x2xf32>, tensor<4xf32>
  }
}
)mlir");
  auto plan = planModel(*m);
  ASSERT_TRUE(!!plan);
  Operation *r = graphNodes(getMainFunc(*m))[1];
  EXPECT_FALSE(plan->info(r->getResult(0)).aliased);
  // The reshape's result is an output: computed in place.
  EXPECT_EQ(plan->info(r->getResult(0)).storage.kind, StorageKind::Output);
}

TEST_F(PlanFixture, IdenticalConstantsAreStoredOnceAligned) {
  auto m = parse(kChain);
  auto plan = planModel(*m);
  ASSERT_TRUE(!!plan);
  ASSERT_EQ(plan->weights.size(), 1u); // %w and %w2 have the same bits
  EXPECT_EQ(plan->weights[0].offset, 0);
  EXPECT_EQ(plan->weights[0].bytes, 256);
  EXPECT_EQ(plan->weightsBytes % kPlanAlignment, 0);
  std::string image;
  ASSERT_FALSE(!!buildWeightImage(*plan, image));
  ASSERT_EQ((int64_t)image.size(), plan->weightsBytes);
  float f;
  std::memcpy(&f, image.data() + 4 * 63, 4);
  EXPECT_EQ(f, 2.0f);
}

TEST_F(PlanFixture, OutputsInPlaceOnHostNotOnDevice) {
  auto m = parse(kChain);
  auto host = planModel(*m);
  auto dev = planModel(*m, {/*deviceResident=*/true});
  ASSERT_TRUE(host && dev);
  func::FuncOp main = getMainFunc(*m);
  auto ret = cast<func::ReturnOp>(main.getBody().front().getTerminator());
  EXPECT_EQ(host->info(ret.getOperand(0)).storage.kind, StorageKind::Output);
  EXPECT_EQ(host->info(ret.getOperand(1)).storage.kind, StorageKind::Output);
  for (Value v : ret.getOperands())
    EXPECT_EQ(dev->info(v).storage.kind, StorageKind::Arena);
  // Every used input has a device slot.
  EXPECT_GE(dev->inputCanonicalSlot[0], 0);
}

TEST_F(PlanFixture, PlanIsAFunctionOfTheIR) {
  auto a = parse(kChain);
  auto b = parse(kChain);
  auto pa = planModel(*a), pb = planModel(*b);
  ASSERT_TRUE(pa && pb);
  EXPECT_EQ(pa->arenaBytes, pb->arenaBytes);
  auto na = graphNodes(getMainFunc(*a)), nb = graphNodes(getMainFunc(*b));
  ASSERT_EQ(na.size(), nb.size());
  for (size_t i = 0; i < na.size(); ++i)
    EXPECT_EQ(pa->info(na[i]->getResult(0)).storage.offset,
              pb->info(nb[i]->getResult(0)).storage.offset);
}

TEST_F(PlanFixture, RefusesDynamicShapes) {
  auto m = parse(R"mlir(
module {
  func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
    return %x : tensor<?xf32>
  }
}
)mlir");
  ASSERT_TRUE(m);
  auto plan = planModel(*m);
  ASSERT_FALSE(!!plan);
  EXPECT_NE(llvm::toString(plan.takeError()).find("static tensors"),
            std::string::npos);
}

} // namespace
