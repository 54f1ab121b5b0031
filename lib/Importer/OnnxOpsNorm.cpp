//===- lib/Importer/OnnxOpsNorm.cpp - ONNX operators: Einsum, norms -------===//
//
// Part of Plumb. Operators composed at import from existing plumb ops:
// Einsum (transpose / reshape / slice / reduce_sum / mul / matmul), the
// normalisations LpNormalization, MeanVarianceNormalization,
// RMSNormalization and GroupNormalization, LpPool (a depthwise conv of
// ones) and Hardmax (arg_max, equal, cast). A composition only moves bits
// or applies ops whose semantics are already in the contract; the exact
// operation order of each one is written in docs/determinism.md
// ("Operators composed at import").
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

#include <cmath>

using namespace mlir;

namespace plumb {
namespace importer {

void registerNormHandlers(OpTable &t);

namespace {

using Shape = shapes::Shape;

LogicalResult needFloat(Importer &im, NodeCtx &n, Value v, int64_t i) {
  if (!Importer::eltOf(v).isF32())
    return im.error(n) << "input " << i << " must be a float tensor, got "
                       << Importer::eltOf(v);
  return success();
}

FailureOr<Value> transposeTo(Importer &im, NodeCtx &n, Value v,
                             ArrayRef<int64_t> perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity &= perm[i] == (int64_t)i;
  if (identity)
    return v;
  auto s = shapes::transpose(Importer::shapeOf(v), perm, im.emitter(n));
  if (failed(s))
    return failure();
  return im.make<TransposeOp>(n, withShape(v, *s), v,
                              im.b.getDenseI64ArrayAttr(perm));
}

/// A binary op whose result has the broadcast shape of its operands.
template <typename OpTy>
FailureOr<Value> binary(Importer &im, NodeCtx &n, FailureOr<Value> a,
                        FailureOr<Value> b, Type elt = {}) {
  if (failed(a) || failed(b))
    return failure();
  auto s = shapes::broadcast({Importer::shapeOf(*a), Importer::shapeOf(*b)},
                             im.emitter(n));
  if (failed(s))
    return failure();
  return im.make<OpTy>(
      n, Importer::tensorType(*s, elt ? elt : Importer::eltOf(*a)), *a, *b);
}

template <typename OpTy>
FailureOr<Value> unary(Importer &im, NodeCtx &n, FailureOr<Value> v) {
  if (failed(v))
    return failure();
  return im.make<OpTy>(n, v->getType(), *v);
}

Value scalarF32(Importer &im, float v) {
  auto t = RankedTensorType::get({}, im.b.getF32Type());
  return im.constantOf(DenseElementsAttr::get(t, v));
}

/// `OpTy` (reduce_sum / reduce_mean) of v over `axes` (sorted, unique),
/// with the node's (default) tree.
template <typename OpTy>
FailureOr<Value> reduce(Importer &im, NodeCtx &n, FailureOr<Value> v,
                        ArrayRef<int64_t> axes, bool keep) {
  if (failed(v))
    return failure();
  if (axes.empty())
    return *v;
  auto s = shapes::reduce(Importer::shapeOf(*v), axes, keep, im.emitter(n));
  if (failed(s))
    return failure();
  return im.make<OpTy>(n, withShape(*v, *s), *v,
                       im.b.getDenseI64ArrayAttr(axes), im.b.getBoolAttr(keep),
                       TreeAttr());
}

int64_t product(ArrayRef<int64_t> s) {
  int64_t p = 1;
  for (int64_t d : s)
    p *= d;
  return p;
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

/// Labels are small integers: letters 'A'..'Z', 'a'..'z' are their ASCII
/// codes; the dimensions an ellipsis stands for are kEllipsis + j (j = 0 for
/// the leftmost of the broadcast ellipsis dimensions).
constexpr int kEllipsis = 1000;

using Labels = SmallVector<int, 8>;

std::string labelName(int l) {
  if (l >= kEllipsis)
    return "... dimension " + std::to_string(l - kEllipsis);
  return std::string("'") + (char)l + "'";
}

/// One term of the equation: its letters, and where the ellipsis was
/// (-1: none), as the index of the first letter after it.
struct Term {
  Labels letters;
  int ellipsisAt = -1;
};

FailureOr<Term> parseTerm(Importer &im, NodeCtx &n, StringRef s) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      if (s.substr(i, 3) != "..." || t.ellipsisAt >= 0)
        return im.error(n) << "equation term '" << s
                           << "' has a '.' that is not one '...'";
      t.ellipsisAt = t.letters.size();
      i += 2;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      t.letters.push_back(c);
    } else {
      return im.error(n) << "equation term '" << s << "' has the character '"
                         << c << "' (labels are letters)";
    }
  }
  return t;
}

/// The labels of a term with `ell` ellipsis dimensions out of `total`
/// (broadcast, right-aligned).
Labels expand(const Term &t, int64_t ell, int64_t total) {
  Labels l;
  for (int i = 0; i <= (int)t.letters.size(); ++i) {
    if (i == t.ellipsisAt)
      for (int64_t j = total - ell; j < total; ++j)
        l.push_back(kEllipsis + j);
    if (i < (int)t.letters.size())
      l.push_back(t.letters[i]);
  }
  return l;
}

/// An operand on its way through the contraction: its value and one label
/// per dimension.
struct Operand {
  Value v;
  Labels labels;
};

/// Repeated labels within one operand take the diagonal: the two dimensions
/// are transposed to the end, merged (reshape) and every (n+1)-th element
/// kept (slice): only moves bits.
LogicalResult takeDiagonals(Importer &im, NodeCtx &n, Operand &o) {
  for (;;) {
    int p = -1, q = -1;
    for (int i = 0; i < (int)o.labels.size() && p < 0; ++i)
      for (int j = i + 1; j < (int)o.labels.size(); ++j)
        if (o.labels[i] == o.labels[j]) {
          p = i, q = j;
          break;
        }
    if (p < 0)
      return success();
    auto s = Importer::shapeOf(o.v);
    if (s[p] != s[q])
      return im.error(n) << "label " << labelName(o.labels[p])
                         << " is repeated in one operand with sizes " << s[p]
                         << " and " << s[q]
                         << " (a diagonal needs equal sizes)";
    int64_t len = s[p];
    SmallVector<int64_t> perm;
    Labels rest;
    Shape mid;
    for (int i = 0; i < (int)s.size(); ++i)
      if (i != p && i != q) {
        perm.push_back(i);
        rest.push_back(o.labels[i]);
        mid.push_back(s[i]);
      }
    perm.push_back(p);
    perm.push_back(q);
    auto t = transposeTo(im, n, o.v, perm);
    if (failed(t))
      return failure();
    mid.push_back(len * len);
    auto flat = reshapeOrSame(im, n, *t, mid);
    if (failed(flat))
      return failure();
    Shape out(mid);
    out.back() = len;
    SmallVector<int64_t> starts(out.size(), 0), steps(out.size(), 1);
    steps.back() = len + 1;
    auto d = im.make<SliceOp>(n, withShape(o.v, out), *flat,
                              im.b.getDenseI64ArrayAttr(starts),
                              im.b.getDenseI64ArrayAttr(steps));
    if (failed(d))
      return failure();
    rest.push_back(o.labels[p]);
    o.v = *d;
    o.labels = rest;
  }
}

/// Sums (reduce_sum, keepdims = 0) the dimensions whose labels `drop`
/// selects, in row-major order of those dimensions.
template <typename Pred>
LogicalResult sumOut(Importer &im, NodeCtx &n, Operand &o, Pred drop) {
  SmallVector<int64_t> axes;
  Labels rest;
  for (int i = 0; i < (int)o.labels.size(); ++i) {
    if (drop(o.labels[i]))
      axes.push_back(i);
    else
      rest.push_back(o.labels[i]);
  }
  if (axes.empty())
    return success();
  auto r = reduce<ReduceSumOp>(im, n, o.v, axes, false);
  if (failed(r))
    return failure();
  o.v = *r;
  o.labels = rest;
  return success();
}

bool has(ArrayRef<int> ls, int l) { return llvm::is_contained(ls, l); }

/// o transposed so that its labels read `order` (a permutation of them).
LogicalResult permuteTo(Importer &im, NodeCtx &n, Operand &o,
                        ArrayRef<int> order) {
  SmallVector<int64_t> perm;
  for (int l : order)
    perm.push_back(llvm::find(o.labels, l) - o.labels.begin());
  auto t = transposeTo(im, n, o.v, perm);
  if (failed(t))
    return failure();
  o.v = *t;
  o.labels.assign(order.begin(), order.end());
  return success();
}

/// Contracts a and b into the labels `keep` needs: labels of one operand
/// that nothing later needs are summed first; then, with no label to
/// contract, a broadcast mul; otherwise a matmul of [batch, M, K] by
/// [batch, K, N] (K: the labels of both that nothing later needs, merged
/// in the order of a).
FailureOr<Operand> contract(Importer &im, NodeCtx &n, Operand a, Operand b,
                            ArrayRef<int> keep) {
  auto onlyHere = [&](const Operand &other) {
    return [&, other](int l) { return !has(other.labels, l) && !has(keep, l); };
  };
  if (failed(sumOut(im, n, a, onlyHere(b))) ||
      failed(sumOut(im, n, b, onlyHere(a))))
    return failure();
  Labels batch, m, k, nn;
  for (int l : a.labels) {
    if (has(b.labels, l))
      (has(keep, l) ? batch : k).push_back(l);
    else
      m.push_back(l);
  }
  for (int l : b.labels)
    if (!has(a.labels, l))
      nn.push_back(l);
  auto sizeOf = [&](const Operand &o, int l) {
    return Importer::shapeOf(o.v)[llvm::find(o.labels, l) - o.labels.begin()];
  };
  auto sizes = [&](const Operand &o, ArrayRef<int> ls) {
    Shape s;
    for (int l : ls)
      s.push_back(sizeOf(o, l));
    return s;
  };
  Labels aOrder(batch), bOrder(batch);
  Shape bs = sizes(a, batch), ms = sizes(a, m), ns = sizes(b, nn);
  Operand r;
  r.labels = batch;
  r.labels.append(m.begin(), m.end());
  r.labels.append(nn.begin(), nn.end());
  Shape rs(bs);
  rs.append(ms.begin(), ms.end());
  rs.append(ns.begin(), ns.end());
  if (k.empty()) {
    // Outer products along M and N, elementwise along the batch labels.
    aOrder.append(m.begin(), m.end());
    bOrder.append(nn.begin(), nn.end());
    if (failed(permuteTo(im, n, a, aOrder)) ||
        failed(permuteTo(im, n, b, bOrder)))
      return failure();
    Shape as(bs), bsh(bs);
    as.append(ms.begin(), ms.end());
    as.append(nn.size(), 1);
    bsh.append(m.size(), 1);
    bsh.append(ns.begin(), ns.end());
    auto p = binary<MulOp>(im, n, reshapeOrSame(im, n, a.v, as),
                           reshapeOrSame(im, n, b.v, bsh));
    if (failed(p))
      return failure();
    r.v = *p;
    return r;
  }
  Shape ks = sizes(a, k);
  aOrder.append(m.begin(), m.end());
  aOrder.append(k.begin(), k.end());
  if (!Importer::eltOf(a.v).isF32()) {
    // Integers: the broadcast products [batch, M, N, K] summed over K
    // (wrapping adds are exact and order-free).
    bOrder.append(nn.begin(), nn.end());
    bOrder.append(k.begin(), k.end());
    if (failed(permuteTo(im, n, a, aOrder)) ||
        failed(permuteTo(im, n, b, bOrder)))
      return failure();
    Shape as(bs), bsh(bs);
    as.append(ms.begin(), ms.end());
    as.append(nn.size(), 1);
    as.append(ks.begin(), ks.end());
    bsh.append(m.size(), 1);
    bsh.append(ns.begin(), ns.end());
    bsh.append(ks.begin(), ks.end());
    auto p = binary<MulOp>(im, n, reshapeOrSame(im, n, a.v, as),
                           reshapeOrSame(im, n, b.v, bsh));
    SmallVector<int64_t> kaxes;
    for (size_t i = 0; i < k.size(); ++i)
      kaxes.push_back(rs.size() + i);
    auto sum = reduce<ReduceSumOp>(im, n, p, kaxes, false);
    if (failed(sum))
      return failure();
    r.v = *sum;
    return r;
  }
  bOrder.append(k.begin(), k.end());
  bOrder.append(nn.begin(), nn.end());
  if (failed(permuteTo(im, n, a, aOrder)) ||
      failed(permuteTo(im, n, b, bOrder)))
    return failure();
  Shape a3, b3, c3;
  if (!batch.empty())
    a3.push_back(product(bs)), b3.push_back(product(bs)),
        c3.push_back(product(bs));
  a3.append({product(ms), product(ks)});
  b3.append({product(ks), product(ns)});
  c3.append({product(ms), product(ns)});
  auto la = reshapeOrSame(im, n, a.v, a3);
  auto lb = reshapeOrSame(im, n, b.v, b3);
  if (failed(la) || failed(lb))
    return failure();
  auto mm = im.make<MatMulOp>(n, withShape(a.v, c3), *la, *lb, TreeAttr());
  if (failed(mm))
    return failure();
  auto out = reshapeOrSame(im, n, *mm, rs);
  if (failed(out))
    return failure();
  r.v = *out;
  return r;
}

/// Einsum (opset 12), float32, int64 or int32 (integers contract by a
/// broadcast mul and reduce_sum instead of matmul). The equation has explicit ('->') or implicit
/// output (the labels that occur once, in ASCII order, after the ellipsis
/// dimensions); '...' broadcasts right-aligned; a label of size 1 in one
/// operand broadcasts against a larger size elsewhere; repeated labels in
/// one operand take the diagonal. Operands are contracted left to right.
LogicalResult einsum(Importer &im, NodeCtx &n) {
  if (n.numInputs() < 1)
    return im.error(n) << "needs at least one input";
  for (int64_t i = 0; i < n.numInputs(); ++i) {
    if (!n.in(i))
      return im.error(n) << "inputs may not be omitted";
    Type e = Importer::eltOf(n.in(i));
    if (!e.isF32() && !e.isInteger(64) && !e.isInteger(32))
      return im.error(n) << "input " << i
                         << " must be a float, int64 or int32 tensor, got "
                         << e;
    if (e != Importer::eltOf(n.in(0)))
      return im.error(n) << "operand element types differ: "
                         << Importer::eltOf(n.in(0)) << " and " << e;
  }
  auto eqAttr = im.attrString(n, "equation", std::nullopt);
  if (failed(eqAttr))
    return failure();
  std::string eq;
  for (char c : *eqAttr)
    if (c != ' ' && c != '\t')
      eq.push_back(c);
  StringRef lhs = eq, rhs;
  size_t arrow = lhs.find("->");
  bool explicitOut = arrow != StringRef::npos;
  if (explicitOut) {
    rhs = lhs.substr(arrow + 2);
    lhs = lhs.substr(0, arrow);
    if (rhs.contains("->"))
      return im.error(n) << "equation '" << *eqAttr << "' has two '->'";
  }
  SmallVector<StringRef> termText;
  lhs.split(termText, ',');
  if ((int64_t)termText.size() != n.numInputs())
    return im.error(n) << "equation '" << *eqAttr << "' has "
                       << termText.size() << " input terms for "
                       << n.numInputs() << " inputs";
  // Terms, ellipsis ranks, labels.
  SmallVector<Operand> ops;
  SmallVector<Term> terms;
  SmallVector<int64_t> ellRank;
  int64_t ell = 0;
  for (size_t i = 0; i < termText.size(); ++i) {
    auto t = parseTerm(im, n, termText[i]);
    if (failed(t))
      return failure();
    int64_t rank = Importer::shapeOf(n.in(i)).size();
    int64_t e = rank - (int64_t)t->letters.size();
    if (t->ellipsisAt < 0 ? e != 0 : e < 0)
      return im.error(n) << "equation term '" << termText[i] << "' has "
                         << t->letters.size() << " labels for input " << i
                         << " of rank " << rank;
    terms.push_back(*t);
    ellRank.push_back(e);
    ell = std::max(ell, e);
  }
  std::map<int, int64_t> size;
  std::map<int, int> count;
  // int32 computes in int64 (the kernels reduce int64, not int32) and is
  // cast back, keeping the low 32 bits: the same wrapped products and sums.
  Type elt = Importer::eltOf(n.in(0)), i64 = im.b.getI64Type();
  bool narrow = elt.isInteger(32);
  for (size_t i = 0; i < terms.size(); ++i) {
    Value v = n.in(i);
    if (narrow) {
      auto w = im.make<CastOp>(
          n, Importer::tensorType(Importer::shapeOf(v), i64), v);
      if (failed(w))
        return failure();
      v = *w;
    }
    Operand o{v, expand(terms[i], ellRank[i], ell)};
    auto s = Importer::shapeOf(o.v);
    for (size_t d = 0; d < s.size(); ++d) {
      int l = o.labels[d];
      ++count[l];
      auto it = size.find(l);
      if (it == size.end() || it->second == 1)
        size[l] = s[d];
      else if (s[d] != 1 && s[d] != it->second)
        return im.error(n) << "label " << labelName(l) << " has sizes "
                           << it->second << " and " << s[d];
    }
    ops.push_back(o);
  }
  // The output labels.
  Labels out;
  if (explicitOut) {
    auto t = parseTerm(im, n, rhs);
    if (failed(t))
      return failure();
    if (t->ellipsisAt < 0 && ell > 0)
      return im.error(n) << "equation '" << *eqAttr
                         << "': the inputs have '...' dimensions but the "
                            "output has no '...'";
    out = expand(*t, t->ellipsisAt < 0 ? 0 : ell, ell);
    for (size_t i = 0; i < out.size(); ++i) {
      if (!count.count(out[i]))
        return im.error(n) << "output label " << labelName(out[i])
                           << " is in no input";
      for (size_t j = 0; j < i; ++j)
        if (out[j] == out[i])
          return im.error(n) << "output label " << labelName(out[i])
                             << " is repeated";
    }
  } else {
    for (int64_t j = 0; j < ell; ++j)
      out.push_back(kEllipsis + j);
    for (auto [l, c] : count)
      if (l < kEllipsis && c == 1)
        out.push_back(l);
  }
  // Diagonals, then size-1 dimensions that broadcast against a larger one
  // (reshaped away: a broadcast operand is the same along that label).
  for (Operand &o : ops) {
    if (failed(takeDiagonals(im, n, o)))
      return failure();
    Shape s(Importer::shapeOf(o.v)), kept;
    Labels ls;
    for (size_t d = 0; d < s.size(); ++d)
      if (!(s[d] == 1 && size[o.labels[d]] != 1)) {
        kept.push_back(s[d]);
        ls.push_back(o.labels[d]);
      }
    if (ls.size() != o.labels.size()) {
      auto r = reshapeOrSame(im, n, o.v, kept);
      if (failed(r))
        return failure();
      o.v = *r;
      o.labels = ls;
    }
  }
  // Contract left to right; each step keeps the labels of the output and
  // of the operands still to come.
  Operand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    Labels keep(out);
    for (size_t j = i + 1; j < ops.size(); ++j)
      keep.append(ops[j].labels.begin(), ops[j].labels.end());
    auto c = contract(im, n, acc, ops[i], keep);
    if (failed(c))
      return failure();
    acc = *c;
  }
  if (failed(sumOut(im, n, acc, [&](int l) { return !has(out, l); })))
    return failure();
  // Every output label is still here: a size-1 dimension was only dropped
  // where another operand has the label at its full size.
  if (failed(permuteTo(im, n, acc, out)))
    return failure();
  if (narrow)
    return setOut(n, im.make<CastOp>(
                         n, Importer::tensorType(Importer::shapeOf(acc.v), elt),
                         acc.v));
  return setOut(n, acc.v);
}

//===----------------------------------------------------------------------===//
// Hardmax
//===----------------------------------------------------------------------===//

/// Hardmax: cast(arg_max(x, axis, keepdims) == iota along the axis), so 1.0
/// at the first maximum (the first NaN when there is one, arg_max's rule)
/// and +0.0 elsewhere. Before opset 13 the input is coerced to 2-D at
/// `axis` (default 1) and reshaped back.
LogicalResult hardmax(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(needFloat(im, n, n.in(0), 0)))
    return failure();
  bool old = n.opset < 13;
  auto axis = im.attrInt(n, "axis", old ? 1 : -1);
  if (failed(axis))
    return failure();
  Value x = n.in(0);
  Shape s(Importer::shapeOf(x));
  if (s.empty())
    return im.error(n) << "expects a tensor of rank >= 1";
  auto a = shapes::normalizeAxis(*axis, s.size(), im.emitter(n));
  if (failed(a))
    return failure();
  Value v = x;
  int64_t ax = *a;
  if (old) {
    Shape two = {product(ArrayRef<int64_t>(s).take_front(ax)),
                 product(ArrayRef<int64_t>(s).drop_front(ax))};
    auto r = reshapeOrSame(im, n, x, two);
    if (failed(r))
      return failure();
    v = *r;
    ax = 1;
  }
  Shape vs(Importer::shapeOf(v)), kept(vs), iotaShape(vs.size(), 1);
  kept[ax] = 1;
  iotaShape[ax] = vs[ax];
  Type i64 = im.b.getI64Type(), i1 = im.b.getI1Type();
  auto am = im.make<ArgMaxOp>(n, Importer::tensorType(kept, i64), v,
                              im.b.getI64IntegerAttr(ax), im.b.getBoolAttr(true),
                              im.b.getBoolAttr(false));
  SmallVector<int64_t> iota(vs[ax]);
  for (int64_t k = 0; k < vs[ax]; ++k)
    iota[k] = k;
  auto hit = binary<EqualOp>(im, n, am, im.constI64(iotaShape, iota), i1);
  if (failed(hit))
    return failure();
  auto y = im.make<CastOp>(n, Importer::tensorType(vs, im.b.getF32Type()), *hit);
  if (failed(y))
    return failure();
  return setOut(n, reshapeOrSame(im, n, *y, s));
}

//===----------------------------------------------------------------------===//
// Normalisations
//===----------------------------------------------------------------------===//

/// LpNormalization (opset 1, 22): p = 1: n = reduce_sum(abs(x)), p = 2:
/// n = sqrt(reduce_sum(x * x)) along `axis` (keepdims); y = x / n, and +0
/// where n == 0 (as onnxruntime: a zero row stays zero, not NaN).
LogicalResult lpNormalization(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(needFloat(im, n, n.in(0), 0)))
    return failure();
  auto axis = im.attrInt(n, "axis", -1);
  auto p = im.attrInt(n, "p", 2);
  if (failed(axis) || failed(p))
    return failure();
  if (*p != 1 && *p != 2)
    return im.error(n) << "p must be 1 or 2, got " << *p;
  Value x = n.in(0);
  auto s = Importer::shapeOf(x);
  auto a = shapes::normalizeAxis(*axis, s.size(), im.emitter(n));
  if (failed(a))
    return failure();
  FailureOr<Value> norm =
      *p == 1 ? reduce<ReduceSumOp>(im, n, unary<AbsOp>(im, n, x), {*a}, true)
              : unary<SqrtOp>(im, n,
                              reduce<ReduceSumOp>(
                                  im, n, binary<MulOp>(im, n, x, x), {*a}, true));
  auto q = binary<DivOp>(im, n, x, norm);
  auto zero = binary<EqualOp>(im, n, norm, scalarF32(im, 0.0f), im.b.getI1Type());
  if (failed(q) || failed(zero))
    return failure();
  return setOut(n, im.make<WhereOp>(n, x.getType(), *zero, scalarF32(im, 0.0f),
                                    *q));
}

/// MeanVarianceNormalization (opset 9, 13), ONNX's function body: m =
/// reduce_mean(x), v = reduce_mean(x * x) - m * m, y = (x - m) /
/// (sqrt(v) + 1e-9) over `axes` (default [0, 2, 3]). Pow(·, 2) is the
/// square rounded once, x * x.
LogicalResult meanVarianceNormalization(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(needFloat(im, n, n.in(0), 0)))
    return failure();
  auto axesAttr = im.attrInts(n, "axes", SmallVector<int64_t>{0, 2, 3});
  if (failed(axesAttr))
    return failure();
  Value x = n.in(0);
  auto s = Importer::shapeOf(x);
  SmallVector<int64_t> axes;
  for (int64_t a : *axesAttr) {
    auto na = shapes::normalizeAxis(a, s.size(), im.emitter(n));
    if (failed(na))
      return failure();
    axes.push_back(*na);
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  auto m = reduce<ReduceMeanOp>(im, n, x, axes, true);
  auto m2 = binary<MulOp>(im, n, m, m);
  auto ex2 = reduce<ReduceMeanOp>(im, n, binary<MulOp>(im, n, x, x), axes, true);
  auto var = binary<SubOp>(im, n, ex2, m2);
  auto sd = binary<AddOp>(im, n, unary<SqrtOp>(im, n, var),
                          scalarF32(im, 1e-9f));
  return setOut(n, binary<DivOp>(im, n, binary<SubOp>(im, n, x, m), sd));
}

LogicalResult stashType(Importer &im, NodeCtx &n) {
  auto st = im.attrInt(n, "stash_type", 1);
  if (failed(st))
    return failure();
  if (*st != 1)
    return im.error(n) << "stash_type " << *st
                       << " is not supported (only 1, float32)";
  return success();
}

/// RMSNormalization (opset 23), ONNX's function body: over the axes from
/// `axis` to the last, r = sqrt(reduce_mean(x * x) + epsilon); y = (x / r) *
/// scale (scale broadcast to X).
LogicalResult rmsNormalization(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)) || failed(needFloat(im, n, n.in(0), 0)) ||
      failed(needFloat(im, n, n.in(1), 1)) || failed(stashType(im, n)))
    return failure();
  auto axis = im.attrInt(n, "axis", -1);
  auto eps = im.attrFloat(n, "epsilon", 1e-5f);
  if (failed(axis) || failed(eps))
    return failure();
  Value x = n.in(0), scale = n.in(1);
  auto s = Importer::shapeOf(x);
  auto a = shapes::normalizeAxis(*axis, s.size(), im.emitter(n));
  if (failed(a))
    return failure();
  auto b = shapes::broadcast({s, Importer::shapeOf(scale)}, im.emitter(n));
  if (failed(b))
    return failure();
  if (ArrayRef<int64_t>(*b) != s)
    return im.error(n) << "scale of shape "
                       << shapes::str(Importer::shapeOf(scale))
                       << " does not broadcast to X's shape " << shapes::str(s);
  SmallVector<int64_t> axes;
  for (int64_t d = *a; d < (int64_t)s.size(); ++d)
    axes.push_back(d);
  auto ms = reduce<ReduceMeanOp>(im, n, binary<MulOp>(im, n, x, x), axes, true);
  auto r = unary<SqrtOp>(im, n, binary<AddOp>(im, n, ms, scalarF32(im, *eps)));
  return setOut(n, binary<MulOp>(im, n, binary<DivOp>(im, n, x, r), scale));
}

/// GroupNormalization (opset 18: scale and bias per group; 21: per
/// channel), ONNX's function body: x3 = reshape(x, [N, G, C/G * spatial]);
/// m = reduce_mean(x3), v = reduce_mean(x3 * x3) - m * m over the last
/// axis; z = (x3 - m) / sqrt(v + epsilon); y = scale * z + bias with scale
/// and bias as [1, G, 1] on z (18) or as [1, C, 1] on z reshaped to
/// [N, C, spatial] (21); reshaped back to X's shape.
LogicalResult groupNormalization(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 3, 3)))
    return failure();
  for (int i = 0; i < 3; ++i)
    if (failed(needFloat(im, n, n.in(i), i)))
      return failure();
  if (n.opset >= 21 && failed(stashType(im, n)))
    return failure();
  auto groups = im.attrInt(n, "num_groups", std::nullopt);
  auto eps = im.attrFloat(n, "epsilon", 1e-5f);
  if (failed(groups) || failed(eps))
    return failure();
  Value x = n.in(0);
  auto s = Importer::shapeOf(x);
  if (s.size() < 2)
    return im.error(n) << "input must have rank >= 2 (N, C, ...), got "
                       << shapes::str(s);
  int64_t N = s[0], C = s[1], G = *groups;
  if (G < 1 || C % G != 0)
    return im.error(n) << "num_groups " << G
                       << " must be positive and divide the channels " << C;
  int64_t spatial = product(s.drop_front(2));
  bool perGroup = n.opset < 21;
  int64_t want = perGroup ? G : C;
  for (int i = 1; i <= 2; ++i)
    if (Importer::shapeOf(n.in(i)) != ArrayRef<int64_t>{want})
      return im.error(n) << "input " << i << " must have shape " << want
                         << " (one value per "
                         << (perGroup ? "group at opset 18" : "channel")
                         << "), got "
                         << shapes::str(Importer::shapeOf(n.in(i)));
  auto x3 = reshapeOrSame(im, n, x, {N, G, C / G * spatial});
  auto m = reduce<ReduceMeanOp>(im, n, x3, {2}, true);
  auto mos = reduce<ReduceMeanOp>(im, n, binary<MulOp>(im, n, x3, x3), {2}, true);
  auto var = binary<SubOp>(im, n, mos, binary<MulOp>(im, n, m, m));
  auto sd = unary<SqrtOp>(im, n, binary<AddOp>(im, n, var, scalarF32(im, *eps)));
  FailureOr<Value> z = binary<DivOp>(im, n, binary<SubOp>(im, n, x3, m), sd);
  if (failed(z))
    return failure();
  Shape ps = {1, want, 1};
  if (!perGroup)
    z = reshapeOrSame(im, n, *z, {N, C, spatial});
  auto sc = reshapeOrSame(im, n, n.in(1), ps);
  auto bi = reshapeOrSame(im, n, n.in(2), ps);
  auto y = binary<AddOp>(im, n, binary<MulOp>(im, n, sc, z), bi);
  if (failed(y))
    return failure();
  return setOut(n, reshapeOrSame(im, n, *y, s));
}

//===----------------------------------------------------------------------===//
// LpPool
//===----------------------------------------------------------------------===//

/// LpPool (opset 11; dilations and ceil_mode 18): t = |x|^p (abs for p = 1,
/// x * x for p = 2, else pow(abs(x), p)); s = the window sums of t as a
/// depthwise conv with a kernel of ones (each term t * 1.0 exact, padding
/// terms +0, the conv's tree order); y = s (p = 1), sqrt(s) (p = 2), else
/// pow(s, 1/p) with 1/p rounded to f32. ceil_mode is extra end padding
/// that gives the pool's output size (a window that starts in the right
/// padding is dropped, as for the other pools).
LogicalResult lpPool(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(needFloat(im, n, n.in(0), 0)))
    return failure();
  Value x = n.in(0);
  auto s = Importer::shapeOf(x);
  if (s.size() < 3)
    return im.error(n) << "input must have rank >= 3, got " << shapes::str(s);
  size_t sp = s.size() - 2;
  auto k = im.attrInts(n, "kernel_shape", std::nullopt);
  auto st = im.attrInts(n, "strides", SmallVector<int64_t>(sp, 1));
  auto dl = im.attrInts(n, "dilations", SmallVector<int64_t>(sp, 1));
  auto pd = im.attrInts(n, "pads", SmallVector<int64_t>(2 * sp, 0));
  auto ap = im.attrString(n, "auto_pad", std::string("NOTSET"));
  auto ceil = im.attrInt(n, "ceil_mode", 0);
  auto p = im.attrInt(n, "p", 2);
  if (failed(k) || failed(st) || failed(dl) || failed(pd) || failed(ap) ||
      failed(ceil) || failed(p))
    return failure();
  if (k->size() != sp || st->size() != sp || dl->size() != sp ||
      pd->size() != 2 * sp)
    return im.error(n) << "kernel_shape, strides and dilations need " << sp
                       << " values and pads " << 2 * sp;
  for (size_t i = 0; i < sp; ++i)
    if ((*k)[i] < 1 || (*st)[i] < 1 || (*dl)[i] < 1)
      return im.error(n) << "kernel_shape, strides and dilations must be >= 1";
  if (*p < 1)
    return im.error(n) << "p must be >= 1, got " << *p;
  SmallVector<int64_t> pads(*pd);
  if (*ap == "VALID") {
    pads.assign(2 * sp, 0);
  } else if (*ap == "SAME_UPPER" || *ap == "SAME_LOWER") {
    for (size_t i = 0; i < sp; ++i) {
      int64_t out = (s[2 + i] + (*st)[i] - 1) / (*st)[i];
      int64_t total = std::max<int64_t>(
          0, (out - 1) * (*st)[i] + ((*k)[i] - 1) * (*dl)[i] + 1 - s[2 + i]);
      int64_t small = total / 2, big = total - small;
      pads[i] = *ap == "SAME_UPPER" ? small : big;
      pads[sp + i] = *ap == "SAME_UPPER" ? big : small;
    }
  } else if (*ap != "NOTSET") {
    return im.error(n) << "auto_pad '" << *ap << "' is not valid";
  }
  auto os = shapes::pool(s, *k, *st, pads, *dl, *ceil != 0, im.emitter(n));
  if (failed(os))
    return failure();
  // Conv pads that give the pool's output size (ceil_mode: more at the end).
  SmallVector<int64_t> cpads(pads);
  for (size_t i = 0; i < sp; ++i) {
    int64_t need = ((*os)[2 + i] - 1) * (*st)[i] + ((*k)[i] - 1) * (*dl)[i] +
                   1 - (s[2 + i] + pads[i] + pads[sp + i]);
    if (need > 0)
      cpads[sp + i] += need;
  }
  FailureOr<Value> t =
      *p == 1   ? unary<AbsOp>(im, n, x)
      : *p == 2 ? binary<MulOp>(im, n, x, x)
                : binary<PowOp>(im, n, unary<AbsOp>(im, n, x),
                                scalarF32(im, (float)*p));
  if (failed(t))
    return failure();
  Shape ws = {s[1], 1};
  ws.append(k->begin(), k->end());
  Literal ones = Literal::make(Importer::tensorType(ws, im.b.getF32Type()));
  std::fill(ones.f.begin(), ones.f.end(), 1.0f);
  Value w = im.constantOf(ones.toAttr());
  auto cs = shapes::conv(s, ws, std::nullopt, *st, cpads, *dl, s[1],
                         im.emitter(n));
  if (failed(cs))
    return failure();
  if (ArrayRef<int64_t>(*cs) != ArrayRef<int64_t>(*os))
    return im.error(n) << "internal: conv output " << shapes::str(*cs)
                       << " is not the pool's " << shapes::str(*os);
  auto sum = im.make<ConvOp>(n, withShape(x, *os), *t, w, Value(),
                             im.b.getDenseI64ArrayAttr(*st),
                             im.b.getDenseI64ArrayAttr(cpads),
                             im.b.getDenseI64ArrayAttr(*dl),
                             im.b.getI64IntegerAttr(s[1]), TreeAttr());
  if (failed(sum))
    return failure();
  if (*p == 1)
    return setOut(n, sum);
  if (*p == 2)
    return setOut(n, unary<SqrtOp>(im, n, sum));
  return setOut(n, binary<PowOp>(im, n, sum, scalarF32(im, 1.0f / (float)*p)));
}

/// GlobalLpPool: LpPool's terms (|x| for p = 1, x * x for p = 2, else
/// pow(abs(x), p)) summed over every spatial dimension by reduce_sum
/// (keepdims, its tree), then y = s (p = 1), sqrt(s) (p = 2), else
/// pow(s, 1/p) with 1/p rounded to f32, as LpPool.
LogicalResult globalLpPool(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(needFloat(im, n, n.in(0), 0)))
    return failure();
  Value x = n.in(0);
  auto s = Importer::shapeOf(x);
  if (s.size() < 3)
    return im.error(n) << "input must have rank >= 3, got " << shapes::str(s);
  auto p = im.attrInt(n, "p", 2);
  if (failed(p))
    return failure();
  if (*p < 1)
    return im.error(n) << "p must be >= 1, got " << *p;
  FailureOr<Value> t =
      *p == 1   ? unary<AbsOp>(im, n, x)
      : *p == 2 ? binary<MulOp>(im, n, x, x)
                : binary<PowOp>(im, n, unary<AbsOp>(im, n, x),
                                scalarF32(im, (float)*p));
  if (failed(t))
    return failure();
  SmallVector<int64_t> axes, kept(s.begin(), s.end());
  for (size_t d = 2; d < s.size(); ++d) {
    axes.push_back((int64_t)d);
    kept[d] = 1;
  }
  auto sum = im.make<ReduceSumOp>(n, withShape(x, kept), *t,
                                  im.b.getDenseI64ArrayAttr(axes),
                                  im.b.getBoolAttr(true), TreeAttr());
  if (failed(sum))
    return failure();
  if (*p == 1)
    return setOut(n, sum);
  if (*p == 2)
    return setOut(n, unary<SqrtOp>(im, n, sum));
  return setOut(n, binary<PowOp>(im, n, sum, scalarF32(im, 1.0f / (float)*p)));
}

} // namespace

void registerNormHandlers(OpTable &t) {
  t.add("Einsum", einsum, kNum, 12);
  t.add("Hardmax", hardmax, kF32);
  t.add("LpNormalization", lpNormalization, kF32);
  t.add("MeanVarianceNormalization", meanVarianceNormalization, kF32, 9);
  t.add("RMSNormalization", rmsNormalization, kF32, 23);
  t.add("GroupNormalization", groupNormalization, kF32, 18);
  t.add("LpPool", lpPool, kF32);
  t.add("GlobalLpPool", globalLpPool, kF32);
}

} // namespace importer
} // namespace plumb
