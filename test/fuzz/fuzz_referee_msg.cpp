//===- test/fuzz/fuzz_referee_msg.cpp - The referee reading its parties ---===//
//
// Part of Plumb. A dispute (dispute::Referee::run) over the small test
// program (test/Trace/Inputs/small.mlir, canonicalised) between two parties whose whole
// output is the input: an archive (FuzzSupport.h) with members "A" and "B",
// each the bytes that party sends (message lines with their tensor
// attachments, as `plumb serve-trace` writes them on stdout), whatever the
// referee asks. A party that runs out of bytes is silent. With a member
// "search-one-chunk" the referee holds the chunk search on one-chunk
// results (RefereeOptions::searchOneChunk). The referee must reach a
// verdict or an error, never crash, hang or allocate what a party claims
// unchecked.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"
#include "ScriptChannel.h"

#include "plumb/Dispute/Protocol.h"
#include "plumb/Dispute/Referee.h"
#include "plumb/Driver/Pipeline.h"
#include "plumb/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include <cstring>

namespace {

using namespace plumb;

struct Program {
  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::unique_ptr<dispute::Referee> referee;
  Program() {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    ctx.disableMultithreading();
    module = mlir::parseSourceFile<mlir::ModuleOp>(PLUMB_FUZZ_SMALL_MLIR, &ctx);
    if (!module) {
      std::fprintf(stderr, "plumb-fuzz-referee-msg: cannot parse %s\n",
                   PLUMB_FUZZ_SMALL_MLIR);
      std::abort();
    }
    // The referee's module is canonical, as `plumb dispute` makes it.
    std::string err;
    if (!driver::canonicalize(*module, err)) {
      std::fprintf(stderr, "plumb-fuzz-referee-msg: %s\n", err.c_str());
      std::abort();
    }
    referee = std::make_unique<dispute::Referee>(*module);
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Program *program = new Program();
  std::map<std::string, std::string> files = fuzz::splitArchive(data, size);
  fuzz::ScriptChannel a(files["A"]), b(files["B"]);
  dispute::RefereeOptions opts;
  opts.roundTimeoutMs = 1000;
  opts.searchOneChunk = files.count("search-one-chunk") != 0;
  std::string names[2] = {"A", "B"};
  mlir::ScopedDiagnosticHandler quiet(&program->ctx, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  dispute::DisputeResult r = program->referee->run(a, b, names, opts);
  if (fuzz::verbose()) {
    std::fprintf(stderr, "error: %s\nloser: %s\n", r.error.c_str(),
                 r.loser().c_str());
    for (const std::string &l : r.log)
      std::fprintf(stderr, "  %s\n", l.c_str());
  }
  return 0;
}
