//===- include/plumb/Train/StepProgram.h - The training step -*- C++ -*-===//
//
// Part of Plumb. `plumb compile --train` (docs/training.md): the imported
// model becomes one step program
//
//   (parameters, optimiser state, step, batch inputs, labels|targets)
//     -> (parameters', state', loss)
//
// an ordinary plumb function that the canonical pipeline, the gas model,
// the emitters, the interpreter and traces take as they take any model.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TRAIN_STEPPROGRAM_H
#define PLUMB_TRAIN_STEPPROGRAM_H

#include "plumb/Interpreter/Tensor.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace plumb {
namespace train {

struct OptimizerSpec {
  std::string kind; // sgd, momentum, adam, adamw
  float lr = 0.01f, momentum = 0.9f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f,
        weightDecay = 0.01f;
  /// State tensors per parameter (0, 1 or 2) and their name suffixes.
  std::vector<std::string> stateSuffixes() const;
  /// The canonical text: "adam:lr=0.001,beta1=0.9,beta2=0.999,eps=1e-08".
  std::string text() const;
};

/// Parses SPEC ("sgd:lr=0.1", "momentum:lr=0.1,momentum=0.9", "adam:...",
/// "adamw:...,weight_decay=0.01"); unnamed keys keep their defaults.
bool parseOptimizer(const std::string &spec, OptimizerSpec &out,
                    std::string &err);

struct TrainConfig {
  std::string loss; // cross_entropy, mse, output
  OptimizerSpec optimizer;
  int64_t batch = 0; // 0: the model's own batch dimension
  std::vector<std::string> frozen;
};

/// What each argument and result of the step program is.
struct StepLayout {
  std::vector<std::string> params; // arguments [0, P)
  std::vector<std::string> state;  // arguments [P, P + S)
  std::vector<std::string> data;   // batch inputs after `step`
  std::string target;              // "labels", "targets" or ""
  int64_t batch = 0;
  /// The parameters' initial values (state starts at zero).
  std::vector<exec::Tensor> initial;
  int64_t numParams() const { return (int64_t)params.size(); }
  int64_t numState() const { return (int64_t)state.size(); }
  /// Index of the `step` argument.
  int64_t stepArg() const { return numParams() + numState(); }
  /// Arguments holding the training state: parameters then state.
  int64_t numStateArgs() const { return stepArg(); }
};

/// Turns @main of `module` (imported with nameInitializers, not yet
/// canonical) into the step program. Fails with a message on a model or
/// configuration it cannot train.
bool buildStepProgram(mlir::ModuleOp module, const TrainConfig &cfg,
                      StepLayout &layout, std::string &err);

/// The training section of the manifest (and training.json): one JSON
/// object, compact.
std::string trainingJson(const TrainConfig &cfg, const StepLayout &layout,
                         const std::string &modelFile);

} // namespace train
} // namespace plumb

#endif // PLUMB_TRAIN_STEPPROGRAM_H
