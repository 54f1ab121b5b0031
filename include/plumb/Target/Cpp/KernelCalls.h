//===- include/plumb/Target/Cpp/KernelCalls.h - Op -> kernel call -*- C++ -*-===//
//
// Part of Plumb. Lowers one plumb op to the C statements that compute it
// with the host kernel library (runtime/include/plumb/runtime/*.h), with
// every shape, attribute and reduction tree as a literal. It is the
// compile-time twin of the interpreter's argument mapping
// (lib/Interpreter/Interpreter.cpp): both must call the same kernels with the
// same arguments, which is what makes compiled and interpreted results
// identical bit for bit. Shared by the C++ and CUDA emitters (the latter for
// the ops without a device kernel).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TARGET_CPP_KERNELCALLS_H
#define PLUMB_TARGET_CPP_KERNELCALLS_H

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Target/Plan/ModelPlan.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace plumb {
namespace target {

/// Literal arrays of one generated file, each emitted once (first use first)
/// as a `static const` array at namespace scope.
class LiteralPool {
public:
  std::string i64(llvm::ArrayRef<int64_t> values);
  std::string i32(llvm::ArrayRef<int32_t> values);
  std::string f32(llvm::ArrayRef<float> values);
  /// A `static const TYPE NAME = {INIT};` object (e.g. a parameter struct).
  std::string object(const std::string &type, const std::string &init);
  /// The declarations, in first-use order.
  const std::string &text() const { return decls; }

private:
  std::string intern(const std::string &type, const std::string &prefix,
                      const std::string &body, size_t count);
  std::map<std::string, std::string> names;
  std::string decls;
  int counter = 0;
};

/// A float literal written by its bits, so it is exact on every compiler:
/// `plumb_f32(0x3F800000u)`.
std::string floatLiteral(float f);

/// A C string literal of `s` (escaped; model names are arbitrary text).
std::string cStringLiteral(llvm::StringRef s);

/// The element type name of a value type: "float", "int64_t", "int32_t",
/// "uint8_t".
const char *cTypeName(exec::ElemType t);

/// How the statements refer to values: `ptr(v)` is a `char *` expression
/// (or `const char *` for operands) addressing the value's bytes.
struct KernelCallContext {
  const ModelPlan &plan;
  LiteralPool &pool;
  std::function<std::string(mlir::Value)> ptr;
  /// Arena base expression for scratch buffers ("A").
  std::string arena = "A";
  /// Statement run after a failed kernel: `return fail(err, err_len, ...)`.
  std::function<std::string(const std::string &what, bool rangeCheck)>
      onError;
  /// For a conv heading a plumb.fused chain: the epilogue function
  /// (include/plumb/Target/Cpp/Epilogue.h) to apply to every finished
  /// output range (plumb_rt_conv2d_ep), and its ctx expression. Empty: none.
  std::string epilogueFn, epilogueCtx;
  /// The entry points' prefix ("plumb_rt_", or "plumb_cuda_" for the CUDA
  /// twins) and what follows the call's own arguments (", 0": a stream).
  std::string prefix = "plumb_rt_", trailingArgs;
};

/// A product whose B is a model weight (a matmul or Gemm of at least two
/// rows), as the C++ emitter runs it: B packed once for the GEMM kernel
/// into a static buffer (repacked if the weights buffer changes), then
/// plumb_rt_gemm_strided_packed_b, the same bits as plumb_rt_gemm_strided
/// (runtime gemm.h). Arguments are C expressions; `name` names the static.
struct PackedGemmCall {
  int64_t M = 0, N = 0, K = 0, a_rs = 0, a_cs = 1, b_rs = 0, b_cs = 1, c_rs = 0, c_cs = 0;
  float alpha = 1.0f, beta = 1.0f;
  std::string A, B, C = "nullptr", Y;
  int64_t block = 0;
};
std::string printPackedGemm(const PackedGemmCall &g, const std::string &name);

/// Appends the statements computing `op` on the host kernels (two-space
/// indent): its kernel calls (KernelCallOpInterface), printed. Fails
/// (message in `err`) for an op the kernels cannot run.
bool emitHostKernelCall(KernelCallContext &ctx, mlir::Operation *op,
                        std::string &out, std::string &err);

/// Appends the statements of `l`, the kernel calls of `op`, printed against
/// `ctx` (its prefix, pointers and trailing arguments).
bool emitKernelCalls(KernelCallContext &ctx, mlir::Operation *op,
                     const KernelLowering &l, std::string &out,
                     std::string &err);

/// The kernel calls of `op`; false (message in `err`) for an op without any.
bool lowerOpForEmit(mlir::Operation *op, KernelLowering &l, std::string &err);

/// Whether `op` is one the emitters handle (every op with kernel calls;
/// plumb.if and plumb.fused the emitters structure themselves).
bool isSupportedKernelOp(mlir::Operation *op);

} // namespace target
} // namespace plumb

#endif // PLUMB_TARGET_CPP_KERNELCALLS_H
