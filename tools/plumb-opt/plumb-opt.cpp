//===- plumb-opt.cpp - mlir-opt for the plumb dialect ---------------------===//
//
// Part of Plumb. Parses, verifies, transforms and prints plumb IR.
//
//===----------------------------------------------------------------------===//
#include "plumb/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  plumb::registerAllDialects(registry);
  plumb::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Plumb optimizer driver\n", registry));
}
