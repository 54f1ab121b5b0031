# ===- bench/models/zoo_common.py - Shared helpers of the model zoo ------=== #
#
# Part of Plumb. What make-models.py, fetch-pypi-models.py and
# check-models.py share: the folder layout of one model, the manifest, the
# ONNX Runtime reference run and the op-type census of an ONNX file.
#
# One model is a folder OUT/<name>/ with
#   model.onnx                 the model (weights inside, no external data)
#   inputs/input_<i>.npy       input i, in the graph's input order (the
#                              layout `plumb run --inputs-dir` reads)
#   reference/output_<i>.npy   ONNX Runtime's outputs, one intra-op thread,
#                              default graph optimisations
#   meta.json                  the manifest entry, plus input/output names
# and OUT/manifest.jsonl holds one JSON line per model tried, including those
# whose export or fetch failed (status != "ok", with the error).
#
# ===----------------------------------------------------------------------=== #
import json
import os
import re
import time

import numpy as np

MANIFEST = "manifest.jsonl"


def short_error(text, limit=400):
    """The first meaningful line(s) of an error, for tables."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(text)).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    # Python tracebacks end with the exception line; tool output starts with it.
    if lines[0].startswith("Traceback"):
        lines = lines[-1:]
    out = lines[0]
    # torch.onnx wraps the real exception in a generic preamble: name it.
    if "## Exception summary" in lines:
        i = lines.index("## Exception summary")
        if i + 1 < len(lines):
            out = out.split(".")[0] + ": " + re.sub(
                r"^<class '([^']*)'>", r"\1", lines[i + 1])
    elif out.startswith("Failed to "):
        for ln in lines[1:]:
            if re.match(r"^[A-Za-z_.]*(Error|Exception|Unsupported)\b.*:", ln):
                out = out.split(".")[0] + ": " + ln
                break
    return out if len(out) <= limit else out[:limit - 3] + "..."


def model_header(path):
    """(ir_version, default-domain opset, {domain: version}, op census)."""
    import onnx
    m = onnx.load(path, load_external_data=False)
    opsets = {(o.domain or "ai.onnx"): o.version for o in m.opset_import}
    return m.ir_version, opsets.get("ai.onnx"), opsets, op_census(m)


def op_census(model):
    """Op types used, with counts, including inside subgraphs and local
    functions ("domain.Op" for non-default domains)."""
    counts = {}

    def walk(graph):
        for n in graph.node:
            key = n.op_type if n.domain in ("", "ai.onnx") else \
                n.domain + "." + n.op_type
            counts[key] = counts.get(key, 0) + 1
            for a in n.attribute:
                if a.g is not None and a.g.node:
                    walk(a.g)
                for g in a.graphs:
                    walk(g)
    walk(model.graph)
    for f in model.functions:
        for n in f.node:
            key = n.op_type if n.domain in ("", "ai.onnx") else \
                n.domain + "." + n.op_type
            counts["(function) " + key] = counts.get("(function) " + key, 0) + 1
    return dict(sorted(counts.items()))


def graph_inputs(model):
    """The graph inputs that are not initializers: [(name, elem_type, dims)]
    with dims as ints or symbol strings (None when unnamed)."""
    inits = {i.name for i in model.graph.initializer}
    out = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        dims = []
        for d in tt.shape.dim:
            if d.HasField("dim_value"):
                dims.append(d.dim_value)
            elif d.HasField("dim_param"):
                dims.append(d.dim_param)
            else:
                dims.append(None)
        out.append((vi.name, tt.elem_type, dims))
    return out


def ort_session(path, threads=1):
    import onnxruntime as ort
    ort.set_default_logger_severity(3)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def write_model_dir(out_dir, name, onnx_path, feeds, entry):
    """Runs ORT on `feeds` (a list of (name, array) in graph input order),
    writes inputs/, reference/ and meta.json beside `onnx_path`, and returns
    the completed entry (status "ok" or "ort-failed")."""
    d = os.path.join(out_dir, name)
    os.makedirs(os.path.join(d, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(d, "reference"), exist_ok=True)
    for i, (_, arr) in enumerate(feeds):
        np.save(os.path.join(d, "inputs", "input_%d.npy" % i), arr)
    ir, opset, opsets, census = model_header(onnx_path)
    entry.update({
        "name": name, "ir_version": ir, "opset": opset,
        "opsets": opsets, "ops": census,
        "inputs": [{"name": n, "dtype": str(a.dtype), "shape": list(a.shape)}
                   for n, a in feeds],
        "size_bytes": os.path.getsize(onnx_path),
    })
    try:
        t0 = time.perf_counter()
        sess = ort_session(onnx_path, 1)
        names = [i.name for i in sess.get_inputs()]
        if names != [n for n, _ in feeds]:
            raise RuntimeError("ORT's inputs %s differ from the feeds %s" %
                               (names, [n for n, _ in feeds]))
        outs = sess.run(None, dict(feeds))
        entry["outputs"] = [
            {"name": o.name, "dtype": str(np.asarray(v).dtype),
             "shape": list(np.asarray(v).shape)}
            for o, v in zip(sess.get_outputs(), outs)]
        for i, v in enumerate(outs):
            np.save(os.path.join(d, "reference", "output_%d.npy" % i),
                    np.asarray(v))
        entry["ort_s"] = round(time.perf_counter() - t0, 3)
        entry["status"] = "ok"
    except Exception as e:  # noqa: BLE001 - recorded, not hidden
        entry["status"] = "ort-failed"
        entry["error"] = short_error(e)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(entry, f, indent=1)
        f.write("\n")
    return entry


def update_manifest(out_dir, entries):
    """Merges `entries` into OUT/manifest.jsonl (by name) and rewrites it
    sorted by name."""
    path = os.path.join(out_dir, MANIFEST)
    have = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.strip():
                    e = json.loads(line)
                    have[e["name"]] = e
    for e in entries:
        have[e["name"]] = e
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for k in sorted(have):
            f.write(json.dumps(have[k], sort_keys=True) + "\n")
    os.replace(tmp, path)


def read_manifest(out_dir):
    path = os.path.join(out_dir, MANIFEST)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def manifest_tsv(entries):
    """The committed, human-readable form of a manifest."""
    rows = ["name\tsource\texporter\tstatus\topset\tir_version\tinputs\terror"]
    for e in sorted(entries, key=lambda e: e["name"]):
        shapes = " ".join("%s:%s[%s]" % (i["name"], i["dtype"],
                                         "x".join(str(d) for d in i["shape"]))
                          for i in e.get("inputs", []))
        rows.append("\t".join(str(x) for x in (
            e["name"], e.get("source", ""), e.get("exporter", ""),
            e.get("status", ""), e.get("opset", ""), e.get("ir_version", ""),
            shapes, e.get("error", "").replace("\t", " "))))
    return "\n".join(rows) + "\n"
