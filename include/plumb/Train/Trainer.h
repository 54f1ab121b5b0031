//===- include/plumb/Train/Trainer.h - plumb train ------------*- C++ -*-===//
//
// Part of Plumb. Running a training bundle (docs/training.md): the seeded
// batch order, the state hash after every step, the Merkle tree over the
// steps, checkpoints, the training folder's log, replaying a step, and the
// trained parameters written back into the ONNX model.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TRAIN_TRAINER_H
#define PLUMB_TRAIN_TRAINER_H

#include "plumb/Bundle/Bundle.h"
#include "plumb/Interpreter/Tensor.h"
#include "plumb/Support/Merkle.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plumb {
namespace train {

/// The training section of a training bundle's manifest.
struct TrainingInfo {
  std::string loss, optimizer, target, model, initialState;
  int64_t batch = 0;
  std::vector<std::string> params, state, data;
  int64_t numStateArgs() const {
    return (int64_t)(params.size() + state.size());
  }
};

/// Reads the manifest's training section; false (with a message) for a
/// bundle compiled without --train.
bool readTrainingInfo(const bundle::Bundle &b, TrainingInfo &out,
                      std::string &err);

/// The state before the first step: the initial parameters, zero state.
bool initialState(const bundle::Bundle &b, const TrainingInfo &info,
                  std::vector<exec::Tensor> &state, std::string &err);

/// SHA-256("plumb-train-state\0" || le64 step || the trace tensor hash of
/// every state tensor in order).
Digest stateHash(int64_t step, const std::vector<exec::Tensor> &state);

/// The Merkle item of a step: SHA-256("plumb-train-step\0" || le64 step ||
/// le64 count || le64 each example index || state hash || le32 loss bits).
Digest stepItem(int64_t step, const std::vector<int64_t> &examples,
                const Digest &state, uint32_t lossBits);

/// The examples of step `step` (1-based): epoch e = (step-1) / (n / batch)
/// uses the seeded permutation of epoch e (docs/training.md), batch j its
/// elements [j*batch, (j+1)*batch).
std::vector<int64_t> stepExamples(uint64_t seed, int64_t examples,
                                  int64_t batch, int64_t step);

/// The data of a training run: DIR/<input>.npy, first axis = examples.
struct Dataset {
  std::vector<exec::Tensor> tensors; // the data inputs, then the target
  std::vector<std::string> sha256;   // of each file
  int64_t examples = 0;
};
bool loadDataset(const std::string &dir, const bundle::Bundle &b,
                 const TrainingInfo &info, Dataset &out, std::string &err);

struct StepFault {
  int64_t step = 0, node = 0, bit = 0;
};
/// "step=S,node=K,bit=B".
bool parseStepFault(const std::string &spec, StepFault &out, std::string &err);

struct StepRecord {
  int64_t step = 0;
  std::vector<int64_t> examples;
  uint32_t lossBits = 0;
  Digest state{};
  float loss() const;
};

/// TRAIN_DIR/log.json.
struct TrainLog {
  std::string graphHash;
  uint64_t seed = 0;
  int64_t batch = 0, examples = 0, checkpointEvery = 0;
  std::vector<std::string> dataSha256;
  Digest initial{};
  std::vector<StepRecord> records;
  std::vector<StepFault> faults;
  std::vector<int64_t> checkpoints;
  std::vector<Digest> items() const;
  Digest root() const;
};
bool writeLog(const std::string &dir, const TrainLog &log, std::string &err);
bool readLog(const std::string &dir, TrainLog &log, std::string &err);

/// Checkpoint files: TRAIN_DIR/checkpoints/step-<k>.bin, the state tensors'
/// bytes in order.
std::string checkpointPath(const std::string &dir, int64_t step);
bool writeCheckpoint(const std::string &path,
                     const std::vector<exec::Tensor> &state, std::string &err);
bool readCheckpoint(const std::string &path, const bundle::Bundle &b,
                    const TrainingInfo &info, std::vector<exec::Tensor> &state,
                    std::string &err);

struct TrainOptions {
  int64_t steps = 0, checkpointEvery = 10;
  uint64_t seed = 0;
  int threads = 1;
  bool interpret = false;
  std::vector<StepFault> faults;
  bool progress = false; // a progress line on stderr
};

/// Runs one step program (compiled or interpreted) repeatedly.
class StepRunner {
public:
  StepRunner(bundle::Bundle &b, const TrainingInfo &info, const Dataset &data,
             int threads, bool interpret);
  ~StepRunner();
  /// Step `step`: `state` (after step-1) becomes the state after it. With
  /// `traceDir` the step is recorded as a trace (tensors kept); `faults`
  /// flip bits in it (those of this step).
  bool run(int64_t step, const std::vector<int64_t> &examples,
           std::vector<exec::Tensor> &state, uint32_t &lossBits,
           const std::vector<StepFault> &faults, const std::string &traceDir,
           std::string &err);
  /// The inputs of the last step run.
  const std::vector<exec::Tensor> &lastInputs() const { return inputs; }
  double lastMs = 0;

private:
  struct Impl;
  bundle::Bundle &b;
  const TrainingInfo &info;
  const Dataset &data;
  int threads;
  bool interpret;
  std::vector<exec::Tensor> inputs;
  Impl *impl;
};

/// `plumb train`: runs opts.steps steps into `outDir` (log, checkpoints,
/// trained.onnx).
bool trainRun(bundle::Bundle &b, const TrainingInfo &info, const Dataset &data,
              const TrainOptions &opts, const std::string &outDir,
              TrainLog &log, double &msPerStep, std::string &err);

/// Writes the bundle's ONNX model with the parameters of `state`.
bool writeTrainedOnnx(const bundle::Bundle &b, const TrainingInfo &info,
                      const std::vector<exec::Tensor> &state,
                      const std::string &path, std::string &err);

} // namespace train
} // namespace plumb

#endif // PLUMB_TRAIN_TRAINER_H
