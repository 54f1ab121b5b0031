//===- test/fuzz/fuzz_onnxtxt.cpp - ONNX text form, parsed and imported ---===//
//
// Part of Plumb. The input is a model in ONNX's text form (what the tests'
// .onnxtxt files hold, test/lib/onnxtxt.py): ONNX's own parser
// (onnx/defs/parser.h, the C++ one the Python onnx.parser wraps) turns it
// into a ModelProto, which is written as an .onnx file and imported with
// importer::importOnnxFile. Text mutations keep models well formed far more
// often than byte mutations of protobuf, so this reaches deeper into the
// importer's per-operator code than plumb-fuzz-onnx.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "plumb/Driver/Model.h"
#include "plumb/Importer/OnnxImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "onnx/defs/parser.h"
#include "onnx/onnx_pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace plumb;
  std::string text(reinterpret_cast<const char *>(data), size);
  onnx::ModelProto model;
  // ONNX 1.12's parser throws std::invalid_argument / std::out_of_range
  // (std::stoll on an integer literal it cannot hold) instead of returning
  // an error status: that is ONNX's bug, not Plumb's (Plumb never parses
  // text), so it counts as "not ONNX text". This file alone is compiled
  // with exceptions (CMakeLists.txt) to catch it.
  try {
    if (!onnx::OnnxParser::Parse(model, text.c_str()).IsOK())
      return 0; // not ONNX text: nothing of Plumb's runs
  } catch (const std::exception &) {
    return 0;
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return 0;
  static const std::string path = fuzz::scratchDir() + "/model.onnx";
  fuzz::writeFile(path, bytes);
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
    std::fprintf(stderr,
                 "plumb-fuzz-onnxtxt: import failed without a message\n");
    std::abort();
  }
  return 0;
}
