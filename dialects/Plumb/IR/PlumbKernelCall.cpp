//===- PlumbKernelCall.cpp - The kernel-call form of a plumb op -----------===//
//
// Part of Plumb. See PlumbKernelCall.h.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plumb/IR/PlumbKernelCall.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

namespace plumb {

namespace {
KernelArg buffer(KernelArg::Kind k, unsigned i, bool typed, ElemType t) {
  KernelArg a;
  a.kind = k;
  a.index = i;
  a.typed = typed;
  a.type = t;
  return a;
}
} // namespace

KernelCall &KernelCall::operand(unsigned i, ElemType t) {
  args.push_back(buffer(KernelArg::Kind::Operand, i, true, t));
  return *this;
}
KernelCall &KernelCall::operandRaw(unsigned i) {
  args.push_back(buffer(KernelArg::Kind::Operand, i, false, ElemType::F32));
  return *this;
}
KernelCall &KernelCall::result(unsigned i, ElemType t) {
  args.push_back(buffer(KernelArg::Kind::Result, i, true, t));
  return *this;
}
KernelCall &KernelCall::resultRaw(unsigned i) {
  args.push_back(buffer(KernelArg::Kind::Result, i, false, ElemType::F32));
  return *this;
}
KernelCall &KernelCall::scratch(unsigned i, ElemType t) {
  args.push_back(buffer(KernelArg::Kind::Scratch, i, true, t));
  return *this;
}
KernelCall &KernelCall::null() {
  args.emplace_back();
  return *this;
}
KernelCall &KernelCall::i64(int64_t v) {
  KernelArg a;
  a.kind = KernelArg::Kind::Int;
  a.value = v;
  args.push_back(std::move(a));
  return *this;
}
KernelCall &KernelCall::code(llvm::StringRef name, int64_t v) {
  i64(v);
  args.back().name = name.str();
  return *this;
}
KernelCall &KernelCall::f32(float v) {
  KernelArg a;
  a.kind = KernelArg::Kind::Float;
  a.fvalue = v;
  args.push_back(std::move(a));
  return *this;
}
KernelCall &KernelCall::ints(llvm::ArrayRef<int64_t> v) {
  KernelArg a;
  a.kind = KernelArg::Kind::Ints;
  a.ints.assign(v.begin(), v.end());
  args.push_back(std::move(a));
  return *this;
}
KernelCall &KernelCall::ints32(llvm::ArrayRef<int32_t> v) {
  KernelArg a;
  a.kind = KernelArg::Kind::Ints32;
  a.ints.assign(v.begin(), v.end());
  args.push_back(std::move(a));
  return *this;
}
KernelCall &KernelCall::floats(llvm::ArrayRef<float> v) {
  KernelArg a;
  a.kind = KernelArg::Kind::Floats;
  a.floats.assign(v.begin(), v.end());
  args.push_back(std::move(a));
  return *this;
}
KernelCall &KernelCall::bytes(uint64_t v) {
  KernelArg a;
  a.kind = KernelArg::Kind::Bytes;
  a.ints.push_back((int64_t)v);
  args.push_back(std::move(a));
  return *this;
}
KernelCall &KernelCall::params(llvm::StringRef type,
                               std::vector<int64_t> fields,
                               std::vector<int> groups) {
  KernelArg a;
  a.kind = KernelArg::Kind::Params;
  a.name = type.str();
  a.ints = std::move(fields);
  a.groups = std::move(groups);
  args.push_back(std::move(a));
  return *this;
}
KernelCall &KernelCall::operandList(unsigned first, unsigned count, ElemType t,
                                    bool typed) {
  KernelArg a = buffer(KernelArg::Kind::OperandList, first, typed, t);
  a.count = count;
  args.push_back(std::move(a));
  return *this;
}
KernelCall &KernelCall::resultList(unsigned first, unsigned count) {
  KernelArg a = buffer(KernelArg::Kind::ResultList, first, false, ElemType::F32);
  a.count = count;
  args.push_back(std::move(a));
  return *this;
}
KernelCall &KernelCall::shapeList(std::vector<std::vector<int64_t>> shapes) {
  KernelArg a;
  a.kind = KernelArg::Kind::ShapeList;
  a.lists = std::move(shapes);
  args.push_back(std::move(a));
  return *this;
}

KernelCall &KernelLowering::call(llvm::StringRef fn, llvm::StringRef what) {
  calls.emplace_back();
  calls.back().fn = fn.str();
  calls.back().what = what.str();
  return calls.back();
}

namespace {
void printList(llvm::raw_ostream &os, llvm::ArrayRef<int64_t> v) {
  os << "[";
  for (size_t i = 0; i < v.size(); ++i)
    os << (i ? ", " : "") << v[i];
  os << "]";
}

void printArg(llvm::raw_ostream &os, const KernelArg &a) {
  auto ty = [&]() -> std::string {
    return a.typed ? std::string(":") + elemTypeSuffix(a.type) : ":raw";
  };
  switch (a.kind) {
  case KernelArg::Kind::Operand:
    os << "%in" << a.index << ty();
    return;
  case KernelArg::Kind::Result:
    os << "%out" << a.index << ty();
    return;
  case KernelArg::Kind::Scratch:
    os << "%scratch" << a.index << ty();
    return;
  case KernelArg::Kind::Null:
    os << "null";
    return;
  case KernelArg::Kind::Int:
    if (!a.name.empty())
      os << a.name;
    else
      os << a.value;
    return;
  case KernelArg::Kind::Float: {
    uint32_t u;
    std::memcpy(&u, &a.fvalue, 4);
    os << llvm::format("0x%08X", u);
    return;
  }
  case KernelArg::Kind::Ints:
  case KernelArg::Kind::Ints32:
    printList(os, a.ints);
    return;
  case KernelArg::Kind::Floats: {
    os << "[";
    for (size_t i = 0; i < a.floats.size(); ++i) {
      uint32_t u;
      std::memcpy(&u, &a.floats[i], 4);
      os << (i ? ", " : "") << llvm::format("0x%08X", u);
    }
    os << "]";
    return;
  }
  case KernelArg::Kind::Bytes:
    os << "&" << llvm::format("0x%016llX", (unsigned long long)a.ints[0]);
    return;
  case KernelArg::Kind::Params:
    os << "&" << a.name << paramsInit(a);
    return;
  case KernelArg::Kind::OperandList:
  case KernelArg::Kind::ResultList:
    os << "{";
    for (int64_t i = 0; i < a.count; ++i)
      os << (i ? ", " : "")
         << (a.kind == KernelArg::Kind::OperandList ? "%in" : "%out")
         << a.index + i << ty();
    os << "}";
    return;
  case KernelArg::Kind::ShapeList:
    os << "{";
    for (size_t i = 0; i < a.lists.size(); ++i) {
      if (i)
        os << ", ";
      printList(os, a.lists[i]);
    }
    os << "}";
    return;
  }
}
} // namespace

std::string paramsInit(const KernelArg &a) {
  std::string s = "{";
  auto num = [](int64_t v) {
    return v == INT64_MIN ? std::string("INT64_MIN") : std::to_string(v);
  };
  size_t f = 0;
  std::vector<int> groups = a.groups;
  if (groups.empty())
    groups.assign(a.ints.size(), 1);
  for (size_t g = 0; g < groups.size() && f < a.ints.size(); ++g) {
    s += g ? ", " : "";
    if (groups[g] == 1) {
      s += num(a.ints[f++]);
      continue;
    }
    // An array member: its leading values (the rest are zero-initialised).
    size_t end = std::min(a.ints.size(), f + (size_t)groups[g]), last = f;
    for (size_t i = f; i < end; ++i)
      if (a.ints[i] != 0)
        last = i + 1;
    s += "{";
    for (size_t i = f; i < std::max(last, f + 1); ++i)
      s += (i > f ? ", " : "") + num(a.ints[i]);
    s += "}";
    f = end;
  }
  return s + "}";
}

void printKernelLowering(const KernelLowering &l, llvm::raw_ostream &os) {
  for (size_t s = 0; s < l.scratchBytes.size(); ++s)
    os << "scratch " << s << ": " << l.scratchBytes[s] << " bytes\n";
  for (const KernelCall &c : l.calls) {
    os << "plumb_rt_" << c.fn << "(";
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (i)
        os << ", ";
      printArg(os, c.args[i]);
    }
    os << ")";
    if (c.rangeError)
      os << " range-checked";
    os << "\n";
  }
}

} // namespace plumb
