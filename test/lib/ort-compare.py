#!/usr/bin/env python3
"""Runs ONNX Runtime on a model and compares its outputs with Plumb's.

Usage: ort-compare.py MODEL.onnx INPUTS_DIR PLUMB_OUTPUT_DIR
                      [--rtol R] [--atol A] [--exact] [--reference]

INPUTS_DIR holds input_<i>.npy for the graph inputs in order (those that
are not initializers); PLUMB_OUTPUT_DIR holds `plumb run`'s output_<i>.npy.
Shapes must be equal; integers and bools exactly, floats within the
tolerances (or bit for bit with --exact, NaN payloads aside). Prints one
line per output and "ort: N outputs match", or says what differs and exits 1.
--reference compares with onnx's reference evaluator instead (for opsets
newer than onnxruntime's) and prints "reference: N outputs match".
"""
import argparse
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("inputs")
    ap.add_argument("outputs")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-6)
    ap.add_argument("--exact", action="store_true")
    ap.add_argument("--reference", action="store_true")
    a = ap.parse_args()
    m = onnx.load(a.model)
    inits = {t.name for t in m.graph.initializer}
    names = [i.name for i in m.graph.input if i.name not in inits]
    feed = {n: np.load(os.path.join(a.inputs, "input_%d.npy" % k))
            for k, n in enumerate(names)}
    if a.reference:
        from onnx.reference import ReferenceEvaluator
        want = ReferenceEvaluator(m).run(None, feed)
    else:
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        sess = ort.InferenceSession(a.model, so,
                                    providers=["CPUExecutionProvider"])
        want = sess.run(None, feed)
    ok = True
    for k, w in enumerate(want):
        got = np.load(os.path.join(a.outputs, "output_%d.npy" % k))
        if got.shape != w.shape:
            print("output %d: shape %s, onnxruntime %s" % (k, got.shape, w.shape))
            ok = False
            continue
        if w.dtype.kind != "f":
            same = np.array_equal(got.astype(np.int64), w.astype(np.int64))
            err = 0.0
        elif a.exact:
            g, r = got.astype(np.float32), w.astype(np.float32)
            same = bool(np.all((g.view(np.uint32) == r.view(np.uint32)) |
                               (np.isnan(g) & np.isnan(r))))
            err = float(np.max(np.abs(g - r), initial=0.0,
                               where=~np.isnan(r)))
        else:
            same = np.allclose(got, w, rtol=a.rtol, atol=a.atol, equal_nan=True)
            err = float(np.max(np.abs(got.astype(np.float64) - w), initial=0.0,
                               where=np.isfinite(w)))
        print("output %d: %s %s, max abs error %.3g" %
              (k, "matches" if same else "DIFFERS", list(w.shape), err))
        ok &= same
    if ok:
        print("%s: %d outputs match" % ("reference" if a.reference else "ort",
                                        len(want)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
