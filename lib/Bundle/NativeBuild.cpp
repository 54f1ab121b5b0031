//===- lib/Bundle/NativeBuild.cpp - Building model libraries --------------===//
//
// Part of Plumb. See include/plumb/Bundle/NativeBuild.h.
//
//===----------------------------------------------------------------------===//
#include "plumb/Bundle/NativeBuild.h"

#include "plumb/Bundle/BuildConfig.h"
#include "plumb/Support/Merkle.h"
#include "plumb/Trace/TensorHasher.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <thread>
#include <unistd.h>

namespace plumb {
namespace bundle {

const char *plumbVersion() { return PLUMB_VERSION_STRING; }

namespace {

llvm::Error fail(const std::string &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                 msg.c_str());
}

bool exists(const std::string &p) { return llvm::sys::fs::exists(p); }

std::string exeDir() {
  std::string exe = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&plumbVersion));
  return llvm::sys::path::parent_path(exe).str();
}

/// A folder relative to the executable's, normalised.
std::string besideExe(const char *rel) {
  llvm::SmallString<256> p(exeDir());
  llvm::sys::path::append(p, rel);
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return p.str().str();
}

std::string readFile(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return "";
  return (*buf)->getBuffer().str();
}

std::string joinArgs(const std::vector<std::string> &v) {
  std::string r;
  for (const std::string &a : v)
    r += (r.empty() ? "" : " ") + a;
  return r;
}

/// Runs `program args`, stdout and stderr into `output`. Returns the exit
/// code, -1 when it could not start. With `label`, shows the elapsed time on
/// a terminal while it runs.
int runTool(const std::string &program, const std::vector<std::string> &args,
            std::string &output, const std::string &label,
            const ProgressFn &progress) {
  llvm::SmallString<128> log;
  if (llvm::sys::fs::createTemporaryFile("plumb-tool", "log", log))
    return -1;
  std::vector<llvm::StringRef> argv{program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(log), llvm::StringRef(log)};
  std::string errMsg;
  bool failed = false;
  auto start = std::chrono::steady_clock::now();
  llvm::sys::ProcessInfo pi = llvm::sys::ExecuteNoWait(
      program, argv, std::nullopt, redirects, 0, &errMsg, &failed);
  if (failed) {
    llvm::sys::fs::remove(log);
    output = errMsg;
    return -1;
  }
  bool live = progress && !label.empty() &&
              llvm::sys::Process::StandardErrIsDisplayed();
  llvm::sys::ProcessInfo done;
  while (true) {
    done = llvm::sys::Wait(pi, /*SecondsToWait=*/0, &errMsg, nullptr,
                           /*Polling=*/true);
    if (done.Pid != 0)
      break;
    if (live) {
      double s = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - start)
                     .count();
      std::fprintf(stderr, "\r  %s ... %.1f s", label.c_str(), s);
      std::fflush(stderr);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (live)
    std::fprintf(stderr, "\r\033[K");
  output = readFile(log.str().str());
  llvm::sys::fs::remove(log);
  return done.ReturnCode;
}

std::string firstLine(const std::string &s) {
  size_t e = s.find('\n');
  return e == std::string::npos ? s : s.substr(0, e);
}

std::string lastNonEmptyLine(const std::string &s) {
  std::string best;
  size_t i = 0;
  while (i < s.size()) {
    size_t e = s.find('\n', i);
    if (e == std::string::npos)
      e = s.size();
    if (e > i)
      best = s.substr(i, e - i);
    i = e + 1;
  }
  return best;
}

std::string findProgram(const std::vector<std::string> &names) {
  for (const std::string &n : names) {
    if (n.empty())
      continue;
    if (n.find('/') != std::string::npos) {
      if (llvm::sys::fs::can_execute(n))
        return n;
      continue;
    }
    if (auto p = llvm::sys::findProgramByName(n))
      return *p;
  }
  return "";
}

const char *env(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

/// The folder of the shared object (or executable) this code is part of:
/// the Python module's folder when Plumb is loaded from Python.
std::string codeDir() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&plumbVersion), &info) ||
      !info.dli_fname || !*info.dli_fname)
    return "";
  llvm::SmallString<256> p(info.dli_fname);
  llvm::sys::fs::make_absolute(p);
  return llvm::sys::path::parent_path(p).str();
}

/// The kernel library and its headers: installed beside the executable
/// (<prefix>/bin/plumb, <prefix>/include, <prefix>/lib/plumb), inside the
/// Python package beside its module (plumb/include, plumb/lib/plumb), or
/// where this build tree keeps them.
bool findRuntime(std::string &include, std::string &library) {
  std::string code = codeDir();
  for (const std::string &prefix :
       {besideExe(".."), code.empty() ? std::string() : code}) {
    if (prefix.empty())
      continue;
    std::string inc = prefix + "/include";
    std::string lib = prefix + "/lib/plumb/libplumb_runtime.a";
    if (exists(inc + "/plumb/runtime/model_abi.h") && exists(lib)) {
      include = inc, library = lib;
      return true;
    }
  }
  include = PLUMB_BUILD_RUNTIME_INCLUDE_DIR;
  library = PLUMB_BUILD_RUNTIME_LIBRARY;
  return exists(include + "/plumb/runtime/model_abi.h") && exists(library);
}

std::string hexSha(const std::string &bytes) {
  return toHex(sha256(bytes.data(), bytes.size()));
}

} // namespace

std::string HostToolchain::flagText() const { return joinArgs(flags); }
std::string CudaToolchain::flagText() const { return joinArgs(flags); }

std::string fileSha256(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return "";
  return toHex(fastSha256((*buf)->getBufferStart(), (*buf)->getBufferSize()));
}

Digest fastSha256(const void *data, size_t n) {
  // SHA-NI or OpenSSL where there (trace::Sha256): verifying a bundle
  // hashes its whole weights.bin on every run (37 MB for light_resnet50).
  trace::Sha256 h;
  h.update(data, n);
  return h.finish();
}

llvm::Expected<HostToolchain> findHostToolchain(const std::string &cxxOverride) {
  HostToolchain tc;
  std::vector<std::string> candidates;
  if (!cxxOverride.empty()) {
    candidates.push_back(cxxOverride);
  } else {
    if (const char *v = env("PLUMB_CXX"))
      candidates.push_back(v);
    else if (const char *v = env("CXX"))
      candidates.push_back(v);
    else
      candidates = {"c++", "g++", "clang++"};
  }
  tc.cxx = findProgram(candidates);
  if (tc.cxx.empty())
    return fail("no C++ compiler found (tried " + joinArgs(candidates) +
                "); set PLUMB_CXX or CXX");
  std::string out;
  if (runTool(tc.cxx, {"--version"}, out, "", nullptr) != 0)
    return fail("'" + tc.cxx + " --version' failed: " + firstLine(out));
  tc.cxxId = firstLine(out);
  if (!findRuntime(tc.runtimeInclude, tc.runtimeLibrary))
    return fail("cannot find Plumb's kernel library (libplumb_runtime.a and "
                "plumb/runtime/*.h) beside the plumb executable or in its "
                "build tree");
  tc.runtimeSha256 = fileSha256(tc.runtimeLibrary);
  // The determinism contract for host code: no contraction, no fast-math.
  // -O3 vectorises the fused chains' per-element tails (GCC 12 leaves them
  // scalar at -O2); vectorising elementwise code changes no bit.
  tc.flags = {"-std=c++17",
              "-O3",
              "-ffp-contract=off",
              "-fno-fast-math",
              "-fno-unsafe-math-optimizations",
              "-fno-finite-math-only",
              "-fPIC",
              "-shared",
              "-fvisibility=hidden"};
  // A sanitized Plumb (PLUMB_SANITIZE) instruments the model libraries as
  // it instruments the kernel library they link (the flags are part of
  // the toolchain, so of the cache key), when the host compiler is of the
  // family that built Plumb: another family's sanitizer runtime is not the
  // one loaded in this process (and Debian's clang++ lacks it unless
  // libclang-rt is installed). Other compilers build an uninstrumented
  // library, whose instrumented kernels use this process's runtime.
  bool clangHost = llvm::StringRef(tc.cxxId).contains("clang");
  bool clangBuild = llvm::StringRef(PLUMB_BUILD_CXX_ID).contains("Clang");
  if (clangHost == clangBuild) {
    llvm::SmallVector<llvm::StringRef, 4> san;
    llvm::StringRef(PLUMB_BUILD_SANITIZE_FLAGS).split(san, ' ', -1, false);
    for (llvm::StringRef f : san)
      tc.flags.push_back(f.str());
  }
  return tc;
}

CudaToolchain findCudaToolchain() {
  CudaToolchain tc;
  if (const char *emu = env("PLUMB_CUDA_EMULATION")) {
    auto host = findHostToolchain("");
    if (!host) {
      tc.reason = llvm::toString(host.takeError());
      return tc;
    }
    if (!exists(emu)) {
      tc.reason = std::string("PLUMB_CUDA_EMULATION names '") + emu +
                  "', which does not exist";
      return tc;
    }
    tc.emulated = true;
    tc.nvcc = host->cxx;
    tc.nvccId = "host emulation of the CUDA kernels (" + host->cxxId + ")";
    tc.runtimeLibrary = emu;
    tc.cudaInclude = PLUMB_BUILD_CUDA_INCLUDE_DIR;
    tc.hostRuntimeLibrary = host->runtimeLibrary;
    tc.runtimeInclude = host->runtimeInclude;
    tc.runtimeSha256 = hexSha(fileSha256(emu) + host->runtimeSha256);
    tc.flags = host->flags;
    tc.available = true;
    return tc;
  }
  std::vector<std::string> candidates;
  if (const char *v = env("PLUMB_NVCC"))
    candidates.push_back(v);
  candidates.push_back("nvcc");
  candidates.push_back(PLUMB_BUILD_CUDA_COMPILER);
  candidates.push_back("/usr/local/cuda/bin/nvcc");
  tc.nvcc = findProgram(candidates);
  if (tc.nvcc.empty()) {
    tc.reason = "nvcc not found (set PLUMB_NVCC or put nvcc on PATH)";
    return tc;
  }
  std::string out;
  if (runTool(tc.nvcc, {"--version"}, out, "", nullptr) != 0) {
    tc.reason = "'" + tc.nvcc + " --version' failed";
    return tc;
  }
  tc.nvccId = lastNonEmptyLine(out);
  std::string lib = besideExe("../lib/plumb/libplumb_runtime_cuda.a");
  std::string inc = besideExe("../include/plumb/cuda");
  if (exists(lib) && exists(inc + "/plumb_cuda.h")) {
    tc.runtimeLibrary = lib, tc.cudaInclude = inc;
  } else {
    tc.runtimeLibrary = PLUMB_BUILD_CUDA_RUNTIME_LIBRARY;
    tc.cudaInclude = PLUMB_BUILD_CUDA_INCLUDE_DIR;
  }
  if (tc.runtimeLibrary.empty() || !exists(tc.runtimeLibrary)) {
    tc.reason = "this Plumb was built without its CUDA kernel library "
                "(configure with -DPLUMB_ENABLE_CUDA=ON)";
    return tc;
  }
  if (!findRuntime(tc.runtimeInclude, tc.hostRuntimeLibrary)) {
    tc.reason = "cannot find Plumb's host kernel library";
    return tc;
  }
  tc.runtimeSha256 = hexSha(fileSha256(tc.runtimeLibrary) +
                            fileSha256(tc.hostRuntimeLibrary));
  tc.flags = {"-std=c++17",        "-O2",
              "--fmad=false",      "-ftz=false",
              "-prec-div=true",    "-prec-sqrt=true",
              "-Xcompiler",        "-fPIC,-ffp-contract=off,-fvisibility=hidden",
              "-shared",           "-gencode=arch=compute_80,code=sm_80",
              "-gencode=arch=compute_90,code=sm_90"};
  tc.available = true;
  return tc;
}

std::string cacheDir() {
  if (const char *v = env("PLUMB_CACHE_DIR"))
    return v;
  if (const char *v = env("XDG_CACHE_HOME"))
    return std::string(v) + "/plumb";
  if (const char *v = env("HOME"))
    return std::string(v) + "/.cache/plumb";
  return "/tmp/plumb-cache-" + std::to_string(getuid());
}

namespace {

llvm::Error runCompiler(const std::string &program,
                        const std::vector<std::string> &args,
                        const std::string &outPath, const std::string &label,
                        const ProgressFn &progress) {
  auto start = std::chrono::steady_clock::now();
  if (progress)
    progress(label + " ...");
  std::string output;
  int rc = runTool(program, args, output, label, progress);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                           start)
                 .count();
  if (rc != 0) {
    llvm::sys::fs::remove(outPath);
    std::string tail = output.size() > 4000
                           ? "...\n" + output.substr(output.size() - 4000)
                           : output;
    return fail(label + " failed (" +
                (rc < 0 ? std::string("could not run ") + program
                        : "exit status " + std::to_string(rc)) +
                ")" + (tail.empty() ? "" : ":\n" + tail));
  }
  if (progress) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), " done (%.1f s)", s);
    progress(label + buf);
  }
  return llvm::Error::success();
}

std::string tempBeside(const std::string &path) {
  return path + ".tmp-" + std::to_string(getpid());
}

llvm::Error finishTemp(const std::string &tmp, const std::string &out) {
  if (auto ec = llvm::sys::fs::rename(tmp, out)) {
    llvm::sys::fs::remove(tmp);
    return fail("cannot write '" + out + "': " + ec.message());
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error buildHostLibrary(const HostToolchain &tc,
                             const std::string &sourcePath,
                             const std::string &outPath,
                             const ProgressFn &progress) {
  std::string tmp = tempBeside(outPath);
  std::vector<std::string> args = tc.flags;
  args.push_back("-I" + tc.runtimeInclude);
  args.push_back(sourcePath);
  args.push_back("-o");
  args.push_back(tmp);
  args.push_back(tc.runtimeLibrary);
  args.push_back("-pthread");
  args.push_back("-Wl,--exclude-libs,ALL");
  std::string name = llvm::sys::path::filename(tc.cxx).str();
  if (auto err = runCompiler(tc.cxx, args, tmp,
                             "building the cpu library with " + name,
                             progress))
    return err;
  return finishTemp(tmp, outPath);
}

llvm::Error buildCudaLibrary(const CudaToolchain &tc,
                             const std::string &sourcePath,
                             const std::string &outPath,
                             const ProgressFn &progress) {
  if (!tc.available)
    return fail("CUDA libraries cannot be built: " + tc.reason);
  std::string tmp = tempBeside(outPath);
  std::vector<std::string> args = tc.flags;
  args.push_back("-I" + tc.runtimeInclude);
  args.push_back("-I" + tc.cudaInclude);
  if (tc.emulated)
    args.push_back("-xc++");
  args.push_back(sourcePath);
  if (tc.emulated)
    args.push_back("-xnone");
  args.push_back("-o");
  args.push_back(tmp);
  args.push_back(tc.runtimeLibrary);
  args.push_back(tc.hostRuntimeLibrary);
  if (tc.emulated) {
    args.push_back("-pthread");
    args.push_back("-Wl,--exclude-libs,ALL");
  } else {
    args.push_back("-Xlinker");
    args.push_back("--exclude-libs,ALL");
    args.push_back("-lpthread");
  }
  if (auto err = runCompiler(tc.nvcc, args, tmp,
                             std::string("building the cuda library with ") +
                                 (tc.emulated ? "the host emulation" : "nvcc"),
                             progress))
    return err;
  return finishTemp(tmp, outPath);
}

std::string hostBuildKey(const HostToolchain &tc, const std::string &src) {
  return hexSha("plumb-native-cpu-v1\n" + std::string(plumbVersion()) + "\n" +
                tc.cxx + "\n" + tc.cxxId + "\n" + tc.flagText() + "\n" +
                tc.runtimeSha256 + "\n" + hexSha(src));
}

std::string cudaBuildKey(const CudaToolchain &tc, const std::string &src) {
  return hexSha("plumb-native-cuda-v1\n" + std::string(plumbVersion()) +
                "\n" + tc.nvcc + "\n" + tc.nvccId + "\n" + tc.flagText() +
                "\n" + tc.runtimeSha256 + "\n" + hexSha(src));
}

namespace {

std::string cacheEntry(const std::string &key) {
  return cacheDir() + "/lib/" + key;
}

} // namespace

void storeInCache(const std::string &key, const std::string &target,
                  const std::string &sourceText, const std::string &library) {
  std::string dir = cacheEntry(key);
  if (llvm::sys::fs::create_directories(dir))
    return;
  // The source first: an entry with a library always has its source.
  std::string src = dir + "/" + target + (target == "cuda" ? ".cu" : ".cpp");
  {
    std::string tmpSrc = tempBeside(src);
    std::error_code ec;
    llvm::raw_fd_ostream os(tmpSrc, ec);
    if (ec)
      return;
    os << sourceText;
    os.close();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(tmpSrc);
      return;
    }
    if (llvm::sys::fs::rename(tmpSrc, src))
      return;
  }
  std::string lib = dir + "/" + target + ".so";
  std::string tmp = tempBeside(lib);
  if (llvm::sys::fs::copy_file(library, tmp)) {
    llvm::sys::fs::remove(tmp);
    return;
  }
  llvm::sys::fs::rename(tmp, lib);
}

llvm::Expected<std::string>
cachedLibrary(const std::string &key, const std::string &sourceText,
              const std::string &target,
              const std::function<llvm::Error(const std::string &,
                                              const std::string &)> &build,
              const ProgressFn &progress) {
  std::string dir = cacheEntry(key);
  std::string lib = dir + "/" + target + ".so";
  if (exists(lib))
    return lib;
  if (auto ec = llvm::sys::fs::create_directories(dir))
    return fail("cannot create the cache folder '" + dir + "': " +
                ec.message());
  std::string src = dir + "/" + target + (target == "cuda" ? ".cu" : ".cpp");
  {
    std::string tmp = tempBeside(src);
    std::error_code ec;
    llvm::raw_fd_ostream os(tmp, ec);
    if (ec)
      return fail("cannot write '" + src + "': " + ec.message());
    os << sourceText;
    os.close();
    if (os.has_error()) {
      os.clear_error();
      return fail("cannot write '" + src + "'");
    }
    if (auto err = finishTemp(tmp, src))
      return std::move(err);
  }
  if (auto err = build(src, lib))
    return std::move(err);
  return lib;
}

} // namespace bundle
} // namespace plumb
