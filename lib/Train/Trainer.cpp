//===- lib/Train/Trainer.cpp - plumb train --------------------------------===//
//
// Part of Plumb. See include/plumb/Train/Trainer.h and docs/training.md.
//
//===----------------------------------------------------------------------===//
#include "plumb/Train/Trainer.h"

#include "plumb/Bundle/Run.h"
#include "plumb/Driver/Inputs.h"
#include "plumb/Driver/TensorIO.h"
#include "plumb/Support/Nodes.h"
#include "plumb/Trace/TensorHasher.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace plumb {
namespace train {

namespace {

std::vector<std::string> strList(const llvm::json::Object &o, const char *k) {
  std::vector<std::string> r;
  if (const llvm::json::Array *a = o.getArray(k))
    for (const llvm::json::Value &v : *a)
      if (auto s = v.getAsString())
        r.push_back(s->str());
  return r;
}

void putU64(std::string &s, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    s += (char)((v >> (8 * i)) & 0xff);
}

} // namespace

bool readTrainingInfo(const bundle::Bundle &b, TrainingInfo &out,
                      std::string &err) {
  if (b.manifest.training.empty()) {
    err = "'" + b.dir +
          "' is not a training bundle (compile it with "
          "'plumb compile MODEL.onnx --train ...')";
    return false;
  }
  auto v = llvm::json::parse(b.manifest.training);
  const llvm::json::Object *o = v ? v->getAsObject() : nullptr;
  if (!o) {
    if (!v)
      llvm::consumeError(v.takeError());
    err = "the manifest's training section is not a JSON object";
    return false;
  }
  auto str = [&](const char *k) {
    auto s = o->getString(k);
    return s ? s->str() : std::string();
  };
  out.loss = str("loss");
  out.optimizer = str("optimizer");
  out.target = str("target");
  out.model = str("model");
  out.initialState = str("initial_state");
  out.batch = o->getInteger("batch").value_or(0);
  out.params = strList(*o, "parameters");
  out.state = strList(*o, "state");
  out.data = strList(*o, "data");
  auto specs = driver::inputSpecs(getMainFunc(*b.module));
  size_t want = out.params.size() + out.state.size() + 1 + out.data.size() +
                (out.target.empty() ? 0 : 1);
  if (out.params.empty() || specs.size() != want) {
    err = "the manifest's training section does not match the step program";
    return false;
  }
  return true;
}

bool initialState(const bundle::Bundle &b, const TrainingInfo &info,
                  std::vector<exec::Tensor> &state, std::string &err) {
  auto specs = driver::inputSpecs(getMainFunc(*b.module));
  auto buf = llvm::MemoryBuffer::getFile(b.dir + "/" + info.initialState);
  if (!buf) {
    err = "cannot read '" + info.initialState + "' of the bundle";
    return false;
  }
  size_t at = 0;
  state.clear();
  for (int64_t i = 0; i < info.numStateArgs(); ++i) {
    exec::Tensor t = exec::Tensor::make(specs[i].type, specs[i].shape);
    if (i < (int64_t)info.params.size()) {
      if (at + t.byteSize() > (*buf)->getBufferSize()) {
        err = "'" + info.initialState + "' is shorter than the parameters";
        return false;
      }
      std::memcpy(t.raw(), (*buf)->getBufferStart() + at, t.byteSize());
      at += t.byteSize();
    } else {
      std::memset(t.raw(), 0, t.byteSize());
    }
    state.push_back(std::move(t));
  }
  if (at != (*buf)->getBufferSize()) {
    err = "'" + info.initialState + "' is longer than the parameters";
    return false;
  }
  return true;
}

Digest stateHash(int64_t step, const std::vector<exec::Tensor> &state) {
  std::string s("plumb-train-state\0", 18);
  putU64(s, (uint64_t)step);
  for (const exec::Tensor &t : state) {
    Digest d = trace::tensorHash(t);
    s.append((const char *)d.data(), d.size());
  }
  return sha256(s.data(), s.size());
}

Digest stepItem(int64_t step, const std::vector<int64_t> &examples,
                const Digest &state, uint32_t lossBits) {
  std::string s("plumb-train-step\0", 17);
  putU64(s, (uint64_t)step);
  putU64(s, examples.size());
  for (int64_t e : examples)
    putU64(s, (uint64_t)e);
  s.append((const char *)state.data(), state.size());
  for (int i = 0; i < 4; ++i)
    s += (char)((lossBits >> (8 * i)) & 0xff);
  return sha256(s.data(), s.size());
}

namespace {

/// splitmix64 (Steele, Lea, Flood 2014).
struct SplitMix {
  uint64_t x;
  uint64_t next() {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

} // namespace

std::vector<int64_t> stepExamples(uint64_t seed, int64_t examples,
                                  int64_t batch, int64_t step) {
  int64_t perEpoch = examples / batch;
  int64_t epoch = (step - 1) / perEpoch, j = (step - 1) % perEpoch;
  std::vector<int64_t> perm(examples);
  for (int64_t i = 0; i < examples; ++i)
    perm[i] = i;
  // Fisher-Yates from the end, j = next() mod (i + 1).
  SplitMix rng{seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(epoch + 1))};
  for (int64_t i = examples - 1; i > 0; --i)
    std::swap(perm[i], perm[rng.next() % (uint64_t)(i + 1)]);
  return std::vector<int64_t>(perm.begin() + j * batch,
                              perm.begin() + (j + 1) * batch);
}

bool loadDataset(const std::string &dir, const bundle::Bundle &b,
                 const TrainingInfo &info, Dataset &out, std::string &err) {
  auto specs = driver::inputSpecs(getMainFunc(*b.module));
  std::vector<std::string> names = info.data;
  if (!info.target.empty())
    names.push_back(info.target);
  out = Dataset();
  for (size_t i = 0; i < names.size(); ++i) {
    const driver::TensorSpec &s = specs[info.numStateArgs() + 1 + i];
    std::string path = dir + "/" + names[i] + ".npy";
    exec::Tensor t;
    if (!llvm::sys::fs::exists(path)) {
      err = "--data: '" + path + "' is missing (one <input>.npy per input)";
      return false;
    }
    if (!driver::readNpy(path, t, err)) {
      err = "--data: '" + path + "': " + err;
      return false;
    }
    std::vector<int64_t> rest(s.shape.begin() + 1, s.shape.end());
    if (t.type != s.type || t.shape.size() != s.shape.size() ||
        std::vector<int64_t>(t.shape.begin() + 1, t.shape.end()) != rest) {
      err = "--data: '" + path + "' is " + t.describe() + ", but input '" +
            names[i] + "' needs " + driver::describeTensor(s.type, s.shape) +
            " with any number of examples on the first axis";
      return false;
    }
    if (i > 0 && t.shape[0] != out.examples) {
      err = "--data: '" + path + "' has " + std::to_string(t.shape[0]) +
            " examples, the others " + std::to_string(out.examples);
      return false;
    }
    out.examples = t.shape[0];
    out.sha256.push_back(bundle::fileSha256(path));
    out.tensors.push_back(std::move(t));
  }
  if (out.examples < info.batch) {
    err = "--data: " + std::to_string(out.examples) +
          " examples, fewer than one batch of " + std::to_string(info.batch);
    return false;
  }
  return true;
}

bool parseStepFault(const std::string &spec, StepFault &out, std::string &err) {
  long long s = -1, n = -1, bit = -1;
  char tail = 0;
  if (std::sscanf(spec.c_str(), "step=%lld,node=%lld,bit=%lld%c", &s, &n, &bit,
                  &tail) != 3 ||
      s < 1 || n < 0 || bit < 0) {
    err =
        "--inject-fault needs step=S,node=K,bit=B (S >= 1, K, B >= 0), got '" +
        spec + "'";
    return false;
  }
  out = {s, n, bit};
  return true;
}

float StepRecord::loss() const {
  float f;
  std::memcpy(&f, &lossBits, 4);
  return f;
}

std::vector<Digest> TrainLog::items() const {
  std::vector<Digest> v;
  for (const StepRecord &r : records)
    v.push_back(stepItem(r.step, r.examples, r.state, r.lossBits));
  return v;
}

Digest TrainLog::root() const { return merkleRoot(items()); }

std::string checkpointPath(const std::string &dir, int64_t step) {
  return dir + "/checkpoints/step-" + std::to_string(step) + ".bin";
}

bool writeCheckpoint(const std::string &path,
                     const std::vector<exec::Tensor> &state, std::string &err) {
  std::ofstream os(path, std::ios::binary);
  for (const exec::Tensor &t : state)
    os.write((const char *)t.raw(), (std::streamsize)t.byteSize());
  if (!os) {
    err = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

bool readCheckpoint(const std::string &path, const bundle::Bundle &b,
                    const TrainingInfo &info, std::vector<exec::Tensor> &state,
                    std::string &err) {
  auto specs = driver::inputSpecs(getMainFunc(*b.module));
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) {
    err = "cannot read checkpoint '" + path + "'";
    return false;
  }
  state.clear();
  size_t at = 0;
  for (int64_t i = 0; i < info.numStateArgs(); ++i) {
    exec::Tensor t = exec::Tensor::make(specs[i].type, specs[i].shape);
    if (at + t.byteSize() > (*buf)->getBufferSize()) {
      err = "checkpoint '" + path + "' is too short";
      return false;
    }
    std::memcpy(t.raw(), (*buf)->getBufferStart() + at, t.byteSize());
    at += t.byteSize();
    state.push_back(std::move(t));
  }
  if (at != (*buf)->getBufferSize()) {
    err = "checkpoint '" + path + "' is too long";
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// StepRunner
//===----------------------------------------------------------------------===//

struct StepRunner::Impl {
  std::unique_ptr<bundle::Runner> plain;
  std::unique_ptr<bundle::NativeModel> native;
};

StepRunner::StepRunner(bundle::Bundle &b, const TrainingInfo &info,
                       const Dataset &data, int threads, bool interpret)
    : b(b), info(info), data(data), threads(threads), interpret(interpret),
      impl(new Impl) {}

StepRunner::~StepRunner() { delete impl; }

namespace {

/// Rows `examples` of `all` (first axis) as one batch.
exec::Tensor gatherRows(const exec::Tensor &all,
                        const std::vector<int64_t> &examples) {
  std::vector<int64_t> shape = all.shape;
  shape[0] = (int64_t)examples.size();
  exec::Tensor t = exec::Tensor::make(all.type, shape);
  size_t row = all.shape[0] ? all.byteSize() / all.shape[0] : 0;
  for (size_t i = 0; i < examples.size(); ++i)
    std::memcpy((char *)t.raw() + i * row,
                (const char *)all.raw() + examples[i] * row, row);
  return t;
}

} // namespace

bool StepRunner::run(int64_t step, const std::vector<int64_t> &examples,
                     std::vector<exec::Tensor> &state, uint32_t &lossBits,
                     const std::vector<StepFault> &faults,
                     const std::string &traceDir, std::string &err) {
  inputs = state;
  exec::Tensor s = exec::Tensor::make(exec::ElemType::I64, {});
  *s.as<int64_t>() = step;
  inputs.push_back(std::move(s));
  for (const exec::Tensor &t : data.tensors)
    inputs.push_back(gatherRows(t, examples));
  bundle::RunOptions ro;
  ro.threads = threads;
  ro.interpret = interpret;
  ro.hashThreads = 0;
  for (const StepFault &f : faults)
    if (f.step == step)
      ro.faults.push_back({f.node, f.bit});
  ro.traceDir = traceDir;
  ro.keepTensors = !traceDir.empty();
  std::vector<exec::Tensor> outputs;
  auto t0 = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - t)
        .count();
  };
  if (!ro.hooked()) {
    if (!impl->native && !interpret) {
      auto lib = bundle::loadBundleLibrary(b, "cpu", "", nullptr);
      if (!lib) {
        err = llvm::toString(lib.takeError());
        return false;
      }
      impl->native = std::move(*lib);
    }
    ro.native = impl->native.get();
    if (!impl->plain) {
      impl->plain = std::make_unique<bundle::Runner>(*b.module, &b, ro);
      if (!impl->plain->prepare(inputs, err))
        return false;
    }
    t0 = std::chrono::steady_clock::now();
    if (!impl->plain->run(inputs, outputs, err))
      return false;
    lastMs = since(t0);
  } else {
    ro.native = impl->native.get();
    bundle::Runner r(*b.module, &b, ro);
    if (!r.prepare(inputs, err))
      return false;
    t0 = std::chrono::steady_clock::now();
    if (!r.run(inputs, outputs, err))
      return false;
    lastMs = since(t0);
  }
  std::memcpy(&lossBits, outputs.back().raw(), 4);
  outputs.pop_back();
  state = std::move(outputs);
  return true;
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

bool trainRun(bundle::Bundle &b, const TrainingInfo &info, const Dataset &data,
              const TrainOptions &opts, const std::string &outDir,
              TrainLog &log, double &msPerStep, std::string &err) {
  std::vector<exec::Tensor> state;
  if (!initialState(b, info, state, err))
    return false;
  if (auto ec = llvm::sys::fs::create_directories(outDir + "/checkpoints")) {
    err = "cannot create '" + outDir + "/checkpoints': " + ec.message();
    return false;
  }
  log = TrainLog();
  log.graphHash = b.manifest.graphHash;
  log.seed = opts.seed;
  log.batch = info.batch;
  log.examples = data.examples;
  log.checkpointEvery = opts.checkpointEvery;
  log.dataSha256 = data.sha256;
  log.faults = opts.faults;
  log.initial = stateHash(0, state);
  if (!writeCheckpoint(checkpointPath(outDir, 0), state, err))
    return false;
  log.checkpoints.push_back(0);
  StepRunner runner(b, info, data, opts.threads, opts.interpret);
  double total = 0;
  bool tty = opts.progress && isatty(2);
  for (int64_t s = 1; s <= opts.steps; ++s) {
    StepRecord r;
    r.step = s;
    r.examples = stepExamples(opts.seed, data.examples, info.batch, s);
    if (!runner.run(s, r.examples, state, r.lossBits, opts.faults, "", err)) {
      err = "step " + std::to_string(s) + ": " + err;
      return false;
    }
    total += runner.lastMs;
    r.state = stateHash(s, state);
    log.records.push_back(r);
    if (opts.checkpointEvery > 0 &&
        (s % opts.checkpointEvery == 0 || s == opts.steps)) {
      if (!writeCheckpoint(checkpointPath(outDir, s), state, err))
        return false;
      log.checkpoints.push_back(s);
    }
    if (tty)
      std::fprintf(stderr, "\rplumb train: step %lld/%lld loss %.6g",
                   (long long)s, (long long)opts.steps, (double)r.loss());
  }
  if (tty)
    std::fprintf(stderr, "\n");
  msPerStep = opts.steps ? total / (double)opts.steps : 0;
  if (!writeLog(outDir, log, err))
    return false;
  return writeTrainedOnnx(b, info, state, outDir + "/trained.onnx", err);
}

} // namespace train
} // namespace plumb
