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
  // Fusion picks chains in IR order, so it runs on the canonical order (an
  // elementwise op with two fusible producers must join the same one
  // whatever the file's node order); the fused graph is ordered again.
  pm.addPass(createCanonicalOrderPass());
  pm.addPass(createFuseElementwisePass());
  pm.addPass(createCanonicalOrderPass());
}

void registerAllPlumbPasses() {
  registerPlumbPasses();
  mlir::PassPipelineRegistration<>(
      "plumb-canonicalize",
      "The canonical form: verify, simplify, fold constants with the runtime "
      "kernels, CSE, DCE, materialise reduction trees, fuse elementwise "
      "chains, canonical order "
      "(docs/canonical.md). Keeps every result bit.",
      buildCanonicalizePipeline);
}

} // namespace plumb
