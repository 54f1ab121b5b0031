//===- test/fuzz/fuzz_onnx.cpp - ONNX protobuf loader and importer --------===//
//
// Part of Plumb. The input is an .onnx file: importer::importOnnxFile parses
// it (ModelLoader: limits, wire-format diagnosis, tensors, order) and
// imports it to the plumb dialect, verifying the module. A bad model must
// give an ImportError; nothing may crash, leak, hang or allocate unchecked.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "plumb/Driver/Model.h"
#include "plumb/Importer/OnnxImporter.h"

#include "mlir/IR/Diagnostics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace plumb;
  static const std::string path = fuzz::scratchDir() + "/model.onnx";
  fuzz::writeFile(path, data, size);
  auto ctx = driver::makeContext();
  mlir::ScopedDiagnosticHandler quiet(ctx.get(), [](mlir::Diagnostic &) {
    return mlir::success();
  });
  importer::ImportOptions opts;
  importer::ImportError err;
  auto module = importer::importOnnxFile(*ctx, path, opts, err);
  if (fuzz::verbose())
    std::fprintf(stderr, "%s\n", module ? "imported" : err.message.c_str());
  if (!module && err.message.empty()) {
    std::fprintf(stderr, "plumb-fuzz-onnx: import failed without a message\n");
    std::abort();
  }
  return 0;
}
