//===- tools/plumb/CmdDispute.cpp - plumb dispute -------------------------===//
//
// Part of Plumb. Settles a disagreement between two solvers' traces by
// refereed delegation (docs/dispute.md): the parties run as separate
// processes (`plumb serve-trace`, or any command speaking the protocol), the
// referee finds the first divergent node, re-executes only it and names the
// party that computed it wrongly.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "plumb/Bundle/Bundle.h"
#include "plumb/Dispute/Party.h"
#include "plumb/Dispute/Referee.h"
#include "plumb/Driver/Inputs.h"
#include "plumb/Driver/Pipeline.h"
#include "plumb/Driver/TensorIO.h"
#include "plumb/Support/Nodes.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/Trace/TensorHasher.h"
#include "plumb/Trace/Trace.h"
#include "plumb/Trace/TraceRecorder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

namespace plumb {
namespace tool {

void printDisputeHelp(FILE *f) {
  std::fprintf(
      f,
      "usage: plumb dispute BUNDLE|MODEL.onnx|MODEL.mlir [import options]\n"
      "                     --party NAME=TRACE_DIR | --party-cmd NAME=COMMAND\n"
      "                     (two parties) [--behave NAME=BEHAVIOUR]...\n"
      "                     [--input NAME=FILE]... [--inputs-dir DIR]\n"
      "                     [--measure-full-run] [--round-timeout-ms N]\n"
      "                     [--repeat N] [--format text|json]\n"
      "\n"
      "Settles a dispute between two parties that ran a model on the same\n"
      "inputs and published different traces (docs/dispute.md). The model is\n"
      "a bundle from 'plumb compile' (verified; its IR is the reference) or a\n"
      "model file, canonicalised as 'plumb compile' does. Each party runs as a\n"
      "separate process; the referee compares their trace roots, descends\n"
      "their Merkle trees to the first node whose output they disagree on\n"
      "(four tree levels a round: about log2(nodes)/4 rounds), has a party\n"
      "supply that node's input tensors (checked against the agreed hashes),\n"
      "re-executes that one node (or the part of it around the first\n"
      "divergent chunk of its result) with the reference kernels and names\n"
      "who computed it wrongly. It never runs the model.\n"
      "\n"
      "options:\n"
      "  --party NAME=DIR       a party answering from its trace folder (runs\n"
      "                         'plumb serve-trace DIR'); record traces with\n"
      "                         'plumb run --trace DIR --keep-tensors'\n"
      "  --party-cmd NAME=CMD   a party run by the shell command CMD, which\n"
      "                         speaks the protocol on stdin/stdout (e.g. on\n"
      "                         another machine through ssh)\n"
      "  --input NAME=FILE      an input the referee knows (.npy or .pb); a\n"
      "                         party committing to other inputs loses\n"
      "  --inputs-dir DIR       the same for input_<i>.pb / .npy files\n"
      "  --measure-full-run     also run the whole model once on the known\n"
      "                         inputs, only to report the referee's cost as\n"
      "                         a fraction of a full run\n"
      "  --round-timeout-ms N   time a party has for one answer (default\n"
      "                         20000); a party that does not answer loses\n"
      "  --repeat N             settle the same dispute N more times in this\n"
      "                         process (new party processes each time) and\n"
      "                         report the median and minimum referee time:\n"
      "                         the cost of a referee that is already up (a\n"
      "                         service), as 'plumb run --repeat' times warm\n"
      "                         runs; with --measure-full-run the full run is\n"
      "                         repeated too. Every repeat must reach the same\n"
      "                         verdict.\n"
      "  --format text|json     output format (default text)\n"
      "  --data DIR             a training dispute (BUNDLE compiled with\n"
      "                         --train, parties NAME=TRAIN_DIR from 'plumb\n"
      "                         train'): the data both trained on. Phase 1\n"
      "                         finds the first divergent step, both replay it\n"
      "                         from their checkpoints, phase 2 finds the node\n"
      "                         (docs/training.md); --behave NAME=\n"
      "                         lie-state-hash=S makes a party lie\n"
      "  import options         --input-shape, --dim, --input-value as in\n"
      "                         'plumb import' (for .onnx models)\n"
      "\n"
      "testing aid:\n"
      "  --behave NAME=B        pass '--behave B' to party NAME's serve-trace\n"
      "                         (see 'plumb serve-trace --help')\n"
      "\n"
      "The JSON object has first_divergent_index, node_id, op, loser (the\n"
      "party name, \"both\" or \"none\"), rounds, bytes_exchanged and more.\n"
      "\n"
      "exit status: 0 nobody lost, 1 a party lost (or the referee failed),\n"
      "2 usage error (including parties that ran different inputs when the\n"
      "referee was not given them)\n");
}

namespace {

std::string shortHex(const Digest &d) { return toHex(d).substr(0, 16); }

struct PartySpec {
  std::string name, dir, command;
  std::vector<std::string> behave;
};

struct DisputeArgs {
  importer::ImportOptions opts;
  std::string model, format = "text";
  driver::InputFiles inputs;
  std::vector<PartySpec> parties;
  std::vector<std::pair<std::string, std::string>> behaviours;
  bool measureFull = false;
  int timeoutMs = 20000, repeat = 0;
  /// A training dispute's data (docs/training.md).
  std::string data;
};

/// --party NAME=DIR and --party-cmd NAME=COMMAND.
Option partyOption(const char *opt, bool isCmd, std::vector<PartySpec> &parties) {
  return valued({opt}, [opt, isCmd, &parties](const OptionUse &u) {
    const std::string &v = u.value;
    size_t eq = v.find('=');
    if (u.missing || eq == std::string::npos || eq == 0 || eq + 1 == v.size())
      return std::string("option '") + opt + "' needs NAME=" +
             (isCmd ? "COMMAND" : "TRACE_DIR");
    PartySpec p;
    p.name = v.substr(0, eq);
    (isCmd ? p.command : p.dir) = v.substr(eq + 1);
    for (const PartySpec &q : parties)
      if (q.name == p.name)
        return "party '" + p.name + "' is given twice";
    parties.push_back(p);
    return std::string();
  });
}

/// The checks of the parties and their behaviours, after parsing.
int checkParties(DisputeArgs &a, const char *cmd) {
  if (a.parties.size() != 2)
    return usageError("a dispute needs exactly two parties (--party or "
                      "--party-cmd), got " +
                          std::to_string(a.parties.size()),
                      cmd);
  if (!a.data.empty())
    return -1; // training parties are checked by the training dispute
  for (auto &b : a.behaviours) {
    auto it = std::find_if(a.parties.begin(), a.parties.end(),
                           [&](const PartySpec &p) { return p.name == b.first; });
    if (it == a.parties.end())
      return usageError("--behave names '" + b.first +
                            "', which is not a party",
                        cmd);
    if (it->dir.empty())
      return usageError("--behave applies to --party (serve-trace) parties",
                        cmd);
    dispute::Behaviour check;
    std::string berr;
    if (!dispute::parseBehaviour(b.second, check, berr))
      return usageError(berr, cmd);
    it->behave.push_back(b.second);
  }
  for (const PartySpec &p : a.parties)
    if (!p.dir.empty() && !llvm::sys::fs::exists(trace::manifestPath(p.dir)) &&
        llvm::sys::fs::exists(p.dir + "/log.json"))
      return usageError("party " + p.name + ": '" + p.dir +
                            "' is a training folder: a training dispute needs "
                            "--data DIR",
                        cmd);
  for (const PartySpec &p : a.parties)
    if (!p.dir.empty() && !llvm::sys::fs::exists(trace::manifestPath(p.dir)))
      return usageError("party " + p.name + ": '" + p.dir +
                            "' is not a trace folder (no trace.json)",
                        cmd);
  return -1;
}

/// Parses plumb dispute's command line: -1 to go on, else the exit status.
int parseDisputeArgs(const std::vector<std::string> &args, DisputeArgs &a) {
  const char *cmd = "dispute";
  CommandLine cl{cmd, printDisputeHelp, {}, &a.model};
  addImportOptions(cl.options, a.opts);
  cl.options.push_back(partyOption("--party", false, a.parties));
  cl.options.push_back(partyOption("--party-cmd", true, a.parties));
  cl.options.push_back(valued({"--behave"}, [&](const OptionUse &u) {
    size_t eq = u.value.find('=');
    if (u.missing || eq == std::string::npos || eq == 0)
      return std::string("option '--behave' needs NAME=BEHAVIOUR");
    a.behaviours.push_back({u.value.substr(0, eq), u.value.substr(eq + 1)});
    return std::string();
  }));
  cl.options.push_back(pairs("--input", a.inputs.byName, "FILE"));
  cl.options.push_back(text({"--inputs-dir"}, a.inputs.dir,
                            "option '--inputs-dir' needs a folder"));
  cl.options.push_back(number("--round-timeout-ms", a.timeoutMs, 1, 3600000));
  cl.options.push_back(
      text({"--data"}, a.data, "option '--data' needs a folder", true));
  cl.options.push_back(number("--repeat", a.repeat, 0, 100));
  cl.options.push_back(flag({"--measure-full-run"}, a.measureFull));
  cl.options.push_back(choice({"--format"}, a.format, {"text", "json"},
                              "option '--format' must be text or json"));
  if (int r = cl.parse(args); r >= 0)
    return r;
  return checkParties(a, cmd);
}

/// The referee's own copy of the canonical program: a verified bundle (its
/// IR and weights; no library is built or loaded), or a model file imported
/// and canonicalised here. Returns -1 to go on, else the exit status.
int loadRefereeModel(mlir::MLIRContext &ctx, const DisputeArgs &a,
                     std::unique_ptr<bundle::Bundle> &bundled,
                     mlir::OwningOpRef<mlir::ModuleOp> &module) {
  const char *cmd = "dispute";
  if (bundle::isBundleDir(a.model)) {
    if (driver::bindsInputs(a.opts))
      return usageError("--input-shape, --dim and --input-value apply to "
                        ".onnx models, not bundles",
                        cmd);
    bundle::OpenOptions oo;
    oo.checkCpu = oo.checkCuda = false;
    auto b = bundle::openBundle(a.model, oo);
    if (!b)
      return fail(cmd, "refusing bundle '" + a.model +
                           "': " + llvm::toString(b.takeError()));
    bundled = std::move(*b);
    return -1;
  }
  int exitCode = 0;
  module = loadModel(ctx, a.model, a.opts, cmd, exitCode);
  if (!module)
    return exitCode;
  std::string err;
  if (!driver::canonicalize(*module, err))
    return fail(cmd, err);
  return -1;
}

/// Inputs the referee knows (optional): their hashes go into `ropts`, the
/// tensors into `inputs` (for --measure-full-run). -1 to go on, else the
/// exit status.
int readKnownInputs(mlir::func::FuncOp func, const DisputeArgs &a,
                    std::vector<exec::Tensor> &inputs,
                    dispute::RefereeOptions &ropts) {
  const char *cmd = "dispute";
  driver::Failure f;
  if (!a.inputs.checkNames(func, f))
    return report(f, cmd);
  std::vector<driver::TensorSpec> specs = driver::inputSpecs(func);
  unsigned nargs = specs.size();
  inputs.assign(nargs, exec::Tensor());
  std::vector<bool> haveInput(nargs, false);
  ropts.knownInputs.resize(nargs);
  for (unsigned i = 0; i < nargs; ++i) {
    std::string err, file = a.inputs.fileFor(i, specs[i].name);
    if (!file.empty()) {
      if (!driver::readTensorFile(file, inputs[i], err))
        return fail(cmd, "input '" + specs[i].name + "': " + err);
      haveInput[i] = true;
      // The trace tensor hash (version 2), as the parties commit to it.
      ropts.knownInputs[i] = trace::tensorHash(inputs[i]);
    } else if (specs[i].bound) {
      if (exec::tensorFromAttr(specs[i].bound, inputs[i], err))
        haveInput[i] = true;
    }
  }
  if (a.measureFull)
    for (unsigned i = 0; i < nargs; ++i)
      if (!haveInput[i])
        return usageError("--measure-full-run needs every input (give --input "
                          "or --inputs-dir); '" +
                              specs[i].name + "' is missing",
                          cmd);
  return -1;
}

/// The parties, as separate processes.
bool spawnParties(const DisputeArgs &a,
                  std::vector<std::unique_ptr<dispute::ProcessChannel>> &channels) {
  std::string self =
      llvm::sys::fs::getMainExecutable("plumb", (void *)&printDisputeHelp);
  for (const PartySpec &p : a.parties) {
    std::vector<std::string> argv;
    if (!p.command.empty()) {
      argv = {"/bin/sh", "-c", p.command};
    } else {
      argv = {self, "serve-trace", p.dir};
      for (const std::string &b : p.behave)
        argv.push_back("--behave=" + b);
    }
    std::string err;
    auto ch = dispute::ProcessChannel::spawn(argv, err);
    if (!ch) {
      fail("dispute", "party " + p.name + ": " + err);
      return false;
    }
    channels.push_back(std::move(ch));
  }
  return true;
}

/// The cost of a full run, for comparison only.
bool timeFullRun(mlir::func::FuncOp func, const std::vector<exec::Tensor> &inputs,
                 double &ms) {
  std::vector<exec::Tensor> outs;
  std::string err;
  auto t0 = std::chrono::steady_clock::now();
  if (!exec::runFunction(func, inputs, outs, err)) {
    fail("dispute", "full run: " + err);
    return false;
  }
  ms = std::chrono::duration<double, std::milli>(
           std::chrono::steady_clock::now() - t0)
           .count();
  return true;
}

/// What is printed beside the verdict: the referee's cost against a full
/// run, cold and warm.
struct DisputeCosts {
  double fullMs = 0;
  std::string fullSource = "none";
  double fraction = 0;
  std::vector<double> warmFull;
  double warmMs = 0, warmMin = 0, warmFullMs = 0, warmFraction = 0;
};

double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// Warm: the same dispute again with this process's code and data warm.
/// Returns -1 to go on, else the exit status.
int repeatDispute(const DisputeArgs &a, dispute::Referee &referee,
                  const std::string names[2], const dispute::RefereeOptions &ropts,
                  const dispute::DisputeResult &res, const std::string &loser,
                  mlir::func::FuncOp func, const std::vector<exec::Tensor> &inputs,
                  DisputeCosts &c) {
  std::vector<double> warmRef;
  for (int r = 0; r < a.repeat; ++r) {
    std::vector<std::unique_ptr<dispute::ProcessChannel>> again;
    if (!spawnParties(a, again))
      return 1;
    dispute::DisputeResult w = referee.run(*again[0], *again[1], names, ropts);
    again.clear();
    std::string wloser = w.error.empty() ? w.loser() : "none";
    if (wloser != loser || w.firstDivergent != res.firstDivergent ||
        w.executedNodes != res.executedNodes || w.error != res.error) {
      std::fprintf(stderr,
                   "plumb dispute: error: --repeat: dispute %d reached "
                   "another verdict (loser %s, node %lld; first: loser %s, "
                   "node %lld)\n",
                   r + 2, wloser.c_str(), (long long)w.firstDivergent,
                   loser.c_str(), (long long)res.firstDivergent);
      return 1;
    }
    warmRef.push_back(w.refereeMs);
    if (a.measureFull) {
      double ms = 0;
      if (!timeFullRun(func, inputs, ms))
        return 1;
      c.warmFull.push_back(ms);
    }
  }
  c.warmMs = medianOf(warmRef);
  c.warmMin =
      warmRef.empty() ? 0 : *std::min_element(warmRef.begin(), warmRef.end());
  c.warmFullMs = c.warmFull.empty() ? c.fullMs : medianOf(c.warmFull);
  c.warmFraction = c.warmFullMs > 0 ? c.warmMs / c.warmFullMs : 0;
  return -1;
}

void printDisputeJson(const DisputeArgs &a, const dispute::Referee &referee,
                      const dispute::DisputeResult &res,
                      const std::string &loser, const DisputeCosts &c) {
  llvm::json::Object o;
  o["first_divergent_index"] = res.firstDivergent;
  o["node_id"] = res.firstDivergent >= 0 ? toHex(res.nodeId) : "";
  o["op"] = res.op;
  o["loser"] = loser;
  o["rounds"] = res.rounds;
  o["messages"] = res.messages;
  o["bytes_exchanged"] = (int64_t)res.bytes;
  o["executed_nodes"] = res.executedNodes;
  o["roots_agree"] = res.rootsAgree;
  o["num_nodes"] = referee.numNodes();
  o["graph_hash"] = toHex(referee.graphHash());
  o["supplier"] = res.supplier;
  o["reference_hash"] = res.haveReference ? toHex(res.reference) : "";
  o["sub_node"] = res.subNode;
  o["whole_node_reason"] = res.wholeNodeReason;
  o["divergent_result"] = res.divergentResult;
  o["divergent_chunk"] = res.divergentChunk;
  o["num_chunks"] = res.numChunks;
  o["chunk_rounds"] = res.chunkRounds;
  o["reference_chunk"] =
      res.haveReferenceChunk ? toHex(res.referenceChunk) : "";
  o["computed_elements"] = res.computedElements;
  o["result_elements"] = res.resultElements;
  o["output_fraction"] = res.outputFraction;
  o["referee_ms"] = res.refereeMs;
  o["node_exec_ms"] = res.nodeExecMs;
  o["constants_ms"] = res.constantsMs;
  o["verify_ms"] = res.verifyMs;
  o["wall_ms"] = res.wallMs;
  o["referee_cpu_ms"] = res.cpuMs;
  o["referee_cpu_fraction"] = c.fullMs > 0 ? res.cpuMs / c.fullMs : 0;
  o["full_run_ms"] = c.fullMs;
  o["full_run_source"] = c.fullSource;
  o["referee_fraction"] = c.fraction;
  if (a.repeat > 0) {
    o["referee_warm_ms"] = llvm::json::Object{
        {"median", c.warmMs}, {"min", c.warmMin}, {"runs", a.repeat}};
    if (!c.warmFull.empty()) { // measured here, not a party's run_ms
      o["full_run_warm_ms"] = c.warmFullMs;
      o["referee_warm_fraction"] = c.warmFraction;
    }
  }
  if (!res.error.empty())
    o["error"] = res.error;
  llvm::json::Object ps;
  for (const dispute::PartyReport &p : res.parties) {
    llvm::json::Object po{{"lost", p.lost},
                          {"reason", p.reason},
                          {"root", p.committed ? toHex(p.root) : ""},
                          {"claim", p.hasClaim ? toHex(p.claim) : ""},
                          {"chunk_claim",
                           p.hasChunkClaim ? toHex(p.chunkClaim) : ""},
                          {"bytes_sent", (int64_t)p.bytesSent},
                          {"bytes_received", (int64_t)p.bytesReceived}};
    ps[p.name] = std::move(po);
  }
  o["parties"] = std::move(ps);
  llvm::json::Array log;
  for (const std::string &l : res.log)
    log.push_back(l);
  o["log"] = std::move(log);
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(std::move(o));
  std::printf("%s\n", os.str().c_str());
}

/// The evidence, step by step, then the summary.
void printDisputeText(const DisputeArgs &a, const dispute::Referee &referee,
                      const dispute::DisputeResult &res,
                      const std::string &loser, const DisputeCosts &c) {
  for (const std::string &l : res.log)
    std::printf("%s\n", l.c_str());
  if (res.firstDivergent >= 0)
    std::printf("first divergent node: %lld '%s' (id %s)\n",
                (long long)res.firstDivergent, res.op.c_str(),
                shortHex(res.nodeId).c_str());
  std::printf("rounds: %d (%lld nodes), messages: %d, bytes exchanged: "
              "%llu\n",
              res.rounds, (long long)referee.numNodes(), res.messages,
              (unsigned long long)res.bytes);
  if (res.subNode)
    std::printf("chunk search: result %d, chunk %lld of %lld, %d rounds\n",
                res.divergentResult, (long long)res.divergentChunk,
                (long long)res.numChunks, res.chunkRounds);
  std::printf("referee: executed %d node%s (%.3f ms", res.executedNodes,
              res.executedNodes == 1 ? "" : "s", res.nodeExecMs);
  if (res.executedNodes)
    std::printf(", %.4g%% of its output", 100.0 * res.outputFraction);
  std::printf("); referee time %.3f ms", res.refereeMs);
  if (c.fullMs > 0)
    std::printf(" vs full run %.3f ms (%s): %.3f%%", c.fullMs,
                c.fullSource.c_str(), 100.0 * c.fraction);
  std::printf("\n");
  if (a.repeat > 0) {
    std::printf("warm referee: median %.3f ms, min %.3f ms over %d more "
                "disputes",
                c.warmMs, c.warmMin, a.repeat);
    if (c.warmFullMs > 0)
      std::printf(" vs full run %.3f ms: %.3f%%", c.warmFullMs,
                  100.0 * c.warmFraction);
    std::printf("\n");
  }
  if (!res.error.empty())
    std::printf("no verdict: %s\n", res.error.c_str());
  std::printf("verdict: loser %s\n", loser.c_str());
}

} // namespace

int cmdDispute(std::vector<std::string> args) {
  const char *cmd = "dispute";
  DisputeArgs a;
  if (int r = parseDisputeArgs(args, a); r >= 0)
    return r;
  auto ctx = driver::makeContext();
  std::unique_ptr<bundle::Bundle> bundled;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (int r = loadRefereeModel(*ctx, a, bundled, module); r >= 0)
    return r;
  bool training = bundled && !bundled->manifest.training.empty();
  if (training || !a.data.empty()) {
    if (!training || a.data.empty())
      return usageError(training ? "a training dispute needs --data DIR"
                                 : "--data goes with a training bundle",
                        cmd);
    std::vector<TrainPartyArg> ps;
    for (const PartySpec &p : a.parties) {
      if (p.dir.empty())
        return usageError("a training dispute takes --party NAME=TRAIN_DIR",
                          cmd);
      ps.push_back({p.name, p.dir, {}});
    }
    for (auto &b : a.behaviours)
      for (TrainPartyArg &p : ps)
        if (p.name == b.first)
          p.behave.push_back(b.second);
    return runTrainDispute(a.model, a.data, ps, a.behaviours, a.format);
  }
  mlir::ModuleOp mod = bundled ? *bundled->module : *module;
  auto func = getMainFunc(mod);
  if (!func)
    return fail(cmd, "'" + a.model + "' has no func.func @main");
  std::vector<exec::Tensor> inputs;
  dispute::RefereeOptions ropts;
  ropts.roundTimeoutMs = a.timeoutMs;
  if (int r = readKnownInputs(func, a, inputs, ropts); r >= 0)
    return r;

  std::vector<std::unique_ptr<dispute::ProcessChannel>> channels;
  if (!spawnParties(a, channels))
    return 1;
  dispute::Referee referee(mod);
  std::string partyNames[2] = {a.parties[0].name, a.parties[1].name};
  dispute::DisputeResult res =
      referee.run(*channels[0], *channels[1], partyNames, ropts);
  channels.clear(); // the parties exit

  DisputeCosts c;
  if (a.measureFull) {
    if (!timeFullRun(func, inputs, c.fullMs))
      return 1;
    c.fullSource = "measured";
  } else {
    for (const dispute::PartyReport &p : res.parties)
      if (p.runMs > 0 && (c.fullMs == 0 || p.runMs < c.fullMs))
        c.fullMs = p.runMs, c.fullSource = "committed by a party";
  }
  c.fraction = c.fullMs > 0 ? res.refereeMs / c.fullMs : 0;
  std::string loser = res.error.empty() ? res.loser() : "none";
  if (int r = repeatDispute(a, referee, partyNames, ropts, res, loser, func,
                            inputs, c);
      r >= 0)
    return r;
  if (a.format == "json")
    printDisputeJson(a, referee, res, loser, c);
  else
    printDisputeText(a, referee, res, loser, c);
  if (!res.error.empty()) {
    fail(cmd, res.error);
    return res.error.find("different inputs") != std::string::npos ? 2 : 1;
  }
  return loser == "none" ? 0 : 1;
}

} // namespace tool
} // namespace plumb
