//===- tools/plumb/Options.cpp - The plumb commands' option table ---------===//
//
// Part of Plumb. See Options.h.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include <algorithm>
#include <cstdlib>

namespace plumb {
namespace tool {

int usageError(const std::string &msg, const char *cmd) {
  std::fprintf(stderr, "plumb%s%s: error: %s\n", cmd ? " " : "", cmd ? cmd : "",
               msg.c_str());
  std::fprintf(stderr, "run 'plumb %s--help' for usage\n",
               cmd ? (std::string(cmd) + " ").c_str() : "");
  return 2;
}

namespace {

/// Whether args[i] is a use of `opt` ("--opt V", "--opt=V"; "--opt=" alone
/// is not); takes it (and its value) if so.
bool match(const std::vector<std::string> &args, size_t &i,
           const std::string &opt, bool takesValue, OptionUse &use) {
  const std::string &a = args[i];
  size_t first = i;
  if (a == opt) {
    use.name = opt;
    if (takesValue) {
      if (i + 1 >= args.size())
        use.missing = true;
      else
        use.value = args[++i];
    }
  } else if (takesValue && a.size() > opt.size() + 1 &&
             a.compare(0, opt.size(), opt) == 0 && a[opt.size()] == '=') {
    use.name = opt;
    use.value = a.substr(opt.size() + 1);
  } else {
    return false;
  }
  use.tokens.assign(args.begin() + first, args.begin() + i + 1);
  return true;
}

} // namespace

int CommandLine::parse(const std::vector<std::string> &args) const {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "-h" || a == "--help") {
      help(stdout);
      return 0;
    }
    OptionUse use;
    const Option *found = nullptr;
    for (const Option &o : options) {
      for (const std::string &n : o.names)
        if (match(args, i, n, o.takesValue, use)) {
          found = &o;
          break;
        }
      if (found)
        break;
    }
    if (found) {
      std::string err = found->action(use);
      if (!err.empty())
        return usageError(err, cmd);
    } else if (!a.empty() && a[0] == '-' && !(dashIsPositional && a == "-")) {
      return usageError("unknown option '" + a + "'", cmd);
    } else if (positional && positional->empty()) {
      *positional = a;
    } else {
      return usageError("unexpected argument '" + a + "'" + unexpectedNote,
                        cmd);
    }
  }
  if (positional && positional->empty())
    return noPositional ? usageError(noPositional, cmd) : -1;
  return -1;
}

Option flag(std::vector<std::string> names,
            std::function<std::string()> action) {
  return {std::move(names), false,
          [action](const OptionUse &) { return action(); }};
}

Option flag(std::vector<std::string> names, bool &target) {
  return flag(std::move(names), [&target] {
    target = true;
    return std::string();
  });
}

Option valued(std::vector<std::string> names, OptionAction action) {
  return {std::move(names), true, std::move(action)};
}

Option text(std::vector<std::string> names, std::string &target,
            std::string error, bool nonEmpty) {
  return valued(std::move(names), [&target, error, nonEmpty](const OptionUse &u) {
    if (u.missing || (nonEmpty && u.value.empty()))
      return error;
    target = u.value;
    return std::string();
  });
}

Option choice(std::vector<std::string> names, std::string &target,
              std::vector<std::string> choices, std::string error) {
  return valued(std::move(names), [&target, choices, error](const OptionUse &u) {
    if (u.missing ||
        std::find(choices.begin(), choices.end(), u.value) == choices.end())
      return error;
    target = u.value;
    return std::string();
  });
}

Option number(const std::string &name, int &target, long lo, long hi) {
  return valued({name}, [&target, name, lo, hi](const OptionUse &u) {
    char *end = nullptr;
    long n = u.missing ? lo - 1 : std::strtol(u.value.c_str(), &end, 10);
    if (u.missing || u.value.empty() || *end || n < lo || n > hi)
      return "option '" + name + "' needs a number from " +
             std::to_string(lo) + " to " + std::to_string(hi);
    target = (int)n;
    return std::string();
  });
}

Option pairs(const std::string &name, std::map<std::string, std::string> &target,
             const std::string &what) {
  return valued({name}, [&target, name, what](const OptionUse &u) {
    size_t eq = u.value.find('=');
    if (u.missing || eq == std::string::npos || eq == 0)
      return "option '" + name + "' needs NAME=" + what;
    target[u.value.substr(0, eq)] = u.value.substr(eq + 1);
    return std::string();
  });
}

void addImportOptions(std::vector<Option> &options,
                      importer::ImportOptions &opts,
                      std::vector<std::string> *raw) {
  using Parse = bool (*)(const std::string &, importer::InputBindings &,
                         importer::ImportError &);
  auto record = [raw](const OptionUse &u) {
    if (raw)
      raw->insert(raw->end(), u.tokens.begin(), u.tokens.end());
  };
  options.push_back({{"--no-canonicalize"}, false, [&opts, record](const OptionUse &u) {
                       opts.canonicalize = false;
                       record(u);
                       return std::string();
                     }});
  struct Binding {
    const char *name, *what;
    Parse parse;
  };
  for (Binding b : {Binding{"--input-shape", "NAME=DIMS", importer::parseInputShape},
                    Binding{"--dim", "SYMBOL=N", importer::parseDim},
                    Binding{"--input-value", "NAME=V", importer::parseInputValue}})
    options.push_back(valued({b.name}, [&opts, record, b](const OptionUse &u) {
      if (u.missing)
        return "option '" + std::string(b.name) + "' needs " + b.what;
      importer::ImportError e;
      if (!b.parse(u.value, opts.bindings, e))
        return e.message;
      record(u);
      return std::string();
    }));
}

void addSampleOptions(std::vector<Option> &options, driver::InputFiles &files) {
  options.push_back(pairs("--input", files.byName, "FILE"));
  options.push_back(text({"--inputs-dir"}, files.dir,
                         "option '--inputs-dir' needs a folder"));
}

const char *const kSampleOptionsHelp =
    "  --input NAME=FILE    a sample for input NAME (.npy or .pb): an input\n"
    "                       whose declared shape has free dimensions (and no\n"
    "                       --input-shape) takes the sample's shape\n"
    "  --inputs-dir DIR     samples input_<i>.pb (or .npy) for input i, used\n"
    "                       the same way\n";

} // namespace tool
} // namespace plumb
