//===- include/plumb/Driver/Files.h - Writing files safely -----*- C++ -*-===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DRIVER_FILES_H
#define PLUMB_DRIVER_FILES_H

#include <string>

namespace plumb {

/// Writes `text` to `path` through a temporary file renamed over it: a
/// failure (message in `err`) never leaves a half-written or clobbered file.
bool writeFileAtomically(const std::string &path, const std::string &text,
                         std::string &err);

} // namespace plumb

#endif // PLUMB_DRIVER_FILES_H
