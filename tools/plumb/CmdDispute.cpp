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
#include "plumb/Driver/TensorIO.h"
#include "plumb/InitAll.h"
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

static std::string shortHex(const Digest &d) { return toHex(d).substr(0, 16); }

int cmdDispute(std::vector<std::string> args) {
  const char *cmd = "dispute";
  importer::ImportOptions opts;
  std::string model, inputsDir, format = "text";
  std::map<std::string, std::string> inputFiles;
  struct PartySpec {
    std::string name, dir, command;
    std::vector<std::string> behave;
  };
  std::vector<PartySpec> parties;
  std::vector<std::pair<std::string, std::string>> behaviours;
  bool measureFull = false;
  int timeoutMs = 20000, repeat = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    std::string v;
    bool missing = false;
    if (a == "-h" || a == "--help") {
      printDisputeHelp(stdout);
      return 0;
    }
    if (int r = takeImportOption(args, i, opts, cmd)) {
      if (r < 0)
        return 2;
    } else if (takeValue(args, i, "--party", v, missing) ||
               takeValue(args, i, "--party-cmd", v, missing)) {
      bool isCmd = a.rfind("--party-cmd", 0) == 0;
      const char *opt = isCmd ? "--party-cmd" : "--party";
      size_t eq = v.find('=');
      if (missing || eq == std::string::npos || eq == 0 || eq + 1 == v.size())
        return usageError(std::string("option '") + opt + "' needs NAME=" +
                              (isCmd ? "COMMAND" : "TRACE_DIR"),
                          cmd);
      PartySpec p;
      p.name = v.substr(0, eq);
      (isCmd ? p.command : p.dir) = v.substr(eq + 1);
      for (const PartySpec &q : parties)
        if (q.name == p.name)
          return usageError("party '" + p.name + "' is given twice", cmd);
      parties.push_back(p);
    } else if (takeValue(args, i, "--behave", v, missing)) {
      size_t eq = v.find('=');
      if (missing || eq == std::string::npos || eq == 0)
        return usageError("option '--behave' needs NAME=BEHAVIOUR", cmd);
      behaviours.push_back({v.substr(0, eq), v.substr(eq + 1)});
    } else if (takeValue(args, i, "--input", v, missing)) {
      size_t eq = v.find('=');
      if (missing || eq == std::string::npos || eq == 0)
        return usageError("option '--input' needs NAME=FILE", cmd);
      inputFiles[v.substr(0, eq)] = v.substr(eq + 1);
    } else if (takeValue(args, i, "--inputs-dir", v, missing)) {
      if (missing)
        return usageError("option '--inputs-dir' needs a folder", cmd);
      inputsDir = v;
    } else if (takeValue(args, i, "--round-timeout-ms", v, missing)) {
      std::string e;
      if (!intOption("--round-timeout-ms", v, missing, 1, 3600000, timeoutMs, e))
        return usageError(e, cmd);
    } else if (takeValue(args, i, "--repeat", v, missing)) {
      std::string e;
      if (!intOption("--repeat", v, missing, 0, 100, repeat, e))
        return usageError(e, cmd);
    } else if (a == "--measure-full-run") {
      measureFull = true;
    } else if (takeValue(args, i, "--format", v, missing)) {
      if (missing || (v != "text" && v != "json"))
        return usageError("option '--format' must be text or json", cmd);
      format = v;
    } else if (!a.empty() && a[0] == '-') {
      return usageError("unknown option '" + a + "'", cmd);
    } else if (model.empty()) {
      model = a;
    } else {
      return usageError("unexpected argument '" + a + "'", cmd);
    }
  }
  if (model.empty())
    return usageError("no model given", cmd);
  if (parties.size() != 2)
    return usageError("a dispute needs exactly two parties (--party or "
                      "--party-cmd), got " +
                          std::to_string(parties.size()),
                      cmd);
  for (auto &b : behaviours) {
    auto it = std::find_if(parties.begin(), parties.end(),
                           [&](const PartySpec &p) { return p.name == b.first; });
    if (it == parties.end())
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
  for (const PartySpec &p : parties)
    if (!p.dir.empty() && !llvm::sys::fs::exists(trace::manifestPath(p.dir)))
      return usageError("party " + p.name + ": '" + p.dir +
                            "' is not a trace folder (no trace.json)",
                        cmd);

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.disableMultithreading();
  // The referee's own copy of the canonical program: a verified bundle (its
  // IR and weights; no library is built or loaded), or a model file
  // imported and canonicalised here.
  int exitCode = 0;
  std::string err;
  std::unique_ptr<bundle::Bundle> bundled;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (bundle::isBundleDir(model)) {
    if (!opts.bindings.inputShapes.empty() || !opts.bindings.dims.empty() ||
        !opts.bindings.inputValues.empty())
      return usageError("--input-shape, --dim and --input-value apply to "
                        ".onnx models, not bundles",
                        cmd);
    bundle::OpenOptions oo;
    oo.checkCpu = oo.checkCuda = false;
    auto b = bundle::openBundle(ctx, model, oo);
    if (!b) {
      std::fprintf(stderr, "plumb dispute: error: refusing bundle '%s': %s\n",
                   model.c_str(), llvm::toString(b.takeError()).c_str());
      return 1;
    }
    bundled = std::move(*b);
  } else {
    module = loadModel(ctx, model, opts, cmd, exitCode);
    if (!module)
      return exitCode;
    if (!trace::canonicalizeModule(*module, err)) {
      std::fprintf(stderr, "plumb dispute: error: %s\n", err.c_str());
      return 1;
    }
  }
  mlir::ModuleOp mod = bundled ? *bundled->module : *module;
  auto func = mod.lookupSymbol<mlir::func::FuncOp>("main");
  if (!func) {
    std::fprintf(stderr, "plumb dispute: error: '%s' has no func.func @main\n",
                 model.c_str());
    return 1;
  }

  // Inputs the referee knows (optional).
  unsigned nargs = func.getNumArguments();
  std::vector<std::string> names;
  if (!modelInputNames(func, inputFiles, cmd, names))
    return 2;
  std::vector<exec::Tensor> inputs(nargs);
  std::vector<bool> haveInput(nargs, false);
  dispute::RefereeOptions ropts;
  ropts.roundTimeoutMs = timeoutMs;
  ropts.knownInputs.resize(nargs);
  for (unsigned i = 0; i < nargs; ++i) {
    std::string file = modelInputFile(i, names[i], inputFiles, inputsDir);
    if (!file.empty()) {
      if (!driver::readTensorFile(file, inputs[i], err)) {
        std::fprintf(stderr, "plumb dispute: error: input '%s': %s\n",
                     names[i].c_str(), err.c_str());
        return 1;
      }
      haveInput[i] = true;
      // The trace tensor hash (version 2), as the parties commit to it.
      ropts.knownInputs[i] = trace::tensorHash(inputs[i]);
    } else if (auto bound = func.getArgAttrOfType<mlir::ElementsAttr>(
                   i, "plumb.bound_value")) {
      if (exec::tensorFromAttr(bound, inputs[i], err))
        haveInput[i] = true;
    }
  }
  if (measureFull)
    for (unsigned i = 0; i < nargs; ++i)
      if (!haveInput[i])
        return usageError("--measure-full-run needs every input (give --input "
                          "or --inputs-dir); '" +
                              names[i] + "' is missing",
                          cmd);

  // The parties, as separate processes.
  std::string self =
      llvm::sys::fs::getMainExecutable("plumb", (void *)&printDisputeHelp);
  auto spawnParties =
      [&](std::vector<std::unique_ptr<dispute::ProcessChannel>> &channels) {
        for (const PartySpec &p : parties) {
          std::vector<std::string> argv;
          if (!p.command.empty()) {
            argv = {"/bin/sh", "-c", p.command};
          } else {
            argv = {self, "serve-trace", p.dir};
            for (const std::string &b : p.behave)
              argv.push_back("--behave=" + b);
          }
          auto ch = dispute::ProcessChannel::spawn(argv, err);
          if (!ch) {
            std::fprintf(stderr, "plumb dispute: error: party %s: %s\n",
                         p.name.c_str(), err.c_str());
            return false;
          }
          channels.push_back(std::move(ch));
        }
        return true;
      };
  std::vector<std::unique_ptr<dispute::ProcessChannel>> channels;
  if (!spawnParties(channels))
    return 1;

  dispute::Referee referee(mod);
  std::string partyNames[2] = {parties[0].name, parties[1].name};
  dispute::DisputeResult res =
      referee.run(*channels[0], *channels[1], partyNames, ropts);
  channels.clear(); // the parties exit

  // The cost of a full run, for comparison only.
  auto timeFullRun = [&](double &ms) {
    std::vector<exec::Tensor> outs;
    auto t0 = std::chrono::steady_clock::now();
    if (!exec::runFunction(func, inputs, outs, err)) {
      std::fprintf(stderr, "plumb dispute: error: full run: %s\n", err.c_str());
      return false;
    }
    ms = std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
             .count();
    return true;
  };
  double fullMs = 0;
  std::string fullSource = "none";
  if (measureFull) {
    if (!timeFullRun(fullMs))
      return 1;
    fullSource = "measured";
  } else {
    for (const dispute::PartyReport &p : res.parties)
      if (p.runMs > 0 && (fullMs == 0 || p.runMs < fullMs))
        fullMs = p.runMs, fullSource = "committed by a party";
  }
  double fraction = fullMs > 0 ? res.refereeMs / fullMs : 0;
  std::string loser = res.error.empty() ? res.loser() : "none";

  // Warm: the same dispute again with this process's code and data warm.
  std::vector<double> warmRef, warmFull;
  for (int r = 0; r < repeat; ++r) {
    std::vector<std::unique_ptr<dispute::ProcessChannel>> again;
    if (!spawnParties(again))
      return 1;
    dispute::DisputeResult w =
        referee.run(*again[0], *again[1], partyNames, ropts);
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
    if (measureFull) {
      double ms = 0;
      if (!timeFullRun(ms))
        return 1;
      warmFull.push_back(ms);
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  double warmMs = median(warmRef);
  double warmMin = warmRef.empty() ? 0
                                   : *std::min_element(warmRef.begin(),
                                                       warmRef.end());
  double warmFullMs = warmFull.empty() ? fullMs : median(warmFull);
  double warmFraction = warmFullMs > 0 ? warmMs / warmFullMs : 0;

  if (format == "json") {
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
    o["referee_cpu_fraction"] = fullMs > 0 ? res.cpuMs / fullMs : 0;
    o["full_run_ms"] = fullMs;
    o["full_run_source"] = fullSource;
    o["referee_fraction"] = fraction;
    if (repeat > 0) {
      o["referee_warm_ms"] = llvm::json::Object{
          {"median", warmMs}, {"min", warmMin}, {"runs", repeat}};
      if (!warmFull.empty()) { // measured here, not a party's run_ms
        o["full_run_warm_ms"] = warmFullMs;
        o["referee_warm_fraction"] = warmFraction;
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
  } else {
    // The evidence, step by step, then the summary.
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
    if (fullMs > 0)
      std::printf(" vs full run %.3f ms (%s): %.3f%%", fullMs,
                  fullSource.c_str(), 100.0 * fraction);
    std::printf("\n");
    if (repeat > 0) {
      std::printf("warm referee: median %.3f ms, min %.3f ms over %d more "
                  "disputes",
                  warmMs, warmMin, repeat);
      if (warmFullMs > 0)
        std::printf(" vs full run %.3f ms: %.3f%%", warmFullMs,
                    100.0 * warmFraction);
      std::printf("\n");
    }
    if (!res.error.empty())
      std::printf("no verdict: %s\n", res.error.c_str());
    std::printf("verdict: loser %s\n", loser.c_str());
  }
  if (!res.error.empty()) {
    std::fprintf(stderr, "plumb dispute: error: %s\n", res.error.c_str());
    return res.error.find("different inputs") != std::string::npos ? 2 : 1;
  }
  return loser == "none" ? 0 : 1;
}

} // namespace tool
} // namespace plumb
