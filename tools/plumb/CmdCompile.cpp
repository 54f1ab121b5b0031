//===- tools/plumb/CmdCompile.cpp - plumb compile and compiled runs -------===//
//
// Part of Plumb. `plumb compile` writes a bundle (docs/bundle.md); the
// helpers below are the compiled path of `plumb run`: opening a bundle with
// full verification, compiling a model into the cache keyed by its graph
// hash, and running a loaded model library.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "CompiledRun.h"

#include "plumb/Bundle/Bundle.h"
#include "plumb/Canonical/Identity.h"
#include "plumb/InitAll.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/Support/Merkle.h"
#include "plumb/Support/Nodes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <chrono>
#include <cstdio>

namespace plumb {
namespace tool {

void printCompileHelp(FILE *f) {
  std::fprintf(
      f,
      "usage: plumb compile MODEL.onnx|MODEL.mlir [-o OUT.plumb]\n"
      "                     [--target cpu|cuda|all] [import options]\n"
      "                     [--cxx COMPILER] [--quiet]\n"
      "\n"
      "Compiles the model into a bundle folder: manifest.json (graph hash,\n"
      "contract, gas, interface, nodes in canonical order, the SHA-256 of\n"
      "every file), model.mlir (the canonical IR, weights elided),\n"
      "weights.bin (64-byte aligned), the emitted C++ and CUDA sources and\n"
      "the libraries built from them. Every shape, reduction tree and buffer\n"
      "offset is fixed at compile time; the sources are byte-identical on\n"
      "every machine. Run the bundle with 'plumb run OUT.plumb', which\n"
      "verifies it and builds its own library from re-derived sources\n"
      "(docs/bundle.md).\n"
      "\n"
      "options:\n"
      "  -o, --output DIR     the bundle folder (default: MODEL.plumb in the\n"
      "                       current folder); an existing bundle there is\n"
      "                       replaced once the new one is complete\n"
      "  --target T           which libraries to build: cpu, cuda or all\n"
      "                       (default all; the CUDA library is built when\n"
      "                       nvcc and Plumb's CUDA kernels are present, and\n"
      "                       the manifest says why when not). Both sources\n"
      "                       are always emitted.\n"
      "  --cxx COMPILER       host C++ compiler (default $PLUMB_CXX, $CXX,\n"
      "                       then c++, g++ or clang++ on PATH)\n"
      "  --quiet              no progress on stderr\n"
      "  import options       --input-shape, --dim, --input-value as in\n"
      "                       'plumb import' (for .onnx models)\n"
      "\n"
      "exit status: 0 success, 1 bad model or failed build, 2 usage error\n");
}

namespace {

std::string withCommas(uint64_t v) {
  std::string s = std::to_string(v), r;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0)
      r += ',';
    r += s[i];
  }
  return r;
}

bundle::ProgressFn progressTo(const char *cmd, bool quiet) {
  if (quiet)
    return nullptr;
  return [cmd](const std::string &s) {
    std::fprintf(stderr, "plumb %s: %s\n", cmd, s.c_str());
    std::fflush(stderr);
  };
}

} // namespace

int cmdCompile(std::vector<std::string> args) {
  const char *cmd = "compile";
  importer::ImportOptions opts;
  std::string model, out, targetName = "all", cxx;
  std::vector<std::string> importArgs;
  bool quiet = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    std::string v;
    bool missing = false;
    if (a == "-h" || a == "--help") {
      printCompileHelp(stdout);
      return 0;
    }
    size_t first = i;
    if (int r = takeImportOption(args, i, opts, cmd)) {
      if (r < 0)
        return 2;
      for (size_t k = first; k <= i; ++k)
        importArgs.push_back(args[k]);
    } else if (takeValue(args, i, "-o", v, missing) ||
               takeValue(args, i, "--output", v, missing)) {
      if (missing || v.empty())
        return usageError("option '-o' needs a folder", cmd);
      out = v;
    } else if (takeValue(args, i, "--target", v, missing)) {
      if (missing || (v != "cpu" && v != "cuda" && v != "all"))
        return usageError("option '--target' must be cpu, cuda or all", cmd);
      targetName = v;
    } else if (takeValue(args, i, "--cxx", v, missing)) {
      if (missing || v.empty())
        return usageError("option '--cxx' needs a compiler", cmd);
      cxx = v;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      return usageError("unknown option '" + a + "'", cmd);
    } else if (model.empty()) {
      model = a;
    } else {
      return usageError("unexpected argument '" + a + "'", cmd);
    }
  }
  if (model.empty())
    return usageError("no model given", cmd);
  if (out.empty())
    out = llvm::sys::path::stem(model).str() + ".plumb";

  auto start = std::chrono::steady_clock::now();
  bundle::ProgressFn progress = progressTo(cmd, quiet);
  if (progress)
    progress("loading and canonicalising " +
             llvm::sys::path::filename(model).str());
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.disableMultithreading();
  int exitCode = 0;
  // Bundles always hold the canonical form.
  opts.canonicalize = true;
  auto module = loadModel(ctx, model, opts, cmd, exitCode);
  if (!module)
    return exitCode;
  if (!getMainFunc(*module)) {
    std::fprintf(stderr, "plumb compile: error: '%s' has no func.func @main\n",
                 model.c_str());
    return 1;
  }

  bundle::CompileOptions co;
  co.buildCpu = targetName != "cuda";
  co.buildCuda = targetName != "cpu";
  co.cxx = cxx;
  co.sourceName = llvm::sys::path::filename(model).str();
  co.sourceSha256 = bundle::fileSha256(model);
  co.importOptions = importArgs;
  co.progress = progress;
  auto m = bundle::writeBundle(*module, out, co);
  if (!m) {
    std::fprintf(stderr, "plumb compile: error: %s\n",
                 llvm::toString(m.takeError()).c_str());
    return 1;
  }
  double secs = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  std::printf("bundle   %s\n", out.c_str());
  std::printf("graph    %s\n", m->graphHash.c_str());
  std::printf("nodes    %zu\n", m->nodes.size());
  if (m->hasGas)
    std::printf("gas      %s (%s)\n", withCommas(m->gasTotal).c_str(),
                m->gasSchedule.c_str());
  std::printf("memory   weights %s bytes, arena %s bytes\n",
              withCommas(m->weightsBytes).c_str(),
              withCommas(m->arenaBytes).c_str());
  for (const bundle::ManifestTarget &t : m->targets)
    std::printf("%-8s %s\n", t.name.c_str(),
                t.built ? ("built: " + t.library).c_str()
                        : ("not built: " + t.reason).c_str());
  if (progress) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "done in %.1f s", secs);
    progress(buf);
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// The compiled path of plumb run
//===----------------------------------------------------------------------===//

std::unique_ptr<bundle::Bundle> openBundleForRun(const std::string &path,
                                                 const std::string &device,
                                                 bool interpret,
                                                 int &exitCode) {
  bundle::OpenOptions oo;
  oo.checkCpu = !interpret && device == "cpu";
  oo.checkCuda = !interpret && device == "cuda";
  auto b = bundle::openBundle(path, oo);
  if (!b) {
    std::fprintf(stderr, "plumb run: error: refusing bundle '%s': %s\n",
                 path.c_str(), llvm::toString(b.takeError()).c_str());
    exitCode = 1;
    return nullptr;
  }
  return std::move(*b);
}

std::unique_ptr<bundle::Bundle> compileIntoCache(mlir::ModuleOp module,
                                                 const std::string &model,
                                                 const std::string &device,
                                                 int &exitCode) {
  std::string hash = toHex(computeGraphHash(module));
  std::string dir = bundle::cacheDir() + "/bundles/" + hash;
  bundle::OpenOptions oo;
  oo.checkCpu = device == "cpu";
  oo.checkCuda = device == "cuda";
  bool damaged = false;
  if (bundle::isBundleDir(dir)) {
    auto b = bundle::openBundle(dir, oo);
    if (b)
      return std::move(*b);
    llvm::consumeError(b.takeError()); // stale or damaged: compile again
    damaged = true;
  }
  if (auto ec = llvm::sys::fs::create_directories(bundle::cacheDir() +
                                                  "/bundles")) {
    std::fprintf(stderr, "plumb run: error: cannot create the cache in '%s': %s\n",
                 bundle::cacheDir().c_str(), ec.message().c_str());
    exitCode = 1;
    return nullptr;
  }
  std::fprintf(stderr, "plumb run: compiling %s into the cache (%s)\n",
               llvm::sys::path::filename(model).str().c_str(), dir.c_str());
  bundle::CompileOptions co;
  co.buildCpu = device == "cpu";
  co.buildCuda = device == "cuda";
  co.sourceName = llvm::sys::path::filename(model).str();
  co.sourceSha256 = bundle::fileSha256(model);
  co.progress = [](const std::string &s) {
    std::fprintf(stderr, "plumb run: %s\n", s.c_str());
  };
  // Other runs may compile the same model at the same time: each writes a
  // private folder and moves it into place only if the entry is still
  // absent; a valid entry is never replaced (the bundles are identical).
  std::string mine = dir + ".new-" + std::to_string(llvm::sys::Process::getProcessId());
  llvm::sys::fs::remove_directories(mine);
  auto m = bundle::writeBundle(module, mine, co);
  if (!m) {
    std::fprintf(stderr, "plumb run: error: %s\n",
                 llvm::toString(m.takeError()).c_str());
    exitCode = 1;
    return nullptr;
  }
  if (damaged) {
    // It failed to open above: set it aside (if another run has not).
    std::string stale = dir + ".stale-" + std::to_string(llvm::sys::Process::getProcessId());
    if (!llvm::sys::fs::rename(dir, stale))
      llvm::sys::fs::remove_directories(stale);
  }
  if (llvm::sys::fs::rename(mine, dir))
    llvm::sys::fs::remove_directories(mine); // another run was first
  auto b = bundle::openBundle(dir, oo);
  if (!b) {
    std::fprintf(stderr, "plumb run: error: %s\n",
                 llvm::toString(b.takeError()).c_str());
    exitCode = 1;
    return nullptr;
  }
  return std::move(*b);
}

std::unique_ptr<bundle::NativeModel>
loadNativeForRun(const bundle::Bundle &b, const std::string &device) {
  auto lib = bundle::loadBundleLibrary(
      b, device, "", [](const std::string &s) {
        std::fprintf(stderr, "plumb run: %s\n", s.c_str());
      });
  if (!lib) {
    std::fprintf(stderr, "plumb run: error: %s\n",
                 llvm::toString(lib.takeError()).c_str());
    return nullptr;
  }
  return std::move(*lib);
}

bool checkRunInputs(mlir::func::FuncOp func,
                    llvm::ArrayRef<exec::Tensor> inputs, std::string &err) {
  // The interpreter's checks (exec::runFunction), with its messages.
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto type = mlir::cast<mlir::RankedTensorType>(func.getArgument(i).getType());
    exec::ElemType et = exec::ElemType::F32;
    exec::elemTypeOf(type.getElementType(), et);
    auto nameAttr = func.getArgAttrOfType<mlir::StringAttr>(i, "plumb.name");
    std::string name = nameAttr ? nameAttr.str() : "#" + std::to_string(i);
    const exec::Tensor &t = inputs[i];
    if (t.type != et || llvm::ArrayRef<int64_t>(t.shape) != type.getShape()) {
      exec::Tensor want = exec::Tensor::make(
          et, std::vector<int64_t>(type.getShape().begin(),
                                   type.getShape().end()));
      err = "input '" + name + "' must be " + want.describe() + ", got " +
            t.describe();
      return false;
    }
    if (auto bound =
            func.getArgAttrOfType<mlir::ElementsAttr>(i, "plumb.bound_value")) {
      exec::Tensor b;
      if (!exec::tensorFromAttr(bound, b, err))
        return false;
      if (exec::tensorHash(b) != exec::tensorHash(t)) {
        err = "input '" + name +
              "' was fixed at import (--input-value) and must equal the "
              "bound value";
        return false;
      }
    }
  }
  return true;
}

bool runNative(bundle::NativeModel &native, const bundle::Bundle &b,
               mlir::func::FuncOp func, llvm::ArrayRef<exec::Tensor> inputs,
               std::vector<exec::Tensor> &outputs, plumb_node_hook hook,
               void *user, std::string &err, plumb_node_fence fence,
               bool observed) {
  // Empty tensors have no storage; the library still wants a pointer.
  static uint64_t emptyStorage;
  auto data = [](const exec::Tensor &t) {
    return t.storage.empty() ? (void *)&emptyStorage
                             : const_cast<void *>(t.raw());
  };
  std::vector<plumb_tensor_view> in(inputs.size()), out;
  for (size_t i = 0; i < inputs.size(); ++i)
    in[i] = {(int32_t)inputs[i].type, (int32_t)inputs[i].shape.size(),
             inputs[i].shape.data(), data(inputs[i])};
  mlir::FunctionType ft = func.getFunctionType();
  outputs.clear();
  outputs.resize(ft.getNumResults());
  for (unsigned i = 0; i < ft.getNumResults(); ++i) {
    auto t = mlir::cast<mlir::RankedTensorType>(ft.getResult(i));
    exec::ElemType et = exec::ElemType::F32;
    exec::elemTypeOf(t.getElementType(), et);
    outputs[i] = exec::Tensor::make(
        et, std::vector<int64_t>(t.getShape().begin(), t.getShape().end()));
  }
  for (exec::Tensor &t : outputs)
    out.push_back(
        {(int32_t)t.type, (int32_t)t.shape.size(), t.shape.data(), data(t)});
  return native.run(b.weights->getBufferStart(), in.data(), out.data(), hook,
                    user, err, fence, observed);
}

} // namespace tool
} // namespace plumb
