//===- tools/plumb/CmdServeTrace.cpp - plumb serve-trace ------------------===//
//
// Part of Plumb. Answers a dispute referee as a party, from a trace folder,
// in the line-delimited JSON protocol of docs/dispute.md on stdin/stdout.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "plumb/Dispute/Party.h"

#include <cstdio>

namespace plumb {
namespace tool {

void printServeTraceHelp(FILE *f) {
  std::fprintf(
      f,
      "usage: plumb serve-trace TRACE_DIR [--behave BEHAVIOUR]...\n"
      "\n"
      "Answers a dispute referee ('plumb dispute') as a party: reads one\n"
      "request per line on stdin and writes one answer per line on stdout\n"
      "(JSON, protocol plumb-dispute version 4, docs/dispute.md): its\n"
      "commitment to the trace root, node hashes with Merkle proofs, subtree\n"
      "hashes of its node and chunk trees, and the tensors the trace keeps\n"
      "(record it with 'plumb run --trace DIR --keep-tensors'; a party that\n"
      "cannot supply tensors loses).\n"
      "\n"
      "testing aids (an adversarial party, docs/dispute.md):\n"
      "  --behave lie-hash=K           claim another hash for node K and\n"
      "                                commit to the root that follows\n"
      "  --behave inconsistent-hash=K  claim a node hash for K that does not\n"
      "                                match its result hashes\n"
      "  --behave forge-proof[=N]      corrupt the N-th tree answer (a\n"
      "                                proof, or a subtree hash; default 1)\n"
      "  --behave bad-tensors          flip a bit of every tensor sent\n"
      "  --behave silent-after=N       answer N requests, then nothing\n"
      "\n"
      "exit status: 0 after the referee's 'end' or end of input, 1 the trace\n"
      "cannot be read, 2 usage error\n");
}

int cmdServeTrace(std::vector<std::string> args) {
  const char *cmd = "serve-trace";
  std::string dir;
  dispute::Behaviour behaviour;
  CommandLine cl{cmd, printServeTraceHelp, {}, &dir, "no trace folder given"};
  cl.options.push_back(valued({"--behave"}, [&](const OptionUse &u) {
    std::string err;
    if (u.missing)
      return std::string("option '--behave' needs a behaviour");
    if (!dispute::parseBehaviour(u.value, behaviour, err))
      return err;
    return std::string();
  }));
  if (int r = cl.parse(args); r >= 0)
    return r;
  std::string err;
  auto party = dispute::TraceParty::open(dir, behaviour, err);
  if (!party)
    return fail(cmd, err);
  return dispute::serveParty(*party, stdin, stdout);
}

} // namespace tool
} // namespace plumb
