//===- test/fuzz/fuzz_tensorpb.cpp - The TensorProto .pb reader -----------===//
//
// Part of Plumb. The input is an ONNX TensorProto file (test_data_set_N
// layout) for driver::readTensorProto, which decodes it with the importer's
// decodeTensor (raw, typed and external data, narrow integers widened). Its
// external data may only name files in its own folder; the harness puts one
// there (data.bin, 64 bytes) so that path is reached too.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "plumb/Driver/TensorIO.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace plumb;
  static const std::string dir = [] {
    std::string d = fuzz::freshDir("tensorpb");
    std::string bytes(64, '\0');
    for (int i = 0; i < 64; ++i)
      bytes[i] = char(i * 37 + 1);
    fuzz::writeFile(d + "/data.bin", bytes);
    return d;
  }();
  static const std::string path = dir + "/t.pb";
  fuzz::writeFile(path, data, size);
  exec::Tensor t;
  std::string err;
  if (!driver::readTensorProto(path, t, err)) {
    if (err.empty())
      std::abort();
    return 0;
  }
  return 0;
}
