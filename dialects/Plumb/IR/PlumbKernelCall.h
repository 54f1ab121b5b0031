//===- PlumbKernelCall.h - The kernel-call form of a plumb op ---*- C++ -*-===//
//
// Part of Plumb. What an op computes, as the calls of runtime kernels that
// compute it: each call names an entry point of the kernel library
// (plumb_rt_<fn>, runtime/include/plumb/runtime/kernels.def) and gives every
// argument: the op's operand and result buffers, scratch buffers, shapes,
// attributes, the reduction tree, as literals. An op's lowering
// (KernelCallOpInterface::lowerToKernelCalls, PlumbKernelCalls.cpp) is the
// one description of its execution: the interpreter executes the calls
// through its kernel table, the C++ emitter prints them, the CUDA emitter
// prints them against the CUDA twin (plumb_cuda_<fn>, same arguments plus a
// stream) where every call of the node has one. So all three call the same
// kernels with the same arguments, which is what makes their results
// identical bit for bit. `plumb-opt -plumb-print-kernel-calls` prints the
// form for FileCheck tests.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DIALECT_PLUMBKERNELCALL_H
#define PLUMB_DIALECT_PLUMBKERNELCALL_H

#include "dialects/Plumb/IR/PlumbElemType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace plumb {

/// The reduction tree block of an op without a `tree` attribute: the default
/// policy, blocked(256) (docs/determinism.md).
constexpr int64_t kDefaultTreeBlock = 256;

/// One argument of a kernel call.
struct KernelArg {
  enum class Kind : uint8_t {
    Operand,     ///< the buffer of operand `index`
    Result,      ///< the buffer of result `index`
    Scratch,     ///< the node's scratch buffer `index` (KernelLowering)
    Null,        ///< a null pointer (an absent optional operand)
    Int,         ///< an integer scalar `value` (`name`: its C constant)
    Float,       ///< a float scalar `fvalue`
    Ints,        ///< a constant int64_t array
    Ints32,      ///< a constant int32_t array
    Floats,      ///< a constant float array
    Bytes,       ///< a pointer to constant bytes (`ints` holds one u64)
    Params,      ///< a pointer to a parameter struct `name` of int64 fields
    OperandList, ///< an array of the buffers of operands [index, index+count)
    ResultList,  ///< an array of the buffers of results [index, index+count)
    ShapeList,   ///< an array of constant int64_t arrays (`lists`)
  };
  Kind kind = Kind::Null;
  /// Buffers and lists of buffers: the element type the kernel takes them as
  /// (null: `void *`).
  bool typed = false;
  ElemType type = ElemType::F32;
  int64_t index = 0, count = 0;
  int64_t value = 0;
  float fvalue = 0.0f;
  std::string name;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<std::vector<int64_t>> lists;
  /// Params: how the fields group into the struct's members (array members
  /// have several); empty: one field each.
  std::vector<int> groups;

  bool isBuffer() const {
    return kind == Kind::Operand || kind == Kind::Result ||
           kind == Kind::Scratch;
  }
};

/// One call of runtime entry point plumb_rt_<fn>.
struct KernelCall {
  std::string fn;
  /// What failed when the call returns non-zero: "<what> kernel".
  std::string what;
  /// PLUMB_RT_ERANGE from this call means "<what> index out of range".
  bool rangeError = false;
  std::vector<KernelArg> args;

  KernelCall &operand(unsigned i, ElemType t);
  KernelCall &operandRaw(unsigned i); ///< as `const void *`
  KernelCall &result(unsigned i, ElemType t);
  KernelCall &resultRaw(unsigned i); ///< as `void *`
  KernelCall &scratch(unsigned i, ElemType t);
  KernelCall &null();
  KernelCall &i64(int64_t v);
  /// An enum constant of the runtime, printed by name ("PLUMB_RT_RELU").
  KernelCall &code(llvm::StringRef name, int64_t v);
  KernelCall &f32(float v);
  KernelCall &ints(llvm::ArrayRef<int64_t> v);
  KernelCall &ints32(llvm::ArrayRef<int32_t> v);
  KernelCall &floats(llvm::ArrayRef<float> v);
  KernelCall &bytes(uint64_t v);
  KernelCall &params(llvm::StringRef type, std::vector<int64_t> fields,
                     std::vector<int> groups = {});
  KernelCall &operandList(unsigned first, unsigned count, ElemType t,
                          bool typed = true);
  KernelCall &resultList(unsigned first, unsigned count);
  KernelCall &shapeList(std::vector<std::vector<int64_t>> shapes);
};

/// A node's calls, executed in order, and the scratch buffers they use.
struct KernelLowering {
  std::vector<KernelCall> calls;
  /// Bytes of each scratch buffer (8-byte aligned, contents undefined).
  std::vector<int64_t> scratchBytes;

  KernelCall &call(llvm::StringRef fn, llvm::StringRef what);
};

/// The C initialiser of a Params argument: "{1, 2, {3, 4}}" (array members
/// braced, their trailing zeros left to zero-initialisation).
std::string paramsInit(const KernelArg &a);

/// Prints `l` in the form -plumb-print-kernel-calls shows (one line a call:
/// `plumb_rt_unary_f32(PLUMB_RT_RELU, %in0:f32, %out0:f32, 64, 0x0, 0x0)`).
void printKernelLowering(const KernelLowering &l, llvm::raw_ostream &os);

} // namespace plumb

#endif // PLUMB_DIALECT_PLUMBKERNELCALL_H
