//===- test/fuzz/fuzz_manifest.cpp - A bundle's manifest.json -------------===//
//
// Part of Plumb. The input is the text of a manifest for
// bundle::manifestFromJson. A manifest it accepts must print
// (manifestToJson) to a text that parses again and prints the same.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "plumb/Bundle/Manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace plumb::bundle;
  std::string text(reinterpret_cast<const char *>(data), size), err;
  Manifest m;
  if (!manifestFromJson(text, m, err)) {
    if (err.empty())
      std::abort();
    return 0;
  }
  std::string once = manifestToJson(m);
  Manifest again;
  if (!manifestFromJson(once, again, err)) {
    std::fprintf(stderr, "plumb-fuzz-manifest: printed manifest does not "
                         "parse: %s\n", err.c_str());
    std::abort();
  }
  if (manifestToJson(again) != once) {
    std::fprintf(stderr, "plumb-fuzz-manifest: round trip differs\n");
    std::abort();
  }
  return 0;
}
