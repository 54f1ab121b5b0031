//===- include/plumb/Driver/TensorIO.h - Tensor files ---------*- C++ -*-===//
//
// Part of Plumb. Reads tensors from NumPy .npy files and ONNX TensorProto .pb
// files (the test_data_set_N layout), writes .npy. Sizes are checked against
// the file before anything is allocated.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DRIVER_TENSORIO_H
#define PLUMB_DRIVER_TENSORIO_H

#include "plumb/Interpreter/Tensor.h"

#include <string>

namespace plumb {
namespace driver {

/// Reads a .npy (little-endian, C order; float32, int64, int32, bool; float16
/// widened to float32 exactly) or an ONNX TensorProto .pb file, chosen by
/// extension.
bool readTensorFile(const std::string &path, exec::Tensor &out,
                    std::string &err);
bool readNpy(const std::string &path, exec::Tensor &out, std::string &err);
bool readTensorProto(const std::string &path, exec::Tensor &out,
                     std::string &err);
/// Writes a .npy file (version 1.0). A float32 tensor with `storage`
/// "float16" is written as <f2, with "bfloat16" as <u2 holding the bfloat16
/// bits (its values are exact in that type, docs/determinism.md).
bool writeNpy(const std::string &path, const exec::Tensor &t, std::string &err,
              const std::string &storage = "");

} // namespace driver
} // namespace plumb

#endif // PLUMB_DRIVER_TENSORIO_H
