//===- tools/plumb/CmdTrain.cpp - plumb compile --train, plumb train -----===//
//
// Part of Plumb. Training bundles and runs (docs/training.md).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "plumb/Bundle/Run.h"
#include "plumb/Driver/Pipeline.h"
#include "plumb/Support/Nodes.h"
#include "plumb/Train/StepProgram.h"
#include "plumb/Train/TrainDispute.h"
#include "plumb/Train/Trainer.h"

#include "onnx/onnx_pb.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <set>

namespace plumb {
namespace tool {

//===----------------------------------------------------------------------===//
// plumb compile --train
//===----------------------------------------------------------------------===//

void addTrainOptions(std::vector<Option> &options, TrainFlags &t) {
  options.push_back(flag({"--train"}, t.on));
  options.push_back(choice({"--loss"}, t.loss,
                           {"cross_entropy", "mse", "output"},
                           "option '--loss' must be cross_entropy, mse or "
                           "output"));
  options.push_back(text({"--optimizer"}, t.optimizer,
                         "option '--optimizer' needs a SPEC such as "
                         "sgd:lr=0.1",
                         /*nonEmpty=*/true));
  options.push_back(number("--batch", t.batch, 1, 1 << 24));
  options.push_back(valued({"--frozen"}, [&t](const OptionUse &u) {
    if (u.missing || u.value.empty())
      return std::string("option '--frozen' needs an initializer name");
    t.frozen.push_back(u.value);
    return std::string();
  }));
}

int checkTrainFlags(const TrainFlags &t, const std::string &model,
                    const char *cmd) {
  bool any =
      !t.loss.empty() || !t.optimizer.empty() || t.batch || !t.frozen.empty();
  if (!t.on) {
    if (any)
      return usageError("--loss, --optimizer, --batch and --frozen go with "
                        "--train",
                        cmd);
    return -1;
  }
  if (t.loss.empty() || t.optimizer.empty())
    return usageError("--train needs --loss and --optimizer", cmd);
  if (model.size() < 5 || model.compare(model.size() - 5, 5, ".onnx") != 0)
    return usageError("--train needs an .onnx model (the trained parameters "
                      "are written back into it)",
                      cmd);
  train::OptimizerSpec spec;
  std::string err;
  if (!train::parseOptimizer(t.optimizer, spec, err))
    return usageError(err, cmd);
  return -1;
}

bool prepareTrainImport(const TrainFlags &t, const std::string &model,
                        importer::ImportOptions &opts, const char *cmd,
                        int &exitCode) {
  opts.nameInitializers = true;
  opts.canonicalize = false;
  if (!t.batch)
    return true;
  onnx::ModelProto proto;
  importer::ImportError ie;
  if (!importer::loadModelFile(model, proto, opts.limits, ie)) {
    exitCode = fail(cmd, model + ": " + ie.message);
    return false;
  }
  std::set<std::string> inits;
  for (const auto &i : proto.graph().initializer())
    inits.insert(i.name());
  for (const auto &in : proto.graph().input()) {
    if (inits.count(in.name()) || !in.type().has_tensor_type() ||
        in.type().tensor_type().shape().dim_size() == 0)
      continue;
    const auto &d = in.type().tensor_type().shape().dim(0);
    if (d.has_dim_value() && d.dim_value() != t.batch) {
      exitCode = usageError("--batch " + std::to_string(t.batch) + ": input '" +
                                in.name() + "' has a fixed first dimension " +
                                std::to_string(d.dim_value()),
                            cmd);
      return false;
    }
    if (d.has_dim_param())
      opts.bindings.dims[d.dim_param()] = t.batch;
    else if (!d.has_dim_value())
      opts.bindings.inputShapes.erase(in.name());
  }
  return true;
}

bool buildTraining(const TrainFlags &t, const std::string &model,
                   mlir::ModuleOp module, bundle::CompileOptions &co,
                   const char *cmd, int &exitCode) {
  train::TrainConfig cfg;
  cfg.loss = t.loss;
  cfg.batch = t.batch;
  cfg.frozen = t.frozen;
  std::string err;
  train::parseOptimizer(t.optimizer, cfg.optimizer, err);
  train::StepLayout layout;
  if (!train::buildStepProgram(module, cfg, layout, err) ||
      !driver::canonicalize(module, err)) {
    exitCode = fail(cmd, model + ": --train: " + err);
    return false;
  }
  co.training = train::trainingJson(cfg, layout, "training/model.onnx");
  auto buf = llvm::MemoryBuffer::getFile(model);
  if (!buf) {
    exitCode = fail(cmd, "cannot read '" + model + "'");
    return false;
  }
  co.extraFiles.push_back({"training/model.onnx", (*buf)->getBuffer().str()});
  std::string init;
  for (const exec::Tensor &p : layout.initial)
    init.append((const char *)p.raw(), p.byteSize());
  co.extraFiles.push_back({"training/initial.bin", init});
  return true;
}

//===----------------------------------------------------------------------===//
// plumb train
//===----------------------------------------------------------------------===//

void printTrainHelp(FILE *f) {
  std::fprintf(
      f,
      "usage: plumb train RUN.plumb --data DIR --steps N --out TRAIN_DIR\n"
      "                   [--checkpoint-every K] [--seed S] [--threads N]\n"
      "                   [--interpret] [--format text|json]\n"
      "                   [--inject-fault step=S,node=K,bit=B]...\n"
      "\n"
      "Runs a training bundle ('plumb compile MODEL.onnx --train ...') for N\n"
      "steps (docs/training.md). DIR holds <input>.npy for every batch input\n"
      "and labels.npy or targets.npy, the first axis being the examples;\n"
      "each epoch visits them in a seeded permutation (splitmix64 and\n"
      "Fisher-Yates, docs/training.md). After each step the whole training\n"
      "state is hashed; a Merkle tree over the steps (each leaf binds the\n"
      "step, its example indices, the state hash and the loss) gives the\n"
      "state root. TRAIN_DIR receives log.json, checkpoints/step-K.bin and\n"
      "trained.onnx (the model with the trained parameters). The same bits\n"
      "at every thread count and interpreted.\n"
      "\n"
      "options:\n"
      "  --data DIR            the training data\n"
      "  --steps N             steps to run\n"
      "  --out TRAIN_DIR       the training folder (created)\n"
      "  --checkpoint-every K  a full checkpoint every K steps (default 10;\n"
      "                        step 0 and the last step always)\n"
      "  --seed S              the batch order's seed (default 0)\n"
      "  --threads N           threads of the compiled step (default 1)\n"
      "  --interpret           run the step with the reference interpreter\n"
      "  --format text|json    output format (default text); JSON has steps,\n"
      "                        losses, final_loss, state_root,\n"
      "                        final_state_hash\n"
      "\n"
      "testing aid:\n"
      "  --inject-fault step=S,node=K,bit=B  flip bit B of node K's first\n"
      "                        result in step S (recorded in log.json; the\n"
      "                        party replays it in a dispute)\n"
      "\n"
      "exit status: 0 success, 1 a failed run, 2 usage error\n");
}

namespace {

/// Opens a training bundle for a CPU run and reads its training section and
/// the data set in `data`: what plumb train and a training dispute both
/// start from. On failure, `err` says why.
std::unique_ptr<bundle::Bundle> openTraining(const std::string &path,
                                             bool interpret,
                                             const std::string &data,
                                             train::TrainingInfo &info,
                                             train::Dataset &ds,
                                             std::string &err) {
  auto b = bundle::openBundleForRun(path, "cpu", interpret);
  if (!b) {
    err = llvm::toString(b.takeError());
    return nullptr;
  }
  if (!train::readTrainingInfo(**b, info, err) ||
      !train::loadDataset(data, **b, info, ds, err))
    return nullptr;
  return std::move(*b);
}

void printTrainResult(const train::TrainLog &log, double msPerStep,
                      const std::string &out, int threads, bool interpret,
                      bool json) {
  const auto &rs = log.records;
  Digest fin = rs.empty() ? log.initial : rs.back().state;
  float finalLoss = rs.empty() ? 0.0f : rs.back().loss();
  if (!json) {
    std::printf("train    %s\n", out.c_str());
    std::printf("steps    %zu (%.3f ms per step, %s)\n", rs.size(), msPerStep,
                interpret ? "interpreted" : "compiled");
    if (!rs.empty())
      std::printf("loss     %.6g -> %.6g\n", (double)rs.front().loss(),
                  (double)finalLoss);
    std::printf("root     %s\n", toHex(log.root()).c_str());
    std::printf("state    %s\n", toHex(fin).c_str());
    return;
  }
  llvm::json::Array losses;
  for (const train::StepRecord &r : rs)
    losses.push_back((double)r.loss());
  llvm::json::Object o{{"steps", (int64_t)rs.size()},
                       {"losses", std::move(losses)},
                       {"final_loss", (double)finalLoss},
                       {"state_root", toHex(log.root())},
                       {"final_state_hash", toHex(fin)},
                       {"initial_state_hash", toHex(log.initial)},
                       {"ms_per_step", msPerStep},
                       {"threads", threads},
                       {"interpreted", interpret},
                       {"out", out}};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(std::move(o));
  std::printf("%s\n", os.str().c_str());
}

} // namespace

int cmdTrain(std::vector<std::string> args) {
  const char *cmd = "train";
  std::string run, data, out, format = "text", seedText = "0";
  int steps = 0, every = 10, threads = 1;
  bool interpret = false;
  train::TrainOptions to;
  CommandLine cl{cmd, printTrainHelp, {}, &run};
  cl.noPositional = "plumb train needs a training bundle";
  cl.options.push_back(
      text({"--data"}, data, "option '--data' needs a folder", true));
  cl.options.push_back(
      text({"--out"}, out, "option '--out' needs a folder", true));
  cl.options.push_back(number("--steps", steps, 1, 1 << 30));
  cl.options.push_back(number("--checkpoint-every", every, 1, 1 << 30));
  cl.options.push_back(number("--threads", threads, 1, 1024));
  cl.options.push_back(
      text({"--seed"}, seedText, "option '--seed' needs a number", true));
  cl.options.push_back(flag({"--interpret"}, interpret));
  cl.options.push_back(choice({"--format"}, format, {"text", "json"},
                              "option '--format' must be text or json"));
  cl.options.push_back(valued({"--inject-fault"}, [&to](const OptionUse &u) {
    train::StepFault f;
    std::string err;
    if (!train::parseStepFault(u.missing ? "" : u.value, f, err))
      return err;
    to.faults.push_back(f);
    return std::string();
  }));
  if (int r = cl.parse(args); r >= 0)
    return r;
  if (data.empty() || out.empty() || !steps)
    return usageError("plumb train needs --data, --steps and --out", cmd);
  char *end = nullptr;
  to.seed = std::strtoull(seedText.c_str(), &end, 10);
  if (*end || seedText[0] < '0' || seedText[0] > '9')
    return usageError("option '--seed' needs a non-negative number", cmd);
  to.steps = steps;
  to.checkpointEvery = every;
  to.threads = threads;
  to.interpret = interpret;
  to.progress = format == "text";
  train::TrainingInfo info;
  train::Dataset ds;
  std::string err;
  std::unique_ptr<bundle::Bundle> b =
      openTraining(run, interpret, data, info, ds, err);
  if (!b)
    return fail(cmd, err);
  for (const train::StepFault &f : to.faults)
    if (f.node >= (int64_t)b->manifest.nodes.size())
      return usageError("--inject-fault: node " + std::to_string(f.node) +
                            " does not exist (the step has " +
                            std::to_string(b->manifest.nodes.size()) +
                            " nodes)",
                        cmd);
  train::TrainLog log;
  double msPerStep = 0;
  if (!train::trainRun(*b, info, ds, to, out, log, msPerStep, err))
    return fail(cmd, err);
  printTrainResult(log, msPerStep, out, threads, interpret, format == "json");
  return 0;
}

} // namespace tool
} // namespace plumb

//===----------------------------------------------------------------------===//
// plumb dispute on a training bundle
//===----------------------------------------------------------------------===//

namespace plumb {
namespace tool {

namespace {

void printTrainDispute(const train::TrainDisputeResult &r, bool json) {
  const dispute::DisputeResult &n = r.node;
  int rounds = r.stepRounds + (r.phase2 ? n.rounds + n.chunkRounds : 0);
  uint64_t bytes = r.stepBytes + (r.phase2 ? n.bytes : 0);
  double fraction = r.stepMs > 0 ? r.refereeMs / r.stepMs : 0;
  std::string loser = r.error.empty() ? r.loser() : "none";
  if (!json) {
    for (const std::string &l : r.log)
      std::printf("%s\n", l.c_str());
    if (r.firstDivergentStep > 0)
      std::printf("first divergent step: %lld\n",
                  (long long)r.firstDivergentStep);
    if (r.phase2 && n.firstDivergent >= 0)
      std::printf("first divergent node: %lld '%s'\n",
                  (long long)n.firstDivergent, n.op.c_str());
    std::printf("rounds: %d (%d step, %d node), bytes exchanged: %llu\n",
                rounds, r.stepRounds, rounds - r.stepRounds,
                (unsigned long long)bytes);
    std::printf("referee time %.3f ms vs one step %.3f ms: %.3f%%\n",
                r.refereeMs, r.stepMs, 100.0 * fraction);
    if (!r.error.empty())
      std::printf("no verdict: %s\n", r.error.c_str());
    std::printf("verdict: loser %s\n", loser.c_str());
    return;
  }
  llvm::json::Object ps;
  for (int p = 0; p < 2; ++p) {
    bool lost = r.lost[p] || (r.phase2 && n.parties[p].lost);
    std::string why =
        r.lost[p] ? r.reasons[p] : (r.phase2 ? n.parties[p].reason : "");
    ps[r.names[p]] = llvm::json::Object{{"lost", lost}, {"reason", why}};
  }
  llvm::json::Array log;
  for (const std::string &l : r.log)
    log.push_back(l);
  llvm::json::Object o{
      {"loser", loser},
      {"roots_agree", r.rootsAgree},
      {"first_divergent_step", r.firstDivergentStep},
      {"first_divergent_index", r.phase2 ? n.firstDivergent : (int64_t)-1},
      {"op", r.phase2 ? n.op : ""},
      {"rounds", rounds},
      {"step_rounds", r.stepRounds},
      {"node_rounds", rounds - r.stepRounds},
      {"bytes_exchanged", (int64_t)bytes},
      {"step_bytes", (int64_t)r.stepBytes},
      {"referee_ms", r.refereeMs},
      {"step_ms", r.stepMs},
      {"referee_fraction_of_step", fraction},
      {"executed_nodes", r.phase2 ? n.executedNodes : 0},
      {"parties", std::move(ps)},
      {"log", std::move(log)}};
  if (!r.error.empty())
    o["error"] = r.error;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(std::move(o));
  std::printf("%s\n", os.str().c_str());
}

} // namespace

int runTrainDispute(
    const std::string &bundlePath, const std::string &data,
    const std::vector<TrainPartyArg> &parties,
    const std::vector<std::pair<std::string, std::string>> &behaviours,
    const std::string &format) {
  const char *cmd = "dispute";
  train::TrainPartySpec specs[2];
  for (int p = 0; p < 2; ++p) {
    specs[p].name = parties[p].name;
    specs[p].dir = parties[p].dir;
    for (const std::string &bh : parties[p].behave) {
      std::string err;
      if (!train::parseTrainBehaviour(bh, specs[p], err))
        return usageError(err, cmd);
    }
  }
  for (const auto &bh : behaviours)
    if (bh.first != specs[0].name && bh.first != specs[1].name)
      return usageError(
          "--behave names '" + bh.first + "', which is not a party", cmd);
  train::TrainingInfo info;
  train::Dataset ds;
  std::string err;
  std::unique_ptr<bundle::Bundle> b =
      openTraining(bundlePath, false, data, info, ds, err);
  if (!b)
    return fail(cmd, err);
  train::TrainDisputeResult r = train::trainDispute(*b, info, ds, specs);
  printTrainDispute(r, format == "json");
  if (!r.error.empty()) {
    fail(cmd, r.error);
    return 1;
  }
  return r.loser() == "none" ? 0 : 1;
}

} // namespace tool
} // namespace plumb
