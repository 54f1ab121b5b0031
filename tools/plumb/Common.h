//===- tools/plumb/Common.h - Shared pieces of the plumb driver -*- C++ -*-===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TOOLS_PLUMB_COMMON_H
#define PLUMB_TOOLS_PLUMB_COMMON_H

#include "plumb/Driver/Files.h"
#include "plumb/Importer/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>
#include <vector>

namespace plumb {
namespace tool {

/// Prints "plumb CMD: error: MSG" and a hint; returns 2 (usage error).
int usageError(const std::string &msg, const char *cmd);
/// Takes the value of an option given as "--opt=V" or "--opt V".
bool takeValue(std::vector<std::string> &args, size_t &i, const std::string &opt,
               std::string &value, bool &missing);
/// The integer value `v` of option `opt` (as takeValue gave it) when it is
/// one from lo to hi; else false, with `error` the usage message.
bool intOption(const std::string &opt, const std::string &v, bool missing,
               long lo, long hi, int &out, std::string &error);

/// The names of @main's inputs ("#i" for an unnamed one). An --input that
/// names none of them is a usage error: prints it and returns false.
bool modelInputNames(mlir::func::FuncOp func,
                     const std::map<std::string, std::string> &inputFiles,
                     const char *cmd, std::vector<std::string> &names);
/// The file that holds input `i` named `name`: --input NAME=FILE, else
/// DIR/input_<i>.pb or .npy from --inputs-dir, else "".
std::string modelInputFile(unsigned i, const std::string &name,
                           const std::map<std::string, std::string> &inputFiles,
                           const std::string &inputsDir);

/// Parses one of the import options (--input-shape, --dim, --input-value) at
/// args[i]. Returns 1 if consumed, 0 if not an import option, -1 after a
/// usage error was printed (exit status 2).
int takeImportOption(std::vector<std::string> &args, size_t &i,
                     importer::ImportOptions &opts, const char *cmd);
/// Runs the plumb-canonicalize pipeline; prints the error on failure.
mlir::LogicalResult canonicalize(mlir::ModuleOp module, const char *cmd,
                                 const std::string &path);
/// Loads a model (canonicalised unless opts.canonicalize is false): .onnx is imported, anything else is parsed as plumb IR.
/// Prints the error and returns null on failure; `exitCode` is set.
mlir::OwningOpRef<mlir::ModuleOp> loadModel(mlir::MLIRContext &ctx,
                                            const std::string &path,
                                            const importer::ImportOptions &opts,
                                            const char *cmd, int &exitCode);

int cmdImport(std::vector<std::string> args);
int cmdHash(std::vector<std::string> args);
void printHashHelp(FILE *f);
int cmdRun(std::vector<std::string> args);
int cmdCompile(std::vector<std::string> args);
void printCompileHelp(FILE *f);
int cmdCost(std::vector<std::string> args);
int cmdDispute(std::vector<std::string> args);
int cmdServeTrace(std::vector<std::string> args);
void printImportHelp(FILE *f);
void printRunHelp(FILE *f);
void printDisputeHelp(FILE *f);
void printServeTraceHelp(FILE *f);
void printCostHelp(FILE *f);

} // namespace tool
} // namespace plumb

#endif // PLUMB_TOOLS_PLUMB_COMMON_H
