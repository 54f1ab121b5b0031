//===- lib/Dispute/Slice.cpp - Sub-node re-execution ----------------------===//
//
// Part of Plumb. See include/plumb/Dispute/Slice.h and docs/dispute.md.
//
//===----------------------------------------------------------------------===//
#include "plumb/Dispute/Slice.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Interpreter/Interpreter.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cstring>

using namespace mlir;

namespace plumb {
namespace dispute {

std::vector<int64_t> Box::shape() const {
  std::vector<int64_t> s(lo.size());
  for (size_t i = 0; i < lo.size(); ++i)
    s[i] = hi[i] - lo[i];
  return s;
}

int64_t Box::numElements() const {
  int64_t n = 1;
  for (size_t i = 0; i < lo.size(); ++i)
    n *= hi[i] - lo[i];
  return n;
}

Box Box::whole(const std::vector<int64_t> &shape) {
  Box b;
  b.lo.assign(shape.size(), 0);
  b.hi = shape;
  return b;
}

namespace {

std::vector<int64_t> shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
}

/// Pure data movement: every output element is a copy of one input
/// element, whose place the op's attributes and shapes give.
bool isMovement(Operation *op) { return op->hasTrait<plumb::OpTrait::Movement>(); }

/// The flat index of element `idx` of a tensor of `shape`.
int64_t flatIndex(const std::vector<int64_t> &shape,
                  const std::vector<int64_t> &idx) {
  int64_t f = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    f = f * shape[i] + idx[i];
  return f;
}

bool isElementwise(Operation *op) {
  return op->hasTrait<plumb::OpTrait::Elementwise>();
}

/// The box of an operand of `shape` that a broadcasting elementwise op
/// reads for output box `out` (shapes aligned on the right; a dimension of
/// 1 is broadcast).
Box broadcastBox(const std::vector<int64_t> &shape, const Box &out) {
  Box b = Box::whole(shape);
  size_t r = shape.size(), R = out.lo.size();
  for (size_t i = 0; i < r; ++i) {
    size_t o = R - r + i;
    if (shape[i] != 1) {
      b.lo[i] = out.lo[o];
      b.hi[i] = out.hi[o];
    }
  }
  return b;
}

/// The smallest box of the form (fixed prefix, one range, full suffix) that
/// covers elements [first, first + count) of a tensor of `shape`; `axis`
/// receives the ranged axis.
Box coveringBox(const std::vector<int64_t> &shape, int64_t first, int64_t count,
                size_t &axis) {
  size_t r = shape.size();
  std::vector<int64_t> s(r), e(r);
  int64_t a = first, b = first + count - 1;
  for (size_t i = r; i-- > 0;) {
    s[i] = a % shape[i];
    a /= shape[i];
    e[i] = b % shape[i];
    b /= shape[i];
  }
  axis = r ? r - 1 : 0;
  for (size_t i = 0; i < r; ++i)
    if (s[i] != e[i]) {
      axis = i;
      break;
    }
  Box box = Box::whole(shape);
  for (size_t i = 0; i < r; ++i) {
    if (i < axis) {
      box.lo[i] = s[i];
      box.hi[i] = s[i] + 1;
    } else if (i == axis) {
      box.lo[i] = s[i];
      box.hi[i] = e[i] + 1;
    }
  }
  return box;
}

/// The box operand `k` of an elementwise op or batch_norm reads for output
/// box `out`.
Box operandBox(Operation *op, size_t k, const Box &out) {
  Value v = op->getOperand(k);
  if (isa<BatchNormOp>(op) && k > 0) { // scale, bias, mean, var: per channel
    Box b;
    b.lo = {out.lo[1]};
    b.hi = {out.hi[1]};
    return b;
  }
  return broadcastBox(shapeOf(v), out);
}

} // namespace

bool canSlice(Operation *op, std::string &why) {
  if (auto fused = dyn_cast<FusedOp>(op)) {
    for (Operation *inner : fused.getChain()) {
      if (inner->getNumResults() != 1 || inner->getNumRegions() != 0 ||
          !canSlice(inner, why)) {
        why = "plumb.fused: " + why;
        return false;
      }
      if (inner == fused.getChain().front() && isMovement(inner)) {
        why = "plumb.fused: a '" + inner->getName().getStringRef().str() +
              "' head has no sub-node rule";
        return false;
      }
      if (inner != fused.getChain().front() &&
          !(isElementwise(inner) || isa<BatchNormOp>(inner))) {
        why = "plumb.fused: '" + inner->getName().getStringRef().str() +
              "' after the head has no sub-node rule";
        return false;
      }
    }
    return true;
  }
  if (op->getNumResults() != 1 || op->getNumRegions() != 0) {
    why = "an op with " + std::to_string(op->getNumResults()) +
          " results or regions is executed whole";
    return false;
  }
  if (isElementwise(op) || isMovement(op))
    return true;
  if (auto bn = dyn_cast<BatchNormOp>(op)) {
    if (shapeOf(op->getOperand(0)).size() < 2) {
      why = "a batch_norm of rank < 2 is executed whole";
      return false;
    }
    return true;
  }
  if (isa<GemmOp>(op))
    return true;
  if (isa<MatMulOp>(op)) {
    if (shapeOf(op->getOperand(0)).size() < 2 ||
        shapeOf(op->getOperand(1)).size() < 2) {
      why = "a matmul with a vector operand is executed whole";
      return false;
    }
    return true;
  }
  if (auto c = dyn_cast<ConvOp>(op)) {
    size_t r = shapeOf(c.getInput()).size();
    if (r != 3 && r != 4) {
      why = "a conv with other than 1 or 2 spatial dimensions is executed whole";
      return false;
    }
    return true;
  }
  why = "'" + op->getName().getStringRef().str() +
        "' has no sub-node rule and is executed whole";
  return false;
}

namespace {

/// The reads of a slice of an op (not fused) that computes output box `out`
/// (the covering box of the range, ranged along `axis`); each family may
/// widen `out` to what it computes.
struct SliceCtx {
  Operation *op;
  Box out;
  size_t axis;
  std::vector<int64_t> outShape;
  SlicePlan &plan;
};

void planElementwise(SliceCtx &c) {
  c.plan.out = c.out;
  for (auto [k, v] : llvm::enumerate(c.op->getOperands()))
    c.plan.reads.push_back({v, operandBox(c.op, k, c.out)});
}

void planReshape(SliceCtx &c) {
  // The covering box is one run of flat indices [a, a + len) of the output,
  // and so of the input (a reshape keeps the row-major order): the input's
  // covering box of that run.
  c.plan.out = c.out;
  int64_t a = flatIndex(c.outShape, c.out.lo), len = c.out.numElements();
  size_t inAxis;
  c.plan.reads.push_back(
      {c.op->getOperand(0),
       coveringBox(shapeOf(c.op->getOperand(0)), a, len, inAxis)});
}

void planTranspose(SliceCtx &c, TransposeOp t) {
  // Output axis i is input axis perm[i].
  c.plan.out = c.out;
  Box in = Box::whole(shapeOf(t.getInput()));
  for (auto [i, p] : llvm::enumerate(t.getPerm())) {
    in.lo[p] = c.out.lo[i];
    in.hi[p] = c.out.hi[i];
  }
  c.plan.reads.push_back({t.getInput(), in});
}

void planSliceOp(SliceCtx &c, SliceOp sl) {
  // Output index i of axis d reads input index starts[d] + i * steps[d]: the
  // input range those cover, and the starts relative to it.
  c.plan.out = c.out;
  const size_t R = c.outShape.size();
  Box in = Box::whole(shapeOf(sl.getInput()));
  auto starts = sl.getStarts(), steps = sl.getSteps();
  c.plan.sliceStarts.assign(R, 0);
  for (size_t d = 0; d < R; ++d) {
    int64_t x0 = starts[d] + c.out.lo[d] * steps[d];
    int64_t x1 = starts[d] + (c.out.hi[d] - 1) * steps[d];
    in.lo[d] = std::min(x0, x1);
    in.hi[d] = std::max(x0, x1) + 1;
    c.plan.sliceStarts[d] = x0 - in.lo[d];
  }
  c.plan.reads.push_back({sl.getInput(), in});
}

void planConcat(SliceCtx &c, ConcatOp cc) {
  // Along the axis, each operand's part of the output box (an operand
  // outside it reads an empty box).
  c.plan.out = c.out;
  int64_t ax = cc.getAxis(), off = 0;
  for (Value v : cc.getInputs()) {
    std::vector<int64_t> s = shapeOf(v);
    Box b = c.out;
    b.lo[ax] = std::max(c.out.lo[ax], off) - off;
    b.hi[ax] = std::min(c.out.hi[ax], off + s[ax]) - off;
    if (b.hi[ax] < b.lo[ax])
      b.hi[ax] = b.lo[ax] = 0;
    off += s[ax];
    c.plan.reads.push_back({v, b});
  }
}

void planGemm(SliceCtx &c, GemmOp g) {
  // Rows of the output; every column (B is read whole either way).
  Box &out = c.out;
  if (c.axis == 1) {
    out.lo[1] = 0;
    out.hi[1] = c.outShape[1];
  }
  c.plan.out = out;
  std::vector<int64_t> a = shapeOf(g.getA());
  Box ab = Box::whole(a);
  int mAxis = g.getTransA() ? 1 : 0;
  ab.lo[mAxis] = out.lo[0];
  ab.hi[mAxis] = out.hi[0];
  c.plan.reads.push_back({g.getA(), ab});
  c.plan.reads.push_back({g.getB(), Box::whole(shapeOf(g.getB()))});
  if (g.getC()) {
    std::vector<int64_t> cs = shapeOf(g.getC());
    Box cb = Box::whole(cs);
    if (cs.size() == 2 && cs[0] == c.outShape[0] && cs[0] != 1) {
      cb.lo[0] = out.lo[0];
      cb.hi[0] = out.hi[0];
    }
    c.plan.reads.push_back({g.getC(), cb});
  }
}

void planMatMul(SliceCtx &c) {
  // Every column; whole matrices once a batch axis is ranged.
  Box &out = c.out;
  const size_t R = c.outShape.size();
  out.lo[R - 1] = 0;
  out.hi[R - 1] = c.outShape[R - 1];
  if (c.axis < R - 2) {
    out.lo[R - 2] = 0;
    out.hi[R - 2] = c.outShape[R - 2];
  }
  c.plan.out = out;
  for (int k = 0; k < 2; ++k) {
    std::vector<int64_t> s = shapeOf(c.op->getOperand(k));
    size_t r = s.size();
    Box b = Box::whole(s);
    for (size_t i = 0; i + 2 < r; ++i) { // batch axes, broadcast
      size_t o = R - r + i;
      if (s[i] != 1) {
        b.lo[i] = out.lo[o];
        b.hi[i] = out.hi[o];
      }
    }
    if (k == 0) { // rows of A
      b.lo[r - 2] = out.lo[R - 2];
      b.hi[r - 2] = out.hi[R - 2];
    }
    c.plan.reads.push_back({c.op->getOperand(k), b});
  }
}

void planConv(SliceCtx &ctx, ConvOp c) {
  Box &out = ctx.out;
  SlicePlan &plan = ctx.plan;
  const std::vector<int64_t> &outShape = ctx.outShape;
  const size_t R = outShape.size();
  std::vector<int64_t> x = shapeOf(c.getInput()), w = shapeOf(c.getWeight());
  bool twoD = x.size() == 4;
  // Whole output rows (every column of a row); conv1d: whole channels.
  size_t last = R - 1;
  if (ctx.axis == last || !twoD) {
    out.lo[last] = 0;
    out.hi[last] = outShape[last];
  }
  // Output channels: with groups, widened to whole groups (a slice must
  // have the same channels per group).
  int64_t group = c.getGroup();
  int64_t cog = outShape[1] / group, cig = x[1] / group;
  int64_t g0 = 0, g1 = 1;
  if (group > 1) {
    g0 = out.lo[1] / cog;
    g1 = (out.hi[1] + cog - 1) / cog;
    out.lo[1] = g0 * cog;
    out.hi[1] = g1 * cog;
  }
  plan.out = out;
  auto s = c.getStrides(), p = c.getPads(), d = c.getDilations();
  Box xb = Box::whole(x);
  xb.lo[0] = out.lo[0];
  xb.hi[0] = out.hi[0];
  if (group > 1) {
    xb.lo[1] = g0 * cig;
    xb.hi[1] = g1 * cig;
  }
  plan.convPads.assign(p.begin(), p.end());
  if (twoD) {
    int64_t H = x[2], kh = w[2];
    int64_t h0 = out.lo[2], h1 = out.hi[2];
    int64_t keff = (kh - 1) * d[0] + 1;
    int64_t want0 = h0 * s[0] - p[0];
    int64_t want1 = (h1 - 1) * s[0] - p[0] + keff; // one past the last row
    int64_t r0 = std::max<int64_t>(0, want0), r1 = std::min<int64_t>(H, want1);
    if (r1 < r0)
      r1 = r0;
    xb.lo[2] = r0;
    xb.hi[2] = r1;
    int64_t padTop = r0 - want0;
    int64_t oh = h1 - h0;
    int64_t padBottom = (oh - 1) * s[0] + keff - (r1 - r0) - padTop;
    plan.convPads[0] = padTop;
    plan.convPads[2] = std::max<int64_t>(0, padBottom);
  }
  plan.convGroup = g1 - g0;
  Box wb = Box::whole(w);
  wb.lo[0] = out.lo[1];
  wb.hi[0] = out.hi[1];
  plan.reads.push_back({c.getInput(), xb});
  plan.reads.push_back({c.getWeight(), wb});
  if (c.getBias()) {
    Box bb;
    bb.lo = {out.lo[1]};
    bb.hi = {out.hi[1]};
    plan.reads.push_back({c.getBias(), bb});
  }
}

} // namespace

bool planSlice(Operation *op, int64_t first, int64_t count, SlicePlan &plan,
               std::string &why) {
  if (!canSlice(op, why))
    return false;
  std::vector<int64_t> outShape = shapeOf(op->getResult(0));
  int64_t total = 1;
  for (int64_t d : outShape)
    total *= d;
  if (count <= 0 || first < 0 || first + count > total) {
    why = "the element range is outside the result";
    return false;
  }
  size_t axis;
  Box out = coveringBox(outShape, first, count, axis);
  plan = SlicePlan();

  if (auto fused = dyn_cast<FusedOp>(op)) {
    // The head decides the output box; every later body op computes the
    // same box (it has the result's shape), reading the broadcast or
    // per-channel parts of its other operands.
    SmallVector<Operation *> chain = fused.getChain();
    if (!planSlice(chain.front(), first, count, plan, why))
      return false;
    Value prev = chain.front()->getResult(0);
    for (Operation *inner : llvm::drop_begin(chain)) {
      for (auto [k, v] : llvm::enumerate(inner->getOperands())) {
        if (v == prev)
          continue;
        plan.reads.push_back({v, operandBox(inner, k, plan.out)});
      }
      prev = inner->getResult(0);
    }
    return true;
  }

  SliceCtx c{op, out, axis, outShape, plan};
  if (isElementwise(op) || isa<BatchNormOp>(op))
    planElementwise(c);
  else if (isa<ReshapeOp>(op))
    planReshape(c);
  else if (auto t = dyn_cast<TransposeOp>(op))
    planTranspose(c, t);
  else if (auto sl = dyn_cast<SliceOp>(op))
    planSliceOp(c, sl);
  else if (auto cc = dyn_cast<ConcatOp>(op))
    planConcat(c, cc);
  else if (auto g = dyn_cast<GemmOp>(op))
    planGemm(c, g);
  else if (isa<MatMulOp>(op))
    planMatMul(c);
  else
    planConv(c, cast<ConvOp>(op));
  return true;
}

std::vector<std::pair<int64_t, int64_t>>
boxRuns(const std::vector<int64_t> &shape, const Box &b) {
  std::vector<std::pair<int64_t, int64_t>> runs;
  size_t r = shape.size();
  if (b.numElements() == 0)
    return runs;
  if (r == 0) {
    runs.push_back({0, 1});
    return runs;
  }
  std::vector<int64_t> stride(r, 1);
  for (size_t i = r - 1; i-- > 0;)
    stride[i] = stride[i + 1] * shape[i + 1];
  // Axes from `inner` on are whole (except possibly `inner` itself): each
  // combination of the outer indices is one contiguous run.
  size_t inner = r - 1;
  while (inner > 0 && b.lo[inner] == 0 && b.hi[inner] == shape[inner])
    --inner;
  int64_t runLen = (b.hi[inner] - b.lo[inner]) * stride[inner];
  std::vector<int64_t> idx(b.lo.begin(), b.lo.begin() + inner);
  while (true) {
    int64_t start = b.lo[inner] * stride[inner];
    for (size_t i = 0; i < inner; ++i)
      start += idx[i] * stride[i];
    if (!runs.empty() && runs.back().second == start)
      runs.back().second += runLen;
    else
      runs.push_back({start, start + runLen});
    size_t i = inner;
    while (i > 0) {
      --i;
      if (++idx[i] < b.hi[i])
        break;
      idx[i] = b.lo[i];
      if (i == 0)
        return runs;
    }
    if (inner == 0)
      return runs;
  }
}

exec::Tensor extractBox(const exec::Tensor &t, const Box &b) {
  exec::Tensor out = exec::Tensor::make(t.type, b.shape());
  size_t es = exec::elemSize(t.type);
  auto *dst = static_cast<uint8_t *>(out.raw());
  const auto *src = static_cast<const uint8_t *>(t.raw());
  for (auto [lo, hi] : boxRuns(t.shape, b)) {
    std::memcpy(dst, src + lo * es, (size_t)(hi - lo) * es);
    dst += (hi - lo) * es;
  }
  return out;
}

/// Runs one op (not fused) on its operand parts, giving `shape`.
static bool runSliced(Operation *op, const std::vector<int64_t> &shape,
                      const SlicePlan &plan,
                      llvm::ArrayRef<const exec::Tensor *> parts,
                      exec::Tensor &out, std::string &err) {
  // A detached copy of the op with the sliced operand and result types
  // (and, for conv, the pads and group of the slice).
  auto rt = cast<RankedTensorType>(op->getResult(0).getType());
  if (isa<ReshapeOp>(op)) {
    // The input part is the covering box of the output's flat run, itself
    // one flat run of the input: the copy is a window of it.
    std::vector<int64_t> inShape = shapeOf(op->getOperand(0));
    const Box &in = plan.reads[0].second;
    int64_t a = flatIndex(shapeOf(op->getResult(0)), plan.out.lo);
    int64_t skip = a - flatIndex(inShape, in.lo);
    out = exec::Tensor::make(parts[0]->type, shape);
    size_t es = exec::elemSize(out.type);
    if (skip < 0 || skip + out.numElements() > parts[0]->numElements()) {
      err = "internal error: the reshape's input part does not cover it";
      return false;
    }
    std::memcpy(out.raw(), static_cast<const char *>(parts[0]->raw()) + skip * es,
                out.byteSize());
    return true;
  }
  // The clone's operands are arguments of a detached block typed as the
  // parts (an op's kernel calls read the shapes from its types).
  Block detached;
  IRMapping map;
  for (auto [k, v] : llvm::enumerate(op->getOperands())) {
    auto t = cast<RankedTensorType>(v.getType());
    map.map(v, detached.addArgument(
                   RankedTensorType::get(parts[k]->shape, t.getElementType()),
                   v.getLoc()));
  }
  Operation *clone = op->clone(map);
  std::vector<const exec::Tensor *> kept(parts.begin(), parts.end());
  clone->getResult(0).setType(RankedTensorType::get(shape, rt.getElementType()));
  if (isa<ConvOp>(op)) {
    Builder b(op->getContext());
    clone->setAttr("pads", b.getDenseI64ArrayAttr(plan.convPads));
    clone->setAttr("group", b.getI64IntegerAttr(plan.convGroup));
  }
  if (isa<SliceOp>(op)) {
    Builder b(op->getContext());
    clone->setAttr("starts", b.getDenseI64ArrayAttr(plan.sliceStarts));
  }
  if (isa<ConcatOp>(op)) {
    // Only the operands with a part in the output box.
    llvm::BitVector drop(parts.size());
    kept.clear();
    for (size_t k = 0; k < parts.size(); ++k) {
      if (parts[k]->numElements() == 0)
        drop.set(k);
      else
        kept.push_back(parts[k]);
    }
    clone->eraseOperands(drop);
  }
  std::vector<exec::Tensor> results;
  bool ok = exec::executeOp(clone, kept, results, err);
  clone->destroy();
  if (!ok)
    return false;
  if (results.size() != 1 || results[0].shape != shape) {
    err = "internal error: the sliced op computed another shape";
    return false;
  }
  out = std::move(results[0]);
  return true;
}

bool executeSlice(Operation *op, const SlicePlan &plan,
                  llvm::ArrayRef<const exec::Tensor *> parts, exec::Tensor &out,
                  std::string &err) {
  if (parts.size() != plan.reads.size()) {
    err = "internal error: wrong number of operand parts";
    return false;
  }
  std::vector<int64_t> shape = plan.out.shape();
  auto fused = dyn_cast<FusedOp>(op);
  if (!fused)
    return runSliced(op, shape, plan, parts, out, err);
  // The chain, op by op on the same box, as the interpreter runs it whole.
  size_t next = 0;
  exec::Tensor prev;
  Value prevValue;
  for (Operation *inner : fused.getChain()) {
    std::vector<const exec::Tensor *> ins;
    for (Value v : inner->getOperands()) {
      if (prevValue && v == prevValue) {
        ins.push_back(&prev);
      } else {
        if (next >= parts.size()) {
          err = "internal error: too few operand parts";
          return false;
        }
        ins.push_back(parts[next++]);
      }
    }
    exec::Tensor r;
    if (!runSliced(inner, shape, plan, ins, r, err))
      return false;
    prev = std::move(r);
    prevValue = inner->getResult(0);
  }
  out = std::move(prev);
  return true;
}

exec::Tensor gatherRange(const exec::Tensor &outBox, const Box &b,
                         const std::vector<int64_t> &shape, int64_t first,
                         int64_t count) {
  exec::Tensor r = exec::Tensor::make(outBox.type, {count});
  size_t es = exec::elemSize(outBox.type), rank = shape.size();
  auto *dst = static_cast<uint8_t *>(r.raw());
  const auto *src = static_cast<const uint8_t *>(outBox.raw());
  if (count == 0)
    return r;
  if (rank == 0) {
    std::memcpy(dst, src, es);
    return r;
  }
  // Row by row (the range is consecutive along the innermost dimension, and
  // so is the box): the multi-index of `first` once, then a counter, not a
  // division per element.
  std::vector<int64_t> bshape = b.shape(), idx(rank);
  for (size_t i = rank, f = (size_t)first; i-- > 0;) {
    idx[i] = (int64_t)(f % (size_t)shape[i]);
    f /= (size_t)shape[i];
  }
  for (int64_t k = 0; k < count;) {
    int64_t off = 0;
    for (size_t i = 0; i < rank; ++i)
      off = off * bshape[i] + (idx[i] - b.lo[i]);
    int64_t run = std::min(shape[rank - 1] - idx[rank - 1], count - k);
    std::memcpy(dst + k * es, src + off * es, (size_t)run * es);
    k += run;
    idx[rank - 1] += run;
    for (size_t i = rank - 1; i > 0 && idx[i] == shape[i]; --i)
      idx[i] = 0, ++idx[i - 1];
  }
  return r;
}

} // namespace dispute
} // namespace plumb
