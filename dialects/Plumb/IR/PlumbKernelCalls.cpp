//===- PlumbKernelCalls.cpp - Kernel calls of the plumb ops ---------------===//
//
// Part of Plumb. lowerToKernelCalls() of every op that computes (the
// KernelCallOpInterface, PlumbKernelCall.h): the runtime kernels an op runs,
// with every shape, attribute and tree as an argument. One function per op
// family; the interpreter executes these calls, the C++ and CUDA emitters
// print them. The argument lists follow the kernels' C declarations in
// runtime/include/plumb/runtime/*.h one for one (the interpreter's kernel
// table checks their number against each declaration).
//
//===----------------------------------------------------------------------===//
#include "dialects/Plumb/IR/PlumbOps.h"

#include "plumb/runtime/cast.h"
#include "plumb/runtime/conv.h"
#include "plumb/runtime/indexing.h"
#include "plumb/runtime/movement.h"
#include "plumb/runtime/reduce.h"
#include "plumb/runtime/resize.h"
#include "plumb/runtime/rnn.h"
#include "plumb/runtime/signal.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cstring>

using namespace mlir;

namespace plumb {

namespace {

#define PLUMB_CODE(X) #X, X

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }
ArrayRef<int64_t> shapeOf(Value v) { return typeOf(v).getShape(); }
std::vector<int64_t> shapeVec(Value v) {
  ArrayRef<int64_t> s = shapeOf(v);
  return std::vector<int64_t>(s.begin(), s.end());
}
int64_t rankOf(Value v) { return typeOf(v).getRank(); }
int64_t numel(Value v) { return typeOf(v).getNumElements(); }
ElemType elemOf(Value v) {
  ElemType t = ElemType::F32;
  elemTypeOf(typeOf(v).getElementType(), t);
  return t;
}
int64_t esize(Value v) { return (int64_t)elemSize(elemOf(v)); }
int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// The reduction tree block of an op (its `tree`, or the default policy).
int64_t treeBlock(Operation *op) {
  if (auto tree = op->getAttrOfType<TreeAttr>("tree"))
    return tree.getBlock();
  return kDefaultTreeBlock;
}

std::string opName(Operation *op) { return op->getName().getStringRef().str(); }

LogicalResult unsupportedType(Operation *op, std::string &err) {
  err = "unsupported element type for " + opName(op);
  return failure();
}

/// A shape operand: its buffer's shape and rank arguments.
KernelCall &shapeAndRank(KernelCall &c, Value v) {
  return c.ints(shapeOf(v)).i64(rankOf(v));
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise families (the op classes of PlumbOps.td call these)
//===----------------------------------------------------------------------===//

LogicalResult lowerUnaryOp(Operation *op, int32_t code, float alpha,
                           float beta, KernelLowering &l, std::string &err) {
  Value x = op->getOperand(0);
  int64_t n = numel(x);
  ElemType t = elemOf(x);
  if (t == ElemType::Bool) {
    l.call("not_bool", "not")
        .operand(0, ElemType::Bool)
        .result(0, ElemType::Bool)
        .i64(n);
    return success();
  }
  std::string name;
#define PLUMB_X(NAME, CODE, EXPR)                                              \
  if (code == CODE)                                                            \
    name = "PLUMB_RT_" #NAME;
  PLUMB_UNARY_F32_OPS(PLUMB_X)
#undef PLUMB_X
  if (name.empty()) {
    err = "no kernel code for '" + opName(op) + "'";
    return failure();
  }
  KernelCall &c = l.call(std::string("unary_") + elemTypeSuffix(t), "unary");
  c.code(name, code).operand(0, t).result(0, t).i64(n);
  switch (t) {
  case ElemType::F32:
    c.f32(alpha).f32(beta);
    return success();
  case ElemType::I64:
    c.code("INT64_MIN", INT64_MIN).code("INT64_MAX", INT64_MAX);
    return success();
  case ElemType::I32:
    c.code("INT32_MIN", INT32_MIN).code("INT32_MAX", INT32_MAX);
    return success();
  default:
    return unsupportedType(op, err);
  }
}

namespace {
const char *binaryCodeName(int32_t code) {
  switch (code) {
#define PLUMB_X(NAME, CODE, EXPR)                                              \
  case CODE:                                                                   \
    return "PLUMB_RT_" #NAME;
    PLUMB_BINARY_F32_OPS(PLUMB_X)
    PLUMB_COMPARE_OPS(PLUMB_X)
#undef PLUMB_X
  case PLUMB_RT_MOD:
    return "PLUMB_RT_MOD";
  case PLUMB_RT_FMOD:
    return "PLUMB_RT_FMOD";
  case PLUMB_RT_AND:
    return "PLUMB_RT_AND";
  case PLUMB_RT_OR:
    return "PLUMB_RT_OR";
  case PLUMB_RT_XOR:
    return "PLUMB_RT_XOR";
  case PLUMB_RT_MEAN:
    return "PLUMB_RT_MEAN";
  case PLUMB_RT_BIT_AND:
    return "PLUMB_RT_BIT_AND";
  case PLUMB_RT_BIT_OR:
    return "PLUMB_RT_BIT_OR";
  case PLUMB_RT_BIT_XOR:
    return "PLUMB_RT_BIT_XOR";
  case PLUMB_RT_SHIFT_LEFT:
    return "PLUMB_RT_SHIFT_LEFT";
  case PLUMB_RT_SHIFT_RIGHT:
    return "PLUMB_RT_SHIFT_RIGHT";
  }
  return nullptr;
}

/// binary_<t>(code, a, a_shape, a_rank, b, b_shape, b_rank, out, ...) of
/// operands `a` and `b` into result 0.
LogicalResult binaryCall(Operation *op, int32_t code, unsigned a, unsigned b,
                         KernelLowering &l, std::string &err) {
  const char *name = binaryCodeName(code);
  if (!name) {
    err = "no kernel code for '" + opName(op) + "'";
    return failure();
  }
  ElemType t = elemOf(op->getOperand(a));
  Value y = op->getResult(0);
  KernelCall &c = l.call(std::string("binary_") + elemTypeSuffix(t), opName(op));
  c.code(name, code).operand(a, t);
  shapeAndRank(c, op->getOperand(a)).operand(b, t);
  shapeAndRank(c, op->getOperand(b));
  if (t == ElemType::Bool)
    c.result(0, ElemType::Bool);
  else
    c.resultRaw(0);
  shapeAndRank(c, y);
  return success();
}
} // namespace

LogicalResult lowerBinaryOp(Operation *op, int32_t code, KernelLowering &l,
                            std::string &err) {
  return binaryCall(op, code, 0, 1, l, err);
}

LogicalResult lowerVariadicOp(Operation *op, int32_t code, KernelLowering &l,
                              std::string &err) {
  unsigned count = op->getNumOperands();
  Value y = op->getResult(0);
  ElemType t = elemOf(y);
  if (t == ElemType::Bool)
    return unsupportedType(op, err);
  // One operand is a copy (NaNs canonicalised), two the binary kernel: the
  // same per-element operations as the fold (acc = in0; acc = op(acc, in1);
  // canonicalised), with a CUDA twin.
  if (count == 1)
    return lowerUnaryOp(op, PLUMB_RT_IDENTITY, 0.0f, 0.0f, l, err);
  if (count == 2 && code != PLUMB_RT_MEAN)
    return binaryCall(op, code, 0, 1, l, err);
  std::vector<std::vector<int64_t>> shapes;
  std::vector<int32_t> ranks;
  for (Value v : op->getOperands()) {
    shapes.push_back(shapeVec(v));
    ranks.push_back((int32_t)rankOf(v));
  }
  const char *name = binaryCodeName(code);
  KernelCall &c =
      l.call(std::string("variadic_") + elemTypeSuffix(t), "variadic");
  c.code(name, code)
      .i64(count)
      .operandList(0, count, t)
      .shapeList(std::move(shapes))
      .ints32(ranks)
      .result(0, t);
  shapeAndRank(c, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Other elementwise ops
//===----------------------------------------------------------------------===//

LogicalResult WhereOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  KernelCall &c = l.call("where", "where");
  c.operand(0, ElemType::Bool);
  shapeAndRank(c, getCond()).operandRaw(1);
  shapeAndRank(c, getX()).operandRaw(2);
  shapeAndRank(c, getY()).resultRaw(0);
  shapeAndRank(c, getOutput()).i64(esize(getOutput()));
  return success();
}

LogicalResult CastOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  l.call("cast", "cast")
      .operandRaw(0)
      .i64((int64_t)elemOf(getInput()))
      .resultRaw(0)
      .i64((int64_t)elemOf(getOutput()))
      .i64(numel(getInput()));
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  KernelCall &c = l.call("matmul_f32", "matmul");
  c.operand(0, ElemType::F32);
  shapeAndRank(c, getLhs()).operand(1, ElemType::F32);
  shapeAndRank(c, getRhs())
      .result(0, ElemType::F32)
      .i64(treeBlock(getOperation()));
  return success();
}

LogicalResult MatMulIntegerOp::lowerToKernelCalls(KernelLowering &l,
                                                  std::string &) {
  KernelCall &c = l.call("matmul_i32", "matmul_integer");
  c.operand(0, ElemType::I32);
  shapeAndRank(c, getLhs()).operand(1, ElemType::I32);
  shapeAndRank(c, getRhs()).result(0, ElemType::I32);
  return success();
}

LogicalResult GemmOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  ArrayRef<int64_t> a = shapeOf(getA()), y = shapeOf(getOutput());
  int64_t M = y[0], N = y[1], K = getTransA() ? a[0] : a[1];
  KernelCall &c = l.call("gemm", "gemm");
  c.i64(M).i64(N).i64(K).f32(getAlpha().convertToFloat());
  c.operand(0, ElemType::F32).i64(getTransA());
  c.operand(1, ElemType::F32).i64(getTransB());
  c.f32(getBeta().convertToFloat());
  if (getC())
    shapeAndRank(c.operand(2, ElemType::F32), getC());
  else
    c.null().null().i64(0);
  c.result(0, ElemType::F32).i64(treeBlock(getOperation()));
  return success();
}

namespace {

/// The fields of plumb_convnd_params (conv.h), every array at its full
/// PLUMB_CONV_MAX_SPATIAL length; Cout is the result's channel count.
std::vector<int64_t> convNdFields(ArrayRef<int64_t> x, ArrayRef<int64_t> w,
                                  ArrayRef<int64_t> y, int64_t group,
                                  ArrayRef<int64_t> s, ArrayRef<int64_t> d,
                                  ArrayRef<int64_t> p) {
  const size_t sd = x.size() - 2;
  std::vector<int64_t> f = {x[0], x[1], y[1], group, (int64_t)sd};
  auto array = [&](auto get) {
    for (size_t j = 0; j < PLUMB_CONV_MAX_SPATIAL; ++j)
      f.push_back(j < sd ? get(j) : 0);
  };
  array([&](size_t j) { return x[2 + j]; });
  array([&](size_t j) { return w[2 + j]; });
  array([&](size_t j) { return y[2 + j]; });
  array([&](size_t j) { return s[j]; });
  array([&](size_t j) { return d[j]; });
  array([&](size_t j) { return p[j]; });
  array([&](size_t j) { return p[sd + j]; });
  return f;
}

/// The fields of plumb_conv2d_params; Cout is the result's channel count.
std::vector<int64_t> conv2dFields(ArrayRef<int64_t> x, ArrayRef<int64_t> w,
                                  ArrayRef<int64_t> y, int64_t group,
                                  ArrayRef<int64_t> s, ArrayRef<int64_t> d,
                                  ArrayRef<int64_t> p) {
  return {x[0], x[1], x[2], x[3], y[1], w[2], w[3], y[2], y[3],
          group, s[0], s[1], d[0], d[1], p[0], p[1], p[2], p[3]};
}

/// conv and conv_transpose: the 1-D, 2-D or N-d kernel, by spatial rank.
LogicalResult lowerConv(Operation *op, bool transposed, ArrayRef<int64_t> s,
                        ArrayRef<int64_t> d, ArrayRef<int64_t> p,
                        int64_t group, KernelLowering &l, std::string &err) {
  ArrayRef<int64_t> x = shapeOf(op->getOperand(0)),
                    w = shapeOf(op->getOperand(1)),
                    y = shapeOf(op->getResult(0));
  const char *kind = transposed ? "conv_transpose" : "conv";
  const int64_t sd = (int64_t)x.size() - 2;
  auto tail = [&](KernelCall &c) {
    c.operand(0, ElemType::F32).operand(1, ElemType::F32);
    if (op->getNumOperands() > 2)
      c.operand(2, ElemType::F32);
    else
      c.null();
    c.result(0, ElemType::F32).i64(treeBlock(op));
  };
  if (sd == 1) {
    std::string fn = std::string(kind) + "1d";
    KernelCall &c = l.call(fn, fn);
    c.i64(x[0]).i64(x[1]).i64(x[2]).i64(y[1]).i64(w[2]);
    if (transposed)
      c.i64(y[2]);
    c.i64(group).i64(s[0]).i64(d[0]).i64(p[0]).i64(p[1]);
    tail(c);
    return success();
  }
  if (sd == 2) {
    std::string fn = std::string(kind) + "2d";
    KernelCall &c = l.call(fn, fn);
    c.params("plumb_conv2d_params", conv2dFields(x, w, y, group, s, d, p));
    tail(c);
    return success();
  }
  if (sd < 1 || sd > PLUMB_CONV_MAX_SPATIAL) {
    err = std::string(kind) + " with " + std::to_string(sd) +
          " spatial dimensions is not supported by the kernels";
    return failure();
  }
  std::string fn = std::string(kind) + "_nd";
  KernelCall &c = l.call(fn, fn);
  std::vector<int> groups(5, 1);
  groups.resize(12, PLUMB_CONV_MAX_SPATIAL);
  c.params("plumb_convnd_params", convNdFields(x, w, y, group, s, d, p),
           groups);
  tail(c);
  return success();
}

} // namespace

LogicalResult ConvOp::lowerToKernelCalls(KernelLowering &l, std::string &err) {
  return lowerConv(getOperation(), false, getStrides(), getDilations(),
                   getPads(), getGroup(), l, err);
}

LogicalResult ConvTransposeOp::lowerToKernelCalls(KernelLowering &l,
                                                  std::string &err) {
  return lowerConv(getOperation(), true, getStrides(), getDilations(),
                   getPads(), getGroup(), l, err);
}

//===----------------------------------------------------------------------===//
// Pooling and normalisation
//===----------------------------------------------------------------------===//

namespace {
/// The head of a pool kernel's arguments: x, n, c, sdims, in and out spatial.
KernelCall &poolHead(KernelCall &c, Value x, Value y) {
  ArrayRef<int64_t> xs = shapeOf(x), ys = shapeOf(y);
  return c.operand(0, ElemType::F32)
      .i64(xs[0])
      .i64(xs[1])
      .i64((int64_t)xs.size() - 2)
      .ints(xs.drop_front(2))
      .ints(ys.drop_front(2));
}
} // namespace

LogicalResult MaxPoolOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  bool withIndices = !getIndices().empty();
  KernelCall &c = l.call("maxpool_f32", "max_pool");
  poolHead(c, getInput(), getOutput())
      .ints(getKernelShape())
      .ints(getStrides())
      .ints(getPads())
      .ints(getDilations())
      .result(0, ElemType::F32);
  if (withIndices)
    c.result(1, ElemType::I64);
  else
    c.null();
  if (getColumnMajorIndices() && withIndices) {
    ArrayRef<int64_t> xs = shapeOf(getInput());
    l.call("pool_indices_column_major", "max_pool indices")
        .result(1, ElemType::I64)
        .i64(numel(getIndices()[0]))
        .i64(xs[2])
        .i64(xs[3]);
  }
  return success();
}

LogicalResult AveragePoolOp::lowerToKernelCalls(KernelLowering &l,
                                                std::string &) {
  KernelCall &c = l.call("avgpool_f32", "average_pool");
  poolHead(c, getInput(), getOutput())
      .ints(getKernelShape())
      .ints(getStrides())
      .ints(getPads());
  if (getDilations())
    c.ints(*getDilations());
  else
    c.null();
  c.i64(getCountIncludePad()).result(0, ElemType::F32);
  return success();
}

namespace {
LogicalResult globalPool(Operation *op, bool isMax, KernelLowering &l) {
  ArrayRef<int64_t> x = shapeOf(op->getOperand(0));
  int64_t nc = x[0] * x[1];
  int64_t sp = nc ? product(x) / nc : 0;
  l.call("global_pool_f32", "global_pool")
      .operand(0, ElemType::F32)
      .i64(nc)
      .i64(sp)
      .i64(isMax)
      .result(0, ElemType::F32)
      .i64(treeBlock(op));
  return success();
}
} // namespace

LogicalResult GlobalAveragePoolOp::lowerToKernelCalls(KernelLowering &l,
                                                      std::string &) {
  return globalPool(getOperation(), false, l);
}

LogicalResult GlobalMaxPoolOp::lowerToKernelCalls(KernelLowering &l,
                                                  std::string &) {
  return globalPool(getOperation(), true, l);
}

LogicalResult BatchNormOp::lowerToKernelCalls(KernelLowering &l,
                                              std::string &) {
  ArrayRef<int64_t> x = shapeOf(getInput());
  int64_t n = x[0], c = x[1];
  int64_t sp = n * c ? product(x) / (n * c) : 0;
  l.call("batchnorm_f32", "batch_norm")
      .operand(0, ElemType::F32)
      .i64(n)
      .i64(c)
      .i64(sp)
      .operand(1, ElemType::F32)
      .operand(2, ElemType::F32)
      .operand(3, ElemType::F32)
      .operand(4, ElemType::F32)
      .f32(getEpsilon().convertToFloat())
      .result(0, ElemType::F32);
  return success();
}

LogicalResult LayerNormOp::lowerToKernelCalls(KernelLowering &l,
                                              std::string &) {
  ArrayRef<int64_t> x = shapeOf(getInput());
  ArrayRef<int64_t> norm = x.drop_front(getAxis());
  int64_t d = product(norm);
  int64_t outer = d ? product(x) / d : 0;
  // Scale and bias broadcast to the normalised shape in scratch buffers; an
  // operand already of that shape is read as it is.
  std::vector<int> slot(getNumOperands(), -1);
  for (unsigned i = 1; i < getNumOperands(); ++i) {
    Value v = getOperand(i);
    if (shapeOf(v) == norm)
      continue;
    slot[i] = (int)l.scratchBytes.size();
    l.scratchBytes.push_back(d * 4);
    KernelCall &e = l.call("expand", "layer_norm");
    e.operandRaw(i);
    shapeAndRank(e, v)
        .scratch(slot[i], ElemType::F32)
        .ints(norm)
        .i64((int64_t)norm.size())
        .i64(4);
  }
  KernelCall &c = l.call("layernorm_f32", "layer_norm");
  c.operand(0, ElemType::F32).i64(outer).i64(d);
  for (unsigned i = 1; i < 3; ++i) {
    if (i >= getNumOperands())
      c.null();
    else if (slot[i] >= 0)
      c.scratch(slot[i], ElemType::F32);
    else
      c.operand(i, ElemType::F32);
  }
  c.f32(getEpsilon().convertToFloat()).result(0, ElemType::F32);
  if (getStats().empty())
    c.null().null();
  else
    c.result(1, ElemType::F32).result(2, ElemType::F32);
  c.i64(treeBlock(getOperation()));
  return success();
}

namespace {
LogicalResult softmax(Operation *op, int64_t axis, bool log,
                      KernelLowering &l) {
  ArrayRef<int64_t> x = shapeOf(op->getOperand(0));
  int64_t outer = product(x.take_front(axis));
  int64_t inner = x.empty() ? 1 : product(x.drop_front(axis + 1));
  int64_t len = x.empty() ? 1 : x[axis];
  l.call("softmax_f32", "softmax")
      .operand(0, ElemType::F32)
      .result(0, ElemType::F32)
      .i64(outer)
      .i64(len)
      .i64(inner)
      .i64(log)
      .i64(treeBlock(op));
  return success();
}
} // namespace

LogicalResult SoftmaxOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  return softmax(getOperation(), getAxis(), false, l);
}

LogicalResult LogSoftmaxOp::lowerToKernelCalls(KernelLowering &l,
                                               std::string &) {
  return softmax(getOperation(), getAxis(), true, l);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

namespace {
LogicalResult reduce(Operation *op, const char *name, int32_t code,
                     ArrayRef<int64_t> axes, KernelLowering &l,
                     std::string &err) {
  Value x = op->getOperand(0);
  ElemType t = elemOf(x);
  if (t != ElemType::F32 && t != ElemType::I64) {
    err = "reductions of " + std::string(elemTypeName(t)) +
          " are not supported by the kernels";
    return failure();
  }
  KernelCall &c = l.call(std::string("reduce_") + elemTypeSuffix(t), "reduce");
  c.code(name, code).operand(0, t);
  shapeAndRank(c, x).ints(axes).i64((int64_t)axes.size()).result(0, t);
  if (t == ElemType::F32)
    c.i64(treeBlock(op));
  return success();
}
} // namespace

LogicalResult ReduceSumOp::lowerToKernelCalls(KernelLowering &l,
                                              std::string &err) {
  return reduce(getOperation(), PLUMB_CODE(PLUMB_RT_REDUCE_SUM), getAxes(), l,
                err);
}
LogicalResult ReduceMeanOp::lowerToKernelCalls(KernelLowering &l,
                                               std::string &err) {
  return reduce(getOperation(), PLUMB_CODE(PLUMB_RT_REDUCE_MEAN), getAxes(), l,
                err);
}
LogicalResult ReduceProdOp::lowerToKernelCalls(KernelLowering &l,
                                               std::string &err) {
  return reduce(getOperation(), PLUMB_CODE(PLUMB_RT_REDUCE_PROD), getAxes(), l,
                err);
}
LogicalResult ReduceMaxOp::lowerToKernelCalls(KernelLowering &l,
                                              std::string &err) {
  return reduce(getOperation(), PLUMB_CODE(PLUMB_RT_REDUCE_MAX), getAxes(), l,
                err);
}
LogicalResult ReduceMinOp::lowerToKernelCalls(KernelLowering &l,
                                              std::string &err) {
  return reduce(getOperation(), PLUMB_CODE(PLUMB_RT_REDUCE_MIN), getAxes(), l,
                err);
}

LogicalResult ArgMaxOp::lowerToKernelCalls(KernelLowering &l,
                                           std::string &err) {
  ElemType t = elemOf(getInput());
  if (t != ElemType::F32 && t != ElemType::I64 && t != ElemType::I32) {
    err = "arg_max of this element type is not supported";
    return failure();
  }
  KernelCall &c = l.call(std::string("argmax_") + elemTypeSuffix(t), "arg_max");
  c.operand(0, t);
  shapeAndRank(c, getInput())
      .i64(getAxis())
      .i64(0)
      .i64(getSelectLastIndex())
      .result(0, ElemType::I64);
  return success();
}

LogicalResult TopKOp::lowerToKernelCalls(KernelLowering &l, std::string &err) {
  ElemType t = elemOf(getInput());
  if (t != ElemType::F32 && t != ElemType::I64 && t != ElemType::I32) {
    err = "top_k of this element type is not supported";
    return failure();
  }
  KernelCall &c = l.call(std::string("topk_") + elemTypeSuffix(t), "top_k");
  c.operand(0, t);
  shapeAndRank(c, getInput())
      .i64(getAxis())
      .i64(getK())
      .i64(getLargest())
      .result(0, t)
      .result(1, ElemType::I64);
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  // The same bytes; emitters drop the copy where the memory plan aliases the
  // result with the operand.
  l.call("copy", "reshape")
      .operandRaw(0)
      .resultRaw(0)
      .i64(numel(getInput()) * esize(getInput()));
  return success();
}

LogicalResult TransposeOp::lowerToKernelCalls(KernelLowering &l,
                                              std::string &) {
  std::vector<int32_t> perm(getPerm().begin(), getPerm().end());
  KernelCall &c = l.call("transpose", "transpose");
  c.operandRaw(0);
  shapeAndRank(c, getInput()).ints32(perm).resultRaw(0).i64(esize(getInput()));
  return success();
}

LogicalResult ConcatOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  unsigned count = getNumOperands();
  std::vector<std::vector<int64_t>> shapes;
  for (Value v : getInputs())
    shapes.push_back(shapeVec(v));
  l.call("concat", "concat")
      .operandList(0, count, ElemType::F32, /*typed=*/false)
      .shapeList(std::move(shapes))
      .i64(count)
      .i64(rankOf(getOutput()))
      .i64(getAxis())
      .resultRaw(0)
      .i64(esize(getOutput()));
  return success();
}

LogicalResult SplitOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  KernelCall &c = l.call("split", "split");
  c.operandRaw(0);
  shapeAndRank(c, getInput())
      .i64(getAxis())
      .i64((int64_t)getSizes().size())
      .ints(getSizes())
      .resultList(0, getNumResults())
      .i64(esize(getInput()));
  return success();
}

LogicalResult SliceOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  KernelCall &c = l.call("slice", "slice");
  c.operandRaw(0);
  shapeAndRank(c, getInput())
      .ints(getStarts())
      .ints(getSteps())
      .ints(shapeOf(getOutput()))
      .resultRaw(0)
      .i64(esize(getInput()));
  return success();
}

LogicalResult GatherOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  KernelCall &c = l.call("gather", "gather");
  c.rangeError = true;
  c.operandRaw(0);
  shapeAndRank(c, getData())
      .i64(getAxis())
      .operandRaw(1)
      .i64(elemOf(getIndices()) == ElemType::I32)
      .i64(numel(getIndices()))
      .resultRaw(0)
      .i64(esize(getData()));
  return success();
}

LogicalResult GatherNDOp::lowerToKernelCalls(KernelLowering &l,
                                             std::string &) {
  KernelCall &c = l.call("gather_nd", "gather_nd");
  c.rangeError = true;
  c.operandRaw(0);
  shapeAndRank(c, getData())
      .operandRaw(1)
      .i64(elemOf(getIndices()) == ElemType::I32);
  shapeAndRank(c, getIndices())
      .i64(getBatchDims())
      .resultRaw(0)
      .i64(esize(getData()));
  return success();
}

LogicalResult ExpandOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  KernelCall &c = l.call("expand", "expand");
  c.operandRaw(0);
  shapeAndRank(c, getInput()).resultRaw(0);
  shapeAndRank(c, getOutput()).i64(esize(getInput()));
  return success();
}

LogicalResult PadOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  StringRef m = getMode();
  // The pad value as its element's bytes, in the low bytes of a u64.
  uint64_t value = 0;
  ElemType t = elemOf(getInput());
  Attribute v = getValue();
  if (auto f = dyn_cast<FloatAttr>(v)) {
    float fv = (float)f.getValueAsDouble();
    std::memcpy(&value, &fv, 4);
  } else if (auto i = dyn_cast<IntegerAttr>(v)) {
    int64_t iv = i.getValue().getSExtValue();
    if (t == ElemType::I32) {
      int32_t i32 = (int32_t)iv;
      std::memcpy(&value, &i32, 4);
    } else if (t == ElemType::Bool) {
      value = iv != 0;
    } else {
      std::memcpy(&value, &iv, 8);
    }
  }
  KernelCall &c = l.call("pad", "pad");
  c.operandRaw(0);
  shapeAndRank(c, getInput()).ints(getPads());
  if (m == "reflect")
    c.code(PLUMB_CODE(PLUMB_RT_PAD_REFLECT));
  else if (m == "edge")
    c.code(PLUMB_CODE(PLUMB_RT_PAD_EDGE));
  else
    c.code(PLUMB_CODE(PLUMB_RT_PAD_CONSTANT));
  c.bytes(value).resultRaw(0).i64(esize(getInput()));
  return success();
}

LogicalResult TileOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  KernelCall &c = l.call("tile", "tile");
  c.operandRaw(0);
  shapeAndRank(c, getInput())
      .ints(getRepeats())
      .resultRaw(0)
      .i64(esize(getInput()));
  return success();
}

LogicalResult ResizeOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  std::vector<float> scales(getScales().begin(), getScales().end());
  const bool cubic = getMode() == "cubic";
  KernelCall &c = l.call(cubic ? "resize_cubic_f32" : "resize_f32", "resize");
  c.operand(0, ElemType::F32);
  shapeAndRank(c, getInput()).ints(shapeOf(getOutput())).floats(scales);
  if (!cubic) {
    if (getMode() == "linear")
      c.code(PLUMB_CODE(PLUMB_RT_RESIZE_LINEAR));
    else
      c.code(PLUMB_CODE(PLUMB_RT_RESIZE_NEAREST));
  }
  StringRef m = getCoordinateTransformationMode();
  if (m == "pytorch_half_pixel")
    c.code(PLUMB_CODE(PLUMB_RT_COORD_PYTORCH_HALF_PIXEL));
  else if (m == "asymmetric")
    c.code(PLUMB_CODE(PLUMB_RT_COORD_ASYMMETRIC));
  else if (m == "align_corners")
    c.code(PLUMB_CODE(PLUMB_RT_COORD_ALIGN_CORNERS));
  else
    c.code(PLUMB_CODE(PLUMB_RT_COORD_HALF_PIXEL));
  if (cubic) {
    c.f32(getCubicCoeffAAttr().getValueAsDouble())
        .i64(getExcludeOutsideAttr().getValue() ? 1 : 0)
        .result(0, ElemType::F32);
    return success();
  }
  StringRef n = getNearestMode();
  if (n == "round_prefer_ceil")
    c.code(PLUMB_CODE(PLUMB_RT_NEAREST_ROUND_PREFER_CEIL));
  else if (n == "floor")
    c.code(PLUMB_CODE(PLUMB_RT_NEAREST_FLOOR));
  else if (n == "ceil")
    c.code(PLUMB_CODE(PLUMB_RT_NEAREST_CEIL));
  else
    c.code(PLUMB_CODE(PLUMB_RT_NEAREST_ROUND_PREFER_FLOOR));
  c.result(0, ElemType::F32);
  return success();
}

//===----------------------------------------------------------------------===//
// Recurrent networks
//===----------------------------------------------------------------------===//

namespace {
KernelCall &rnnDirection(KernelCall &c, StringRef d) {
  if (d == "reverse")
    return c.code(PLUMB_CODE(PLUMB_RT_RNN_REVERSE));
  if (d == "bidirectional")
    return c.code(PLUMB_CODE(PLUMB_RT_RNN_BIDIRECTIONAL));
  return c.code(PLUMB_CODE(PLUMB_RT_RNN_FORWARD));
}

/// An optional operand: its buffer, or null.
KernelCall &optional(KernelCall &c, Operation *op, Value v) {
  if (!v)
    return c.null();
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    if (op->getOperand(i) == v)
      return c.operand(i, ElemType::F32);
  return c.null();
}
} // namespace

LogicalResult LSTMOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  ArrayRef<int64_t> x = shapeOf(getX());
  Operation *op = getOperation();
  KernelCall &c = l.call("lstm_f32", "lstm");
  c.operand(0, ElemType::F32).operand(1, ElemType::F32).operand(2, ElemType::F32);
  optional(c, op, getB()).null();
  optional(c, op, getInitialH());
  optional(c, op, getInitialC());
  optional(c, op, getP()).i64(x[0]).i64(x[1]).i64(x[2]).i64(getHiddenSize());
  rnnDirection(c, getDirection())
      .f32(getClip() ? getClip()->convertToFloat() : 0.0f)
      .i64(getInputForget())
      .result(0, ElemType::F32)
      .result(1, ElemType::F32)
      .result(2, ElemType::F32)
      .i64(treeBlock(op));
  return success();
}

LogicalResult LSTMDynQuantOp::lowerToKernelCalls(KernelLowering &l,
                                                 std::string &) {
  ArrayRef<int64_t> x = shapeOf(getX());
  Operation *op = getOperation();
  auto index = [&](Value v) {
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      if (op->getOperand(i) == v)
        return i;
    return 0u;
  };
  auto maybe = [&](KernelCall &c, Value v, ElemType t) -> KernelCall & {
    return v ? c.operand(index(v), t) : c.null();
  };
  KernelCall &c = l.call("lstm_dq_f32", "lstm_dq");
  c.operand(0, ElemType::F32).operand(index(getW()), ElemType::I32);
  c.operand(index(getWScale()), ElemType::F32);
  maybe(c, getWZeroPoint(), ElemType::I32)
      .i64(shapeOf(getWScale()).size() == 2);
  c.operand(index(getR()), ElemType::I32)
      .operand(index(getRScale()), ElemType::F32);
  maybe(c, getRZeroPoint(), ElemType::I32)
      .i64(shapeOf(getRScale()).size() == 2);
  maybe(c, getB(), ElemType::F32);
  maybe(c, getInitialH(), ElemType::F32);
  maybe(c, getInitialC(), ElemType::F32);
  maybe(c, getP(), ElemType::F32)
      .i64(x[0])
      .i64(x[1])
      .i64(x[2])
      .i64(getHiddenSize());
  rnnDirection(c, getDirection())
      .f32(getClip() ? getClip()->convertToFloat() : 0.0f)
      .i64(getInputForget())
      .result(0, ElemType::F32)
      .result(1, ElemType::F32)
      .result(2, ElemType::F32);
  return success();
}

LogicalResult GRUOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  ArrayRef<int64_t> x = shapeOf(getX());
  Operation *op = getOperation();
  KernelCall &c = l.call("gru_f32", "gru");
  c.operand(0, ElemType::F32).operand(1, ElemType::F32).operand(2, ElemType::F32);
  optional(c, op, getB()).null();
  optional(c, op, getInitialH()).i64(x[0]).i64(x[1]).i64(x[2]).i64(getHiddenSize());
  rnnDirection(c, getDirection())
      .f32(getClip() ? getClip()->convertToFloat() : 0.0f)
      .i64(getLinearBeforeReset())
      .result(0, ElemType::F32)
      .result(1, ElemType::F32)
      .i64(treeBlock(op));
  return success();
}

LogicalResult RNNOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  ArrayRef<int64_t> x = shapeOf(getX());
  Operation *op = getOperation();
  KernelCall &c = l.call("rnn_f32", "rnn");
  c.operand(0, ElemType::F32).operand(1, ElemType::F32).operand(2, ElemType::F32);
  optional(c, op, getB()).null();
  optional(c, op, getInitialH()).i64(x[0]).i64(x[1]).i64(x[2]).i64(getHiddenSize());
  rnnDirection(c, getDirection())
      .f32(getClip() ? getClip()->convertToFloat() : 0.0f);
  ArrayAttr acts = getActivations();
  ArrayRef<float> alpha = getActivationAlpha(), beta = getActivationBeta();
  // Direction 1's activation is direction 0's when there is one direction
  // (the kernel reads it only for bidirectional).
  for (size_t d = 0; d < 2; ++d) {
    size_t k = d < acts.size() ? d : 0;
    auto code = activationCode(cast<StringAttr>(acts[k]).getValue());
    c.code(code->second, code->first).f32(alpha[k]).f32(beta[k]);
  }
  c.result(0, ElemType::F32).result(1, ElemType::F32).i64(treeBlock(op));
  return success();
}

//===----------------------------------------------------------------------===//
// Indexed writes
//===----------------------------------------------------------------------===//

LogicalResult ScatterNDOp::lowerToKernelCalls(KernelLowering &l,
                                              std::string &) {
  KernelCall &c = l.call("scatter_nd", "scatter_nd");
  c.rangeError = true;
  c.operandRaw(0);
  shapeAndRank(c, getData())
      .operandRaw(1)
      .i64(elemOf(getIndices()) == ElemType::I32);
  shapeAndRank(c, getIndices()).operandRaw(2);
  StringRef r = getReduction();
  if (r == "add")
    c.code(PLUMB_CODE(PLUMB_RT_SCATTER_ADD));
  else if (r == "mul")
    c.code(PLUMB_CODE(PLUMB_RT_SCATTER_MUL));
  else if (r == "max")
    c.code(PLUMB_CODE(PLUMB_RT_SCATTER_MAX));
  else if (r == "min")
    c.code(PLUMB_CODE(PLUMB_RT_SCATTER_MIN));
  else
    c.code(PLUMB_CODE(PLUMB_RT_SCATTER_NONE));
  c.i64((int64_t)elemOf(getData())).resultRaw(0);
  return success();
}

//===----------------------------------------------------------------------===//
// Grid sampling
//===----------------------------------------------------------------------===//

LogicalResult GridSampleOp::lowerToKernelCalls(KernelLowering &l,
                                               std::string &) {
  KernelCall &c = l.call("grid_sample_f32", "grid_sample");
  c.operand(0, ElemType::F32);
  shapeAndRank(c, getInput()).operand(1, ElemType::F32);
  c.ints(shapeOf(getOutput()));
  StringRef m = getMode(), p = getPaddingMode();
  if (m == "nearest")
    c.code(PLUMB_CODE(PLUMB_RT_GRID_NEAREST));
  else if (m == "cubic")
    c.code(PLUMB_CODE(PLUMB_RT_GRID_CUBIC));
  else
    c.code(PLUMB_CODE(PLUMB_RT_GRID_LINEAR));
  if (p == "border")
    c.code(PLUMB_CODE(PLUMB_RT_GRID_BORDER));
  else if (p == "reflection")
    c.code(PLUMB_CODE(PLUMB_RT_GRID_REFLECTION));
  else
    c.code(PLUMB_CODE(PLUMB_RT_GRID_ZEROS));
  c.i64(getAlignCorners() ? 1 : 0).result(0, ElemType::F32);
  return success();
}

//===----------------------------------------------------------------------===//
// Fourier transforms
//===----------------------------------------------------------------------===//

namespace {
/// One plumb_rt_dft_f32 call: `window` is the window operand's index (-1:
/// none); the scratch buffer holds the twiddles and the stage buffers.
void dftCall(KernelLowering &l, StringRef what, int window, int64_t outer,
             int64_t len, int64_t inner, bool complexIn, int64_t n,
             int64_t nOut, bool inverse, int64_t frames, int64_t step) {
  const int slot = (int)l.scratchBytes.size();
  l.scratchBytes.push_back(
      4 * ::plumb::rt::ops::dftScratchFloats(outer * frames * inner, n));
  KernelCall &c = l.call("dft_f32", what);
  c.operand(0, ElemType::F32);
  if (window >= 0)
    c.operand((unsigned)window, ElemType::F32);
  else
    c.null();
  c.i64(outer).i64(len).i64(inner).i64(complexIn ? 1 : 0).i64(n).i64(nOut);
  c.i64(inverse ? 1 : 0).i64(frames).i64(step);
  c.scratch(slot, ElemType::F32).result(0, ElemType::F32);
}
} // namespace

LogicalResult DFTOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  ArrayRef<int64_t> x = shapeOf(getInput()), y = shapeOf(getOutput());
  const int64_t axis = getAxis(), r = (int64_t)x.size();
  dftCall(l, "dft", -1, product(x.take_front(axis)), x[axis],
          product(x.slice(axis + 1, r - axis - 2)), x[r - 1] == 2, getLength(),
          y[axis], getInverse(), 1, 0);
  return success();
}

LogicalResult STFTOp::lowerToKernelCalls(KernelLowering &l, std::string &) {
  ArrayRef<int64_t> x = shapeOf(getSignal()), y = shapeOf(getOutput());
  dftCall(l, "stft", getWindow() ? 1 : -1, x[0], x[1], 1, x[2] == 2,
          getFrameLength(), y[2], false, y[1], getFrameStep());
  return success();
}

} // namespace plumb
