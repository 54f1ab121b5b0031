//===- lib/Driver/TensorIO.cpp - .npy and TensorProto files ---------------===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#include "plumb/Driver/TensorIO.h"

#include "plumb/Importer/ModelLoader.h"
#include "plumb/runtime/half.h"

#include "onnx/onnx_pb.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace plumb {
namespace driver {

using exec::ElemType;
using exec::Tensor;

/// Reads a whole file of at most `maxBytes` (checked before reading).
static bool readFile(const std::string &path, uint64_t maxBytes,
                     std::string &data, std::string &err) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    err = "cannot open '" + path + "'";
    return false;
  }
  f.seekg(0, std::ios::end);
  std::streamoff size = f.tellg();
  f.seekg(0, std::ios::beg);
  if (size < 0) {
    err = "cannot read '" + path + "'";
    return false;
  }
  if (uint64_t(size) > maxBytes) {
    err = "'" + path + "' has " + std::to_string(size) +
          " bytes, more than the limit of " + std::to_string(maxBytes);
    return false;
  }
  data.assign(size_t(size), '\0');
  if (size && !f.read(&data[0], size)) {
    err = "cannot read '" + path + "'";
    return false;
  }
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
  // The header is read and checked against the file's size before the
  // tensor is allocated; the data are read straight into it.
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    err = "cannot open '" + path + "'";
    return false;
  }
  f.seekg(0, std::ios::end);
  std::streamoff fileSize = f.tellg();
  f.seekg(0, std::ios::beg);
  auto bad = [&](const std::string &why) {
    err = "'" + path + "' is not a supported .npy file: " + why;
    return false;
  };
  if (fileSize < 0)
    return bad("cannot read it");
  const uint64_t size = uint64_t(fileSize);
  unsigned char pre[12] = {0};
  if (size < 10 || !f.read(reinterpret_cast<char *>(pre), 10) ||
      std::memcmp(pre, "\x93NUMPY", 6) != 0)
    return bad("missing magic");
  int major = pre[6];
  uint64_t hlen, off;
  if (major == 1) {
    hlen = pre[8] | pre[9] << 8;
    off = 10;
  } else {
    if (size < 12 || !f.read(reinterpret_cast<char *>(pre) + 10, 2))
      return bad("truncated header");
    hlen = uint64_t(pre[8]) | uint64_t(pre[9]) << 8 | uint64_t(pre[10]) << 16 |
           uint64_t(pre[11]) << 24;
    off = 12;
  }
  if (off + hlen > size)
    return bad("truncated header");
  std::string h(size_t(hlen), '\0');
  if (hlen && !f.read(&h[0], std::streamsize(hlen)))
    return bad("truncated header");
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
    return h.substr(s, e == std::string::npos ? std::string::npos : e - s);
  };
  std::string descr = field("'descr'"), order = field("'fortran_order'"),
              shape = field("'shape'");
  ElemType et;
  // 8- and 16-bit integers are widened to int32 (the type Plumb holds them
  // in, docs/determinism.md "Narrow integers"), exactly.
  int narrow = 0; // bytes per narrow element
  bool narrowSigned = false;
  // float16 is widened to float32 exactly ("Half precision").
  bool half = false;
  if (descr == "<f2") {
    et = ElemType::F32;
    narrow = 2;
    half = true;
  } else if (descr == "|u1" || descr == "|i1" || descr == "<u2" || descr == "<i2") {
    et = ElemType::I32;
    narrow = descr[2] == '1' ? 1 : 2;
    narrowSigned = descr[1] == 'i';
  } else if (descr == "<f4")
    et = ElemType::F32;
  else if (descr == "<i8")
    et = ElemType::I64;
  else if (descr == "<i4")
    et = ElemType::I32;
  else if (descr == "|b1")
    et = ElemType::Bool;
  else
    return bad("dtype '" + descr +
               "' (float32, int64, int32, bool supported; "
               "uint8, int8, uint16 and int16 are read as int32, float16 as "
               "float32)");
  if (order.find("True") != std::string::npos)
    return bad("Fortran order");
  std::vector<int64_t> dims;
  std::stringstream ss(shape);
  std::string item;
  // At most 2^40 elements (8 TiB of int64): the product is then checked
  // against the file, so no claimed shape is ever allocated unchecked.
  const int64_t kMaxElements = int64_t(1) << 40;
  int64_t count = 1;
  bool tooMany = false;
  while (std::getline(ss, item, ',')) {
    size_t a = item.find_first_not_of(" ");
    if (a == std::string::npos)
      continue;
    size_t z = item.find_last_not_of(" ");
    std::string digits = item.substr(a, z - a + 1);
    if (digits.empty() || digits.size() > 18 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      return bad("shape (" + shape + ") has dimension '" + digits +
                 "', not a non-negative integer");
    int64_t v = std::stoll(digits);
    dims.push_back(v);
    if (v && count > kMaxElements / v)
      tooMany = true;
    else
      count *= v;
  }
  if (dims.size() > 64)
    return bad("shape (" + shape + ") has rank " + std::to_string(dims.size()) +
               "; the limit is 64");
  bool empty = false;
  for (int64_t d : dims)
    empty = empty || d == 0;
  if (tooMany && !empty)
    return bad("shape (" + shape + ") has more than 2^40 elements");
  // An empty tensor with huge other dimensions: no product of its shape
  // (Tensor::numElements, strides) may overflow, so it is refused too, as
  // the importer refuses [2^40, 2^40, 0] (checkedNumElements).
  if (tooMany)
    return bad("shape (" + shape + ") is empty, but its other dimensions "
               "have a product over 2^40");
  if (empty)
    count = 0;
  uint64_t bytes = uint64_t(count) * (narrow ? narrow : exec::elemSize(et));
  uint64_t have = size - off - hlen;
  if (have != bytes)
    return bad("data has " + std::to_string(have) +
               " bytes, the shape needs " + std::to_string(bytes));
  out = Tensor::make(et, dims);
  if (narrow) {
    std::vector<unsigned char> raw(bytes);
    if (bytes &&
        !f.read(reinterpret_cast<char *>(raw.data()), std::streamsize(bytes)))
      return bad("cannot read its " + std::to_string(bytes) + " bytes of data");
    auto *dst = static_cast<int32_t *>(out.raw());
    for (int64_t i = 0; i < count && half; ++i)
      dst[i] = int32_t(rt::half::f16ToF32Bits(
          uint16_t(raw[2 * i] | uint32_t(raw[2 * i + 1]) << 8)));
    for (int64_t i = 0; i < count && !half; ++i) {
      uint32_t u = raw[narrow * i];
      if (narrow == 2)
        u |= uint32_t(raw[2 * i + 1]) << 8;
      int32_t v = int32_t(u);
      if (narrowSigned)
        v = narrow == 1 ? int32_t(int8_t(uint8_t(u)))
                        : int32_t(int16_t(uint16_t(u)));
      dst[i] = v;
    }
    return true;
  }
  if (bytes && !f.read(static_cast<char *>(out.raw()), std::streamsize(bytes)))
    return bad("cannot read its " + std::to_string(bytes) + " bytes of data");
  return true;
}

bool readTensorProto(const std::string &path, Tensor &out, std::string &err) {
  std::string data;
  importer::LoadLimits limits;
  if (!readFile(path, limits.maxFileBytes, data, err))
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
  if (!importer::decodeTensor(proto, dir, limits,
                              "tensor file '" + path + "'", tv, ie)) {
    err = ie.message;
    return false;
  }
  ElemType et = tv.dtype == importer::DType::F32   ? ElemType::F32
                : tv.dtype == importer::DType::I64 ? ElemType::I64
                : tv.dtype == importer::DType::I32 ? ElemType::I32
                                                   : ElemType::Bool;
  out = Tensor::make(et, tv.shape);
  // An empty tensor has no storage (null data): nothing to copy.
  if (!tv.data.empty())
    std::memcpy(out.raw(), tv.data.data(), tv.data.size());
  return true;
}

bool writeNpy(const std::string &path, const Tensor &t, std::string &err,
              const std::string &storage) {
  const char *descr = t.type == ElemType::F32   ? "<f4"
                      : t.type == ElemType::I64 ? "<i8"
                      : t.type == ElemType::I32 ? "<i4"
                                                : "|b1";
  // A float16 / bfloat16 output: its 2-byte encoding (the values are exact
  // in that type, so the conversion only drops zero bits).
  bool f16 = t.type == ElemType::F32 && storage == "float16";
  bool bf16 = t.type == ElemType::F32 && storage == "bfloat16";
  std::vector<unsigned char> narrow;
  if (f16 || bf16) {
    descr = f16 ? "<f2" : "<u2";
    const auto *src = static_cast<const uint32_t *>(t.raw());
    size_t n = t.byteSize() / 4;
    narrow.resize(2 * n);
    for (size_t i = 0; i < n; ++i) {
      uint16_t h = f16 ? rt::half::f32BitsToF16(src[i])
                       : rt::half::f32BitsToBf16(src[i]);
      narrow[2 * i] = uint8_t(h & 0xff);
      narrow[2 * i + 1] = uint8_t(h >> 8);
    }
  }
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
            (f16 || bf16 ? std::fwrite(narrow.data(), 1, narrow.size(), f) ==
                               narrow.size()
                         : std::fwrite(t.raw(), 1, t.byteSize(), f) ==
                               t.byteSize());
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    err = "cannot write '" + path + "'";
  return ok;
}

} // namespace driver
} // namespace plumb
