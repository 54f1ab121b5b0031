//===- scripts/lib/bundle_runner.cpp - Run an emitted model standalone ----===//
//
// Part of Plumb. Linked statically with a bundle's cpu/model.cpp and the
// kernel sources by scripts/cross-check-bundle, for compilers, instruction
// sets and architectures (AArch64 under qemu-user) the plumb executable was
// not built for. Reads a spec (written by the script):
//   weights PATH
//   input DTYPE RANK DIM... PATH      raw little-endian bytes
//   output DTYPE RANK DIM...
// runs plumb_model_run and prints "output I sha256=HEX" per output, the
// canonical tensor hash `plumb run` prints.
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/model_abi.h"
#include "plumb/runtime/tensor_hash.h"
#include "plumb/runtime/threads.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int32_t plumb_model_run(const void *, const plumb_tensor_view *,
                                   plumb_tensor_view *, plumb_node_hook, void *,
                                   char *, size_t);

namespace {

struct Tensor {
  int32_t dtype = 1;
  std::vector<int64_t> shape;
  std::vector<uint64_t> storage;
  size_t bytes() const {
    size_t n = 1;
    for (int64_t d : shape)
      n *= (size_t)d;
    return n * (dtype == 1 || dtype == 3 ? 4 : dtype == 2 ? 8 : 1);
  }
};

bool readFile(const std::string &path, std::vector<uint64_t> &out,
              size_t bytes) {
  std::ifstream f(path, std::ios::binary);
  out.assign(bytes / 8 + 1, 0);
  return f && f.read(reinterpret_cast<char *>(out.data()), (std::streamsize)bytes) &&
         (size_t)f.gcount() == bytes;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bundle_runner SPEC [THREADS]\n");
    return 2;
  }
  plumb_rt_set_threads(argc > 2 ? std::atoi(argv[2]) : 1);
  std::ifstream spec(argv[1]);
  std::string line, weightsPath;
  std::vector<Tensor> inputs, outputs;
  std::vector<std::string> inputPaths;
  while (std::getline(spec, line)) {
    std::istringstream ls(line);
    std::string kind;
    ls >> kind;
    if (kind == "weights") {
      ls >> weightsPath;
      continue;
    }
    Tensor t;
    int rank = 0;
    ls >> t.dtype >> rank;
    t.shape.resize(rank);
    for (int i = 0; i < rank; ++i)
      ls >> t.shape[i];
    if (kind == "input") {
      std::string p;
      ls >> p;
      inputPaths.push_back(p);
      inputs.push_back(t);
    } else if (kind == "output") {
      t.storage.assign(t.bytes() / 8 + 1, 0);
      outputs.push_back(t);
    }
  }
  std::ifstream wf(weightsPath, std::ios::binary | std::ios::ate);
  size_t wsize = wf ? (size_t)wf.tellg() : 0;
  std::vector<uint64_t> weights;
  if (!readFile(weightsPath, weights, wsize)) {
    std::fprintf(stderr, "cannot read %s\n", weightsPath.c_str());
    return 1;
  }
  std::vector<plumb_tensor_view> in, out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!readFile(inputPaths[i], inputs[i].storage, inputs[i].bytes())) {
      std::fprintf(stderr, "cannot read %s\n", inputPaths[i].c_str());
      return 1;
    }
    in.push_back({inputs[i].dtype, (int32_t)inputs[i].shape.size(),
                  inputs[i].shape.data(), inputs[i].storage.data()});
  }
  for (Tensor &t : outputs)
    out.push_back({t.dtype, (int32_t)t.shape.size(), t.shape.data(),
                   t.storage.data()});
  char err[512] = {0};
  if (plumb_model_run(weights.data(), in.data(), out.data(), nullptr, nullptr,
                      err, sizeof(err)) != 0) {
    std::fprintf(stderr, "error: %s\n", err);
    return 1;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    uint8_t d[32];
    plumb_rt_tensor_hash(outputs[i].dtype, (int32_t)outputs[i].shape.size(),
                         outputs[i].shape.data(), outputs[i].storage.data(), d);
    std::printf("output %zu sha256=", i);
    for (uint8_t b : d)
      std::printf("%02x", b);
    std::printf("\n");
  }
  return 0;
}
