//===- lib/Driver/Files.cpp - Writing files safely ------------------------===//
//
// Part of Plumb. See include/plumb/Driver/Files.h.
//
//===----------------------------------------------------------------------===//
#include "plumb/Driver/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace plumb {

bool writeFileAtomically(const std::string &path, const std::string &text,
                         std::string &err) {
  std::string tmp = path + ".tmp-plumb";
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(tmp, ec);
    if (ec) {
      err = "cannot write '" + path + "': " + ec.message();
      return false;
    }
    os << text;
    os.close();
    if (os.has_error()) {
      err = "cannot write '" + path + "': " + os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(tmp);
      return false;
    }
  }
  if ((ec = llvm::sys::fs::rename(tmp, path))) {
    err = "cannot write '" + path + "': " + ec.message();
    llvm::sys::fs::remove(tmp);
    return false;
  }
  return true;
}

} // namespace plumb
