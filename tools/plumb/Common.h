//===- tools/plumb/Common.h - Shared pieces of the plumb driver -*- C++ -*-===//
//
// Part of Plumb. The commands and what they print around the library's
// answers: "plumb CMD: error: ..." and the exit status.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TOOLS_PLUMB_COMMON_H
#define PLUMB_TOOLS_PLUMB_COMMON_H

#include "Options.h"

#include "plumb/Bundle/Bundle.h"
#include "plumb/Driver/Model.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdio>
#include <string>
#include <vector>

namespace plumb {
namespace tool {

/// Prints "plumb CMD: error: MSG"; returns 1.
int fail(const char *cmd, const std::string &msg);
/// Prints a library failure as the tool does (a usage error with its hint);
/// returns its exit status.
int report(const driver::Failure &f, const char *cmd);

/// driver::loadModel, printing the error; `exitCode` is set on failure.
mlir::OwningOpRef<mlir::ModuleOp> loadModel(mlir::MLIRContext &ctx,
                                            const std::string &path,
                                            const importer::ImportOptions &opts,
                                            const char *cmd, int &exitCode);

/// `plumb compile --train` (CmdTrain.cpp).
struct TrainFlags {
  bool on = false;
  std::string loss, optimizer;
  int batch = 0;
  std::vector<std::string> frozen;
};
void addTrainOptions(std::vector<Option> &options, TrainFlags &t);
/// A usage error's status after parsing, or -1.
int checkTrainFlags(const TrainFlags &t, const std::string &model,
                    const char *cmd);
/// Import options for a training step: initializers named, --batch bound,
/// canonicalised after the step program is built.
bool prepareTrainImport(const TrainFlags &t, const std::string &model,
                        importer::ImportOptions &opts, const char *cmd,
                        int &exitCode);
/// Builds the step program in `module`, canonicalises it, and fills the
/// bundle's training section and files.
bool buildTraining(const TrainFlags &t, const std::string &model,
                   mlir::ModuleOp module, bundle::CompileOptions &co,
                   const char *cmd, int &exitCode);

/// A training party on plumb dispute's command line.
struct TrainPartyArg {
  std::string name, dir;
  std::vector<std::string> behave;
};
/// plumb dispute on a training bundle (CmdTrain.cpp).
int runTrainDispute(const std::string &bundlePath, const std::string &data,
                    const std::vector<TrainPartyArg> &parties,
                    const std::vector<std::pair<std::string, std::string>> &behaviours,
                    const std::string &format);

int cmdImport(std::vector<std::string> args);
int cmdTrain(std::vector<std::string> args);
void printTrainHelp(FILE *f);
int cmdHash(std::vector<std::string> args);
int cmdRun(std::vector<std::string> args);
int cmdCompile(std::vector<std::string> args);
int cmdCost(std::vector<std::string> args);
int cmdDispute(std::vector<std::string> args);
int cmdServeTrace(std::vector<std::string> args);
void printImportHelp(FILE *f);
void printHashHelp(FILE *f);
void printRunHelp(FILE *f);
void printCompileHelp(FILE *f);
void printCostHelp(FILE *f);
void printDisputeHelp(FILE *f);
void printServeTraceHelp(FILE *f);

} // namespace tool
} // namespace plumb

#endif // PLUMB_TOOLS_PLUMB_COMMON_H
