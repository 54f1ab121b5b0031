//===- lib/Train/TrainLog.cpp - A training folder's log and model ---------===//
//
// Part of Plumb. TRAIN_DIR/log.json (docs/training.md) and the trained
// parameters written back into the ONNX model.
//
//===----------------------------------------------------------------------===//
#include "plumb/Train/Trainer.h"

#include "plumb/Importer/ModelLoader.h"

#include "onnx/onnx_pb.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <fstream>
#include <map>

namespace plumb {
namespace train {

namespace {

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%08x", v);
  return buf;
}

llvm::json::Array ints(const std::vector<int64_t> &v) {
  llvm::json::Array a;
  for (int64_t x : v)
    a.push_back(x);
  return a;
}

bool intsFrom(const llvm::json::Array *a, std::vector<int64_t> &out) {
  if (!a)
    return false;
  out.clear();
  for (const llvm::json::Value &v : *a) {
    auto i = v.getAsInteger();
    if (!i)
      return false;
    out.push_back(*i);
  }
  return true;
}

bool recordFrom(const llvm::json::Value &v, StepRecord &r) {
  const llvm::json::Object *o = v.getAsObject();
  if (!o)
    return false;
  auto step = o->getInteger("step");
  auto bits = o->getString("loss_bits");
  auto state = o->getString("state_hash");
  if (!step || !bits || !state || !fromHex(state->str(), r.state) ||
      !intsFrom(o->getArray("examples"), r.examples))
    return false;
  r.step = *step;
  r.lossBits = (uint32_t)std::strtoul(bits->str().c_str(), nullptr, 16);
  return true;
}

} // namespace

bool writeLog(const std::string &dir, const TrainLog &log, std::string &err) {
  llvm::json::Array records, faults, data;
  for (const StepRecord &r : log.records)
    records.push_back(llvm::json::Object{{"step", r.step},
                                         {"examples", ints(r.examples)},
                                         {"loss", (double)r.loss()},
                                         {"loss_bits", hex32(r.lossBits)},
                                         {"state_hash", toHex(r.state)}});
  for (const StepFault &f : log.faults)
    faults.push_back(
        llvm::json::Object{{"step", f.step}, {"node", f.node}, {"bit", f.bit}});
  for (const std::string &s : log.dataSha256)
    data.push_back(s);
  llvm::json::Object o{
      {"format", "plumb-train"},
      {"version", 1},
      {"graph_hash", log.graphHash},
      {"seed", (int64_t)log.seed},
      {"batch", log.batch},
      {"examples", log.examples},
      {"checkpoint_every", log.checkpointEvery},
      {"data_sha256", std::move(data)},
      {"initial_state_hash", toHex(log.initial)},
      {"steps", std::move(records)},
      {"checkpoints", ints(log.checkpoints)},
      {"injected_faults", std::move(faults)},
      {"state_root", toHex(log.root())},
  };
  std::error_code ec;
  llvm::raw_fd_ostream os(dir + "/log.json", ec);
  if (ec) {
    err = "cannot write '" + dir + "/log.json': " + ec.message();
    return false;
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  return true;
}

bool readLog(const std::string &dir, TrainLog &log, std::string &err) {
  std::string path = dir + "/log.json";
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) {
    err = "cannot read '" + path + "' (not a training folder?)";
    return false;
  }
  auto v = llvm::json::parse((*buf)->getBuffer());
  const llvm::json::Object *o = v ? v->getAsObject() : nullptr;
  if (!v)
    llvm::consumeError(v.takeError());
  auto bad = [&](const std::string &what) {
    err = "'" + path + "': " + what;
    return false;
  };
  if (!o ||
      o->getString("format") != std::optional<llvm::StringRef>("plumb-train"))
    return bad("not a plumb-train log");
  log = TrainLog();
  auto gh = o->getString("graph_hash");
  auto init = o->getString("initial_state_hash");
  if (!gh || !init || !fromHex(init->str(), log.initial))
    return bad("graph_hash or initial_state_hash missing");
  log.graphHash = gh->str();
  log.seed = (uint64_t)o->getInteger("seed").value_or(0);
  log.batch = o->getInteger("batch").value_or(0);
  log.examples = o->getInteger("examples").value_or(0);
  log.checkpointEvery = o->getInteger("checkpoint_every").value_or(0);
  if (const llvm::json::Array *d = o->getArray("data_sha256"))
    for (const llvm::json::Value &x : *d)
      if (auto s = x.getAsString())
        log.dataSha256.push_back(s->str());
  const llvm::json::Array *steps = o->getArray("steps");
  if (!steps)
    return bad("'steps' missing");
  for (const llvm::json::Value &x : *steps) {
    StepRecord r;
    if (!recordFrom(x, r) || r.step != (int64_t)log.records.size() + 1)
      return bad("step " + std::to_string(log.records.size() + 1) +
                 " is malformed");
    log.records.push_back(r);
  }
  if (!intsFrom(o->getArray("checkpoints"), log.checkpoints))
    return bad("'checkpoints' missing");
  if (const llvm::json::Array *fs = o->getArray("injected_faults"))
    for (const llvm::json::Value &x : *fs)
      if (const llvm::json::Object *f = x.getAsObject())
        log.faults.push_back({f->getInteger("step").value_or(0),
                              f->getInteger("node").value_or(0),
                              f->getInteger("bit").value_or(0)});
  return true;
}

bool writeTrainedOnnx(const bundle::Bundle &b, const TrainingInfo &info,
                      const std::vector<exec::Tensor> &state,
                      const std::string &path, std::string &err) {
  onnx::ModelProto model;
  importer::ImportError ie;
  if (!importer::loadModelFile(b.dir + "/" + info.model, model,
                               importer::LoadLimits(), ie)) {
    err = "cannot read the bundle's model: " + ie.message;
    return false;
  }
  std::map<std::string, const exec::Tensor *> byName;
  for (size_t i = 0; i < info.params.size(); ++i)
    byName[info.params[i]] = &state[i];
  size_t written = 0;
  for (onnx::TensorProto &t : *model.mutable_graph()->mutable_initializer()) {
    auto it = byName.find(t.name());
    if (it == byName.end())
      continue;
    t.clear_float_data();
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::DEFAULT);
    t.set_raw_data(
        std::string((const char *)it->second->raw(), it->second->byteSize()));
    ++written;
  }
  if (written != byName.size()) {
    err = "the bundle's model lacks some trained parameters";
    return false;
  }
  std::ofstream os(path, std::ios::binary);
  if (!model.SerializeToOstream(&os)) {
    err = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

} // namespace train
} // namespace plumb
