//===- lib/Bundle/BundleReader.cpp - Opening and verifying bundles --------===//
//
// Part of Plumb. See include/plumb/Bundle/Bundle.h and docs/bundle.md (the
// trust model). Checks run from cheap to dear, and each failure says which
// file is wrong and how.
//
//===----------------------------------------------------------------------===//
#include "plumb/Bundle/Bundle.h"

#include "plumb/Canonical/Identity.h"
#include "plumb/Cost/Gas.h"
#include "plumb/InitAll.h"
#include "plumb/Support/Nodes.h"
#include "plumb/Target/Cpp/CppEmitter.h"
#include "plumb/runtime/config.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <dlfcn.h>

using namespace mlir;

namespace plumb {
namespace bundle {

namespace {

llvm::Error fail(const std::string &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                 msg.c_str());
}

bool safeRelativePath(const std::string &p) {
  if (p.empty() || p[0] == '/' || p.find('\\') != std::string::npos)
    return false;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string::npos)
      j = p.size();
    std::string part = p.substr(i, j - i);
    if (part.empty() || part == "." || part == "..")
      return false;
    i = j + 1;
  }
  return true;
}

/// "line N" of the first difference between two texts.
std::string firstDifference(const std::string &a, const std::string &b) {
  size_t n = std::min(a.size(), b.size()), i = 0;
  while (i < n && a[i] == b[i])
    ++i;
  int64_t line = 1;
  for (size_t k = 0; k < i; ++k)
    line += a[k] == '\n';
  return "line " + std::to_string(line);
}

llvm::Error checkTensor(const ManifestTensor &mt, Type t, StringAttr name,
                        bool bound, StringAttr storage,
                        const std::string &what) {
  auto rt = cast<RankedTensorType>(t);
  exec::ElemType et = exec::ElemType::F32;
  exec::elemTypeOf(rt.getElementType(), et);
  std::vector<int64_t> shape(rt.getShape().begin(), rt.getShape().end());
  if (mt.name != (name ? name.str() : "") || mt.dtype != exec::elemTypeName(et) ||
      mt.shape != shape || mt.bound != bound ||
      mt.storage != (storage ? storage.str() : ""))
    return fail("manifest.json: " + what +
                " does not match the model's interface in model.mlir");
  return llvm::Error::success();
}

/// Binds the IR's resources to their bytes in weights.bin; every resource
/// the IR names must have its bytes.
llvm::Error bindWeights(Bundle &b, func::FuncOp main) {
  const Manifest &m = b.manifest;
  int64_t wsize = (int64_t)b.weights->getBufferSize();
  auto &blobs = DenseResourceElementsHandle::getManagerInterface(b.context.get())
                    .getBlobManager();
  const char *base = b.weights->getBufferStart();
  for (const ManifestWeight &w : m.weights) {
    // Compared without adding: offset + bytes may not fit in 64 bits.
    if (w.offset < 0 || w.bytes < 0 || w.offset % 64 || w.offset > wsize ||
        w.bytes > wsize - w.offset)
      return fail("manifest.json: weights entry at offset " +
                  std::to_string(w.offset) + " lies outside weights.bin");
    for (const std::string &key : w.resources) {
      auto *entry = blobs.lookup(key);
      if (!entry)
        return fail("manifest.json: weights entry names resource '" + key +
                    "', which model.mlir does not use");
      entry->setBlob(UnmanagedAsmResourceBlob::allocateWithAlign(
          ArrayRef<char>(base + w.offset, (size_t)w.bytes), 64));
    }
  }

  llvm::Error missing = llvm::Error::success();
  main.walk([&](Operation *op) {
    for (NamedAttribute a : op->getAttrs())
      if (auto res = dyn_cast<DenseResourceElementsAttr>(a.getValue()))
        if (!res.getRawHandle().getBlob() && !missing)
          missing = fail("model.mlir uses resource '" +
                         res.getRawHandle().getKey().str() +
                         "', which no weights entry of manifest.json provides");
  });
  if (missing)
    return std::move(missing);

  return llvm::Error::success();
}

/// Versions: the sources are a function of the IR and the Plumb version.
llvm::Error checkVersions(const Manifest &m) {
  if (m.plumbVersion != plumbVersion())
    return fail("the bundle was compiled by plumb " + m.plumbVersion +
                "; this is plumb " + plumbVersion() +
                ", which may emit different sources: compile the model again");
  if (m.contract != PLUMB_CONTRACT_VERSION)
    return fail("the bundle is for contract " + m.contract +
                "; this Plumb implements " + PLUMB_CONTRACT_VERSION);
  if (m.modelAbi != PLUMB_MODEL_ABI_VERSION)
    return fail("the bundle is for model ABI " + std::to_string(m.modelAbi) +
                "; this Plumb implements " +
                std::to_string(PLUMB_MODEL_ABI_VERSION));
  return llvm::Error::success();
}

/// Every file against its hash.
llvm::Error checkFiles(const std::string &dir, const Manifest &m) {
  for (const char *required : {kIrFile, kWeightsFile, kCpuSource, kCudaSource})
    if (m.fileHash(required).empty())
      return fail("manifest.json does not list '" + std::string(required) +
                  "'");
  for (auto &[path, hash] : m.files) {
    if (!safeRelativePath(path) || path == kManifestFile)
      return fail("manifest.json lists an invalid file name '" + path + "'");
    std::string full = dir + "/" + path;
    if (!llvm::sys::fs::exists(full))
      return fail("bundle file '" + path + "' is missing");
    if (fileSha256(full) != hash)
      return fail("bundle file '" + path +
                  "' does not match its SHA-256 in manifest.json: the bundle "
                  "was modified");
  }
  if (m.fileHash(kWeightsFile) != m.weightsSha256)
    return fail("manifest.json: the weights' SHA-256 differs from the one "
                "listed for weights.bin");
  return llvm::Error::success();
}

/// The weights, mapped, and the IR with its blobs pointing into them.
llvm::Error loadWeightsAndIr(Bundle &b) {
  const std::string &dir = b.dir;
  const Manifest &m = b.manifest;
  MLIRContext &ctx = *b.context;
  auto wbuf = llvm::MemoryBuffer::getFile(dir + "/" + kWeightsFile,
                                          /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false,
                                          /*IsVolatile=*/false, llvm::Align(64));
  if (!wbuf)
    return fail("cannot read weights.bin: " + wbuf.getError().message());
  b.weights = std::move(*wbuf);
  int64_t wsize = (int64_t)b.weights->getBufferSize();
  if (wsize != m.weightsBytes)
    return fail("weights.bin has " + std::to_string(wsize) +
                " bytes; manifest.json says " + std::to_string(m.weightsBytes));

  auto ibuf = llvm::MemoryBuffer::getFile(dir + "/" + kIrFile);
  if (!ibuf)
    return fail("cannot read model.mlir");
  if ((*ibuf)->getBuffer().contains("\n{-#"))
    return fail("model.mlir must not carry resource blobs (weights belong in "
                "weights.bin)");
  std::string diag;
  llvm::raw_string_ostream dos(diag);
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(std::move(*ibuf), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sm, &ctx, dos);
  b.module = parseSourceFile<ModuleOp>(sm, &ctx);
  if (!b.module)
    return fail("model.mlir does not parse:\n" + dos.str());
  func::FuncOp main = getMainFunc(*b.module);
  if (!main)
    return fail("model.mlir has no func.func @main");
  return bindWeights(b, main);
}

/// Identity: graph hash, node table, gas.
llvm::Error checkIdentity(const Bundle &b, func::FuncOp main,
                          const std::string &graphHash) {
  const Manifest &m = b.manifest;
  if (graphHash != m.graphHash)
    return fail("the graph hash of model.mlir and weights.bin (" + graphHash +
                ") differs from manifest.json's (" + m.graphHash + ")");
  std::vector<NodeInfo> table = computeNodeTable(main);
  if (table.size() != m.nodes.size())
    return fail("manifest.json lists " + std::to_string(m.nodes.size()) +
                " nodes; model.mlir has " + std::to_string(table.size()));
  for (size_t i = 0; i < table.size(); ++i)
    if (m.nodes[i].index != (int64_t)i || m.nodes[i].id != toHex(table[i].id) ||
        m.nodes[i].op != table[i].opName)
      return fail("manifest.json: node " + std::to_string(i) +
                  " does not match model.mlir (index, id or op)");
  if (m.hasGas) {
    const GasSchedule *s = lookupGasSchedule(m.gasSchedule);
    if (!s)
      return fail("manifest.json names gas schedule '" + m.gasSchedule +
                  "', which this Plumb does not know (" + gasScheduleNames() +
                  ")");
    auto gas = computeGas(*b.module, *s);
    if (!gas)
      return fail("cannot price model.mlir: " + llvm::toString(gas.takeError()));
    if (gas->totalGas != m.gasTotal)
      return fail("manifest.json: total gas " + std::to_string(m.gasTotal) +
                  " differs from model.mlir's " +
                  std::to_string(gas->totalGas));
    for (size_t i = 0; i < gas->nodes.size(); ++i)
      if (!m.nodes[i].hasGas || m.nodes[i].gas != gas->nodes[i].gas)
        return fail("manifest.json: the gas of node " + std::to_string(i) +
                    " differs from model.mlir's");
  }

  return llvm::Error::success();
}

/// The interface: inputs and outputs against the manifest.
llvm::Error checkInterface(const Manifest &m, func::FuncOp main) {
  Block &entry = main.getBody().front();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  if (m.inputs.size() != main.getNumArguments() ||
      m.outputs.size() != ret.getNumOperands())
    return fail("manifest.json: the number of inputs or outputs does not "
                "match model.mlir");
  for (unsigned i = 0; i < main.getNumArguments(); ++i)
    if (auto e = checkTensor(m.inputs[i], entry.getArgument(i).getType(),
                             main.getArgAttrOfType<StringAttr>(i, "plumb.name"),
                             (bool)main.getArgAttr(i, "plumb.bound_value"),
                             main.getArgAttrOfType<StringAttr>(i, "plumb.storage"),
                             "input " + std::to_string(i)))
      return std::move(e);
  for (unsigned i = 0; i < ret.getNumOperands(); ++i)
    if (auto e = checkTensor(
            m.outputs[i], ret.getOperand(i).getType(),
            main.getResultAttrOfType<StringAttr>(i, "plumb.name"), false,
            main.getResultAttrOfType<StringAttr>(i, "plumb.storage"),
            "output " + std::to_string(i)))
      return std::move(e);

  return llvm::Error::success();
}

/// The weight image, re-derived from the IR, and the arena size.
llvm::Error checkWeightImage(const Bundle &b, const target::ModelPlan &plan0) {
  const Manifest &m = b.manifest;
  const target::ModelPlan *plan = &plan0;
  const char *base = b.weights->getBufferStart();
  int64_t wsize = (int64_t)b.weights->getBufferSize();
  if (plan->weightsBytes != m.weightsBytes ||
      plan->weights.size() != m.weights.size())
    return fail("manifest.json: the weights layout differs from the one "
                "model.mlir gives");
  for (size_t i = 0; i < plan->weights.size(); ++i) {
    const target::WeightEntry &e = plan->weights[i];
    const ManifestWeight &w = m.weights[i];
    if (e.offset != w.offset || e.bytes != w.bytes ||
        e.resources != w.resources)
      return fail("manifest.json: weights entry " + std::to_string(i) +
                  " differs from the layout model.mlir gives");
    if (!e.resources.empty())
      continue; // these bytes are the blob itself
    std::string bytes;
    if (auto err = target::appendWeightBytes(e, bytes))
      return std::move(err);
    if (std::memcmp(bytes.data(), base + e.offset, bytes.size()) != 0)
      return fail("weights.bin: entry " + std::to_string(i) + " at offset " +
                  std::to_string(e.offset) +
                  " differs from the constant in model.mlir");
  }
  // The padding between entries is zero, so the file is exactly the image.
  int64_t at = 0;
  for (size_t i = 0; i <= plan->weights.size(); ++i) {
    int64_t next = i < plan->weights.size() ? plan->weights[i].offset : wsize;
    for (int64_t k = at; k < next; ++k)
      if (base[k] != 0)
        return fail("weights.bin: byte " + std::to_string(k) +
                    " lies between entries and must be zero");
    if (i < plan->weights.size())
      at = plan->weights[i].offset + plan->weights[i].bytes;
  }
  if (plan->arenaBytes != m.arenaBytes)
    return fail("manifest.json: arena size differs from model.mlir's plan");
  return llvm::Error::success();
}

/// The sources, re-derived and compared.
llvm::Error checkSources(Bundle &b, const OpenOptions &opts,
                         const std::string &graphHash,
                         const target::ModelPlan &plan,
                         const target::ModelPlan *tracePlan) {
  const std::string &dir = b.dir;
  auto compare = [&](const std::string &path,
                     const std::string &derived) -> llvm::Error {
    auto f = llvm::MemoryBuffer::getFile(dir + "/" + path);
    if (!f)
      return fail("cannot read '" + path + "'");
    std::string text = (*f)->getBuffer().str();
    if (text != derived)
      return fail(path + " differs from the source Plumb derives from "
                         "model.mlir (first difference at " +
                  firstDifference(text, derived) +
                  "): the bundle was modified, or built by another build "
                  "of Plumb " + plumbVersion() +
                  " (its emitter differs); compile it again with this one");
    return llvm::Error::success();
  };
  if (opts.checkCpu) {
    auto src = target::emitCpp(
        plan, {graphHash, plumbVersion(), PLUMB_CONTRACT_VERSION},
        tracePlan);
    if (!src)
      return src.takeError();
    if (auto e = compare(kCpuSource, *src))
      return std::move(e);
    b.cpuSource = std::move(*src);
  }
  if (opts.checkCuda) {
    auto src = deriveCudaSource(*b.module, graphHash);
    if (!src)
      return src.takeError();
    if (auto e = compare(kCudaSource, *src))
      return std::move(e);
    b.cudaSource = std::move(*src);
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::unique_ptr<Bundle>> openBundle(const std::string &dir,
                                                   const OpenOptions &opts) {
  auto b = std::make_unique<Bundle>();
  b->dir = dir;
  DialectRegistry registry;
  registerAllDialects(registry);
  b->context = std::make_unique<MLIRContext>(registry);
  b->context->disableMultithreading();
  std::string manifestPath = dir + "/" + kManifestFile;
  if (!llvm::sys::fs::is_directory(dir))
    return fail("'" + dir + "' is not a folder");
  auto mbuf = llvm::MemoryBuffer::getFile(manifestPath);
  if (!mbuf)
    return fail("'" + dir + "' is not a Plumb bundle: it has no " +
                kManifestFile);
  std::string err;
  if (!manifestFromJson((*mbuf)->getBuffer().str(), b->manifest, err))
    return fail(manifestPath + ": " + err);
  if (auto e = checkVersions(b->manifest))
    return std::move(e);
  if (auto e = checkFiles(dir, b->manifest))
    return std::move(e);
  if (auto e = loadWeightsAndIr(*b))
    return std::move(e);
  func::FuncOp main = getMainFunc(*b->module);
  std::string graphHash = toHex(computeGraphHash(*b->module));
  if (auto e = checkIdentity(*b, main, graphHash))
    return std::move(e);
  if (auto e = checkInterface(b->manifest, main))
    return std::move(e);
  auto plan = target::planModel(*b->module);
  if (!plan)
    return fail("model.mlir: " + llvm::toString(plan.takeError()));
  if (auto e = checkWeightImage(*b, *plan))
    return std::move(e);
  auto tracePlan = target::planForTraces(*b->module);
  if (!tracePlan)
    return fail("model.mlir: " + llvm::toString(tracePlan.takeError()));
  const target::ModelPlan *traced = *tracePlan ? &**tracePlan : nullptr;
  if ((traced ? traced->arenaBytes : 0) != b->manifest.tracedArenaBytes)
    return fail("manifest.json: traced arena size differs from model.mlir's "
                "trace plan");
  if (auto e = checkSources(*b, opts, graphHash, *plan, traced))
    return std::move(e);
  return std::move(b);
}

//===----------------------------------------------------------------------===//
// Native libraries
//===----------------------------------------------------------------------===//

NativeModel::~NativeModel() {
  if (handle)
    dlclose(handle);
}

llvm::Expected<std::unique_ptr<NativeModel>>
NativeModel::load(const std::string &path, const std::string &graphHash) {
  std::unique_ptr<NativeModel> m(new NativeModel());
  m->libPath = path;
  m->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m->handle) {
    const char *e = dlerror();
    return fail("cannot load '" + path + "': " + (e ? e : "unknown error"));
  }
  auto abi = (int32_t(*)(void))dlsym(m->handle, "plumb_model_abi_version");
  auto hash = (const char *(*)(void))dlsym(m->handle, "plumb_model_graph_hash");
  m->runFn = (plumb_model_run_fn)dlsym(m->handle, "plumb_model_run");
  m->setThreadsFn =
      (void (*)(int32_t))dlsym(m->handle, "plumb_model_set_threads");
  m->runTracedFn =
      (plumb_model_run_traced_fn)dlsym(m->handle, target::kRunTracedSymbol);
  m->runObservedFn =
      (plumb_model_run_fn)dlsym(m->handle, "plumb_model_run_observed");
  if (!abi || !hash || !m->runFn)
    return fail("'" + path + "' is not a Plumb model library (missing entry "
                "points)");
  if (abi() != PLUMB_MODEL_ABI_VERSION)
    return fail("'" + path + "' implements model ABI " +
                std::to_string(abi()) + ", not " +
                std::to_string(PLUMB_MODEL_ABI_VERSION));
  if (graphHash != hash())
    return fail("'" + path + "' was compiled for graph " + hash() +
                ", not " + graphHash);
  return std::move(m);
}

void NativeModel::setThreads(int n) {
  if (setThreadsFn)
    setThreadsFn(n);
}

bool NativeModel::run(const void *weights, const plumb_tensor_view *inputs,
                      plumb_tensor_view *outputs, plumb_node_hook hook,
                      void *user, std::string &err, plumb_node_fence fence,
                      bool observed) {
  char buf[512] = {0};
  int32_t rc =
      fence && runTracedFn
          ? runTracedFn(weights, inputs, outputs, hook, fence, user, buf,
                        sizeof(buf))
      : observed && hook && runObservedFn
          ? runObservedFn(weights, inputs, outputs, hook, user, buf,
                          sizeof(buf))
          : runFn(weights, inputs, outputs, hook, user, buf, sizeof(buf));
  if (rc != 0) {
    err = buf[0] ? buf : "the compiled model failed";
    return false;
  }
  return true;
}

llvm::Expected<std::unique_ptr<NativeModel>>
loadBundleLibrary(const Bundle &b, const std::string &target,
                  const std::string &cxx, const ProgressFn &progress) {
  llvm::Expected<std::string> lib = std::string();
  if (target == "cpu") {
    if (b.cpuSource.empty())
      return fail("internal error: the cpu source was not re-derived");
    auto tc = findHostToolchain(cxx);
    if (!tc)
      return tc.takeError();
    HostToolchain t = *tc;
    lib = cachedLibrary(
        hostBuildKey(t, b.cpuSource), b.cpuSource, "cpu",
        [&](const std::string &src, const std::string &out) {
          return buildHostLibrary(t, src, out, progress);
        },
        progress);
  } else if (target == "cuda") {
    if (b.cudaSource.empty())
      return fail("internal error: the cuda source was not re-derived");
    CudaToolchain tc = findCudaToolchain();
    if (!tc.available)
      return fail("cannot build the CUDA library: " + tc.reason);
    lib = cachedLibrary(
        cudaBuildKey(tc, b.cudaSource), b.cudaSource, "cuda",
        [&](const std::string &src, const std::string &out) {
          return buildCudaLibrary(tc, src, out, progress);
        },
        progress);
  } else {
    return fail("unknown target '" + target + "'");
  }
  if (!lib)
    return lib.takeError();
  return NativeModel::load(*lib, b.manifest.graphHash);
}

} // namespace bundle
} // namespace plumb
