//===- lib/Bundle/BundleWriter.cpp - plumb compile's bundle ---------------===//
//
// Part of Plumb. Writes a bundle (docs/bundle.md): plans the model, emits the
// sources, writes the canonical IR without its blobs and the weight image,
// builds the libraries, then the manifest with every file's SHA-256. The
// bundle is assembled in a temporary folder beside the destination and moved
// into place only when complete.
//
//===----------------------------------------------------------------------===//
#include "plumb/Bundle/Bundle.h"

#include "plumb/Canonical/Identity.h"
#include "plumb/Cost/Gas.h"
#include "plumb/Support/Nodes.h"
#include "plumb/Target/Cpp/CppEmitter.h"
#include "plumb/Target/Cuda/CudaEmitter.h"
#include "plumb/runtime/config.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <unistd.h>

using namespace mlir;

namespace plumb {
namespace bundle {

namespace {

llvm::Error fail(const std::string &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                 msg.c_str());
}

llvm::Error writeFile(const std::string &path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return fail("cannot write '" + path + "': " + ec.message());
  os << bytes;
  os.close();
  if (os.has_error()) {
    std::string m = os.error().message();
    os.clear_error();
    return fail("cannot write '" + path + "': " + m);
  }
  return llvm::Error::success();
}

/// Every regular file under `root`, as sorted relative paths.
std::vector<std::string> listFiles(const std::string &root) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(root, ec), end;
       it != end && !ec; it.increment(ec)) {
    if (it->type() != llvm::sys::fs::file_type::regular_file)
      continue;
    llvm::StringRef p = it->path();
    p.consume_front(root);
    p.consume_front("/");
    files.push_back(p.str());
  }
  std::sort(files.begin(), files.end());
  return files;
}

ManifestTensor describeTensor(Type t, StringAttr name, bool bound,
                              StringAttr storage) {
  ManifestTensor mt;
  auto rt = cast<RankedTensorType>(t);
  exec::ElemType et = exec::ElemType::F32;
  exec::elemTypeOf(rt.getElementType(), et);
  mt.name = name ? name.str() : "";
  mt.dtype = exec::elemTypeName(et);
  mt.shape.assign(rt.getShape().begin(), rt.getShape().end());
  mt.bound = bound;
  mt.storage = storage ? storage.str() : "";
  return mt;
}

} // namespace

std::string printBundleIr(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags());
  os.flush();
  // The resource section ("{-# dialect_resources: ... #-}") comes last; its
  // bytes are in weights.bin.
  size_t at = text.rfind("\n{-#");
  if (at != std::string::npos && llvm::StringRef(text).ends_with("#-}\n"))
    text.resize(at + 1);
  return text;
}

llvm::Expected<std::string> deriveCpuSource(ModuleOp module,
                                            const std::string &graphHash) {
  auto plan = target::planModel(module);
  if (!plan)
    return plan.takeError();
  return target::emitCppForModule(module, *plan,
                                  {graphHash, plumbVersion(),
                                   PLUMB_CONTRACT_VERSION});
}

llvm::Expected<std::string> deriveCudaSource(ModuleOp module,
                                             const std::string &graphHash) {
  auto plan = target::planModel(module, {/*deviceResident=*/true});
  if (!plan)
    return plan.takeError();
  return target::emitCuda(*plan, {graphHash, plumbVersion(),
                                  PLUMB_CONTRACT_VERSION});
}

bool isBundleDir(const std::string &path) {
  return llvm::sys::fs::is_directory(path) &&
         llvm::sys::fs::exists(path + "/" + kManifestFile);
}

llvm::Expected<Manifest> writeBundle(ModuleOp module, const std::string &dir,
                                     const CompileOptions &opts) {
  auto say = [&](const std::string &s) {
    if (opts.progress)
      opts.progress(s);
  };
  func::FuncOp main = getMainFunc(module);
  if (!main)
    return fail("the module has no func.func @main");

  // Refuse to replace anything but a bundle.
  if (llvm::sys::fs::exists(dir)) {
    bool empty = false;
    if (llvm::sys::fs::is_directory(dir)) {
      std::error_code ec;
      llvm::sys::fs::directory_iterator it(dir, ec);
      empty = !ec && it == llvm::sys::fs::directory_iterator();
    }
    if (!empty && !isBundleDir(dir))
      return fail("'" + dir +
                  "' exists and is not a Plumb bundle; refusing to replace it");
  }

  Manifest m;
  m.plumbVersion = plumbVersion();
  m.contract = PLUMB_CONTRACT_VERSION;
  m.modelAbi = PLUMB_MODEL_ABI_VERSION;
  m.graphHash = toHex(computeGraphHash(module));
  m.sourceName = opts.sourceName;
  m.sourceSha256 = opts.sourceSha256;
  m.importOptions = opts.importOptions;
  m.training = opts.training;

  auto gas = computeGas(module, latestGasSchedule());
  if (!gas)
    return fail("cannot price the model: " + llvm::toString(gas.takeError()));
  m.hasGas = true;
  m.gasSchedule = gas->schedule;
  m.gasTotal = gas->totalGas;
  for (const NodeGas &n : gas->nodes)
    m.nodes.push_back({n.index, toHex(n.id), n.op, true, n.gas});

  Block &entry = main.getBody().front();
  for (unsigned i = 0; i < main.getNumArguments(); ++i)
    m.inputs.push_back(describeTensor(
        entry.getArgument(i).getType(),
        main.getArgAttrOfType<StringAttr>(i, "plumb.name"),
        (bool)main.getArgAttr(i, "plumb.bound_value"),
        main.getArgAttrOfType<StringAttr>(i, "plumb.storage")));
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  for (unsigned i = 0; i < ret.getNumOperands(); ++i)
    m.outputs.push_back(
        describeTensor(ret.getOperand(i).getType(),
                       main.getResultAttrOfType<StringAttr>(i, "plumb.name"),
                       false,
                       main.getResultAttrOfType<StringAttr>(i, "plumb.storage")));

  say("planning memory and emitting sources");
  auto plan = target::planModel(module);
  if (!plan)
    return plan.takeError();
  m.arenaBytes = plan->arenaBytes;
  auto tracePlan = target::planForTraces(module);
  if (!tracePlan)
    return tracePlan.takeError();
  m.tracedArenaBytes = *tracePlan ? (*tracePlan)->arenaBytes : 0;
  m.weightsBytes = plan->weightsBytes;
  m.weightsAlignment = target::kPlanAlignment;
  for (const target::WeightEntry &e : plan->weights)
    m.weights.push_back({e.offset, e.bytes, e.resources});
  auto cpuSource = target::emitCpp(
      *plan, {m.graphHash, plumbVersion(), PLUMB_CONTRACT_VERSION},
      *tracePlan ? &**tracePlan : nullptr);
  if (!cpuSource)
    return cpuSource.takeError();
  auto cudaSource = deriveCudaSource(module, m.graphHash);
  if (!cudaSource)
    return cudaSource.takeError();
  std::string image;
  if (auto err = target::buildWeightImage(*plan, image))
    return std::move(err);
  m.weightsSha256 = toHex(fastSha256(image.data(), image.size()));

  // Assemble beside the destination.
  std::string tmp = dir + ".tmp-" + std::to_string(getpid());
  llvm::sys::fs::remove_directories(tmp);
  for (const char *sub : {"", "/cpu", "/cuda"})
    if (auto ec = llvm::sys::fs::create_directories(tmp + sub))
      return fail("cannot create '" + tmp + sub + "': " + ec.message());
  auto cleanup = [&](llvm::Error e) -> llvm::Error {
    llvm::sys::fs::remove_directories(tmp);
    return e;
  };
  if (auto err = writeFile(tmp + "/" + kIrFile, printBundleIr(module)))
    return cleanup(std::move(err));
  if (auto err = writeFile(tmp + "/" + kWeightsFile, image))
    return cleanup(std::move(err));
  image.clear();
  image.shrink_to_fit();
  if (auto err = writeFile(tmp + "/" + kCpuSource, *cpuSource))
    return cleanup(std::move(err));
  if (auto err = writeFile(tmp + "/" + kCudaSource, *cudaSource))
    return cleanup(std::move(err));

  // Libraries.
  ManifestTarget cpu{"cpu", kCpuSource};
  if (!opts.buildCpu) {
    cpu.reason = "not requested";
  } else {
    auto tc = findHostToolchain(opts.cxx);
    if (!tc)
      return cleanup(tc.takeError());
    std::string lib = tmp + "/" + kCpuLibrary;
    if (auto err = buildHostLibrary(*tc, tmp + "/" + kCpuSource, lib,
                                    opts.progress))
      return cleanup(std::move(err));
    cpu.built = true;
    cpu.library = kCpuLibrary;
    cpu.compiler = tc->cxxId;
    cpu.flags = tc->flagText();
    // Built here, by us: `plumb run` may use it without building again.
    storeInCache(hostBuildKey(*tc, *cpuSource), "cpu", *cpuSource, lib);
  }
  ManifestTarget cuda{"cuda", kCudaSource};
  if (!opts.buildCuda) {
    cuda.reason = "not requested";
  } else {
    CudaToolchain tc = findCudaToolchain();
    if (!tc.available) {
      cuda.reason = tc.reason;
      say("CUDA library not built: " + tc.reason);
    } else {
      std::string lib = tmp + "/" + kCudaLibrary;
      if (auto err = buildCudaLibrary(tc, tmp + "/" + kCudaSource, lib,
                                      opts.progress))
        return cleanup(std::move(err));
      cuda.built = true;
      cuda.library = kCudaLibrary;
      cuda.compiler = tc.nvccId;
      cuda.flags = tc.flagText();
      storeInCache(cudaBuildKey(tc, *cudaSource), "cuda", *cudaSource, lib);
    }
  }
  m.targets = {cpu, cuda};

  for (const auto &[path, bytes] : opts.extraFiles) {
    std::string full = tmp + "/" + path;
    if (auto ec = llvm::sys::fs::create_directories(
            llvm::sys::path::parent_path(full)))
      return cleanup(fail("cannot create a folder for '" + full +
                          "': " + ec.message()));
    if (auto err = writeFile(full, bytes))
      return cleanup(std::move(err));
  }
  for (const std::string &f : listFiles(tmp))
    m.files.push_back({f, fileSha256(tmp + "/" + f)});
  if (auto err = writeFile(tmp + "/" + kManifestFile, manifestToJson(m)))
    return cleanup(std::move(err));

  // Swap in.
  std::string old;
  if (llvm::sys::fs::exists(dir)) {
    old = dir + ".old-" + std::to_string(getpid());
    llvm::sys::fs::remove_directories(old);
    if (auto ec = llvm::sys::fs::rename(dir, old))
      return cleanup(fail("cannot replace '" + dir + "': " + ec.message()));
  }
  if (auto ec = llvm::sys::fs::rename(tmp, dir)) {
    if (!old.empty())
      llvm::sys::fs::rename(old, dir);
    return cleanup(fail("cannot write '" + dir + "': " + ec.message()));
  }
  if (!old.empty())
    llvm::sys::fs::remove_directories(old);
  return m;
}

} // namespace bundle
} // namespace plumb
