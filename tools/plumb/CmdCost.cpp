//===- tools/plumb/CmdCost.cpp - plumb cost -------------------------------===//
//
// Part of Plumb. Prices a model with a gas schedule before anything runs:
// per node, per op type and in total, as an aligned table, JSON or CSV. The
// output depends only on the program and the schedule, so it is
// byte-identical across runs and machines (integers only, no floats, no
// paths, no times).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "plumb/Cost/Gas.h"
#include "plumb/Driver/Pipeline.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

namespace plumb {
namespace tool {

void printCostHelp(FILE *f) {
  std::fprintf(
      f,
      "usage: plumb cost MODEL.onnx|MODEL.mlir [import options]\n"
      "                  [--schedule NAME] [--format table|json|csv]\n"
      "                  [--budget GAS] [--steps N]\n"
      "\n"
      "Prices the model in gas before it runs: every node's work (MACs,\n"
      "elementwise and transcendental operations, bytes read and written),\n"
      "counted from static shapes, weighted by a published, versioned\n"
      "schedule (docs/gas.md). The model is first put into the canonical form\n"
      "(plumb-canonicalize), so node indices and ids are the canonical ones.\n"
      "Integer arithmetic only: the output is byte-identical on every\n"
      "machine.\n"
      "\n"
      "options:\n"
      "  --schedule NAME      gas schedule (default: the newest, %s);\n"
      "                       known: %s\n"
      "  --format FMT         table (default; aligned, for people), json or\n"
      "                       csv\n"
      "  --budget GAS         exit 3 when the total gas exceeds GAS (with\n"
      "                       --steps, the whole job's)\n"
      "  --steps N            price a training job: MODEL is a training\n"
      "                       bundle ('plumb compile --train'), whose step\n"
      "                       program runs N times (docs/training.md)\n"
      "  import options       --input-shape, --dim, --input-value as in\n"
      "                       'plumb import' (for .onnx models)\n"
      "%s"
      "\n"
      "A program whose work is unbounded (a loop without a static trip\n"
      "count) or whose gas overflows 64 bits is refused.\n"
      "\n"
      "exit status: 0 success, 1 bad or refused model, 2 usage error,\n"
      "             3 over budget\n",
      latestGasSchedule().name.str().c_str(), gasScheduleNames().c_str(),
      kSampleOptionsHelp);
}

namespace {

/// 1234567 -> "1,234,567".
std::string withCommas(uint64_t v) {
  std::string digits = std::to_string(v), r;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      r += ',';
    r += digits[i];
  }
  return r;
}

/// part / whole as a percentage with one decimal, in integers ("86.2%").
std::string share(uint64_t part, uint64_t whole) {
  if (whole == 0)
    return "0.0%";
  unsigned __int128 p = (unsigned __int128)part * 1000 + whole / 2;
  uint64_t tenths = (uint64_t)(p / whole);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
}

/// Shortens `s` to at most `n` characters for the table.
std::string clip(const std::string &s, size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

/// A table with right-aligned numeric columns.
struct Table {
  std::vector<std::string> header;
  std::vector<bool> right;
  std::vector<std::vector<std::string>> rows;

  void print(std::string &out, const std::string &indent = "") const {
    std::vector<size_t> w(header.size());
    for (size_t c = 0; c < header.size(); ++c) {
      w[c] = header[c].size();
      for (const auto &r : rows)
        w[c] = std::max(w[c], r[c].size());
    }
    auto line = [&](const std::vector<std::string> &r) {
      std::string l = indent;
      for (size_t c = 0; c < r.size(); ++c) {
        std::string pad(w[c] - r[c].size(), ' ');
        l += c ? "  " : "";
        l += right[c] ? pad + r[c] : r[c] + (c + 1 < r.size() ? pad : "");
      }
      out += l + "\n";
    };
    line(header);
    for (const auto &r : rows)
      line(r);
  }
};

std::string renderTable(const GasReport &r) {
  std::string out;
  out += "schedule    " + r.schedule + "\n";
  out += "graph hash  " + toHex(r.graphHash) + "\n";
  out += "nodes       " + withCommas(r.nodes.size()) + "\n";
  out += "total gas   " + withCommas(r.totalGas) + "\n";
  out += "flops       " + withCommas(r.totalFlops) + "\n";
  out += "bytes       " + withCommas(r.totalBytes) + "\n\n";

  Table nodes{
      {"index", "node id", "op", "shapes", "flops", "bytes", "gas", "share"},
      {true, false, false, false, true, true, true, true},
      {}};
  for (const NodeGas &n : r.nodes)
    nodes.rows.push_back({std::to_string(n.index), toHex(n.id).substr(0, 12),
                          n.op, clip(n.shapes, 64), withCommas(n.flops),
                          withCommas(n.bytes), withCommas(n.gas),
                          share(n.gas, r.totalGas)});
  nodes.print(out);

  out += "\nop types (dearest first)\n";
  Table types{{"op", "nodes", "flops", "bytes", "gas", "share"},
              {false, true, true, true, true, true},
              {}};
  for (const OpTypeGas &t : r.opTypes)
    types.rows.push_back({t.op, withCommas(t.nodes), withCommas(t.flops),
                          withCommas(t.bytes), withCommas(t.gas),
                          share(t.gas, r.totalGas)});
  types.print(out, "  ");

  // The dearest nodes; ties by index so the order is fixed.
  std::vector<const NodeGas *> top;
  for (const NodeGas &n : r.nodes)
    top.push_back(&n);
  std::stable_sort(
      top.begin(), top.end(),
      [](const NodeGas *a, const NodeGas *b) { return a->gas > b->gas; });
  top.resize(std::min<size_t>(top.size(), 5));
  out += "\ndearest nodes\n";
  Table topT{{"index", "op", "gas", "share"}, {true, false, true, true}, {}};
  for (const NodeGas *n : top)
    topT.rows.push_back({std::to_string(n->index), n->op, withCommas(n->gas),
                         share(n->gas, r.totalGas)});
  topT.print(out, "  ");
  out += "\ntotal gas " + withCommas(r.totalGas) + " (" + r.schedule + ")\n";
  return out;
}

std::string jsonString(const std::string &s) {
  std::string r = "\"";
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
  return r + "\"";
}

std::string renderJson(const GasReport &r) {
  std::string out = "{\n";
  out += "  \"schedule\": " + jsonString(r.schedule) + ",\n";
  out += "  \"graph_hash\": \"" + toHex(r.graphHash) + "\",\n";
  out += "  \"total_gas\": " + std::to_string(r.totalGas) + ",\n";
  out += "  \"total_flops\": " + std::to_string(r.totalFlops) + ",\n";
  out += "  \"total_bytes\": " + std::to_string(r.totalBytes) + ",\n";
  out += "  \"nodes\": [";
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    const NodeGas &n = r.nodes[i];
    out += i ? ",\n    " : "\n    ";
    out += "{\"index\": " + std::to_string(n.index) + ", \"id\": \"" +
           toHex(n.id) + "\", \"op\": " + jsonString(n.op) +
           ", \"shapes\": " + jsonString(n.shapes) +
           ", \"gas\": " + std::to_string(n.gas) +
           ", \"flops\": " + std::to_string(n.flops) +
           ", \"bytes\": " + std::to_string(n.bytes) +
           ", \"macs\": " + std::to_string(n.counts.macs) +
           ", \"elementwise\": " + std::to_string(n.counts.elementwise) +
           ", \"transcendental\": " + std::to_string(n.counts.transcendental) +
           ", \"compare\": " + std::to_string(n.counts.compare) +
           ", \"indexed\": " + std::to_string(n.counts.indexed) +
           ", \"bytes_read\": " + std::to_string(n.counts.bytesRead) +
           ", \"bytes_written\": " + std::to_string(n.counts.bytesWritten) +
           "}";
  }
  out += r.nodes.empty() ? "],\n" : "\n  ],\n";
  out += "  \"op_types\": [";
  for (size_t i = 0; i < r.opTypes.size(); ++i) {
    const OpTypeGas &t = r.opTypes[i];
    out += i ? ",\n    " : "\n    ";
    out += "{\"op\": " + jsonString(t.op) +
           ", \"nodes\": " + std::to_string(t.nodes) +
           ", \"gas\": " + std::to_string(t.gas) +
           ", \"flops\": " + std::to_string(t.flops) +
           ", \"bytes\": " + std::to_string(t.bytes) + "}";
  }
  out += r.opTypes.empty() ? "]\n" : "\n  ]\n";
  return out + "}\n";
}

/// CSV: one `node` row per node, one `op_type` row per op type and a
/// `total` row that also carries the schedule and the graph hash. No field
/// holds a comma or a quote (op names, hex, "AxBxf32 ... -> ...").
std::string renderCsv(const GasReport &r) {
  std::string out = "kind,index,id,op,shapes,macs,elementwise,transcendental,"
                    "compare,indexed,bytes_read,bytes_written,flops,bytes,gas,"
                    "schedule,graph_hash\n";
  for (const NodeGas &n : r.nodes)
    out += "node," + std::to_string(n.index) + "," + toHex(n.id) + "," + n.op +
           "," + n.shapes + "," + std::to_string(n.counts.macs) + "," +
           std::to_string(n.counts.elementwise) + "," +
           std::to_string(n.counts.transcendental) + "," +
           std::to_string(n.counts.compare) + "," +
           std::to_string(n.counts.indexed) + "," +
           std::to_string(n.counts.bytesRead) + "," +
           std::to_string(n.counts.bytesWritten) + "," +
           std::to_string(n.flops) + "," + std::to_string(n.bytes) + "," +
           std::to_string(n.gas) + ",,\n";
  for (const OpTypeGas &t : r.opTypes)
    out += "op_type,,," + t.op + ",,,,,,,,," + std::to_string(t.flops) + "," +
           std::to_string(t.bytes) + "," + std::to_string(t.gas) + ",,\n";
  out += "total,,,,,,,,,,,," + std::to_string(r.totalFlops) + "," +
         std::to_string(r.totalBytes) + "," + std::to_string(r.totalGas) + "," +
         r.schedule + "," + toHex(r.graphHash) + "\n";
  return out;
}

/// A non-negative decimal integer that fits in 64 bits.
bool parseGas(const std::string &s, uint64_t &v) {
  if (s.empty() || s.size() > 20)
    return false;
  unsigned __int128 x = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    x = x * 10 + (c - '0');
  }
  if (x > UINT64_MAX)
    return false;
  v = (uint64_t)x;
  return true;
}

/// --steps: the bundle, which must be a training bundle.
bool loadTrainingBundle(const std::string &path,
                        std::unique_ptr<bundle::Bundle> &out, const char *cmd,
                        int &exitCode) {
  exitCode = 2;
  if (!bundle::isBundleDir(path)) {
    exitCode = usageError("--steps needs a training bundle ('plumb compile "
                          "MODEL.onnx --train ...')",
                          cmd);
    return false;
  }
  bundle::OpenOptions oo;
  oo.checkCpu = oo.checkCuda = false;
  auto b = bundle::openBundle(path, oo);
  if (!b) {
    exitCode = fail(cmd, "refusing bundle '" + path +
                             "': " + llvm::toString(b.takeError()));
    return false;
  }
  if ((*b)->manifest.training.empty()) {
    exitCode = usageError("'" + path + "' is not a training bundle; --steps "
                          "prices training jobs",
                          cmd);
    return false;
  }
  out = std::move(*b);
  return true;
}

/// Appends the job's price (gas per step times steps) to `out`.
bool addTrainingJob(const GasReport &r, uint64_t steps,
                    const std::string &format, std::string &out,
                    uint64_t &total, const char *cmd) {
  if (__builtin_mul_overflow(r.totalGas, steps, &total)) {
    fail(cmd, "the job's gas overflows 64 bits");
    return false;
  }
  if (format == "json") {
    size_t end = out.rfind("\n}");
    out = out.substr(0, end) + ",\n  \"steps\": " + std::to_string(steps) +
          ",\n  \"job_gas\": " + std::to_string(total) + "\n}\n";
  } else if (format == "csv") {
    out += "job,,,,,,,,,,,,,," + std::to_string(total) + ",steps=" +
           std::to_string(steps) + "\n";
  } else {
    out += "training job: " + std::to_string(steps) + " steps x " +
           withCommas(r.totalGas) + " gas = " + withCommas(total) + " gas\n";
  }
  return true;
}

} // namespace

int cmdCost(std::vector<std::string> args) {
  const char *cmd = "cost";
  importer::ImportOptions opts;
  std::string model, format = "table";
  const GasSchedule *schedule = &latestGasSchedule();
  std::optional<uint64_t> budget;
  CommandLine cl{cmd, printCostHelp, {}, &model};
  addImportOptions(cl.options, opts);
  driver::InputFiles samples;
  addSampleOptions(cl.options, samples);
  cl.options.push_back(valued({"--schedule"}, [&](const OptionUse &u) {
    if (u.missing)
      return "option '--schedule' needs a name (known: " + gasScheduleNames() +
             ")";
    schedule = lookupGasSchedule(u.value);
    if (!schedule)
      return "unknown gas schedule '" + u.value +
             "'; known schedules: " + gasScheduleNames();
    return std::string();
  }));
  cl.options.push_back(choice({"--format"}, format, {"table", "json", "csv"},
                              "option '--format' must be table, json or csv"));
  cl.options.push_back(valued({"--budget"}, [&](const OptionUse &u) {
    uint64_t g;
    if (u.missing || !parseGas(u.value, g))
      return std::string("option '--budget' needs a whole number of gas "
                         "from 0 to 18446744073709551615");
    budget = g;
    return std::string();
  }));
  int steps = 0;
  cl.options.push_back(number("--steps", steps, 1, 1 << 30));
  if (int r = cl.parse(args); r >= 0)
    return r;

  auto ctx = driver::makeContext();
  int exitCode = 0;
  std::unique_ptr<bundle::Bundle> bundled;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (steps && !loadTrainingBundle(model, bundled, cmd, exitCode))
    return exitCode;
  if (!bundled) {
    driver::shapesFromSamples(opts, samples);
    module = loadModel(*ctx, model, opts, cmd, exitCode);
  }
  if (!bundled && !module)
    return exitCode;
  mlir::ModuleOp mod = bundled ? *bundled->module : *module;
  // Price the canonical form: its node order and ids are the ones bundles,
  // traces and disputes use (a model loaded with --no-canonicalize is put
  // into it here).
  std::vector<driver::PipelineDiagnostic> diags;
  if (!opts.canonicalize &&
      !bundled && mlir::failed(driver::runCanonicalPipeline(mod, &diags))) {
    std::string text;
    for (const driver::PipelineDiagnostic &d : diags)
      text += d.location + ": " + d.message + "\n";
    std::fprintf(stderr, "plumb cost: error: %s: not a valid Plumb program\n%s",
                 model.c_str(), text.c_str());
    return 1;
  }

  auto report = computeGas(mod, *schedule);
  if (!report)
    return fail(cmd, model + ": " + llvm::toString(report.takeError()));
  std::string out = format == "json"  ? renderJson(*report)
                    : format == "csv" ? renderCsv(*report)
                                      : renderTable(*report);
  uint64_t total = report->totalGas;
  if (steps && !addTrainingJob(*report, (uint64_t)steps, format, out, total,
                               cmd))
    return 1;
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (budget && total > *budget) {
    std::fprintf(stderr,
                 "plumb cost: total gas %s exceeds the budget %s (%s)\n",
                 withCommas(total).c_str(),
                 withCommas(*budget).c_str(), report->schedule.c_str());
    return 3;
  }
  return 0;
}

} // namespace tool
} // namespace plumb
