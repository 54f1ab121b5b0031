//===- include/plumb/Target/Cpp/GeneratedCode.h - Shared source text -*- C++ -*-===//
//
// Part of Plumb. The parts of a generated model source that the C++ and the
// CUDA emitters share: the banner, the includes, the constants, the helper
// functions and the interface checks of plumb_model_run.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TARGET_CPP_GENERATEDCODE_H
#define PLUMB_TARGET_CPP_GENERATEDCODE_H

#include "plumb/Target/Cpp/CppEmitter.h"
#include "plumb/Target/Cpp/KernelCalls.h"

#include <string>

namespace plumb {
namespace target {

/// "//===- FILE - TITLE (generated) ---===//" and the provenance lines; `notes`
/// (comment lines, each ending in '\n') follow them.
std::string generatedBanner(const std::string &file, const std::string &title,
                            const EmitHeader &header, const std::string &notes);

/// The includes (after `extra`, e.g. the CUDA header), PLUMB_EXPORT, the
/// opening of the anonymous namespace, kGraphHash, kArenaBytes and
/// plumb_f32 (used by float literals).
std::string generatedPrelude(const std::string &extra, const EmitHeader &header,
                             const ModelPlan &plan);

/// failText, fail, viewIs and hasNonCanonicalNaN.
const char *generatedHelpers();

/// Closes the anonymous namespace and defines plumb_model_abi_version and
/// plumb_model_graph_hash.
const char *generatedIdentityExports();

/// The checks of plumb_model_run's inputs and outputs against the plan's
/// types and shapes, returning failText(...) with the expected type.
std::string interfaceChecks(const ModelPlan &plan, LiteralPool &pool);

/// `text` with every non-empty line indented by `n` spaces.
std::string indent(const std::string &text, int n);

/// "float32[1x3x224x224]".
std::string shapeText(const std::vector<int64_t> &shape, exec::ElemType type);

} // namespace target
} // namespace plumb

#endif // PLUMB_TARGET_CPP_GENERATEDCODE_H
