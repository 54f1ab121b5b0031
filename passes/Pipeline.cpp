//===- passes/Pipeline.cpp - plumb-canonicalize and registration ----------===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace plumb {

void buildCanonicalizePipeline(mlir::OpPassManager &pm) {
  pm.addPass(createVerifyStaticShapesPass());
  pm.addPass(createSimplifyPass());
  pm.addPass(createFoldConstantsPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(createEliminateDeadCodePass());
  pm.addPass(createMaterializeTreesPass());
  pm.addPass(createCanonicalOrderPass());
}

void registerAllPlumbPasses() {
  registerPlumbPasses();
  mlir::PassPipelineRegistration<>(
      "plumb-canonicalize",
      "The canonical form: verify, simplify, fold constants with the runtime "
      "kernels, CSE, DCE, materialise reduction trees, canonical order "
      "(docs/canonical.md). Keeps every result bit.",
      buildCanonicalizePipeline);
}

} // namespace plumb
