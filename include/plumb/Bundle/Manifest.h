//===- include/plumb/Bundle/Manifest.h - A bundle's manifest.json -*- C++ -*-===//
//
// Part of Plumb. The manifest of a compiled bundle (docs/bundle.md): what
// the program is (graph hash, node table, gas), what it needs (inputs,
// outputs, weights layout) and the SHA-256 of every other file. Written with
// a fixed key order and no times or paths, so compiling the same model with
// the same Plumb gives the same manifest up to the host compiler it records.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_BUNDLE_MANIFEST_H
#define PLUMB_BUNDLE_MANIFEST_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace plumb {
namespace bundle {

constexpr const char *kBundleFormat = "plumb-bundle";
constexpr int64_t kBundleVersion = 1;

/// File names inside a bundle folder.
constexpr const char *kManifestFile = "manifest.json";
constexpr const char *kIrFile = "model.mlir";
constexpr const char *kWeightsFile = "weights.bin";
constexpr const char *kCpuSource = "cpu/model.cpp";
constexpr const char *kCpuLibrary = "cpu/model.so";
constexpr const char *kCudaSource = "cuda/model.cu";
constexpr const char *kCudaLibrary = "cuda/model.so";

struct ManifestTensor {
  std::string name;
  std::string dtype; // "float32", "int64", "int32", "bool"
  std::vector<int64_t> shape;
  bool bound = false; // input fixed at import (--input-value)
  /// "float16" or "bfloat16" for a float32 tensor holding values of that
  /// type (docs/determinism.md, "Half precision"); empty otherwise.
  std::string storage;
};

struct ManifestNode {
  int64_t index = 0;
  std::string id; // 64 hex digits
  std::string op;
  bool hasGas = false;
  uint64_t gas = 0;
};

struct ManifestWeight {
  int64_t offset = 0;
  int64_t bytes = 0;
  std::vector<std::string> resources;
};

struct ManifestTarget {
  std::string name;   // "cpu" or "cuda"
  std::string source; // relative path
  bool built = false;
  std::string library;  // relative path, when built
  std::string compiler; // "g++ (Debian 12.2.0-14) 12.2.0", when built
  std::string flags;    // compiler flags, when built
  std::string reason;   // why not built
};

struct Manifest {
  std::string format = kBundleFormat;
  int64_t version = kBundleVersion;
  std::string plumbVersion;
  std::string contract;
  int32_t modelAbi = 0;
  std::string graphHash;
  std::string sourceName;   // the file the bundle was compiled from
  std::string sourceSha256; // its SHA-256
  std::vector<std::string> importOptions;
  /// A training bundle's configuration (`plumb compile --train`,
  /// docs/training.md): one compact JSON object, or "" (no "training" key).
  std::string training;
  bool hasGas = false;
  std::string gasSchedule;
  uint64_t gasTotal = 0;
  std::vector<ManifestTensor> inputs, outputs;
  std::vector<ManifestNode> nodes;
  int64_t arenaBytes = 0;
  /// Arena of the traced entry point (0: the library has none).
  int64_t tracedArenaBytes = 0;
  int64_t weightsBytes = 0;
  int64_t weightsAlignment = 0;
  std::string weightsSha256;
  std::vector<ManifestWeight> weights;
  std::vector<ManifestTarget> targets;
  /// Every file of the bundle but the manifest: path and SHA-256, by path.
  std::vector<std::pair<std::string, std::string>> files;

  const ManifestTarget *target(const std::string &name) const;
  /// The recorded SHA-256 of `path`, or "" when not listed.
  std::string fileHash(const std::string &path) const;
};

/// The manifest as JSON text (2-space indent, fixed key order, final newline).
std::string manifestToJson(const Manifest &m);
/// Parses a manifest; checks types and the presence of every field.
bool manifestFromJson(const std::string &text, Manifest &out, std::string &err);

} // namespace bundle
} // namespace plumb

#endif // PLUMB_BUNDLE_MANIFEST_H
