//===- test/fuzz/fuzz_party_req.cpp - A party reading the referee ---------===//
//
// Part of Plumb. A trace party (dispute::TraceParty, what `plumb serve-trace`
// runs) over a fixed honest trace of the small test program
// (test/fuzz/data/small-trace, made by test/fuzz/make-corpus) answers every
// line of the input as one request from the referee, in order, with a fresh
// party per input. Each must get an answer or an error reply, never a
// crash, a hang or an unchecked allocation.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "plumb/Dispute/Party.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace plumb;
  std::string err;
  auto party = dispute::TraceParty::open(PLUMB_FUZZ_PARTY_TRACE,
                                         dispute::Behaviour(), err);
  if (!party) {
    std::fprintf(stderr, "plumb-fuzz-party-req: cannot open %s: %s\n",
                 PLUMB_FUZZ_PARTY_TRACE, err.c_str());
    std::abort();
  }
  std::string input(reinterpret_cast<const char *>(data), size);
  size_t at = 0;
  while (at < input.size() && !party->finished()) {
    size_t nl = input.find('\n', at);
    if (nl == std::string::npos)
      nl = input.size();
    std::string reply, attachment;
    party->respond(input.substr(at, nl - at), reply, attachment);
    at = nl + 1;
  }
  return 0;
}
