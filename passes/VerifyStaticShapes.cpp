//===- passes/VerifyStaticShapes.cpp - plumb-verify-static-shapes ---------===//
//
// Part of Plumb. See Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Plumb/IR/PlumbOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace plumb {
#define GEN_PASS_DEF_VERIFYSTATICSHAPESPASS
#include "passes/Passes.h.inc"
} // namespace plumb

using namespace mlir;

namespace {

bool isPlumbTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt || !rt.hasStaticShape())
    return false;
  Type e = rt.getElementType();
  return e.isF32() || e.isInteger(64) || e.isInteger(32) || e.isInteger(1);
}

struct VerifyStaticShapesPass
    : plumb::impl::VerifyStaticShapesPassBase<VerifyStaticShapesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp main;
    bool ok = true;
    for (Operation &op : module.getBody()->getOperations()) {
      auto f = dyn_cast<func::FuncOp>(op);
      if (!f) {
        op.emitError() << "a Plumb module holds only func.func @main, found '"
                       << op.getName() << "'";
        ok = false;
        continue;
      }
      if (f.getSymName() != "main") {
        f.emitError() << "a Plumb module holds only func.func @main, found @"
                      << f.getSymName();
        ok = false;
        continue;
      }
      main = f;
    }
    if (!main) {
      if (ok)
        module.emitError() << "the module has no func.func @main";
      return signalPassFailure();
    }
    for (BlockArgument arg : main.getArguments())
      if (!isPlumbTensor(arg.getType())) {
        main.emitError() << "input " << arg.getArgNumber() << " has type "
                         << arg.getType()
                         << "; Plumb needs a statically shaped tensor of f32, "
                            "i64, i32 or i1";
        ok = false;
      }
    main.walk([&](Operation *op) {
      if (op == main.getOperation())
        return;
      if (!isa_and_nonnull<plumb::PlumbDialect>(op->getDialect()) &&
          !isa<func::ReturnOp>(op)) {
        op->emitError() << "'" << op->getName()
                        << "' is not a Plumb operation";
        ok = false;
      }
      for (Value v : op->getResults())
        if (!isPlumbTensor(v.getType())) {
          op->emitError() << "result has type " << v.getType()
                          << "; Plumb needs a statically shaped tensor of "
                             "f32, i64, i32 or i1";
          ok = false;
        }
    });
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
