//===- lib/Driver/TensorIO.cpp - .npy and TensorProto files ---------------===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#include "plumb/Driver/TensorIO.h"

#include "plumb/Importer/ModelLoader.h"

#include "onnx/onnx_pb.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace plumb {
namespace driver {

using exec::ElemType;
using exec::Tensor;

static bool readFile(const std::string &path, std::string &data,
                     std::string &err) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    err = "cannot open '" + path + "'";
    return false;
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  data = ss.str();
  return true;
}

static bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool readTensorFile(const std::string &path, Tensor &out, std::string &err) {
  if (endsWith(path, ".npy"))
    return readNpy(path, out, err);
  if (endsWith(path, ".pb"))
    return readTensorProto(path, out, err);
  err = "'" + path + "': tensor files must be .npy or .pb (ONNX TensorProto)";
  return false;
}

bool readNpy(const std::string &path, Tensor &out, std::string &err) {
  std::string data;
  if (!readFile(path, data, err))
    return false;
  auto bad = [&](const std::string &why) {
    err = "'" + path + "' is not a supported .npy file: " + why;
    return false;
  };
  if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0)
    return bad("missing magic");
  int major = (unsigned char)data[6];
  size_t hlen, off;
  if (major == 1) {
    hlen = (unsigned char)data[8] | (unsigned char)data[9] << 8;
    off = 10;
  } else {
    if (data.size() < 12)
      return bad("truncated header");
    hlen = (size_t)(unsigned char)data[8] | (size_t)(unsigned char)data[9] << 8 |
           (size_t)(unsigned char)data[10] << 16 |
           (size_t)(unsigned char)data[11] << 24;
    off = 12;
  }
  if (off + hlen > data.size())
    return bad("truncated header");
  std::string h = data.substr(off, hlen);
  auto field = [&](const char *key) -> std::string {
    size_t k = h.find(key);
    if (k == std::string::npos)
      return "";
    size_t c = h.find(':', k);
    if (c == std::string::npos)
      return "";
    size_t s = h.find_first_not_of(" ", c + 1);
    if (s == std::string::npos)
      return "";
    if (h[s] == '\'') {
      size_t e = h.find('\'', s + 1);
      return e == std::string::npos ? "" : h.substr(s + 1, e - s - 1);
    }
    if (h[s] == '(') {
      size_t e = h.find(')', s);
      return e == std::string::npos ? "" : h.substr(s + 1, e - s - 1);
    }
    size_t e = h.find_first_of(",}", s);
    return h.substr(s, e - s);
  };
  std::string descr = field("'descr'"), order = field("'fortran_order'"),
              shape = field("'shape'");
  ElemType et;
  if (descr == "<f4")
    et = ElemType::F32;
  else if (descr == "<i8")
    et = ElemType::I64;
  else if (descr == "<i4")
    et = ElemType::I32;
  else if (descr == "|b1")
    et = ElemType::Bool;
  else
    return bad("dtype '" + descr + "' (float32, int64, int32, bool supported)");
  if (order.find("True") != std::string::npos)
    return bad("Fortran order");
  std::vector<int64_t> dims;
  std::stringstream ss(shape);
  std::string item;
  int64_t count = 1;
  while (std::getline(ss, item, ',')) {
    size_t a = item.find_first_not_of(" ");
    if (a == std::string::npos)
      continue;
    long long v = std::atoll(item.c_str() + a);
    if (v < 0 || (v && count > (int64_t(1) << 40) / v))
      return bad("bad shape");
    dims.push_back(v);
    count *= v;
  }
  size_t bytes = count * exec::elemSize(et);
  if (data.size() - off - hlen != bytes)
    return bad("data has " + std::to_string(data.size() - off - hlen) +
               " bytes, the shape needs " + std::to_string(bytes));
  out = Tensor::make(et, dims);
  std::memcpy(out.raw(), data.data() + off + hlen, bytes);
  return true;
}

bool readTensorProto(const std::string &path, Tensor &out, std::string &err) {
  std::string data;
  if (!readFile(path, data, err))
    return false;
  onnx::TensorProto proto;
  if (!proto.ParseFromString(data)) {
    err = "'" + path + "' is not an ONNX TensorProto";
    return false;
  }
  importer::TensorValue tv;
  importer::ImportError ie;
  std::string dir = path.substr(0, path.find_last_of('/') + 1);
  if (dir.empty())
    dir = ".";
  if (!importer::decodeTensor(proto, dir, importer::LoadLimits(),
                              "tensor file '" + path + "'", tv, ie)) {
    err = ie.message;
    return false;
  }
  ElemType et = tv.dtype == importer::DType::F32   ? ElemType::F32
                : tv.dtype == importer::DType::I64 ? ElemType::I64
                : tv.dtype == importer::DType::I32 ? ElemType::I32
                                                   : ElemType::Bool;
  out = Tensor::make(et, tv.shape);
  std::memcpy(out.raw(), tv.data.data(), tv.data.size());
  return true;
}

bool writeNpy(const std::string &path, const Tensor &t, std::string &err) {
  const char *descr = t.type == ElemType::F32   ? "<f4"
                      : t.type == ElemType::I64 ? "<i8"
                      : t.type == ElemType::I32 ? "<i4"
                                                : "|b1";
  std::string shape = "(";
  for (size_t i = 0; i < t.shape.size(); ++i)
    shape += std::to_string(t.shape[i]) + (t.shape.size() == 1 ? "," : (i + 1 < t.shape.size() ? ", " : ""));
  shape += ")";
  std::string header = "{'descr': '" + std::string(descr) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    err = "cannot write '" + path + "'";
    return false;
  }
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                           (unsigned char)(header.size() & 0xff),
                           (unsigned char)(header.size() >> 8)};
  bool ok = std::fwrite(pre, 1, 10, f) == 10 &&
            std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            std::fwrite(t.raw(), 1, t.byteSize(), f) == t.byteSize();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    err = "cannot write '" + path + "'";
  return ok;
}

} // namespace driver
} // namespace plumb
