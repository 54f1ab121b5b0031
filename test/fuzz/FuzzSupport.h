//===- test/fuzz/FuzzSupport.h - What the fuzz targets share ----*- C++ -*-===//
//
// Part of Plumb. The libFuzzer targets of test/fuzz (README.md there) call the
// library's real entry points, most of which read files: the input is written
// into a private temporary folder first. Targets that read a folder of files
// (bundles, traces) or two streams (the referee's parties) take a small
// archive: files introduced by a line "%%file NAME", each running to the next
// such line (its final newline is the separator's, not the file's).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TEST_FUZZ_FUZZSUPPORT_H
#define PLUMB_TEST_FUZZ_FUZZSUPPORT_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

// Debian's libMLIR is not instrumented and poisons its own allocations,
// which trips ASan in instrumented callers (docs/security.md): the fuzz
// targets turn off only that manual poisoning, as the sanitized test suites
// do (test/lit.cfg.py). ASAN_OPTIONS given at run time still apply. Not
// inline: ASan looks the symbol up, nothing here calls it (each target has
// one source file including this header).
extern "C" __attribute__((used, visibility("default"))) const char *
__asan_default_options() {
  return "allow_user_poisoning=0";
}

namespace plumb {
namespace fuzz {

/// A folder of this process's own, removed at exit.
inline const std::string &scratchDir() {
  // Never destroyed: the exit handler that removes the folder runs after
  // the destructors of statics constructed later than its registration.
  static const std::string *dir = [] {
    // In memory (/dev/shm) where there is one and TMPDIR does not say
    // otherwise: every input is written to a file.
    llvm::SmallString<128> d;
    std::error_code ec;
    if (!std::getenv("TMPDIR") && llvm::sys::fs::is_directory("/dev/shm")) {
      llvm::sys::fs::createUniquePath("/dev/shm/plumb-fuzz-%%%%%%%%", d,
                                      /*MakeAbsolute=*/false);
      ec = llvm::sys::fs::create_directory(d, /*IgnoreExisting=*/false);
    } else {
      ec = llvm::sys::fs::createUniqueDirectory("plumb-fuzz", d);
    }
    if (ec) {
      std::fprintf(stderr, "plumb-fuzz: cannot create a temporary folder\n");
      std::abort();
    }
    auto *s = new std::string(d);
    std::atexit([] { llvm::sys::fs::remove_directories(scratchDir()); });
    return s;
  }();
  return *dir;
}

/// Writes `n` bytes to `path` (creating its folders); aborts on failure:
/// that is the harness's fault, never the input's.
inline void writeFile(const std::string &path, const void *data, size_t n) {
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || (n && std::fwrite(data, 1, n, f) != n) || std::fclose(f) != 0) {
    std::fprintf(stderr, "plumb-fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}
inline void writeFile(const std::string &path, const std::string &s) {
  writeFile(path, s.data(), s.size());
}

/// A fresh empty folder `name` under scratchDir().
inline std::string freshDir(const std::string &name) {
  std::string d = scratchDir() + "/" + name;
  llvm::sys::fs::remove_directories(d);
  llvm::sys::fs::create_directories(d);
  return d;
}

/// Splits an archive (see above) into its files, by name; bytes before the
/// first "%%file" line are ignored, a later file of the same name wins.
inline std::map<std::string, std::string> splitArchive(const uint8_t *data,
                                                       size_t size) {
  std::map<std::string, std::string> files;
  std::string s(reinterpret_cast<const char *>(data), size);
  static const std::string kTag = "%%file ";
  size_t at = s.compare(0, kTag.size(), kTag) == 0 ? 0 : s.find("\n" + kTag);
  if (at == std::string::npos)
    return files;
  if (at != 0)
    ++at;
  while (at != std::string::npos) {
    size_t nameStart = at + kTag.size();
    size_t nameEnd = s.find('\n', nameStart);
    if (nameEnd == std::string::npos)
      break;
    std::string name = s.substr(nameStart, nameEnd - nameStart);
    size_t next = s.find("\n" + kTag, nameEnd);
    size_t end = next == std::string::npos ? s.size() : next;
    files[name] = s.substr(nameEnd + 1, end - nameEnd - 1);
    at = next == std::string::npos ? next : next + 1;
  }
  return files;
}

/// Whether `name` is a plain relative path that stays inside a folder (the
/// harness writes archive members only there; the library's own checks of
/// the names it reads are what is fuzzed).
inline bool harmlessName(const std::string &name) {
  if (name.empty() || name.size() > 200 || name[0] == '/')
    return false;
  for (char c : name)
    if (!(std::isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' ||
          c == '/'))
      return false;
  return name.find("..") == std::string::npos &&
         name.find("//") == std::string::npos && name.back() != '/';
}

/// Writes the archive members with harmless names (harmlessName) into
/// `dir`, skipping any that cannot exist beside the others (a member "a"
/// and a member "a/b": a file cannot be a folder too).
inline void writeMembers(const std::string &dir,
                         const std::map<std::string, std::string> &files,
                         const std::string &except = "") {
  for (auto &[name, content] : files) {
    if (!harmlessName(name) || name == except)
      continue;
    std::string path = dir + "/" + name;
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
    if (FILE *f = std::fopen(path.c_str(), "wb")) {
      if (!content.empty())
        std::fwrite(content.data(), 1, content.size(), f);
      std::fclose(f);
    }
  }
}

/// Whether PLUMB_FUZZ_VERBOSE is set: targets then say on stderr what the
/// library answered (for looking at one input, never while fuzzing).
inline bool verbose() {
  static bool v = std::getenv("PLUMB_FUZZ_VERBOSE") != nullptr;
  return v;
}

} // namespace fuzz
} // namespace plumb

#endif // PLUMB_TEST_FUZZ_FUZZSUPPORT_H
