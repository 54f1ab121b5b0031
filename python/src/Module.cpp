//===- python/src/Module.cpp - The plumb Python module --------------------===//
//
// Part of Plumb. The nanobind side of `plumb._plumb`: Python objects over
// Core.h. Inputs are read through the buffer protocol (a C-contiguous
// array of the right dtype is used in place), outputs are NumPy arrays
// allocated here that the compiled model writes into, and the GIL is
// released while a model compiles or runs.
//
//===----------------------------------------------------------------------===//
#include "Core.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;
using namespace plumb::py;

namespace {

PyObject *excPlumb, *excModel, *excInput, *excUsage;

[[noreturn]] void raise(const Error &e) {
  PyObject *type = e.kind == Error::Model   ? excModel
                   : e.kind == Error::Input ? excInput
                   : e.kind == Error::Usage ? excUsage
                                            : excPlumb;
  PyErr_SetString(type, e.message.c_str());
  throw nb::python_error();
}

[[noreturn]] void raise(PyObject *type, const std::string &msg) {
  PyErr_SetString(type, msg.c_str());
  throw nb::python_error();
}

const char *dtypeName(int32_t code) {
  switch (code) {
  case 1:
    return "float32";
  case 2:
    return "int64";
  case 3:
    return "int32";
  case 4:
    return "bool";
  }
  return "unknown";
}

std::string describe(const std::string &dtype, const int64_t *shape,
                     size_t rank) {
  std::string s = dtype + "[";
  for (size_t i = 0; i < rank; ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

/// NumPy's objects, looked up once.
struct NumPy {
  nb::object empty, ascontiguousarray, dtypes[5];
  static NumPy &get() {
    static NumPy *np = [] {
      auto *n = new NumPy();
      nb::module_ m = nb::module_::import_("numpy");
      n->empty = m.attr("empty");
      n->ascontiguousarray = m.attr("ascontiguousarray");
      for (int32_t c = 1; c <= 4; ++c)
        n->dtypes[c] = m.attr("dtype")(dtypeName(c));
      return n;
    }();
    return *np;
  }
};

/// The dtype code of a buffer's format, 0 if Plumb has no such type;
/// `name` is NumPy's name for it.
int32_t dtypeOfFormat(const Py_buffer &b, std::string &name) {
  const char *f = b.format ? b.format : "B";
  while (*f == '<' || *f == '=' || *f == '@' || *f == '!' || *f == '>')
    ++f;
  char c = *f;
  size_t n = (size_t)b.itemsize;
  if (c == 'f' && n == 4)
    return name = "float32", 1;
  if ((c == 'q' || c == 'l') && n == 8)
    return name = "int64", 2;
  if ((c == 'i' || c == 'l') && n == 4)
    return name = "int32", 3;
  if (c == '?' && n == 1)
    return name = "bool", 4;
  static const std::pair<char, const char *> names[] = {
      {'d', "float64"}, {'e', "float16"}, {'b', "int8"},   {'B', "uint8"},
      {'h', "int16"},   {'H', "uint16"},  {'I', "uint32"}, {'L', "uint64"},
      {'Q', "uint64"},  {'g', "float128"}, {'O', "object"}};
  name = std::string("dtype '") + f + "'";
  for (auto &[k, v] : names)
    if (k == c)
      name = v;
  return 0;
}

/// A buffer held for one run.
struct Held {
  Py_buffer view{};
  bool held = false;
  nb::object owner;
  std::vector<int64_t> shape;
  Held() = default;
  Held(const Held &) = delete;
  ~Held() {
    if (held)
      PyBuffer_Release(&view);
  }
};

bool getBuffer(nb::handle obj, Held &h, int flags) {
  if (PyObject_GetBuffer(obj.ptr(), &h.view, flags) != 0) {
    PyErr_Clear();
    return false;
  }
  h.held = true;
  h.shape.assign(h.view.shape, h.view.shape + h.view.ndim);
  return true;
}

class PyResult {
public:
  nb::dict outputs;
  nb::object traceRoot = nb::none();
  int64_t traceNodes = 0;

  nb::dict outputHashes() {
    if (hashes.is_valid())
      return nb::borrow<nb::dict>(hashes);
    nb::dict d;
    for (auto [name, arr] : outputs) {
      Held h;
      if (!getBuffer(arr, h, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT))
        raise(excPlumb, "an output is not a contiguous array");
      std::string dn;
      int32_t code = dtypeOfFormat(h.view, dn);
      plumb_tensor_view v{code, (int32_t)h.shape.size(), h.shape.data(),
                          h.view.buf};
      d[name] = tensorHash(v);
    }
    hashes = d;
    return d;
  }

private:
  nb::object hashes; // computed when first asked for
};

class PyBundle {
public:
  explicit PyBundle(std::unique_ptr<Bundle> b) : core(std::move(b)) {
    NumPy &np = NumPy::get();
    for (const TensorInfo &t : core->outputs()) {
      nb::list shape;
      for (int64_t d : t.shape)
        shape.append(d);
      outShapes.push_back(nb::tuple(shape));
      outDtypes.push_back(np.dtypes[t.dtype]);
      outNames.push_back(nb::str(t.name.c_str()));
    }
  }

  Bundle &get() { return *core; }

  PyResult run(nb::handle inputs, int threads, const std::string &device,
               bool interpret, nb::handle trace, bool keepTensors) {
    RunRequest r;
    r.threads = threads;
    r.device = device;
    r.interpret = interpret;
    r.keepTensors = keepTensors;
    if (!trace.is_none())
      r.traceDir = nb::cast<std::string>(
          nb::module_::import_("os").attr("fspath")(trace));
    else if (keepTensors)
      raise(excUsage, "keep_tensors needs trace=DIR");
    if (Error err; !Bundle::validate(r, err))
      raise(err);
    if (!prepared(r)) {
      Error err;
      bool ok;
      {
        nb::gil_scoped_release release;
        ok = core->prepare(r, err);
      }
      if (!ok)
        raise(err);
      preparedFor.push_back({r.device, r.interpret});
    }
    std::vector<std::unique_ptr<Held>> held;
    std::vector<plumb_tensor_view> in = gather(inputs, held);
    Error err;
    std::vector<std::vector<uint64_t>> bound;
    if (!core->checkInputs(in, bound, err))
      raise(err);
    PyResult res;
    std::vector<plumb_tensor_view> out = allocate(res, held);
    RunReport report;
    bool ok;
    {
      nb::gil_scoped_release release;
      ok = core->run(in, out, r, report, err);
    }
    if (!ok)
      raise(err);
    if (!report.traceRoot.empty()) {
      res.traceRoot = nb::str(report.traceRoot.c_str());
      res.traceNodes = report.traceNodes;
    }
    return res;
  }

  /// The views of `inputs` (a dict by name, or a sequence in input order),
  /// in input order; an omitted bound input gets its bound value.
  std::vector<plumb_tensor_view>
  gather(nb::handle inputs, std::vector<std::unique_ptr<Held>> &held) {
    const std::vector<TensorInfo> &specs = core->inputs();
    std::vector<nb::handle> objs(specs.size());
    if (nb::isinstance<nb::dict>(inputs)) {
      nb::dict d = nb::borrow<nb::dict>(inputs);
      for (auto [k, v] : d) {
        std::string name = nb::isinstance<nb::str>(k)
                               ? nb::cast<std::string>(k)
                               : nb::cast<std::string>(nb::repr(k));
        size_t i = 0;
        while (i < specs.size() && specs[i].name != name)
          ++i;
        if (i == specs.size())
          raise(excInput, "inputs name '" + name +
                              "', which is not an input of the model");
        objs[i] = v;
      }
    } else if (PySequence_Check(inputs.ptr()) &&
               !nb::isinstance<nb::str>(inputs)) {
      Py_ssize_t n = PySequence_Size(inputs.ptr());
      if (n != (Py_ssize_t)specs.size())
        raise(excInput, "the model has " + std::to_string(specs.size()) +
                            " inputs, " + std::to_string(n) + " were given");
      nb::sequence seq = nb::borrow<nb::sequence>(inputs);
      for (size_t i = 0; i < specs.size(); ++i)
        objs[i] = seq[i];
      keepSeq = seq;
    } else {
      raise(excInput, "inputs must be a dict (input name to array) or a "
                      "list in input order");
    }
    std::vector<plumb_tensor_view> views(specs.size());
    for (size_t i = 0; i < specs.size(); ++i)
      views[i] = view(i, objs[i], held);
    return views;
  }

  plumb_tensor_view view(size_t i, nb::handle obj,
                         std::vector<std::unique_ptr<Held>> &held) {
    const TensorInfo &s = core->inputs()[i];
    if (!obj.is_valid() || obj.is_none()) {
      if (s.bound)
        return {s.dtype, (int32_t)s.shape.size(), s.shape.data(), nullptr};
      raise(excInput, "no value for input '" + s.name + "' (#" +
                          std::to_string(i) + ")");
    }
    held.push_back(std::make_unique<Held>());
    Held &h = *held.back();
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
    if (!getBuffer(obj, h, flags)) {
      // Not an array in C order (or not an array): NumPy makes one.
      h.owner = NumPy::get().ascontiguousarray(obj);
      if (!getBuffer(h.owner, h, flags))
        raise(excInput, "input '" + s.name + "' is not an array");
    }
    std::string got;
    int32_t code = dtypeOfFormat(h.view, got);
    if (code != s.dtype)
      raise(excInput, "input '" + s.name + "' must be " +
                          describe(dtypeName(s.dtype), s.shape.data(),
                                   s.shape.size()) +
                          ", got " +
                          describe(got, h.shape.data(), h.shape.size()));
    return {code, (int32_t)h.shape.size(), h.shape.data(), h.view.buf};
  }

  std::vector<plumb_tensor_view>
  allocate(PyResult &res, std::vector<std::unique_ptr<Held>> &held) {
    const std::vector<TensorInfo> &specs = core->outputs();
    NumPy &np = NumPy::get();
    std::vector<plumb_tensor_view> out(specs.size());
    for (size_t i = 0; i < specs.size(); ++i) {
      nb::object arr = np.empty(outShapes[i], outDtypes[i]);
      held.push_back(std::make_unique<Held>());
      if (!getBuffer(arr, *held.back(), PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE))
        raise(excPlumb, "numpy.empty gave an array without a buffer");
      static uint64_t empty;
      void *data = held.back()->view.len ? held.back()->view.buf : &empty;
      out[i] = {specs[i].dtype, (int32_t)specs[i].shape.size(),
                specs[i].shape.data(), data};
      res.outputs[outNames[i]] = arr;
    }
    return out;
  }

  std::vector<nb::object> outShapes, outDtypes, outNames;

private:
  bool prepared(const RunRequest &r) const {
    for (auto &p : preparedFor)
      if (p.first == r.device && p.second == r.interpret)
        return true;
    return false;
  }
  std::unique_ptr<Bundle> core;
  std::vector<std::pair<std::string, bool>> preparedFor;
  nb::object keepSeq;
};

Bindings bindingsOf(const std::vector<std::string> &shapes,
                    const std::vector<std::string> &dims,
                    const std::vector<std::string> &values) {
  return {shapes, dims, values};
}

nb::object tensorInfo(const TensorInfo &t, nb::handle cls) {
  nb::list shape;
  for (int64_t d : t.shape)
    shape.append(d);
  return cls(t.name, nb::tuple(shape), NumPy::get().dtypes[t.dtype], t.bound);
}

} // namespace

namespace {

void defineErrors(nb::module_ &m) {
  excPlumb = PyErr_NewExceptionWithDoc(
      "plumb.PlumbError", "Any error Plumb reports.", PyExc_Exception, nullptr);
  excModel = PyErr_NewExceptionWithDoc(
      "plumb.ModelError",
      "The model cannot be imported, compiled or loaded (a bad model or a "
      "refused bundle).",
      excPlumb, nullptr);
  nb::tuple inputBases = nb::make_tuple(nb::handle(excPlumb),
                                        nb::handle(PyExc_ValueError));
  excInput = PyErr_NewExceptionWithDoc(
      "plumb.InputError",
      "An input of the wrong name, dtype or shape (the message names it).",
      inputBases.ptr(), nullptr);
  excUsage = PyErr_NewExceptionWithDoc(
      "plumb.UsageError",
      "An argument Plumb cannot use (what the plumb tool reports as a usage "
      "error, exit status 2).",
      inputBases.ptr(), nullptr);
  m.attr("PlumbError") = nb::handle(excPlumb);
  m.attr("ModelError") = nb::handle(excModel);
  m.attr("InputError") = nb::handle(excInput);
  m.attr("UsageError") = nb::handle(excUsage);

}

void defineFunctions(nb::module_ &m) {
  m.def(
      "import_model",
      [](const std::string &path, const std::vector<std::string> &shapes,
         const std::vector<std::string> &dims,
         const std::vector<std::string> &values, bool canonicalize) {
        Error err;
        std::string ir;
        {
          nb::gil_scoped_release release;
          ir = importModel(path, bindingsOf(shapes, dims, values),
                           canonicalize, err);
        }
        if (err)
          raise(err);
        return ir;
      },
      "path"_a, "input_shapes"_a, "dims"_a, "input_values"_a,
      "canonicalize"_a);
  m.def(
      "hash_model",
      [](const std::string &path, const std::vector<std::string> &shapes,
         const std::vector<std::string> &dims,
         const std::vector<std::string> &values) {
        Error err;
        std::string h;
        {
          nb::gil_scoped_release release;
          h = hashModel(path, bindingsOf(shapes, dims, values), err);
        }
        if (err)
          raise(err);
        return h;
      },
      "path"_a, "input_shapes"_a, "dims"_a, "input_values"_a);
  m.def(
      "compile_model",
      [](const std::string &path, const std::vector<std::string> &shapes,
         const std::vector<std::string> &dims,
         const std::vector<std::string> &values, const std::string &target,
         const std::string &dir, const std::string &sourceName) {
        Error err;
        {
          nb::gil_scoped_release release;
          compileModel(path, bindingsOf(shapes, dims, values), target, dir,
                       sourceName, err);
        }
        if (err)
          raise(err);
      },
      "path"_a, "input_shapes"_a, "dims"_a, "input_values"_a, "target"_a,
      "dir"_a, "source_name"_a);

}

void defineResult(nb::module_ &m) {
  nb::class_<PyResult>(m, "Result", "The outputs of one run.")
      .def_ro("outputs", &PyResult::outputs,
              "Output name to numpy.ndarray (arrays that own their memory).")
      .def_prop_ro("output_hashes", &PyResult::outputHashes,
                   "Output name to the SHA-256 (hex) of its canonical "
                   "encoding: the hashes `plumb run` prints.")
      .def_ro("trace_root", &PyResult::traceRoot,
              "The trace's Merkle root (hex) when the run was traced, else "
              "None.")
      .def_ro("trace_nodes", &PyResult::traceNodes,
              "The number of nodes the trace holds (0 without a trace).")
      .def("__repr__", [](PyResult &r) {
        std::string s = "Result(outputs=[";
        bool first = true;
        for (auto [k, v] : r.outputs) {
          s += (first ? "" : ", ") + nb::cast<std::string>(nb::repr(k));
          first = false;
        }
        s += "]";
        if (!r.traceRoot.is_none())
          s += ", trace_root='" + nb::cast<std::string>(r.traceRoot) + "'";
        return s + ")";
      });

}

void defineBundle(nb::module_ &m) {
  nb::class_<PyBundle>(m, "_Bundle")
      .def_static(
          "open",
          [](const std::string &dir) {
            Error err;
            std::unique_ptr<Bundle> b;
            {
              nb::gil_scoped_release release;
              b = Bundle::open(dir, err);
            }
            if (!b)
              raise(err);
            return new PyBundle(std::move(b));
          },
          "dir"_a)
      .def_prop_ro("dir", [](PyBundle &b) { return b.get().dir(); })
      .def_prop_ro("graph_hash",
                   [](PyBundle &b) { return b.get().graphHash(); })
      .def("inputs",
           [](PyBundle &b, nb::handle cls) {
             nb::list l;
             for (const TensorInfo &t : b.get().inputs())
               l.append(tensorInfo(t, cls));
             return l;
           })
      .def("outputs",
           [](PyBundle &b, nb::handle cls) {
             nb::list l;
             for (const TensorInfo &t : b.get().outputs())
               l.append(tensorInfo(t, cls));
             return l;
           })
      .def("nodes",
           [](PyBundle &b, nb::handle cls) {
             nb::list l;
             for (const NodeInfo &n : b.get().nodes())
               l.append(cls(n.index, n.id, n.op, n.gas));
             return l;
           })
      .def("cost",
           [](PyBundle &b, const std::string &schedule) {
             CostReport r;
             Error err;
             if (!b.get().cost(schedule, r, err))
               raise(err);
             nb::list nodes, types;
             for (const CostRow &n : r.nodes) {
               nb::dict d;
               d["index"] = n.index, d["id"] = n.id, d["op"] = n.op;
               d["shapes"] = n.shapes, d["gas"] = n.gas, d["flops"] = n.flops;
               d["bytes"] = n.bytes, d["macs"] = n.macs;
               d["elementwise"] = n.elementwise;
               d["transcendental"] = n.transcendental;
               d["compare"] = n.compare, d["indexed"] = n.indexed;
               d["bytes_read"] = n.bytesRead;
               d["bytes_written"] = n.bytesWritten;
               nodes.append(d);
             }
             for (const CostOpType &t : r.opTypes) {
               nb::dict d;
               d["op"] = t.op, d["nodes"] = t.nodes, d["gas"] = t.gas;
               d["flops"] = t.flops, d["bytes"] = t.bytes;
               types.append(d);
             }
             nb::dict d;
             d["schedule"] = r.schedule, d["graph_hash"] = r.graphHash;
             d["total_gas"] = r.totalGas, d["total_flops"] = r.totalFlops;
             d["total_bytes"] = r.totalBytes;
             d["nodes"] = nodes, d["op_types"] = types;
             return d;
           })
      .def("run", &PyBundle::run, "inputs"_a, nb::kw_only(), "threads"_a = 1,
           "device"_a = "cpu", "interpret"_a = false,
           "trace"_a.none() = nb::none(), "keep_tensors"_a = false,
           "Runs the model; see plumb.Bundle.run.")
      .def(
          "_input_addresses",
          [](PyBundle &b, nb::handle inputs) {
            // Where a run reads each input from (tests: arrays are used in
            // place).
            std::vector<std::unique_ptr<Held>> held;
            std::vector<uintptr_t> r;
            for (const plumb_tensor_view &v : b.gather(inputs, held))
              r.push_back((uintptr_t)v.data);
            return r;
          },
          "inputs"_a)
      .def(
          "dispute",
          [](PyBundle &b, const std::string &dirA, const std::string &dirB,
             const std::string &nameA, const std::string &nameB,
             nb::handle known, int timeoutMs) {
            std::vector<std::unique_ptr<Held>> held;
            std::vector<plumb_tensor_view> views;
            std::vector<std::vector<uint64_t>> bound;
            Error err;
            if (!known.is_none()) {
              views = b.gather(known, held);
              if (!b.get().checkInputs(views, bound, err))
                raise(err);
            }
            Verdict v;
            bool ok;
            {
              nb::gil_scoped_release release;
              ok = b.get().dispute(dirA, dirB, nameA, nameB, views, timeoutMs,
                                   v, err);
            }
            if (!ok)
              raise(err);
            nb::dict d;
            d["loser"] = v.loser, d["first_divergent_index"] =
                                      v.firstDivergentIndex;
            d["node_id"] = v.nodeId, d["op"] = v.op, d["rounds"] = v.rounds;
            d["messages"] = v.messages;
            d["bytes_exchanged"] = v.bytesExchanged;
            d["executed_nodes"] = v.executedNodes;
            d["roots_agree"] = v.rootsAgree, d["sub_node"] = v.subNode;
            d["divergent_chunk"] = v.divergentChunk;
            d["num_chunks"] = v.numChunks, d["chunk_rounds"] = v.chunkRounds;
            d["supplier"] = v.supplier, d["referee_ms"] = v.refereeMs;
            d["num_nodes"] = v.numNodes, d["graph_hash"] = v.graphHash;
            d["log"] = v.log;
            nb::dict parties;
            for (const PartyVerdict &p : v.parties) {
              nb::dict pd;
              pd["lost"] = p.lost, pd["reason"] = p.reason;
              pd["root"] = p.root, pd["claim"] = p.claim;
              pd["bytes_sent"] = p.bytesSent;
              pd["bytes_received"] = p.bytesReceived;
              parties[p.name.c_str()] = pd;
            }
            d["parties"] = parties;
            return d;
          },
          "party_a"_a, "party_b"_a, "name_a"_a, "name_b"_a, "inputs"_a.none(),
          "timeout_ms"_a);
}

} // namespace

NB_MODULE(_plumb, m) {
  m.doc() = "Plumb's native module (use the plumb package).";
  m.attr("__version__") = version();
  m.attr("CONTRACT") = contract();

  defineErrors(m);
  defineFunctions(m);
  defineResult(m);
  defineBundle(m);
}
