//===- include/plumb/Bundle/NativeBuild.h - Building model libraries -*- C++ -*-===//
//
// Part of Plumb. Turns emitted sources into shared libraries with the host
// C++ compiler (and nvcc for CUDA), linked against the kernel library of this
// Plumb build, and caches them by a key over everything that determines the
// library: the source text, the compiler's identity, the flags and the
// kernel library's bytes. The runtime headers and libraries are found next
// to the plumb executable (installed layout: <prefix>/bin/plumb,
// <prefix>/include/plumb/runtime, <prefix>/lib/plumb/) or, in a build tree,
// where CMake recorded them (plumb/Bundle/BuildConfig.h).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_BUNDLE_NATIVEBUILD_H
#define PLUMB_BUNDLE_NATIVEBUILD_H

#include "plumb/Support/Merkle.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace plumb {
namespace bundle {

/// Progress lines for people ("building cpu/model.so with g++ ..."); an
/// empty function shows nothing.
using ProgressFn = std::function<void(const std::string &)>;

/// The Plumb version of this build ("0.1.0").
const char *plumbVersion();

struct HostToolchain {
  std::string cxx;            // compiler path
  std::string cxxId;          // first line of `cxx --version`
  std::string runtimeInclude; // folder holding plumb/runtime/*.h
  std::string runtimeLibrary; // libplumb_runtime.a
  std::string runtimeSha256;  // of runtimeLibrary
  std::vector<std::string> flags;
  std::string flagText() const;
};

struct CudaToolchain {
  bool available = false;
  /// Testing aid: $PLUMB_CUDA_EMULATION names a static library implementing
  /// plumb_cuda.h on the host (runtime/cuda/host_emulation.cpp); the
  /// CUDA source is then compiled as C++ by the host compiler and linked
  /// with it, so CUDA bundles run, and are checked, without a GPU.
  bool emulated = false;
  std::string reason;        // why not, when not available
  std::string nvcc, nvccId;  // compiler path, `nvcc --version` last line
  std::string cudaInclude;   // folder holding plumb_cuda.h
  std::string runtimeLibrary;     // libplumb_runtime_cuda.a
  std::string hostRuntimeLibrary; // libplumb_runtime.a
  std::string runtimeInclude;
  std::string runtimeSha256; // of both libraries
  std::vector<std::string> flags;
  std::string flagText() const;
};

/// Finds the host compiler ($PLUMB_CXX, else $CXX, else c++, g++ or clang++
/// on PATH; `cxxOverride` wins when not empty) and the kernel library.
llvm::Expected<HostToolchain> findHostToolchain(const std::string &cxxOverride);

/// Finds nvcc ($PLUMB_NVCC, PATH, then /usr/local/cuda/bin) and the CUDA
/// kernel library; `available` is false with a reason when one is missing.
/// With $PLUMB_CUDA_EMULATION set, the host emulation instead (see above).
CudaToolchain findCudaToolchain();

/// The folder built libraries are cached in: $PLUMB_CACHE_DIR, else
/// $XDG_CACHE_HOME/plumb, else $HOME/.cache/plumb.
std::string cacheDir();

/// Compiles `sourcePath` into the shared library `outPath` (written through
/// a temporary file). Shows the elapsed time while the compiler runs.
llvm::Error buildHostLibrary(const HostToolchain &tc,
                             const std::string &sourcePath,
                             const std::string &outPath,
                             const ProgressFn &progress);
llvm::Error buildCudaLibrary(const CudaToolchain &tc,
                             const std::string &sourcePath,
                             const std::string &outPath,
                             const ProgressFn &progress);

/// The cache key of a library built from `sourceText` (64 hex digits).
std::string hostBuildKey(const HostToolchain &tc, const std::string &sourceText);
std::string cudaBuildKey(const CudaToolchain &tc, const std::string &sourceText);

/// The cached library for `key`, building it from `sourceText` when absent.
/// `target` names the file ("cpu" or "cuda").
llvm::Expected<std::string>
cachedLibrary(const std::string &key, const std::string &sourceText,
              const std::string &target,
              const std::function<llvm::Error(const std::string &src,
                                              const std::string &out)> &build,
              const ProgressFn &progress);

/// Puts an already built library into the cache under `key`.
void storeInCache(const std::string &key, const std::string &target,
                  const std::string &sourceText, const std::string &library);

/// SHA-256 of a file's bytes (hex), or "" when unreadable.
std::string fileSha256(const std::string &path);
/// SHA-256 of a buffer with the fastest implementation here (SHA-NI or
/// OpenSSL; the same digest as plumb::sha256).
Digest fastSha256(const void *data, size_t n);

} // namespace bundle
} // namespace plumb

#endif // PLUMB_BUNDLE_NATIVEBUILD_H
