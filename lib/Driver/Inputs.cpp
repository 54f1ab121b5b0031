//===- lib/Driver/Inputs.cpp - A model's interface ------------------------===//
//
// Part of Plumb. See include/plumb/Driver/Inputs.h.
//
//===----------------------------------------------------------------------===//
#include "plumb/Driver/Inputs.h"

#include "plumb/Driver/Files.h"
#include "plumb/Driver/TensorIO.h"

#include "llvm/Support/FileSystem.h"

#include <cstdio>
#include <cstring>

namespace plumb {
namespace driver {

namespace {

TensorSpec specOf(mlir::Type type, mlir::StringAttr name, unsigned i) {
  auto t = mlir::cast<mlir::RankedTensorType>(type);
  TensorSpec s;
  s.name = name ? name.str() : "#" + std::to_string(i);
  exec::elemTypeOf(t.getElementType(), s.type);
  s.shape.assign(t.getShape().begin(), t.getShape().end());
  return s;
}

std::string storageOf(mlir::StringAttr a) { return a ? a.str() : ""; }

} // namespace

std::string describeTensor(exec::ElemType type, llvm::ArrayRef<int64_t> shape) {
  std::string s = exec::elemTypeName(type);
  s += "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string TensorSpec::describe() const { return describeTensor(type, shape); }

std::vector<TensorSpec> inputSpecs(mlir::func::FuncOp func) {
  std::vector<TensorSpec> specs;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    specs.push_back(
        specOf(func.getArgument(i).getType(),
               func.getArgAttrOfType<mlir::StringAttr>(i, "plumb.name"), i));
    specs.back().bound =
        func.getArgAttrOfType<mlir::ElementsAttr>(i, "plumb.bound_value");
    specs.back().storage = storageOf(
        func.getArgAttrOfType<mlir::StringAttr>(i, "plumb.storage"));
  }
  return specs;
}

std::vector<TensorSpec> outputSpecs(mlir::func::FuncOp func) {
  std::vector<TensorSpec> specs;
  mlir::FunctionType ft = func.getFunctionType();
  for (unsigned i = 0; i < ft.getNumResults(); ++i) {
    specs.push_back(specOf(
        ft.getResult(i),
        func.getResultAttrOfType<mlir::StringAttr>(i, "plumb.name"), i));
    specs.back().storage = storageOf(
        func.getResultAttrOfType<mlir::StringAttr>(i, "plumb.storage"));
  }
  return specs;
}

plumb_tensor_view viewOf(const exec::Tensor &t) {
  // Empty tensors have no storage; a library still wants a pointer.
  static uint64_t emptyStorage;
  void *data = t.storage.empty() ? (void *)&emptyStorage
                                 : const_cast<void *>(t.raw());
  return {(int32_t)t.type, (int32_t)t.shape.size(), t.shape.data(), data};
}

bool checkInputs(mlir::func::FuncOp func,
                 llvm::ArrayRef<plumb_tensor_view> inputs, std::string &err) {
  std::vector<TensorSpec> specs = inputSpecs(func);
  if (inputs.size() != specs.size()) {
    err = "the model has " + std::to_string(specs.size()) + " inputs, " +
          std::to_string(inputs.size()) + " were given";
    return false;
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const TensorSpec &s = specs[i];
    const plumb_tensor_view &v = inputs[i];
    llvm::ArrayRef<int64_t> shape(v.shape, (size_t)v.rank);
    if (v.dtype != (int32_t)s.type || shape != llvm::ArrayRef<int64_t>(s.shape)) {
      std::string got =
          v.dtype >= 1 && v.dtype <= 4
              ? describeTensor((exec::ElemType)v.dtype, shape)
              : "dtype " + std::to_string(v.dtype);
      err = "input '" + s.name + "' must be " + s.describe() + ", got " + got;
      return false;
    }
    if (!s.bound)
      continue;
    exec::Tensor b, given = exec::Tensor::make(s.type, s.shape);
    if (!exec::tensorFromAttr(s.bound, b, err))
      return false;
    if (given.byteSize())
      std::memcpy(given.raw(), v.data, given.byteSize());
    if (exec::tensorHash(b) != exec::tensorHash(given)) {
      err = "input '" + s.name +
            "' was fixed at import (--input-value) and must equal the bound "
            "value";
      return false;
    }
  }
  return true;
}

bool checkInputs(mlir::func::FuncOp func, llvm::ArrayRef<exec::Tensor> inputs,
                 std::string &err) {
  std::vector<plumb_tensor_view> views;
  for (const exec::Tensor &t : inputs)
    views.push_back(viewOf(t));
  return checkInputs(func, views, err);
}

std::string InputFiles::fileFor(unsigned i, const std::string &name) const {
  auto given = byName.find(name);
  if (given != byName.end())
    return given->second;
  if (!dir.empty())
    for (const char *ext : {".pb", ".npy"}) {
      std::string p = dir + "/input_" + std::to_string(i) + ext;
      if (llvm::sys::fs::exists(p))
        return p;
    }
  return "";
}

bool InputFiles::checkNames(mlir::func::FuncOp func, Failure &failure) const {
  std::vector<TensorSpec> specs = inputSpecs(func);
  for (auto &kv : byName) {
    bool found = false;
    for (const TensorSpec &s : specs)
      found |= s.name == kv.first;
    if (!found) {
      failure = {2,
                 "--input names '" + kv.first +
                     "', which is not an input of the model",
                 true};
      return false;
    }
  }
  return true;
}

void shapesFromSamples(importer::ImportOptions &opts, const InputFiles &files,
                       std::vector<std::string> *taken) {
  if (files.byName.empty() && files.dir.empty())
    return;
  opts.bindings.sampleShape = [files, taken](unsigned i, const std::string &name,
                                             std::vector<int64_t> &shape,
                                             std::string &err) {
    std::string file = files.fileFor(i, name);
    if (file.empty())
      return false;
    exec::Tensor t;
    if (!readTensorFile(file, t, err))
      return false;
    shape = t.shape;
    if (taken) {
      std::string dims;
      for (size_t k = 0; k < shape.size(); ++k)
        dims += (k ? "x" : "") + std::to_string(shape[k]);
      taken->push_back("--input-shape");
      taken->push_back(name + "=" + dims);
    }
    return true;
  };
}

bool readInputs(mlir::func::FuncOp func, const InputFiles &files,
                std::vector<exec::Tensor> &inputs, Failure &failure) {
  if (!files.checkNames(func, failure))
    return false;
  std::vector<TensorSpec> specs = inputSpecs(func);
  inputs.assign(specs.size(), exec::Tensor());
  for (unsigned i = 0; i < specs.size(); ++i) {
    std::string err, file = files.fileFor(i, specs[i].name);
    if (file.empty() && specs[i].bound) {
      if (!exec::tensorFromAttr(specs[i].bound, inputs[i], err)) {
        failure = {1, err};
        return false;
      }
      continue;
    }
    if (file.empty()) {
      const std::string &n = specs[i].name;
      failure = {1, "no value for input '" + n + "' (#" + std::to_string(i) +
                        "); give --input " + n + "=FILE or --inputs-dir DIR"};
      return false;
    }
    if (!readTensorFile(file, inputs[i], err)) {
      failure = {1, "input '" + specs[i].name + "': " + err};
      return false;
    }
  }
  return true;
}

std::vector<std::string> outputHashes(llvm::ArrayRef<exec::Tensor> outputs) {
  std::vector<std::string> hashes;
  for (const exec::Tensor &t : outputs)
    hashes.push_back(exec::toHex(exec::tensorHash(t)));
  return hashes;
}

std::string jsonEscape(const std::string &s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\')
      r += '\\', r += c;
    else if ((unsigned char)c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      r += buf;
    } else
      r += c;
  }
  return r;
}

std::string shapeJson(llvm::ArrayRef<int64_t> shape) {
  std::string r = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    r += (i ? "," : "") + std::to_string(shape[i]);
  return r + "]";
}

bool writeOutputs(const std::string &dir, llvm::ArrayRef<std::string> names,
                  llvm::ArrayRef<exec::Tensor> outputs,
                  llvm::ArrayRef<std::string> hashes, std::string &err,
                  llvm::ArrayRef<std::string> storages) {
  if (auto ec = llvm::sys::fs::create_directories(dir)) {
    err = "cannot create '" + dir + "': " + ec.message();
    return false;
  }
  std::string json = "[\n";
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path = dir + "/output_" + std::to_string(i) + ".npy";
    std::string storage = i < storages.size() ? storages[i] : "";
    if (!writeNpy(path, outputs[i], err, storage))
      return false;
    json += "  {\"index\": " + std::to_string(i) + ", \"name\": \"" +
            jsonEscape(names[i]) + "\", \"dtype\": \"" +
            (storage.empty() ? std::string(exec::elemTypeName(outputs[i].type))
                             : storage) +
            "\", \"shape\": " +
            shapeJson(outputs[i].shape) + ", \"sha256\": \"" + hashes[i] +
            "\"}" + (i + 1 < outputs.size() ? ",\n" : "\n");
  }
  json += "]\n";
  return writeFileAtomically(dir + "/outputs.json", json, err);
}

} // namespace driver
} // namespace plumb
