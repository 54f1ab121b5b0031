//===- test/fuzz/replay_main.cpp - A fuzz target without libFuzzer ---------===//
//
// Part of Plumb. The normal build links each fuzz target with this main
// instead of libFuzzer's, as build/bin/plumb-fuzz-replay-<what>: it feeds
// every file named on the command line (a folder: every file in it, sorted)
// to LLVMFuzzerTestOneInput once, so ctest replays the seed corpus and the
// regressions (test/fuzz/regressions/<what>) through the same harness on
// every build, with or without clang. Exit status 0 when every input ran
// (a crash ends the process), 2 on a usage error.
//
//===----------------------------------------------------------------------===//
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (llvm::sys::fs::is_directory(argv[i])) {
      std::vector<std::string> in;
      std::error_code ec;
      for (llvm::sys::fs::recursive_directory_iterator it(argv[i], ec), end;
           it != end && !ec; it.increment(ec))
        if (llvm::sys::fs::is_regular_file(it->path()))
          in.push_back(it->path());
      std::sort(in.begin(), in.end());
      files.insert(files.end(), in.begin(), in.end());
    } else if (llvm::sys::fs::is_regular_file(argv[i])) {
      files.push_back(argv[i]);
    } else {
      std::fprintf(stderr, "%s: no file or folder '%s'\n", argv[0], argv[i]);
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
    return 2;
  }
  for (const std::string &f : files) {
    auto buf = llvm::MemoryBuffer::getFile(f, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    if (!buf) {
      std::fprintf(stderr, "%s: cannot read '%s'\n", argv[0], f.c_str());
      return 2;
    }
    LLVMFuzzerTestOneInput(
        reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
        (*buf)->getBufferSize());
  }
  std::printf("%zu inputs replayed\n", files.size());
  return 0;
}
