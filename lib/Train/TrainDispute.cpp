//===- lib/Train/TrainDispute.cpp - Two-level training disputes -----------===//
//
// Part of Plumb. See include/plumb/Train/TrainDispute.h. Phase 1's messages
// (train_commit, train_subtrees, train_leaf) travel as protocol lines over
// in-process channels, which count their bytes; phase 2 is the node
// referee on the replayed step's two traces.
//
//===----------------------------------------------------------------------===//
#include "plumb/Train/TrainDispute.h"

#include "plumb/Dispute/Party.h"
#include "plumb/Support/Nodes.h"
#include "plumb/Trace/TensorHasher.h"

#include "llvm/Support/FileSystem.h"

#include <chrono>
#include <cstdio>
#include <memory>

namespace plumb {
namespace train {

std::string TrainDisputeResult::loser() const {
  if (lost[0] && lost[1])
    return "both";
  if (lost[0])
    return names[0];
  if (lost[1])
    return names[1];
  if (phase2)
    return node.loser();
  return "none";
}

bool parseTrainBehaviour(const std::string &spec, TrainPartySpec &p,
                         std::string &err) {
  long long s = -1;
  char tail = 0;
  if (std::sscanf(spec.c_str(), "lie-state-hash=%lld%c", &s, &tail) != 1 ||
      s < 1) {
    err = "a training party's --behave is lie-state-hash=S (S >= 1), got '" +
          spec + "'";
    return false;
  }
  p.lieStep = s;
  return true;
}

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

/// A party answering phase 1 from its training log (with its lie, if any).
class StepParty : public dispute::Responder {
public:
  StepParty(TrainLog l, int64_t lieStep) : log(std::move(l)) {
    if (lieStep >= 1 && lieStep <= (int64_t)log.records.size())
      log.records[lieStep - 1].state[0] ^= 1;
    items = log.items();
  }
  bool respond(const std::string &request, std::string &reply,
               std::string &attachment) override;
  TrainLog log; // as claimed
  std::vector<Digest> items;
};

bool StepParty::respond(const std::string &request, std::string &reply,
                        std::string &attachment) {
  attachment.clear();
  llvm::json::Object req, r;
  std::string type, err;
  if (!dispute::parseMessage(request, req, type, err)) {
    r = dispute::makeMessage("error");
    r["message"] = err;
  } else if (type == "train_commit") {
    r = dispute::makeMessage("train_commitment");
    r["graph_hash"] = log.graphHash;
    r["steps"] = (int64_t)items.size();
    r["seed"] = (int64_t)log.seed;
    r["initial_state_hash"] = toHex(log.initial);
    r["state_root"] = toHex(merkleRoot(items));
  } else if (type == "train_subtrees") {
    r = dispute::makeMessage("train_subtrees");
    llvm::json::Array hashes;
    if (const llvm::json::Array *rs = req.getArray("ranges"))
      for (const llvm::json::Value &v : *rs) {
        const llvm::json::Array *p = v.getAsArray();
        int64_t lo =
            p && p->size() == 2 ? (*p)[0].getAsInteger().value_or(-1) : -1;
        int64_t hi =
            p && p->size() == 2 ? (*p)[1].getAsInteger().value_or(-1) : -1;
        if (lo < 0 || hi <= lo || hi > (int64_t)items.size())
          return false;
        hashes.push_back(toHex(merkleSubtree(items, lo, hi)));
      }
    r["hashes"] = std::move(hashes);
  } else if (type == "train_leaf") {
    int64_t i = req.getInteger("index").value_or(-1);
    if (i < 0 || i >= (int64_t)items.size())
      return false;
    const StepRecord &rec = log.records[i];
    r = dispute::makeMessage("train_leaf");
    r["step"] = rec.step;
    llvm::json::Array ex;
    for (int64_t e : rec.examples)
      ex.push_back(e);
    r["examples"] = std::move(ex);
    r["state_hash"] = toHex(rec.state);
    r["loss_bits"] = (int64_t)rec.lossBits;
    r["proof"] = dispute::digestsToJson(merkleProof(items, i));
  } else {
    return false; // "end"
  }
  reply = dispute::serialize(r);
  return true;
}

/// One request and its answer.
bool ask(dispute::Channel &c, llvm::json::Object req, llvm::json::Object &ans,
         std::string &err) {
  std::string line, type;
  if (!c.send(dispute::serialize(req), err) || !c.receive(line, 20000, err))
    return false;
  return dispute::parseMessage(line, ans, type, err);
}

struct Phase1 {
  dispute::Channel *ch[2];
  TrainDisputeResult &res;
  Digest roots[2];
  int64_t steps = 0;
  uint64_t seed = 0;

  bool lose(int p, const std::string &why) {
    res.lost[p] = true;
    res.reasons[p] = why;
    res.log.push_back(res.names[p] + " loses: " + why);
    return false;
  }
  bool commit(const bundle::Bundle &b, const Digest &initial);
  bool descend(int64_t &leaf);
  bool leaf(int p, int64_t index, StepRecord &rec);
};

bool Phase1::commit(const bundle::Bundle &b, const Digest &initial) {
  llvm::json::Object ans[2];
  for (int p = 0; p < 2; ++p) {
    std::string err;
    if (!ask(*ch[p], dispute::makeMessage("train_commit"), ans[p], err))
      return lose(p, "no commitment: " + err);
    auto gh = ans[p].getString("graph_hash");
    Digest init{};
    auto ih = ans[p].getString("initial_state_hash");
    auto sr = ans[p].getString("state_root");
    if (!gh || *gh != b.manifest.graphHash)
      return lose(p, "committed to another step program");
    if (!ih || !fromHex(ih->str(), init) || init != initial)
      return lose(p, "its initial state is not the bundle's");
    if (!sr || !fromHex(sr->str(), roots[p]))
      return lose(p, "no state root");
  }
  steps = ans[0].getInteger("steps").value_or(0);
  seed = (uint64_t)ans[0].getInteger("seed").value_or(0);
  if (steps != ans[1].getInteger("steps").value_or(-1) ||
      seed != (uint64_t)ans[1].getInteger("seed").value_or(0)) {
    res.error = "the parties trained different numbers of steps or with "
                "different seeds";
    return false;
  }
  res.rootsAgree = roots[0] == roots[1];
  return true;
}

bool Phase1::descend(int64_t &leafIndex) {
  size_t lo = 0, hi = (size_t)steps;
  Digest known[2] = {roots[0], roots[1]};
  while (hi - lo > 1) {
    size_t k = lo + merkleSplit(hi - lo);
    Digest l[2], r[2];
    for (int p = 0; p < 2; ++p) {
      llvm::json::Object req = dispute::makeMessage("train_subtrees"), ans;
      req["ranges"] =
          llvm::json::Array{llvm::json::Array{(int64_t)lo, (int64_t)k},
                            llvm::json::Array{(int64_t)k, (int64_t)hi}};
      std::string err;
      std::vector<Digest> h;
      if (!ask(*ch[p], std::move(req), ans, err) ||
          !dispute::digestsFromJson(ans.get("hashes"), h) || h.size() != 2)
        return lose(p,
                    "no step subtree hashes" + (err.empty() ? "" : ": " + err));
      l[p] = h[0];
      r[p] = h[1];
      if (merkleNode(l[p], r[p]) != known[p])
        return lose(p, "step subtree hashes that do not combine to its tree");
    }
    ++res.stepRounds;
    bool left = l[0] != l[1];
    (left ? hi : lo) = k;
    for (int p = 0; p < 2; ++p)
      known[p] = left ? l[p] : r[p];
  }
  leafIndex = (int64_t)lo;
  return true;
}

bool Phase1::leaf(int p, int64_t index, StepRecord &rec) {
  llvm::json::Object req = dispute::makeMessage("train_leaf"), ans;
  req["index"] = index;
  std::string err;
  std::vector<Digest> proof;
  if (!ask(*ch[p], std::move(req), ans, err))
    return lose(p, "no step record: " + err);
  auto sh = ans.getString("state_hash");
  rec.step = ans.getInteger("step").value_or(-1);
  rec.lossBits = (uint32_t)ans.getInteger("loss_bits").value_or(0);
  rec.examples.clear();
  if (const llvm::json::Array *ex = ans.getArray("examples"))
    for (const llvm::json::Value &v : *ex)
      rec.examples.push_back(v.getAsInteger().value_or(-1));
  if (!sh || !fromHex(sh->str(), rec.state) ||
      !dispute::digestsFromJson(ans.get("proof"), proof) ||
      rec.step != index + 1 ||
      !merkleVerify(roots[p], (size_t)steps, (size_t)index,
                    stepItem(rec.step, rec.examples, rec.state, rec.lossBits),
                    proof))
    return lose(p, "a record of step " + std::to_string(index + 1) +
                       " that its step tree does not prove");
  return true;
}

/// A party's replay of step `s` from its nearest checkpoint, into a traced
/// run in `traceDir`; the referee checks the checkpoint, the state reached
/// and the claim. Returns false when the party loses.
bool replay(Phase1 &ph, int p, bundle::Bundle &b, const TrainingInfo &info,
            const Dataset &data, const TrainLog &claimed, const Digest &pre,
            const StepRecord &claim, const std::string &traceDir,
            std::vector<exec::Tensor> &inputs, double &stepMs, double &refMs,
            const std::string &dir) {
  int64_t s = claim.step, c = 0;
  for (int64_t k : claimed.checkpoints)
    if (k <= s - 1 && k > c)
      c = k;
  std::vector<exec::Tensor> state;
  std::string err;
  if (!readCheckpoint(checkpointPath(dir, c), b, info, state, err))
    return ph.lose(p, "cannot supply its checkpoint of step " +
                          std::to_string(c) + ": " + err);
  auto t0 = std::chrono::steady_clock::now();
  Digest want = c == 0 ? claimed.initial : claimed.records[c - 1].state;
  bool ok = stateHash(c, state) == want;
  refMs += msSince(t0);
  if (!ok)
    return ph.lose(p, "its checkpoint of step " + std::to_string(c) +
                          " does not match its claimed state hash");
  StepRunner runner(b, info, data, 1, false);
  for (int64_t k = c + 1; k < s; ++k) {
    uint32_t bits;
    if (!runner.run(k, stepExamples(claimed.seed, data.examples, info.batch, k),
                    state, bits, claimed.faults, "", err))
      return ph.lose(p, "cannot replay step " + std::to_string(k) + ": " + err);
  }
  if (stateHash(s - 1, state) != pre)
    return ph.lose(p, "its checkpoint of step " + std::to_string(c) +
                          " does not lead to the agreed state of step " +
                          std::to_string(s - 1));
  uint32_t bits;
  llvm::sys::fs::remove_directories(traceDir);
  if (!runner.run(s, claim.examples, state, bits, claimed.faults, traceDir,
                  err))
    return ph.lose(p, "cannot replay step " + std::to_string(s) + ": " + err);
  stepMs = runner.lastMs;
  inputs = runner.lastInputs();
  if (stateHash(s, state) != claim.state || bits != claim.lossBits)
    return ph.lose(p, "the state hash it claims for step " + std::to_string(s) +
                          " is not what its own step computes");
  return true;
}

/// Phase 2: the node dispute on the two replayed traces.
void nodePhase(TrainDisputeResult &res, bundle::Bundle &b,
               const std::string traces[2],
               const std::vector<exec::Tensor> &inputs) {
  std::string err;
  std::unique_ptr<dispute::TraceParty> tp[2];
  for (int p = 0; p < 2; ++p) {
    tp[p] = dispute::TraceParty::open(traces[p], dispute::Behaviour(), err);
    if (!tp[p]) {
      res.error =
          "cannot open the replayed trace of " + res.names[p] + ": " + err;
      return;
    }
  }
  dispute::LocalChannel ca(*tp[0]), cb(*tp[1]);
  dispute::RefereeOptions ro;
  for (const exec::Tensor &t : inputs)
    ro.knownInputs.push_back(trace::tensorHash(t));
  dispute::Referee referee(*b.module);
  res.phase2 = true;
  res.node = referee.run(ca, cb, res.names, ro);
  for (const std::string &l : res.node.log)
    res.log.push_back(l);
}

} // namespace

TrainDisputeResult trainDispute(bundle::Bundle &b, const TrainingInfo &info,
                                const Dataset &data,
                                const TrainPartySpec parties[2]) {
  TrainDisputeResult res;
  std::unique_ptr<StepParty> sp[2];
  TrainLog logs[2];
  for (int p = 0; p < 2; ++p) {
    res.names[p] = parties[p].name;
    std::string err;
    if (!readLog(parties[p].dir, logs[p], err)) {
      res.error = err;
      return res;
    }
    if (logs[p].dataSha256 != data.sha256) {
      res.error =
          "party " + parties[p].name + " trained on other data than --data";
      return res;
    }
    sp[p] = std::make_unique<StepParty>(logs[p], parties[p].lieStep);
  }
  dispute::LocalChannel ca(*sp[0]), cb(*sp[1]);
  Phase1 ph{{&ca, &cb}, res};
  auto t0 = std::chrono::steady_clock::now();
  std::vector<exec::Tensor> init;
  std::string err;
  if (!initialState(b, info, init, err)) {
    res.error = err;
    return res;
  }
  int64_t leaf = -1;
  if (!ph.commit(b, stateHash(0, init)) || res.rootsAgree || !ph.descend(leaf))
    return res;
  res.firstDivergentStep = leaf + 1;
  StepRecord claim[2], prev[2];
  for (int p = 0; p < 2; ++p)
    if (!ph.leaf(p, leaf, claim[p]) ||
        (leaf > 0 && !ph.leaf(p, leaf - 1, prev[p])))
      return res;
  Digest pre = leaf > 0 ? prev[0].state : stateHash(0, init);
  res.log.push_back("phase 1: first divergent step " +
                    std::to_string(leaf + 1) + " after " +
                    std::to_string(res.stepRounds) + " rounds");
  auto expected = stepExamples(ph.seed, data.examples, info.batch, leaf + 1);
  for (int p = 0; p < 2; ++p)
    if (claim[p].examples != expected)
      ph.lose(p, "step " + std::to_string(leaf + 1) +
                     " used other examples than the seeded order");
  res.refereeMs = msSince(t0);
  res.stepMessages = 0;
  res.stepBytes =
      ca.bytesSent + ca.bytesReceived + cb.bytesSent + cb.bytesReceived;
  if (res.lost[0] || res.lost[1])
    return res;
  std::string traces[2];
  std::vector<exec::Tensor> inputs[2];
  double stepMs[2] = {0, 0};
  for (int p = 0; p < 2; ++p) {
    traces[p] = parties[p].dir + "/replay-step-" + std::to_string(leaf + 1);
    replay(ph, p, b, info, data, sp[p]->log, pre, claim[p], traces[p],
           inputs[p], stepMs[p], res.refereeMs, parties[p].dir);
  }
  res.stepMs = stepMs[res.lost[0] ? 1 : 0];
  if (res.lost[0] || res.lost[1])
    return res;
  nodePhase(res, b, traces, inputs[0]);
  res.refereeMs += res.node.refereeMs;
  return res;
}

} // namespace train
} // namespace plumb
