//===- lib/Train/StepProgram.cpp - The training step ----------------------===//
//
// Part of Plumb. See include/plumb/Train/StepProgram.h and
// docs/training.md (the loss, the optimisers' exact operation order).
//
//===----------------------------------------------------------------------===//
#include "plumb/Train/StepProgram.h"

#include "plumb/Support/Nodes.h"
#include "plumb/Train/Autodiff.h"

#include "dialects/Plumb/IR/PlumbOps.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

using namespace mlir;

namespace plumb {
namespace train {

namespace {

std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", (double)v);
  return buf;
}

} // namespace

std::vector<std::string> OptimizerSpec::stateSuffixes() const {
  if (kind == "momentum")
    return {"momentum"};
  if (kind == "adam" || kind == "adamw")
    return {"adam_m", "adam_v"};
  return {};
}

std::string OptimizerSpec::text() const {
  std::string s = kind + ":lr=" + num(lr);
  if (kind == "momentum")
    s += ",momentum=" + num(momentum);
  if (kind == "adam" || kind == "adamw")
    s += ",beta1=" + num(beta1) + ",beta2=" + num(beta2) + ",eps=" + num(eps);
  if (kind == "adamw")
    s += ",weight_decay=" + num(weightDecay);
  return s;
}

bool parseOptimizer(const std::string &spec, OptimizerSpec &out,
                    std::string &err) {
  size_t colon = spec.find(':');
  out = OptimizerSpec();
  out.kind = spec.substr(0, colon);
  std::map<std::string, float *> keys{{"lr", &out.lr}};
  if (out.kind == "momentum")
    keys["momentum"] = &out.momentum;
  else if (out.kind == "adam" || out.kind == "adamw") {
    keys["beta1"] = &out.beta1;
    keys["beta2"] = &out.beta2;
    keys["eps"] = &out.eps;
    if (out.kind == "adamw")
      keys["weight_decay"] = &out.weightDecay;
  } else if (out.kind != "sgd") {
    err = "--optimizer: unknown optimizer '" + out.kind +
          "' (sgd, momentum, adam or adamw)";
    return false;
  }
  bool haveLr = false;
  std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string item = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    auto it = keys.find(key);
    if (eq == std::string::npos || it == keys.end()) {
      err = "--optimizer: '" + item + "' is not a KEY=VALUE of " + out.kind;
      return false;
    }
    char *end = nullptr;
    std::string value = item.substr(eq + 1);
    double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end || !(v >= 0) || v > 1e6) {
      err = "--optimizer: " + key + " needs a number >= 0, got '" + value + "'";
      return false;
    }
    *it->second = (float)v;
    haveLr |= key == "lr";
  }
  if (!haveLr) {
    err = "--optimizer: " + out.kind + " needs lr (e.g. '" + out.kind +
          ":lr=0.01')";
    return false;
  }
  return true;
}

namespace {

StringAttr nameOf(func::FuncOp f, unsigned i) {
  return f.getArgAttrOfType<StringAttr>(i, "plumb.name");
}

/// Float initializers not frozen become arguments [0, P).
bool liftParameters(func::FuncOp f, const TrainConfig &cfg, StepLayout &L,
                    std::vector<Value> &params, std::string &err) {
  Block &body = f.getBody().front();
  std::vector<ConstantOp> consts;
  std::set<std::string> names;
  for (ConstantOp c : body.getOps<ConstantOp>())
    if (auto n = c->getAttrOfType<StringAttr>("plumb.initializer")) {
      names.insert(n.str());
      consts.push_back(c);
    }
  for (const std::string &fz : cfg.frozen)
    if (!names.count(fz)) {
      err = "--frozen names '" + fz +
            "', which is not an initializer the model uses";
      return false;
    }
  for (ConstantOp c : consts) {
    std::string name = c->getAttrOfType<StringAttr>("plumb.initializer").str();
    c->removeAttr("plumb.initializer");
    auto type = cast<RankedTensorType>(c.getType());
    if (!type.getElementType().isF32() || llvm::is_contained(cfg.frozen, name))
      continue;
    exec::Tensor init;
    if (!exec::tensorFromAttr(c.getValue(), init, err))
      return false;
    unsigned idx = (unsigned)params.size();
    Builder b(f.getContext());
    (void)f.insertArgument(idx, type,
                           b.getDictionaryAttr(b.getNamedAttr(
                               "plumb.name", b.getStringAttr(name))),
                           c.getLoc());
    c.getResult().replaceAllUsesWith(f.getArgument(idx));
    c.erase();
    params.push_back(f.getArgument(idx));
    L.params.push_back(name);
    L.initial.push_back(std::move(init));
  }
  if (params.empty()) {
    err = "the model has no trainable parameters (float initializers that "
          "are not --frozen)";
    return false;
  }
  return true;
}

Value addArg(func::FuncOp f, unsigned idx, Type t, const std::string &name) {
  Builder b(f.getContext());
  (void)f.insertArgument(
      idx, t,
      b.getDictionaryAttr(b.getNamedAttr("plumb.name", b.getStringAttr(name))),
      f.getLoc());
  return f.getArgument(idx);
}

/// The scalar loss of `out` (@main's first result) per cfg.loss; adds the
/// labels or targets argument.
Value buildLoss(func::FuncOp f, OpMaker &m, Value out, const TrainConfig &cfg,
                StepLayout &L, std::string &err) {
  auto shape = OpMaker::shape(out);
  if (!OpMaker::type(out).getElementType().isF32()) {
    err = "the model's first output is not float32";
    return {};
  }
  if (cfg.loss == "output") {
    if (OpMaker::type(out).getNumElements() != 1) {
      err = "--loss output needs a first output of one element (the loss), "
            "got " +
            std::to_string(OpMaker::type(out).getNumElements());
      return {};
    }
    return m.reshape(out, {});
  }
  if (shape.empty()) {
    err = "--loss " + cfg.loss + " needs a first output with a batch axis";
    return {};
  }
  int64_t batch = shape[0];
  L.batch = batch;
  if (cfg.loss == "cross_entropy") {
    if (shape.size() != 2) {
      err = "--loss cross_entropy needs logits [batch, classes] as the first "
            "output, got rank " +
            std::to_string(shape.size());
      return {};
    }
    L.target = "labels";
    auto i64 = m.b.getI64Type();
    Value labels = addArg(f, f.getNumArguments(),
                          RankedTensorType::get({batch}, i64), "labels");
    std::vector<int64_t> iota(shape[1]);
    for (int64_t i = 0; i < shape[1]; ++i)
      iota[i] = i;
    Value classes = ConstantOp::create(
        m.b, m.loc,
        DenseElementsAttr::get(RankedTensorType::get({1, shape[1]}, i64),
                               ArrayRef<int64_t>(iota)));
    Value onehot = m.cast(m.equal(m.reshape(labels, {batch, 1}), classes),
                          m.b.getF32Type());
    Value perExample =
        m.reduceSum(m.mul(m.logSoftmax(out, 1), onehot), {1}, false);
    Value sum = m.reduceSum(perExample, {0}, false);
    return m.div(m.neg(sum), m.splat((float)batch));
  }
  L.target = "targets";
  Value targets = addArg(f, f.getNumArguments(), out.getType(), "targets");
  Value d = m.sub(out, targets);
  int64_t per = OpMaker::type(out).getNumElements() / batch;
  Value sq = m.reshape(m.mul(d, d), {batch, per});
  Value sum = m.reduceSum(m.reduceSum(sq, {1}, false), {0}, false);
  return m.div(sum, m.splat((float)(batch * per)));
}

/// One parameter's update: its new value, then its new state.
void update(OpMaker &m, const OptimizerSpec &o, Value p, Value g,
            ArrayRef<Value> state, Value bc1, Value bc2,
            std::vector<Value> &newParams, std::vector<Value> &newState) {
  if (o.kind == "sgd") {
    newParams.push_back(m.sub(p, m.mul(g, m.splat(o.lr))));
    return;
  }
  if (o.kind == "momentum") {
    Value v = m.add(m.mul(state[0], m.splat(o.momentum)), g);
    newParams.push_back(m.sub(p, m.mul(v, m.splat(o.lr))));
    newState.push_back(v);
    return;
  }
  Value mm = m.add(m.mul(state[0], m.splat(o.beta1)),
                   m.mul(g, m.splat(1.0f - o.beta1)));
  Value vv = m.add(m.mul(state[1], m.splat(o.beta2)),
                   m.mul(m.mul(g, g), m.splat(1.0f - o.beta2)));
  Value mhat = m.div(mm, bc1), vhat = m.div(vv, bc2);
  Value base = p;
  if (o.kind == "adamw")
    base = m.sub(p, m.mul(p, m.splat(o.lr * o.weightDecay)));
  Value stepv =
      m.div(m.mul(mhat, m.splat(o.lr)), m.add(m.sqrt(vhat), m.splat(o.eps)));
  newParams.push_back(m.sub(base, stepv));
  newState.push_back(mm);
  newState.push_back(vv);
}

} // namespace

bool buildStepProgram(ModuleOp module, const TrainConfig &cfg, StepLayout &L,
                      std::string &err) {
  func::FuncOp f = getMainFunc(module);
  if (!f || !f.getBody().hasOneBlock()) {
    err = "the model has no single-block func.func @main";
    return false;
  }
  Block &body = f.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  if (ret.getNumOperands() == 0) {
    err = "the model has no outputs";
    return false;
  }
  unsigned numData = f.getNumArguments();
  std::vector<Value> params;
  if (!liftParameters(f, cfg, L, params, err))
    return false;
  std::vector<std::string> suffixes = cfg.optimizer.stateSuffixes();
  std::vector<Value> state;
  for (size_t i = 0; i < params.size(); ++i)
    for (const std::string &s : suffixes) {
      unsigned idx = (unsigned)(params.size() + state.size());
      state.push_back(
          addArg(f, idx, params[i].getType(), L.params[i] + "." + s));
      L.state.push_back(L.params[i] + "." + s);
    }
  OpBuilder b(ret);
  OpMaker m(b, f.getLoc());
  Value step = addArg(f, (unsigned)(params.size() + state.size()),
                      RankedTensorType::get({}, b.getI64Type()), "step");
  for (unsigned i = 0; i < numData; ++i) {
    StringAttr n = nameOf(f, L.stepArg() + 1 + i);
    L.data.push_back(n ? n.str() : "input_" + std::to_string(i));
  }
  Value loss = buildLoss(f, m, ret.getOperand(0), cfg, L, err);
  if (!loss)
    return false;
  if (L.batch == 0 && numData > 0 &&
      !OpMaker::shape(f.getArgument(L.stepArg() + 1)).empty())
    L.batch = OpMaker::shape(f.getArgument(L.stepArg() + 1))[0];
  std::vector<Value> grads;
  if (!differentiate(f, loss, params, grads, err))
    return false;
  for (size_t i = 0; i < grads.size(); ++i)
    if (!grads[i]) {
      err = "parameter '" + L.params[i] +
            "' does not affect the loss (freeze it with --frozen " +
            L.params[i] + ")";
      return false;
    }
  const OptimizerSpec &o = cfg.optimizer;
  Value bc1, bc2;
  if (o.kind == "adam" || o.kind == "adamw") {
    Value t = m.cast(step, b.getF32Type());
    bc1 = m.sub(m.splat(1.0f), m.pow(m.splat(o.beta1), t));
    bc2 = m.sub(m.splat(1.0f), m.pow(m.splat(o.beta2), t));
  }
  std::vector<Value> newParams, newState;
  size_t k = suffixes.size();
  for (size_t i = 0; i < params.size(); ++i)
    update(m, o, params[i], grads[i], ArrayRef<Value>(state).slice(i * k, k),
           bc1, bc2, newParams, newState);

  std::vector<Value> results = newParams;
  results.insert(results.end(), newState.begin(), newState.end());
  results.push_back(loss);
  func::ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();
  SmallVector<Type> resTypes;
  for (Value v : results)
    resTypes.push_back(v.getType());
  f.removeResAttrsAttr();
  f.setType(FunctionType::get(f.getContext(), f.getArgumentTypes(), resTypes));
  std::vector<std::string> names = L.params;
  names.insert(names.end(), L.state.begin(), L.state.end());
  names.push_back("loss");
  for (size_t i = 0; i < names.size(); ++i)
    f.setResultAttr(i, "plumb.name", b.getStringAttr(names[i]));
  return true;
}

std::string trainingJson(const TrainConfig &cfg, const StepLayout &L,
                         const std::string &modelFile) {
  auto strs = [](const std::vector<std::string> &v) {
    llvm::json::Array a;
    for (const std::string &s : v)
      a.push_back(s);
    return a;
  };
  llvm::json::Object o{
      {"loss", cfg.loss},
      {"optimizer", cfg.optimizer.text()},
      {"batch", L.batch},
      {"frozen", strs(cfg.frozen)},
      {"parameters", strs(L.params)},
      {"state", strs(L.state)},
      {"step_input", "step"},
      {"data", strs(L.data)},
      {"target", L.target},
      {"model", modelFile},
      {"initial_state", "training/initial.bin"},
  };
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(std::move(o));
  return os.str();
}

} // namespace train
} // namespace plumb
