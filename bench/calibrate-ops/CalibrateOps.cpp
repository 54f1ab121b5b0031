//===- bench/calibrate-ops/CalibrateOps.cpp - Per-node CPU time vs counts -===//
//
// Part of Plumb. plumb-calibrate-ops MODEL [--input-shape/--dim/--input-value
// ...] [--inputs-dir DIR] [--min-ms T] [--model-runs N]
//
// Puts the model into the canonical form (as `plumb cost` does), runs it once
// with the reference interpreter to get every node's operands, then times
// every node alone with the runtime kernels (exec::executeOp, one thread,
// thread CPU time, the minimum over repetitions: the least disturbed
// measurement on a shared machine) and the whole model (exec::runFunction,
// minimum over N runs).
// Prints CSV: one row per node with its op counts, its gas under the newest
// schedule and its time; then one `model` row. bench/calibrate fits the
// schedule's coefficients to these rows and reports how well gas predicts
// time. Inputs: --inputs-dir (input_<i>.pb/.npy), bound values, or
// deterministic synthetic values (floats in (0.1, 1.1], integers 0, bools
// alternating).
//
//===----------------------------------------------------------------------===//
#include "plumb/Cost/Gas.h"
#include "plumb/Driver/TensorIO.h"
#include "plumb/Importer/OnnxImporter.h"
#include "plumb/InitAll.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/Support/Nodes.h"
#include "plumb/runtime/threads.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

using namespace mlir;
using namespace plumb;

namespace {

int usage(const std::string &msg) {
  std::fprintf(
      stderr,
      "plumb-calibrate-ops: error: %s\n"
      "usage: plumb-calibrate-ops MODEL.onnx|MODEL.mlir [--input-shape "
      "N=DIMS] [--dim S=N] [--input-value N=V] [--inputs-dir DIR] "
      "[--min-ms T] [--model-runs N]\n",
      msg.c_str());
  return 2;
}

/// CPU time of this thread: time spent descheduled on a shared machine does
/// not count (the kernels run on this thread: plumb_rt_set_threads(1)).
double nowNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/// Deterministic synthetic input: floats in (0.1, 1.1], integers 0, bools
/// alternating.
exec::Tensor synthetic(RankedTensorType type) {
  exec::ElemType et;
  exec::elemTypeOf(type.getElementType(), et);
  exec::Tensor t = exec::Tensor::make(
      et, std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
  int64_t n = t.numElements();
  uint32_t s = 12345;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    switch (et) {
    case exec::ElemType::F32:
      t.as<float>()[i] = 0.1f + (float)(s >> 8) * (1.0f / 16777216.0f);
      break;
    case exec::ElemType::I64:
      t.as<int64_t>()[i] = 0;
      break;
    case exec::ElemType::I32:
      t.as<int32_t>()[i] = 0;
      break;
    case exec::ElemType::Bool:
      t.as<uint8_t>()[i] = (uint8_t)(i & 1);
      break;
    }
  }
  return t;
}

/// The minimum time of `fn` over repetitions lasting about `minMs` in all
/// (at least 3, at most 1000 repetitions).
template <typename Fn> double minTimeNs(Fn fn, double minMs) {
  fn(); // warm-up
  double best = 1e300, spent = 0;
  for (int r = 0; r < 1000 && (r < 3 || spent < minMs * 1e6); ++r) {
    double t0 = nowNs();
    fn();
    double dt = nowNs() - t0;
    best = std::min(best, dt);
    spent += dt;
  }
  return best;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  importer::ImportOptions opts;
  std::string model, inputsDir;
  double minMs = 20;
  int modelRuns = 3;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto next = [&](std::string &v) {
      if (i + 1 >= args.size())
        return false;
      v = args[++i];
      return true;
    };
    std::string v;
    importer::ImportError e;
    if (a == "--input-shape" || a == "--dim" || a == "--input-value") {
      if (!next(v))
        return usage(a + " needs a value");
      bool ok = a == "--input-shape"
                    ? importer::parseInputShape(v, opts.bindings, e)
                : a == "--dim" ? importer::parseDim(v, opts.bindings, e)
                               : importer::parseInputValue(v, opts.bindings, e);
      if (!ok)
        return usage(e.message);
    } else if (a == "--inputs-dir") {
      if (!next(inputsDir))
        return usage("--inputs-dir needs a folder");
    } else if (a == "--min-ms") {
      if (!next(v) || (minMs = std::atof(v.c_str())) <= 0)
        return usage("--min-ms needs a positive number");
    } else if (a == "--model-runs") {
      if (!next(v) || (modelRuns = std::atoi(v.c_str())) < 1)
        return usage("--model-runs needs a positive number");
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option '" + a + "'");
    } else if (model.empty()) {
      model = a;
    } else {
      return usage("unexpected argument '" + a + "'");
    }
  }
  if (model.empty())
    return usage("no model given");

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.disableMultithreading();
  OwningOpRef<ModuleOp> module;
  if (llvm::StringRef(model).ends_with(".onnx")) {
    importer::ImportError err;
    module = importer::importOnnxFile(ctx, model, opts, err);
    if (!module) {
      std::fprintf(stderr, "plumb-calibrate-ops: %s: %s\n", model.c_str(),
                   err.message.c_str());
      return 1;
    }
  } else {
    llvm::SourceMgr sm;
    SourceMgrDiagnosticHandler handler(sm, &ctx);
    module = parseSourceFile<ModuleOp>(model, sm, &ctx);
    if (!module)
      return 1;
  }
  PassManager pm(&ctx);
  buildCanonicalizePipeline(pm);
  if (failed(pm.run(*module)))
    return 1;
  func::FuncOp main = getMainFunc(*module);
  const GasSchedule &schedule = latestGasSchedule();
  plumb_rt_set_threads(1);

  // Inputs.
  Block &entry = main.getBody().front();
  std::vector<exec::Tensor> inputs(entry.getNumArguments());
  for (unsigned i = 0; i < inputs.size(); ++i) {
    std::string err;
    bool have = false;
    if (!inputsDir.empty())
      for (const char *ext : {".pb", ".npy"}) {
        std::string p = inputsDir + "/input_" + std::to_string(i) + ext;
        if (llvm::sys::fs::exists(p)) {
          if (!driver::readTensorFile(p, inputs[i], err)) {
            std::fprintf(stderr, "plumb-calibrate-ops: %s\n", err.c_str());
            return 1;
          }
          have = true;
          break;
        }
      }
    if (!have) {
      if (auto bound =
              main.getArgAttrOfType<ElementsAttr>(i, "plumb.bound_value")) {
        if (!exec::tensorFromAttr(bound, inputs[i], err))
          return 1;
      } else {
        inputs[i] =
            synthetic(cast<RankedTensorType>(entry.getArgument(i).getType()));
      }
    }
  }

  // One run recording every value.
  llvm::DenseMap<Value, exec::Tensor> values;
  for (unsigned i = 0; i < inputs.size(); ++i)
    values[entry.getArgument(i)] = inputs[i];
  std::vector<exec::Tensor> outputs;
  std::string err;
  auto record = [&](Operation *op, llvm::ArrayRef<exec::Tensor> results) {
    for (unsigned i = 0; i < results.size() && i < op->getNumResults(); ++i)
      values[op->getResult(i)] = results[i];
  };
  if (!exec::runFunction(main, inputs, outputs, err, record)) {
    std::fprintf(stderr, "plumb-calibrate-ops: %s\n", err.c_str());
    return 1;
  }

  std::string name = llvm::sys::path::filename(model).str();
  std::printf("model,index,op,macs,elementwise,transcendental,compare,"
              "indexed,bytes_read,bytes_written,gas,time_ns\n");
  int64_t index = 0;
  double sumNodes = 0;
  for (Operation *op : graphNodes(main)) {
    auto priced = computeOpGas(op, schedule);
    if (!priced) {
      std::fprintf(stderr, "plumb-calibrate-ops: node %lld: %s\n",
                   (long long)index,
                   llvm::toString(priced.takeError()).c_str());
      return 1;
    }
    double ns = -1;
    if (!isa<IfOp>(op)) {
      std::vector<const exec::Tensor *> ins;
      for (Value v : op->getOperands())
        ins.push_back(&values[v]);
      bool ok = true;
      ns = minTimeNs(
          [&] {
            std::vector<exec::Tensor> outs;
            ok = ok && exec::executeOp(op, ins, outs, err);
          },
          minMs);
      if (!ok) {
        std::fprintf(stderr, "plumb-calibrate-ops: node %lld: %s\n",
                     (long long)index, err.c_str());
        return 1;
      }
      sumNodes += ns;
    }
    const OpCounts &c = priced->first;
    std::printf(
        "%s,%lld,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.0f\n",
        name.c_str(), (long long)index++,
        op->getName().getStringRef().str().c_str(), (unsigned long long)c.macs,
        (unsigned long long)c.elementwise, (unsigned long long)c.transcendental,
        (unsigned long long)c.compare, (unsigned long long)c.indexed,
        (unsigned long long)c.bytesRead, (unsigned long long)c.bytesWritten,
        (unsigned long long)priced->second, ns);
  }
  auto total = computeGas(*module, schedule);
  if (!total) {
    std::fprintf(stderr, "plumb-calibrate-ops: %s\n",
                 llvm::toString(total.takeError()).c_str());
    return 1;
  }
  double best = 1e300;
  for (int r = 0; r < modelRuns; ++r) {
    std::vector<exec::Tensor> outs;
    double t0 = nowNs();
    exec::runFunction(main, inputs, outs, err);
    best = std::min(best, nowNs() - t0);
  }
  std::printf("%s,model,total,,,,,,,,%llu,%.0f\n", name.c_str(),
              (unsigned long long)total->totalGas, best);
  std::fprintf(stderr,
               "%s: %lld nodes, sum of node times %.3f ms, whole model "
               "%.3f ms\n",
               name.c_str(), (long long)index, sumNodes / 1e6, best / 1e6);
  return 0;
}
