//===- tools/plumb/Options.h - The plumb commands' option table -*- C++ -*-===//
//
// Part of Plumb. Every command declares its options in one table that one
// parser reads: "--opt V" and "--opt=V", flags, one positional argument,
// --help, and the usage errors (exit status 2) the commands have always
// printed. Not llvm::cl: its options are global and its messages, help and
// "--opt=V" handling are its own, while each plumb command has a help text
// and messages that scripts and the lit tests rely on; a table this small
// keeps them exactly.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TOOLS_PLUMB_OPTIONS_H
#define PLUMB_TOOLS_PLUMB_OPTIONS_H

#include "plumb/Driver/Inputs.h"
#include "plumb/Importer/OnnxImporter.h"

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace plumb {
namespace tool {

/// One use of an option on the command line.
struct OptionUse {
  std::string name;  // as given ("-o" or "--output")
  std::string value; // the value, for an option that takes one
  bool missing = false; // a value was due but the line ended
  std::vector<std::string> tokens; // the arguments it took, as given
};

/// What an option does with a use: "" when it is valid, else the usage
/// error to print.
using OptionAction = std::function<std::string(const OptionUse &)>;

struct Option {
  std::vector<std::string> names;
  bool takesValue = false;
  OptionAction action;
};

/// A command's command line: its options and its one positional argument.
struct CommandLine {
  const char *cmd;
  void (*help)(FILE *);
  std::vector<Option> options;
  std::string *positional = nullptr;
  /// The usage error when the positional argument is absent (null: it is
  /// optional).
  const char *noPositional = "no model given";
  /// Added to "unexpected argument 'X'".
  const char *unexpectedNote = "";
  /// "-" is a positional argument (standard output), not an option.
  bool dashIsPositional = false;

  /// Parses `args`: -1 to go on, 0 after --help, 2 after a usage error
  /// (printed).
  int parse(const std::vector<std::string> &args) const;
};

/// Prints "plumb CMD: error: MSG" and a hint; returns 2 (usage error).
int usageError(const std::string &msg, const char *cmd);

/// A flag; `action` returns the usage error or "".
Option flag(std::vector<std::string> names, std::function<std::string()> action);
/// A flag that sets `target`.
Option flag(std::vector<std::string> names, bool &target);
/// An option with a value.
Option valued(std::vector<std::string> names, OptionAction action);
/// A value stored in `target`; `error` when it is missing (or empty, with
/// `nonEmpty`).
Option text(std::vector<std::string> names, std::string &target,
            std::string error, bool nonEmpty = false);
/// One of `choices`, else `error`.
Option choice(std::vector<std::string> names, std::string &target,
              std::vector<std::string> choices, std::string error);
/// A whole number from lo to hi.
Option number(const std::string &name, int &target, long lo, long hi);
/// NAME=VALUE pairs into `target` ("option 'N' needs NAME=WHAT" otherwise).
Option pairs(const std::string &name, std::map<std::string, std::string> &target,
             const std::string &what);
/// --input-shape, --dim, --input-value and --no-canonicalize; `raw` (when
/// given) collects the arguments they took (the manifest records them).
void addImportOptions(std::vector<Option> &options,
                      importer::ImportOptions &opts,
                      std::vector<std::string> *raw = nullptr);
/// --input NAME=FILE and --inputs-dir DIR as sample inputs: for an .onnx
/// model, the shapes of inputs whose declared shape leaves dimensions free
/// are taken from them (driver::shapesFromSamples).
void addSampleOptions(std::vector<Option> &options, driver::InputFiles &files);

/// The help lines of addSampleOptions.
extern const char *const kSampleOptionsHelp;

} // namespace tool
} // namespace plumb

#endif // PLUMB_TOOLS_PLUMB_OPTIONS_H
