//===- lib/Interpreter/Interpreter.cpp - Reference executor ---------------===//
//
// Part of Plumb. Runs plumb IR op by op with the runtime kernels. Every op's
// numeric semantics live in the kernels (runtime/); this file only maps op
// attributes and shapes to kernel arguments.
//
//===----------------------------------------------------------------------===//
#include "plumb/Interpreter/Interpreter.h"

#include "dialects/Plumb/IR/PlumbOps.h"

#include "plumb/runtime/cast.h"
#include "plumb/runtime/conv.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/gemm.h"
#include "plumb/runtime/movement.h"
#include "plumb/runtime/norm.h"
#include "plumb/runtime/pool.h"
#include "plumb/runtime/pool_indices.h"
#include "plumb/runtime/reduce.h"
#include "plumb/runtime/resize.h"
#include "plumb/runtime/rnn.h"
#include "plumb/runtime/softmax.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace plumb {
namespace exec {

int64_t treeBlockOf(Operation *op) {
  if (auto tree = op->getAttrOfType<TreeAttr>("tree"))
    return tree.getBlock();
  return kDefaultTreeBlock;
}

namespace {

struct Exec {
  Operation *op;
  ArrayRef<const Tensor *> in;
  std::vector<Tensor> &out;
  std::string &err;

  bool fail(const std::string &msg) {
    err = msg;
    return false;
  }
  bool check(int rc, const char *what) {
    if (rc == 0)
      return true;
    return fail(std::string(what) + " kernel failed with code " +
                std::to_string(rc));
  }
  Tensor &result(unsigned i = 0) {
    auto type = cast<RankedTensorType>(op->getResult(i).getType());
    ElemType et;
    elemTypeOf(type.getElementType(), et);
    if (out.size() <= i)
      out.resize(i + 1);
    out[i] = Tensor::make(et, std::vector<int64_t>(type.getShape().begin(),
                                                   type.getShape().end()));
    return out[i];
  }
  const Tensor &arg(unsigned i) const { return *in[i]; }
  static int32_t rank(const Tensor &t) { return (int32_t)t.shape.size(); }
};

int32_t unaryCode(Operation *op) {
  return llvm::TypeSwitch<Operation *, int32_t>(op)
      .Case<NegOp>([](auto) { return PLUMB_RT_NEG; })
      .Case<AbsOp>([](auto) { return PLUMB_RT_ABS; })
      .Case<ReciprocalOp>([](auto) { return PLUMB_RT_RECIPROCAL; })
      .Case<SqrtOp>([](auto) { return PLUMB_RT_SQRT; })
      .Case<ExpOp>([](auto) { return PLUMB_RT_EXP; })
      .Case<LogOp>([](auto) { return PLUMB_RT_LOG; })
      .Case<TanhOp>([](auto) { return PLUMB_RT_TANH; })
      .Case<SigmoidOp>([](auto) { return PLUMB_RT_SIGMOID; })
      .Case<ErfOp>([](auto) { return PLUMB_RT_ERF; })
      .Case<ReluOp>([](auto) { return PLUMB_RT_RELU; })
      .Case<HardSigmoidOp>([](auto) { return PLUMB_RT_HARD_SIGMOID; })
      .Case<LeakyReluOp>([](auto) { return PLUMB_RT_LEAKY_RELU; })
      .Case<ClipOp>([](auto) { return PLUMB_RT_CLIP; })
      .Case<GeluOp>([](GeluOp g) {
        return g.getApproximate() == "tanh" ? PLUMB_RT_GELU_TANH
                                            : PLUMB_RT_GELU;
      })
      .Default([](Operation *) { return -1; });
}

int32_t binaryCode(Operation *op) {
  return llvm::TypeSwitch<Operation *, int32_t>(op)
      .Case<AddOp, SumOp>([](auto) { return PLUMB_RT_ADD; })
      .Case<SubOp>([](auto) { return PLUMB_RT_SUB; })
      .Case<MulOp>([](auto) { return PLUMB_RT_MUL; })
      .Case<DivOp>([](auto) { return PLUMB_RT_DIV; })
      .Case<PowOp>([](auto) { return PLUMB_RT_POW; })
      .Case<MaxOp>([](auto) { return PLUMB_RT_MAX; })
      .Case<MinOp>([](auto) { return PLUMB_RT_MIN; })
      .Case<EqualOp>([](auto) { return PLUMB_RT_EQUAL; })
      .Case<LessOp>([](auto) { return PLUMB_RT_LESS; })
      .Case<LessOrEqualOp>([](auto) { return PLUMB_RT_LESS_OR_EQUAL; })
      .Case<GreaterOp>([](auto) { return PLUMB_RT_GREATER; })
      .Case<GreaterOrEqualOp>([](auto) { return PLUMB_RT_GREATER_OR_EQUAL; })
      .Case<AndOp>([](auto) { return PLUMB_RT_AND; })
      .Case<OrOp>([](auto) { return PLUMB_RT_OR; })
      .Default([](Operation *) { return -1; });
}

bool unary(Exec &e) {
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  int64_t n = x.numElements();
  if (isa<NotOp>(e.op))
    return e.check(plumb_rt_not_bool(x.as<uint8_t>(), y.as<uint8_t>(), n), "not");
  int32_t code = unaryCode(e.op);
  float alpha = 0.0f, beta = 0.0f;
  if (auto h = dyn_cast<HardSigmoidOp>(e.op))
    alpha = h.getAlpha().convertToFloat(), beta = h.getBeta().convertToFloat();
  else if (auto l = dyn_cast<LeakyReluOp>(e.op))
    alpha = l.getAlpha().convertToFloat();
  else if (auto c = dyn_cast<ClipOp>(e.op))
    alpha = c.getMin().convertToFloat(), beta = c.getMax().convertToFloat();
  switch (x.type) {
  case ElemType::F32:
    return e.check(plumb_rt_unary_f32(code, x.as<float>(), y.as<float>(), n,
                                      alpha, beta),
                   "unary");
  case ElemType::I64:
    return e.check(plumb_rt_unary_i64(code, x.as<int64_t>(), y.as<int64_t>(),
                                      n, INT64_MIN, INT64_MAX),
                   "unary");
  case ElemType::I32:
    return e.check(plumb_rt_unary_i32(code, x.as<int32_t>(), y.as<int32_t>(),
                                      n, INT32_MIN, INT32_MAX),
                   "unary");
  default:
    return e.fail("unsupported element type for " +
                  e.op->getName().getStringRef().str());
  }
}

bool binary(Exec &e) {
  const Tensor &a = e.arg(0), &b = e.arg(1);
  Tensor &y = e.result();
  int32_t code = binaryCode(e.op);
  const int64_t *ys = y.shape.data();
  int32_t yr = Exec::rank(y);
  int rc;
  switch (a.type) {
  case ElemType::F32:
    rc = plumb_rt_binary_f32(code, a.as<float>(), a.shape.data(), Exec::rank(a),
                             b.as<float>(), b.shape.data(), Exec::rank(b),
                             y.raw(), ys, yr);
    break;
  case ElemType::I64:
    rc = plumb_rt_binary_i64(code, a.as<int64_t>(), a.shape.data(),
                             Exec::rank(a), b.as<int64_t>(), b.shape.data(),
                             Exec::rank(b), y.raw(), ys, yr);
    break;
  case ElemType::I32:
    rc = plumb_rt_binary_i32(code, a.as<int32_t>(), a.shape.data(),
                             Exec::rank(a), b.as<int32_t>(), b.shape.data(),
                             Exec::rank(b), y.raw(), ys, yr);
    break;
  case ElemType::Bool:
    rc = plumb_rt_binary_bool(code, a.as<uint8_t>(), a.shape.data(),
                              Exec::rank(a), b.as<uint8_t>(), b.shape.data(),
                              Exec::rank(b), y.as<uint8_t>(), ys, yr);
    break;
  }
  return e.check(rc, e.op->getName().getStringRef().data());
}

bool variadic(Exec &e) {
  Tensor &y = e.result();
  int32_t code = binaryCode(e.op);
  std::vector<const int64_t *> shapes;
  std::vector<int32_t> ranks;
  for (const Tensor *t : e.in) {
    shapes.push_back(t->shape.data());
    ranks.push_back(Exec::rank(*t));
  }
  int32_t count = (int32_t)e.in.size();
  if (y.type == ElemType::F32) {
    std::vector<const float *> ptrs;
    for (const Tensor *t : e.in)
      ptrs.push_back(t->as<float>());
    return e.check(plumb_rt_variadic_f32(code, count, ptrs.data(), shapes.data(),
                                         ranks.data(), y.as<float>(),
                                         y.shape.data(), Exec::rank(y)),
                   "variadic");
  }
  if (y.type == ElemType::I64) {
    std::vector<const int64_t *> ptrs;
    for (const Tensor *t : e.in)
      ptrs.push_back(t->as<int64_t>());
    return e.check(plumb_rt_variadic_i64(code, count, ptrs.data(), shapes.data(),
                                         ranks.data(), y.as<int64_t>(),
                                         y.shape.data(), Exec::rank(y)),
                   "variadic");
  }
  // Other integer types: fold pairwise with the binary kernel, left to right.
  Tensor acc = *e.in[0];
  for (size_t k = 1; k < e.in.size(); ++k) {
    std::vector<Tensor> tmp;
    Exec step{e.op, {&acc, e.in[k]}, tmp, e.err};
    // The partial result has the broadcast shape of the operands so far.
    int64_t shape[8];
    int r = plumb_rt_broadcast_shape(acc.shape.data(), Exec::rank(acc),
                                     e.in[k]->shape.data(),
                                     Exec::rank(*e.in[k]), shape);
    if (r < 0)
      return e.fail("variadic broadcast failed");
    Tensor next = Tensor::make(y.type, std::vector<int64_t>(shape, shape + r));
    int rc = plumb_rt_binary_i32(code, acc.as<int32_t>(), acc.shape.data(),
                                 Exec::rank(acc), e.in[k]->as<int32_t>(),
                                 e.in[k]->shape.data(), Exec::rank(*e.in[k]),
                                 next.raw(), next.shape.data(), r);
    if (!e.check(rc, "variadic"))
      return false;
    acc = std::move(next);
  }
  y = std::move(acc);
  return true;
}

bool where(Exec &e) {
  const Tensor &c = e.arg(0), &x = e.arg(1), &z = e.arg(2);
  Tensor &y = e.result();
  return e.check(plumb_rt_where(c.as<uint8_t>(), c.shape.data(), Exec::rank(c),
                                x.raw(), x.shape.data(), Exec::rank(x), z.raw(),
                                z.shape.data(), Exec::rank(z), y.raw(),
                                y.shape.data(), Exec::rank(y), elemSize(y.type)),
                 "where");
}

bool castOp(Exec &e) {
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  return e.check(plumb_rt_cast(x.raw(), (int32_t)x.type, y.raw(),
                               (int32_t)y.type, x.numElements()),
                 "cast");
}

bool matmul(Exec &e) {
  const Tensor &a = e.arg(0), &b = e.arg(1);
  Tensor &y = e.result();
  int64_t yshape[16];
  int yrank = 0;
  int rc = plumb_rt_matmul(a.as<float>(), a.shape.data(), Exec::rank(a),
                           b.as<float>(), b.shape.data(), Exec::rank(b),
                           y.as<float>(), yshape, &yrank, treeBlockOf(e.op));
  return e.check(rc, "matmul");
}

bool gemm(Exec &e) {
  auto g = cast<GemmOp>(e.op);
  const Tensor &a = e.arg(0), &b = e.arg(1);
  const Tensor *c = e.in.size() > 2 ? e.in[2] : nullptr;
  Tensor &y = e.result();
  int64_t M = y.shape[0], N = y.shape[1];
  int64_t K = g.getTransA() ? a.shape[0] : a.shape[1];
  plumb_rt_gemm(M, N, K, g.getAlpha().convertToFloat(), a.as<float>(),
                g.getTransA(), b.as<float>(), g.getTransB(),
                g.getBeta().convertToFloat(), c ? c->as<float>() : nullptr,
                c ? c->shape.data() : nullptr, c ? Exec::rank(*c) : 0,
                y.as<float>(), treeBlockOf(e.op));
  return true;
}

/// The N-d kernel parameters of a conv or conv_transpose with 3+ spatial
/// dims (Cout: the result's channels).
plumb_convnd_params convNdParams(const Tensor &x, const Tensor &w,
                                 const Tensor &y, int64_t group,
                                 ArrayRef<int64_t> s, ArrayRef<int64_t> d,
                                 ArrayRef<int64_t> p) {
  const int64_t sd = (int64_t)x.shape.size() - 2;
  plumb_convnd_params nd{};
  nd.N = x.shape[0], nd.Cin = x.shape[1], nd.Cout = y.shape[1];
  nd.group = group, nd.spatial = sd;
  for (int64_t j = 0; j < sd; ++j) {
    nd.in[j] = x.shape[2 + j], nd.kernel[j] = w.shape[2 + j];
    nd.out[j] = y.shape[2 + j], nd.stride[j] = s[j];
    nd.dilation[j] = d[j], nd.pad_begin[j] = p[j], nd.pad_end[j] = p[sd + j];
  }
  return nd;
}

bool conv(Exec &e) {
  auto op = cast<ConvOp>(e.op);
  const Tensor &x = e.arg(0), &w = e.arg(1);
  const float *bias = e.in.size() > 2 ? e.in[2]->as<float>() : nullptr;
  Tensor &y = e.result();
  auto s = op.getStrides(), p = op.getPads(), d = op.getDilations();
  int64_t block = treeBlockOf(e.op);
  if (x.shape.size() == 3)
    return e.check(plumb_rt_conv1d(x.shape[0], x.shape[1], x.shape[2],
                                   w.shape[0], w.shape[2], op.getGroup(), s[0],
                                   d[0], p[0], p[1], x.as<float>(),
                                   w.as<float>(), bias, y.as<float>(), block),
                   "conv1d");
  if (x.shape.size() != 4) {
    // Three or more spatial dims: the N-d kernel (same term order).
    const int64_t sd = (int64_t)x.shape.size() - 2;
    if (sd > PLUMB_CONV_MAX_SPATIAL)
      return e.fail("conv with " + std::to_string(sd) +
                    " spatial dimensions is not supported by the kernels");
    plumb_convnd_params nd = convNdParams(x, w, y, op.getGroup(), s, d, p);
    return e.check(plumb_rt_conv_nd(&nd, x.as<float>(), w.as<float>(), bias,
                                    y.as<float>(), block),
                   "conv_nd");
  }
  plumb_conv2d_params prm{x.shape[0], x.shape[1], x.shape[2], x.shape[3],
                          w.shape[0], w.shape[2], w.shape[3], y.shape[2],
                          y.shape[3], op.getGroup(), s[0], s[1], d[0], d[1],
                          p[0], p[1], p[2], p[3]};
  return e.check(plumb_rt_conv2d(&prm, x.as<float>(), w.as<float>(), bias,
                                 y.as<float>(), block),
                 "conv2d");
}

bool convTranspose(Exec &e) {
  auto op = cast<ConvTransposeOp>(e.op);
  const Tensor &x = e.arg(0), &w = e.arg(1);
  const float *bias = e.in.size() > 2 ? e.in[2]->as<float>() : nullptr;
  Tensor &y = e.result();
  auto s = op.getStrides(), p = op.getPads(), d = op.getDilations();
  int64_t block = treeBlockOf(e.op);
  if (x.shape.size() == 3)
    return e.check(plumb_rt_conv_transpose1d(
                       x.shape[0], x.shape[1], x.shape[2], y.shape[1],
                       w.shape[2], y.shape[2], op.getGroup(), s[0], d[0], p[0],
                       p[1], x.as<float>(), w.as<float>(), bias, y.as<float>(),
                       block),
                   "conv_transpose1d");
  if (x.shape.size() != 4) {
    // Three or more spatial dims: the N-d kernel (same term order).
    const int64_t sd = (int64_t)x.shape.size() - 2;
    if (sd > PLUMB_CONV_MAX_SPATIAL)
      return e.fail("conv_transpose with " + std::to_string(sd) +
                    " spatial dimensions is not supported by the kernels");
    plumb_convnd_params nd = convNdParams(x, w, y, op.getGroup(), s, d, p);
    return e.check(plumb_rt_conv_transpose_nd(&nd, x.as<float>(),
                                              w.as<float>(), bias,
                                              y.as<float>(), block),
                   "conv_transpose_nd");
  }
  plumb_conv2d_params prm{x.shape[0], x.shape[1], x.shape[2], x.shape[3],
                          y.shape[1], w.shape[2], w.shape[3], y.shape[2],
                          y.shape[3], op.getGroup(), s[0], s[1], d[0], d[1],
                          p[0], p[1], p[2], p[3]};
  return e.check(plumb_rt_conv_transpose2d(&prm, x.as<float>(), w.as<float>(),
                                           bias, y.as<float>(), block),
                 "conv_transpose2d");
}

/// Splits a pads array (begins then ends) into the runtime's layout (same).
bool pool(Exec &e) {
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  int32_t sd = (int32_t)x.shape.size() - 2;
  std::vector<int64_t> inSp(x.shape.begin() + 2, x.shape.end());
  std::vector<int64_t> outSp(y.shape.begin() + 2, y.shape.end());
  if (auto mp = dyn_cast<MaxPoolOp>(e.op)) {
    std::vector<int64_t> pads(mp.getPads().begin(), mp.getPads().end());
    int64_t *indices = nullptr;
    if (!mp.getIndices().empty())
      indices = e.result(1).as<int64_t>();
    if (!e.check(plumb_rt_maxpool_f32(x.as<float>(), x.shape[0], x.shape[1],
                                      sd, inSp.data(), outSp.data(),
                                      mp.getKernelShape().data(),
                                      mp.getStrides().data(), pads.data(),
                                      mp.getDilations().data(), y.as<float>(),
                                      indices),
                 "max_pool"))
      return false;
    if (!mp.getColumnMajorIndices())
      return true;
    return e.check(plumb_rt_pool_indices_column_major(
                       indices, e.out[1].numElements(), x.shape[2], x.shape[3]),
                   "max_pool indices");
  }
  auto ap = cast<AveragePoolOp>(e.op);
  std::vector<int64_t> pads(ap.getPads().begin(), ap.getPads().end());
  auto dil = ap.getDilations();
  return e.check(plumb_rt_avgpool_f32(x.as<float>(), x.shape[0], x.shape[1], sd,
                                      inSp.data(), outSp.data(),
                                      ap.getKernelShape().data(),
                                      ap.getStrides().data(), pads.data(),
                                      dil ? dil->data() : nullptr,
                                      ap.getCountIncludePad(),
                                      y.as<float>()),
                 "average_pool");
}

bool globalPool(Exec &e, bool isMax) {
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  int64_t nc = x.shape[0] * x.shape[1];
  int64_t sp = nc ? x.numElements() / nc : 0;
  return e.check(plumb_rt_global_pool_f32(x.as<float>(), nc, sp, isMax,
                                          y.as<float>(), treeBlockOf(e.op)),
                 "global_pool");
}

bool batchNorm(Exec &e) {
  auto op = cast<BatchNormOp>(e.op);
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  int64_t n = x.shape[0], c = x.shape[1];
  int64_t sp = n * c ? x.numElements() / (n * c) : 0;
  return e.check(plumb_rt_batchnorm_f32(x.as<float>(), n, c, sp,
                                        e.arg(1).as<float>(),
                                        e.arg(2).as<float>(),
                                        e.arg(3).as<float>(),
                                        e.arg(4).as<float>(),
                                        op.getEpsilon().convertToFloat(),
                                        y.as<float>()),
                 "batch_norm");
}

/// Broadcasts a layer-norm scale/bias to the full normalised shape.
Tensor expandTo(const Tensor &t, ArrayRef<int64_t> shape) {
  Tensor r = Tensor::make(t.type, std::vector<int64_t>(shape.begin(), shape.end()));
  plumb_rt_expand(t.raw(), t.shape.data(), (int32_t)t.shape.size(), r.raw(),
                  r.shape.data(), (int32_t)r.shape.size(), elemSize(t.type));
  return r;
}

bool layerNorm(Exec &e) {
  auto op = cast<LayerNormOp>(e.op);
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  int64_t axis = op.getAxis();
  ArrayRef<int64_t> norm = ArrayRef<int64_t>(x.shape).drop_front(axis);
  int64_t d = 1;
  for (int64_t v : norm)
    d *= v;
  int64_t outer = d ? x.numElements() / d : 0;
  Tensor scale = expandTo(e.arg(1), norm);
  Tensor bias;
  if (e.in.size() > 2)
    bias = expandTo(e.arg(2), norm);
  float *mean = nullptr, *invStd = nullptr;
  if (!op.getStats().empty()) {
    mean = e.result(1).as<float>();
    invStd = e.result(2).as<float>();
  }
  return e.check(plumb_rt_layernorm_f32(x.as<float>(), outer, d,
                                        scale.as<float>(),
                                        e.in.size() > 2 ? bias.as<float>()
                                                        : nullptr,
                                        op.getEpsilon().convertToFloat(),
                                        y.as<float>(), mean, invStd,
                                        treeBlockOf(e.op)),
                 "layer_norm");
}

bool softmax(Exec &e, int64_t axis, bool log) {
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i)
    outer *= x.shape[i];
  for (size_t i = axis + 1; i < x.shape.size(); ++i)
    inner *= x.shape[i];
  int64_t len = x.shape.empty() ? 1 : x.shape[axis];
  return e.check(plumb_rt_softmax_f32(x.as<float>(), y.as<float>(), outer, len,
                                      inner, log, treeBlockOf(e.op)),
                 "softmax");
}

bool reduce(Exec &e, int32_t code, ArrayRef<int64_t> axes) {
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  if (x.type == ElemType::F32)
    return e.check(plumb_rt_reduce_f32(code, x.as<float>(), x.shape.data(),
                                       Exec::rank(x), axes.data(),
                                       (int32_t)axes.size(), y.as<float>(),
                                       treeBlockOf(e.op)),
                   "reduce");
  if (x.type == ElemType::I64)
    return e.check(plumb_rt_reduce_i64(code, x.as<int64_t>(), x.shape.data(),
                                       Exec::rank(x), axes.data(),
                                       (int32_t)axes.size(), y.as<int64_t>()),
                   "reduce");
  return e.fail("reductions of " + std::string(elemTypeName(x.type)) +
                " are not supported by the kernels");
}

bool argMax(Exec &e) {
  auto op = cast<ArgMaxOp>(e.op);
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  if (x.type == ElemType::F32)
    return e.check(plumb_rt_argmax_f32(x.as<float>(), x.shape.data(),
                                       Exec::rank(x), op.getAxis(), 0,
                                       op.getSelectLastIndex(),
                                       y.as<int64_t>()),
                   "arg_max");
  if (x.type == ElemType::I64)
    return e.check(plumb_rt_argmax_i64(x.as<int64_t>(), x.shape.data(),
                                       Exec::rank(x), op.getAxis(), 0,
                                       op.getSelectLastIndex(),
                                       y.as<int64_t>()),
                   "arg_max");
  return e.fail("arg_max of this element type is not supported");
}

bool copyBits(Exec &e) {
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  std::memcpy(y.raw(), x.raw(), x.byteSize());
  return true;
}

bool transpose(Exec &e) {
  auto op = cast<TransposeOp>(e.op);
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  std::vector<int32_t> perm(op.getPerm().begin(), op.getPerm().end());
  return e.check(plumb_rt_transpose(x.raw(), x.shape.data(), Exec::rank(x),
                                    perm.data(), y.raw(), elemSize(x.type)),
                 "transpose");
}

bool concat(Exec &e) {
  auto op = cast<ConcatOp>(e.op);
  Tensor &y = e.result();
  std::vector<const void *> ptrs;
  std::vector<const int64_t *> shapes;
  for (const Tensor *t : e.in) {
    ptrs.push_back(t->raw());
    shapes.push_back(t->shape.data());
  }
  return e.check(plumb_rt_concat(ptrs.data(), shapes.data(), (int32_t)e.in.size(),
                                 Exec::rank(y), (int32_t)op.getAxis(), y.raw(),
                                 elemSize(y.type)),
                 "concat");
}

bool split(Exec &e) {
  auto op = cast<SplitOp>(e.op);
  const Tensor &x = e.arg(0);
  std::vector<void *> ptrs;
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    e.result(i);
  for (auto &t : e.out)
    ptrs.push_back(t.raw());
  std::vector<int64_t> sizes(op.getSizes().begin(), op.getSizes().end());
  return e.check(plumb_rt_split(x.raw(), x.shape.data(), Exec::rank(x),
                                (int32_t)op.getAxis(), (int32_t)sizes.size(),
                                sizes.data(), ptrs.data(), elemSize(x.type)),
                 "split");
}

bool slice(Exec &e) {
  auto op = cast<SliceOp>(e.op);
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  return e.check(plumb_rt_slice(x.raw(), x.shape.data(), Exec::rank(x),
                                op.getStarts().data(), op.getSteps().data(),
                                y.shape.data(), y.raw(), elemSize(x.type)),
                 "slice");
}

bool gather(Exec &e) {
  auto op = cast<GatherOp>(e.op);
  const Tensor &x = e.arg(0), &idx = e.arg(1);
  Tensor &y = e.result();
  int rc = plumb_rt_gather(x.raw(), x.shape.data(), Exec::rank(x),
                           (int32_t)op.getAxis(), idx.raw(),
                           idx.type == ElemType::I32, idx.numElements(),
                           y.raw(), elemSize(x.type));
  if (rc == PLUMB_RT_ERANGE)
    return e.fail("gather index out of range");
  return e.check(rc, "gather");
}

bool expand(Exec &e) {
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  return e.check(plumb_rt_expand(x.raw(), x.shape.data(), Exec::rank(x),
                                 y.raw(), y.shape.data(), Exec::rank(y),
                                 elemSize(x.type)),
                 "expand");
}

bool pad(Exec &e) {
  auto op = cast<PadOp>(e.op);
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  int32_t mode = op.getMode() == "reflect" ? PLUMB_RT_PAD_REFLECT
                 : op.getMode() == "edge"  ? PLUMB_RT_PAD_EDGE
                                           : PLUMB_RT_PAD_CONSTANT;
  uint64_t value = 0;
  Attribute v = op.getValue();
  if (auto f = dyn_cast<FloatAttr>(v)) {
    float fv = (float)f.getValueAsDouble();
    std::memcpy(&value, &fv, 4);
  } else if (auto i = dyn_cast<IntegerAttr>(v)) {
    int64_t iv = i.getValue().getSExtValue();
    if (x.type == ElemType::I32) {
      int32_t i32 = (int32_t)iv;
      std::memcpy(&value, &i32, 4);
    } else if (x.type == ElemType::Bool) {
      value = iv != 0;
    } else {
      std::memcpy(&value, &iv, 8);
    }
  }
  std::vector<int64_t> pads(op.getPads().begin(), op.getPads().end());
  return e.check(plumb_rt_pad(x.raw(), x.shape.data(), Exec::rank(x),
                              pads.data(), mode, &value, y.raw(),
                              elemSize(x.type)),
                 "pad");
}

bool tile(Exec &e) {
  auto op = cast<TileOp>(e.op);
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  std::vector<int64_t> reps(op.getRepeats().begin(), op.getRepeats().end());
  return e.check(plumb_rt_tile(x.raw(), x.shape.data(), Exec::rank(x),
                               reps.data(), y.raw(), elemSize(x.type)),
                 "tile");
}

bool resize(Exec &e) {
  auto op = cast<ResizeOp>(e.op);
  const Tensor &x = e.arg(0);
  Tensor &y = e.result();
  int32_t mode = op.getMode() == "linear" ? PLUMB_RT_RESIZE_LINEAR
                                          : PLUMB_RT_RESIZE_NEAREST;
  StringRef c = op.getCoordinateTransformationMode();
  int32_t coord = c == "pytorch_half_pixel" ? PLUMB_RT_COORD_PYTORCH_HALF_PIXEL
                  : c == "asymmetric"       ? PLUMB_RT_COORD_ASYMMETRIC
                  : c == "align_corners"    ? PLUMB_RT_COORD_ALIGN_CORNERS
                                            : PLUMB_RT_COORD_HALF_PIXEL;
  StringRef nm = op.getNearestMode();
  int32_t nearest = nm == "round_prefer_ceil" ? PLUMB_RT_NEAREST_ROUND_PREFER_CEIL
                    : nm == "floor"           ? PLUMB_RT_NEAREST_FLOOR
                    : nm == "ceil"            ? PLUMB_RT_NEAREST_CEIL
                                  : PLUMB_RT_NEAREST_ROUND_PREFER_FLOOR;
  std::vector<float> scales(op.getScales().begin(), op.getScales().end());
  return e.check(plumb_rt_resize_f32(x.as<float>(), x.shape.data(),
                                     Exec::rank(x), y.shape.data(),
                                     scales.data(), mode, coord, nearest,
                                     y.as<float>()),
                 "resize");
}

int32_t rnnDirection(StringRef d) {
  return d == "reverse"         ? PLUMB_RT_RNN_REVERSE
         : d == "bidirectional" ? PLUMB_RT_RNN_BIDIRECTIONAL
                                : PLUMB_RT_RNN_FORWARD;
}

/// The tensor of an optional operand, or null.
const float *optional(Exec &e, Value v) {
  if (!v)
    return nullptr;
  for (unsigned i = 0; i < e.op->getNumOperands(); ++i)
    if (e.op->getOperand(i) == v)
      return e.in[i]->as<float>();
  return nullptr;
}

bool lstm(Exec &e) {
  auto op = cast<LSTMOp>(e.op);
  const Tensor &x = e.arg(0);
  Tensor &y = e.result(0), &yh = e.result(1), &yc = e.result(2);
  float clip = op.getClip() ? op.getClip()->convertToFloat() : 0.0f;
  (void)y;
  (void)yh;
  return e.check(plumb_rt_lstm_f32(
                     x.as<float>(), e.arg(1).as<float>(), e.arg(2).as<float>(),
                     optional(e, op.getB()), nullptr,
                     optional(e, op.getInitialH()),
                     optional(e, op.getInitialC()), optional(e, op.getP()),
                     x.shape[0], x.shape[1], x.shape[2], op.getHiddenSize(),
                     rnnDirection(op.getDirection()), clip, op.getInputForget(),
                     e.out[0].as<float>(), e.out[1].as<float>(),
                     yc.as<float>(), treeBlockOf(e.op)),
                 "lstm");
}

bool gru(Exec &e) {
  auto op = cast<GRUOp>(e.op);
  const Tensor &x = e.arg(0);
  e.result(0);
  e.result(1);
  float clip = op.getClip() ? op.getClip()->convertToFloat() : 0.0f;
  return e.check(plumb_rt_gru_f32(
                     x.as<float>(), e.arg(1).as<float>(), e.arg(2).as<float>(),
                     optional(e, op.getB()), nullptr,
                     optional(e, op.getInitialH()), x.shape[0], x.shape[1],
                     x.shape[2], op.getHiddenSize(),
                     rnnDirection(op.getDirection()), clip,
                     op.getLinearBeforeReset(), e.out[0].as<float>(),
                     e.out[1].as<float>(), treeBlockOf(e.op)),
                 "gru");
}

} // namespace

bool executeOp(Operation *op, ArrayRef<const Tensor *> inputs,
               std::vector<Tensor> &results, std::string &err) {
  results.clear();
  // Handlers hold a reference to result 0 while they make the others.
  results.reserve(op->getNumResults());
  Exec e{op, inputs, results, err};
  bool ok =
      llvm::TypeSwitch<Operation *, bool>(op)
          .Case<ConstantOp>([&](ConstantOp c) {
            results.resize(1);
            return tensorFromAttr(c.getValue(), results[0], err);
          })
          .Case<NegOp, AbsOp, ReciprocalOp, SqrtOp, ExpOp, LogOp, TanhOp,
                SigmoidOp, ErfOp, ReluOp, NotOp, HardSigmoidOp, LeakyReluOp,
                ClipOp, GeluOp>([&](auto) { return unary(e); })
          .Case<AddOp, SubOp, MulOp, DivOp, PowOp, EqualOp, LessOp,
                LessOrEqualOp, GreaterOp, GreaterOrEqualOp, AndOp, OrOp>(
              [&](auto) { return binary(e); })
          .Case<SumOp, MaxOp, MinOp>([&](auto) { return variadic(e); })
          .Case<WhereOp>([&](auto) { return where(e); })
          .Case<CastOp>([&](auto) { return castOp(e); })
          .Case<MatMulOp>([&](auto) { return matmul(e); })
          .Case<GemmOp>([&](auto) { return gemm(e); })
          .Case<ConvOp>([&](auto) { return conv(e); })
          .Case<ConvTransposeOp>([&](auto) { return convTranspose(e); })
          .Case<MaxPoolOp, AveragePoolOp>([&](auto) { return pool(e); })
          .Case<GlobalAveragePoolOp>([&](auto) { return globalPool(e, false); })
          .Case<GlobalMaxPoolOp>([&](auto) { return globalPool(e, true); })
          .Case<BatchNormOp>([&](auto) { return batchNorm(e); })
          .Case<LayerNormOp>([&](auto) { return layerNorm(e); })
          .Case<SoftmaxOp>(
              [&](SoftmaxOp s) { return softmax(e, s.getAxis(), false); })
          .Case<LogSoftmaxOp>(
              [&](LogSoftmaxOp s) { return softmax(e, s.getAxis(), true); })
          .Case<ReduceSumOp>([&](ReduceSumOp r) {
            return reduce(e, PLUMB_RT_REDUCE_SUM, r.getAxes());
          })
          .Case<ReduceMeanOp>([&](ReduceMeanOp r) {
            return reduce(e, PLUMB_RT_REDUCE_MEAN, r.getAxes());
          })
          .Case<ReduceProdOp>([&](ReduceProdOp r) {
            return reduce(e, PLUMB_RT_REDUCE_PROD, r.getAxes());
          })
          .Case<ReduceMaxOp>([&](ReduceMaxOp r) {
            return reduce(e, PLUMB_RT_REDUCE_MAX, r.getAxes());
          })
          .Case<ReduceMinOp>([&](ReduceMinOp r) {
            return reduce(e, PLUMB_RT_REDUCE_MIN, r.getAxes());
          })
          .Case<ArgMaxOp>([&](auto) { return argMax(e); })
          .Case<ReshapeOp>([&](auto) { return copyBits(e); })
          .Case<TransposeOp>([&](auto) { return transpose(e); })
          .Case<ConcatOp>([&](auto) { return concat(e); })
          .Case<SplitOp>([&](auto) { return split(e); })
          .Case<SliceOp>([&](auto) { return slice(e); })
          .Case<GatherOp>([&](auto) { return gather(e); })
          .Case<ExpandOp>([&](auto) { return expand(e); })
          .Case<PadOp>([&](auto) { return pad(e); })
          .Case<TileOp>([&](auto) { return tile(e); })
          .Case<ResizeOp>([&](auto) { return resize(e); })
          .Case<LSTMOp>([&](auto) { return lstm(e); })
          .Case<GRUOp>([&](auto) { return gru(e); })
          .Default([&](Operation *o) {
            err = "the interpreter cannot execute '" +
                  o->getName().getStringRef().str() + "'";
            return false;
          });
  if (!ok)
    return false;
  for (Tensor &t : results)
    t.canonicalizeNaN();
  return true;
}

namespace {

/// Executes the ops of one block; `values` maps SSA values to tensors.
class Runner {
public:
  Runner(MutableNodeCallback cb, std::string &err) : cb(cb), err(err) {}

  bool runBlock(Block &block, llvm::DenseMap<Value, Tensor> &values,
                std::vector<Tensor> *yielded) {
    for (Operation &op : block) {
      if (auto ret = dyn_cast<func::ReturnOp>(op))
        return collect(ret->getOperands(), values, yielded);
      if (auto y = dyn_cast<YieldOp>(op))
        return collect(y->getOperands(), values, yielded);
      if (!runOp(op, values))
        return false;
    }
    return true;
  }

  /// Executes one op of a block (plumb.if runs its taken region) and stores
  /// its results in `values`.
  bool runOp(Operation &op, llvm::DenseMap<Value, Tensor> &values) {
    std::vector<Tensor> outs;
    if (auto ifOp = dyn_cast<IfOp>(op)) {
      const Tensor *c = lookup(ifOp.getCond(), values);
      if (!c)
        return false;
      Region &r = c->as<uint8_t>()[0] ? ifOp.getThenRegion()
                                      : ifOp.getElseRegion();
      if (!runBlock(r.front(), values, &outs))
        return false;
      // A branch may forward a graph input unchanged: results are stored
      // values, so their NaNs are canonical like every other node's.
      for (Tensor &t : outs)
        t.canonicalizeNaN();
    } else if (auto fused = dyn_cast<FusedOp>(op)) {
      // The chain, op by op, with the same kernels as unfused: the same
      // bits. Its intermediate values are not nodes and are not reported.
      llvm::DenseMap<Value, Tensor> local;
      for (Operation *inner : fused.getChain()) {
        std::vector<const Tensor *> ins;
        for (Value v : inner->getOperands()) {
          auto it = local.find(v);
          const Tensor *t = it != local.end() ? &it->second : lookup(v, values);
          if (!t)
            return false;
          ins.push_back(t);
        }
        std::vector<Tensor> r;
        if (!executeOp(inner, ins, r, err)) {
          err = "'" + inner->getName().getStringRef().str() +
                "' in plumb.fused: " + err;
          return false;
        }
        local[inner->getResult(0)] = std::move(r[0]);
      }
      outs.push_back(std::move(local[fused.getYielded()]));
    } else {
      std::vector<const Tensor *> ins;
      for (Value v : op.getOperands()) {
        const Tensor *t = lookup(v, values);
        if (!t)
          return false;
        ins.push_back(t);
      }
      if (!executeOp(&op, ins, outs, err)) {
        err = "'" + op.getName().getStringRef().str() + "': " + err;
        return false;
      }
    }
    if (cb)
      cb(&op, outs);
    for (unsigned i = 0; i < outs.size(); ++i)
      values[op.getResult(i)] = std::move(outs[i]);
    return true;
  }

private:
  const Tensor *lookup(Value v, llvm::DenseMap<Value, Tensor> &values) {
    auto it = values.find(v);
    if (it == values.end()) {
      err = "internal error: a value is used before it is computed";
      return nullptr;
    }
    return &it->second;
  }
  bool collect(OperandRange vals, llvm::DenseMap<Value, Tensor> &values,
               std::vector<Tensor> *out) {
    if (!out)
      return true;
    for (Value v : vals) {
      const Tensor *t = lookup(v, values);
      if (!t)
        return false;
      out->push_back(*t);
    }
    return true;
  }

  MutableNodeCallback cb;
  std::string &err;
};

} // namespace

bool runFunction(func::FuncOp func, ArrayRef<Tensor> inputs,
                 std::vector<Tensor> &outputs, std::string &err,
                 NodeCallback callback) {
  if (!callback)
    return runFunctionWithHook(func, inputs, outputs, err, nullptr);
  auto adapt = [&](Operation *op, std::vector<Tensor> &results) {
    callback(op, results);
  };
  return runFunctionWithHook(func, inputs, outputs, err, adapt);
}

bool executeNode(Operation *op, const llvm::DenseMap<Value, const Tensor *> &env,
                 std::vector<Tensor> &results, std::string &err) {
  if (op->getNumRegions() == 0) {
    std::vector<const Tensor *> ins;
    for (Value v : op->getOperands()) {
      auto it = env.find(v);
      if (it == env.end()) {
        err = "internal error: no tensor for an operand";
        return false;
      }
      ins.push_back(it->second);
    }
    return executeOp(op, ins, results, err);
  }
  // plumb.if, plumb.fused: run the region on copies of the values it reads.
  llvm::DenseMap<Value, Tensor> values;
  for (auto &kv : env)
    values[kv.first] = *kv.second;
  Runner runner(nullptr, err);
  if (!runner.runOp(*op, values))
    return false;
  results.clear();
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    results.push_back(std::move(values[op->getResult(i)]));
  return true;
}

bool runFunctionWithHook(func::FuncOp func, ArrayRef<Tensor> inputs,
                         std::vector<Tensor> &outputs, std::string &err,
                         MutableNodeCallback callback,
                         llvm::function_ref<void()> atEnd) {
  Block &entry = func.getBody().front();
  if (inputs.size() != entry.getNumArguments()) {
    err = "the model has " + std::to_string(entry.getNumArguments()) +
          " inputs, " + std::to_string(inputs.size()) + " were given";
    return false;
  }
  llvm::DenseMap<Value, Tensor> values;
  for (unsigned i = 0; i < inputs.size(); ++i) {
    auto type = cast<RankedTensorType>(entry.getArgument(i).getType());
    ElemType et;
    elemTypeOf(type.getElementType(), et);
    auto nameAttr = func.getArgAttrOfType<StringAttr>(i, "plumb.name");
    std::string name = nameAttr ? nameAttr.str() : "#" + std::to_string(i);
    const Tensor &t = inputs[i];
    if (t.type != et || ArrayRef<int64_t>(t.shape) != type.getShape()) {
      Tensor want = Tensor::make(et, std::vector<int64_t>(type.getShape().begin(),
                                                         type.getShape().end()));
      err = "input '" + name + "' must be " + want.describe() + ", got " +
            t.describe();
      return false;
    }
    if (auto bound = func.getArgAttrOfType<ElementsAttr>(i, "plumb.bound_value")) {
      Tensor b;
      if (!tensorFromAttr(bound, b, err))
        return false;
      if (tensorHash(b) != tensorHash(t)) {
        err = "input '" + name +
              "' was fixed at import (--input-value) and must equal the "
              "bound value";
        return false;
      }
    }
    values[entry.getArgument(i)] = t;
  }
  outputs.clear();
  Runner runner(callback, err);
  bool ok = runner.runBlock(entry, values, &outputs);
  if (atEnd)
    atEnd();
  return ok;
}

} // namespace exec
} // namespace plumb
