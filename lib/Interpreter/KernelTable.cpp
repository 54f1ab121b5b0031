//===- lib/Interpreter/KernelTable.cpp - Kernel calls, run ----------------===//
//
// Part of Plumb. See include/plumb/Interpreter/KernelTable.h. The table is
// built from kernels.def; each entry's invoker converts the call's arguments
// to the C function's parameter types (deduced from the function itself), so
// an argument list that does not fit the declaration is an error here, never
// a silent misuse.
//
//===----------------------------------------------------------------------===//
#include "plumb/Interpreter/KernelTable.h"

#include "plumb/runtime/kernels.h"
#include "plumb/runtime/ops_status.h"

#include "llvm/ADT/StringMap.h"

#include <cstring>
#include <deque>
#include <tuple>
#include <type_traits>
#include <utility>

namespace plumb {
namespace exec {

namespace {

using Kind = KernelArg::Kind;

/// Storage for what one call's arguments point at (literal arrays are read
/// in place; lists and parameter structs are built here).
struct Frame {
  const KernelBuffers &buffers;
  std::string &err;
  bool ok = true;
  std::deque<std::vector<const void *>> lists;
  std::deque<std::vector<uint64_t>> blocks;

  bool fail(const std::string &msg) {
    if (ok)
      err = msg;
    ok = false;
    return false;
  }
  const void *buffer(const KernelArg &a) {
    const std::vector<const void *> *in = &buffers.operands;
    if (a.kind == Kind::Operand) {
      if ((size_t)a.index < in->size())
        return (*in)[a.index];
    } else if (a.kind == Kind::Result) {
      if ((size_t)a.index < buffers.results.size())
        return buffers.results[a.index];
    } else if (a.kind == Kind::Scratch) {
      if ((size_t)a.index < buffers.scratch.size())
        return buffers.scratch[a.index];
    }
    fail("a kernel argument names a buffer the node does not have");
    return nullptr;
  }
};

const char *kindName(Kind k) {
  switch (k) {
  case Kind::Operand:
    return "operand";
  case Kind::Result:
    return "result";
  case Kind::Scratch:
    return "scratch buffer";
  case Kind::Null:
    return "null";
  case Kind::Int:
    return "integer";
  case Kind::Float:
    return "float";
  case Kind::Ints:
    return "int64 array";
  case Kind::Ints32:
    return "int32 array";
  case Kind::Floats:
    return "float array";
  case Kind::Bytes:
    return "constant bytes";
  case Kind::Params:
    return "parameter struct";
  case Kind::OperandList:
    return "operand list";
  case Kind::ResultList:
    return "result list";
  case Kind::ShapeList:
    return "shape list";
  }
  return "?";
}

template <typename T> struct Conv;

/// Scalars.
template <> struct Conv<int64_t> {
  static int64_t get(Frame &f, const KernelArg &a) {
    if (a.kind != Kind::Int)
      f.fail(std::string("expected an integer, got a ") + kindName(a.kind));
    return a.value;
  }
};
template <> struct Conv<int32_t> {
  static int32_t get(Frame &f, const KernelArg &a) {
    return (int32_t)Conv<int64_t>::get(f, a);
  }
};
template <> struct Conv<float> {
  static float get(Frame &f, const KernelArg &a) {
    if (a.kind != Kind::Float)
      f.fail(std::string("expected a float, got a ") + kindName(a.kind));
    return a.fvalue;
  }
};

/// Read-only pointers: buffers, literal arrays, constant bytes, null.
template <typename T> struct ConstPtr {
  static const T *get(Frame &f, const KernelArg &a) {
    switch (a.kind) {
    case Kind::Null:
      return nullptr;
    case Kind::Operand:
    case Kind::Result:
    case Kind::Scratch:
      return static_cast<const T *>(f.buffer(a));
    case Kind::Ints:
      if (std::is_same<T, int64_t>::value || std::is_same<T, void>::value)
        return reinterpret_cast<const T *>(a.ints.data());
      break;
    case Kind::Ints32:
      if (std::is_same<T, int32_t>::value) {
        f.blocks.emplace_back((a.ints.size() + 1) / 2 + 1);
        int32_t *p = reinterpret_cast<int32_t *>(f.blocks.back().data());
        for (size_t i = 0; i < a.ints.size(); ++i)
          p[i] = (int32_t)a.ints[i];
        return reinterpret_cast<const T *>(p);
      }
      break;
    case Kind::Floats:
      if (std::is_same<T, float>::value)
        return reinterpret_cast<const T *>(a.floats.data());
      break;
    case Kind::Bytes:
      if (std::is_same<T, void>::value)
        return reinterpret_cast<const T *>(a.ints.data());
      break;
    default:
      break;
    }
    f.fail(std::string("a ") + kindName(a.kind) +
           " cannot be passed as a read-only pointer here");
    return nullptr;
  }
};
template <> struct Conv<const float *> : ConstPtr<float> {};
template <> struct Conv<const int64_t *> : ConstPtr<int64_t> {};
template <> struct Conv<const int32_t *> : ConstPtr<int32_t> {};
template <> struct Conv<const uint8_t *> : ConstPtr<uint8_t> {};
template <> struct Conv<const void *> : ConstPtr<void> {};

/// Writable pointers: results and scratch buffers, null.
template <typename T> struct MutPtr {
  static T *get(Frame &f, const KernelArg &a) {
    if (a.kind == Kind::Null)
      return nullptr;
    if (a.kind == Kind::Result || a.kind == Kind::Scratch)
      return static_cast<T *>(const_cast<void *>(f.buffer(a)));
    f.fail(std::string("a ") + kindName(a.kind) +
           " cannot be passed as a writable pointer");
    return nullptr;
  }
};
template <> struct Conv<float *> : MutPtr<float> {};
template <> struct Conv<int64_t *> : MutPtr<int64_t> {};
template <> struct Conv<int32_t *> : MutPtr<int32_t> {};
template <> struct Conv<uint8_t *> : MutPtr<uint8_t> {};
template <> struct Conv<void *> : MutPtr<void> {};

/// Parameter structs made of int64_t fields.
template <typename S> struct ParamsPtr {
  static const S *get(Frame &f, const KernelArg &a) {
    static_assert(sizeof(S) % sizeof(int64_t) == 0, "int64 fields only");
    if (a.kind == Kind::Null)
      return nullptr;
    if (a.kind != Kind::Params || a.ints.size() != sizeof(S) / 8) {
      f.fail("a parameter struct of the wrong size");
      return nullptr;
    }
    f.blocks.emplace_back(a.ints.size());
    std::memcpy(f.blocks.back().data(), a.ints.data(), sizeof(S));
    return reinterpret_cast<const S *>(f.blocks.back().data());
  }
};
template <> struct Conv<const plumb_conv2d_params *>
    : ParamsPtr<plumb_conv2d_params> {};
template <> struct Conv<const plumb_convnd_params *>
    : ParamsPtr<plumb_convnd_params> {};

/// Pointer arrays: operand buffers, result buffers, literal shapes.
template <typename T> struct ConstList {
  static const T *const *get(Frame &f, const KernelArg &a) {
    f.lists.emplace_back();
    std::vector<const void *> &v = f.lists.back();
    if (a.kind == Kind::OperandList) {
      for (int64_t i = 0; i < a.count; ++i) {
        KernelArg one;
        one.kind = Kind::Operand;
        one.index = a.index + i;
        v.push_back(f.buffer(one));
      }
    } else if (a.kind == Kind::ShapeList && std::is_same<T, int64_t>::value) {
      for (const std::vector<int64_t> &s : a.lists)
        v.push_back(s.data());
    } else {
      f.fail(std::string("a ") + kindName(a.kind) +
             " cannot be passed as a pointer array here");
    }
    return reinterpret_cast<const T *const *>(v.data());
  }
};
template <> struct Conv<const float *const *> : ConstList<float> {};
template <> struct Conv<const int64_t *const *> : ConstList<int64_t> {};
template <> struct Conv<const int32_t *const *> : ConstList<int32_t> {};
template <> struct Conv<const void *const *> : ConstList<void> {};
template <> struct Conv<void *const *> {
  static void *const *get(Frame &f, const KernelArg &a) {
    f.lists.emplace_back();
    std::vector<const void *> &v = f.lists.back();
    if (a.kind != Kind::ResultList) {
      f.fail(std::string("a ") + kindName(a.kind) +
             " cannot be passed as a result array");
      return nullptr;
    }
    for (int64_t i = 0; i < a.count; ++i) {
      KernelArg one;
      one.kind = Kind::Result;
      one.index = a.index + i;
      v.push_back(f.buffer(one));
    }
    return const_cast<void *const *>(
        reinterpret_cast<const void *const *>(v.data()));
  }
};

/// The conv epilogue hook: the interpreter runs fused chains op by op.
template <> struct Conv<const plumb_rt_epilogue *> {
  static const plumb_rt_epilogue *get(Frame &f, const KernelArg &a) {
    if (a.kind != Kind::Null)
      f.fail("the interpreter takes no conv epilogue");
    return nullptr;
  }
};

template <typename R, typename... P, size_t... I>
int callWith(R (*fn)(P...), Frame &f, llvm::ArrayRef<KernelArg> args,
             std::index_sequence<I...>) {
  // Braced initialisation converts the arguments left to right.
  std::tuple<P...> values{Conv<P>::get(f, args[I])...};
  if (!f.ok)
    return PLUMB_RT_EINVAL;
  if constexpr (std::is_void<R>::value) {
    std::apply(fn, values);
    return PLUMB_RT_OK;
  } else {
    return (int)std::apply(fn, values);
  }
}

template <typename R, typename... P>
int invoke(R (*fn)(P...), Frame &f, llvm::ArrayRef<KernelArg> args) {
  if (args.size() != sizeof...(P)) {
    f.fail("the call has " + std::to_string(args.size()) +
           " arguments, the kernel takes " + std::to_string(sizeof...(P)));
    return PLUMB_RT_EINVAL;
  }
  return callWith(fn, f, args, std::index_sequence_for<P...>{});
}

using Invoker = int (*)(Frame &, llvm::ArrayRef<KernelArg>);

template <auto Fn> int invokeFn(Frame &f, llvm::ArrayRef<KernelArg> args) {
  return invoke(Fn, f, args);
}

const llvm::StringMap<Invoker> &table() {
  static const llvm::StringMap<Invoker> t = [] {
    llvm::StringMap<Invoker> m;
#define PLUMB_KERNEL(fn, cuda) m[#fn] = &invokeFn<&plumb_rt_##fn>;
#include "plumb/runtime/kernels.def"
#undef PLUMB_KERNEL
    return m;
  }();
  return t;
}

} // namespace

bool isKnownKernel(llvm::StringRef fn) { return table().count(fn) != 0; }

bool runKernelCall(const KernelCall &call, const KernelBuffers &buffers,
                   std::string &err) {
  auto it = table().find(call.fn);
  if (it == table().end()) {
    err = "no kernel plumb_rt_" + call.fn;
    return false;
  }
  Frame f{buffers, err};
  int rc = it->second(f, call.args);
  if (!f.ok) {
    err = "plumb_rt_" + call.fn + ": " + err;
    return false;
  }
  if (rc == 0)
    return true;
  if (call.rangeError && rc == PLUMB_RT_ERANGE)
    err = call.what + " index out of range";
  else
    err = call.what + " kernel failed with code " + std::to_string(rc);
  return false;
}

} // namespace exec
} // namespace plumb
