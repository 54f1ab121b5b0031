"""Checks a model's DFT / STFT / MelWeightMatrix outputs against onnx's
reference evaluator run in float64 (the float32 graph inputs cast to
float64, so its numpy FFTs are float64 ones): every float output within
2^-20 of its largest reference magnitude, and the outputs named by --exact
(MelWeightMatrix constants) equal to the float32 reference bit for bit.

Usage: signal-check.py MODEL INPUTS OUTPUTS [--exact I,J,...]"""
import argparse
import os

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

ap = argparse.ArgumentParser()
ap.add_argument("model")
ap.add_argument("inputs")
ap.add_argument("outputs")
ap.add_argument("--exact", default="")
a = ap.parse_args()
exact = {int(i) for i in a.exact.split(",") if i}
m = onnx.load(a.model)
inits = {t.name for t in m.graph.initializer}
names = [i.name for i in m.graph.input if i.name not in inits]
feed = {}
for k, n in enumerate(names):
    v = np.load(os.path.join(a.inputs, "input_%d.npy" % k))
    feed[n] = v
wide = {n: (v.astype(np.float64) if v.dtype == np.float32 else v)
        for n, v in feed.items()}
ref64 = ReferenceEvaluator(m).run(None, wide)
ref32 = ReferenceEvaluator(m).run(None, feed) if exact else None
bad = 0
for k, want in enumerate(ref64):
    got = np.load(os.path.join(a.outputs, "output_%d.npy" % k))
    if got.shape != want.shape:
        print("output %d: shape %s, reference %s" % (k, got.shape, want.shape))
        bad += 1
        continue
    if k in exact:
        w = ref32[k].astype(np.float32)
        same = np.array_equal(got.view(np.uint32), w.view(np.uint32))
        print("output %d: %s" % (k, "bit-exact" if same else "MISMATCH"))
        bad += not same
        continue
    scale = float(np.max(np.abs(want), initial=0.0))
    err = float(np.max(np.abs(got.astype(np.float64) - want), initial=0.0))
    ok = err <= scale * 2.0 ** -20
    print("output %d: %s (max error %.3g of %.3g)" %
          (k, "within 2^-20" if ok else "MISMATCH", err, scale))
    bad += not ok
print("signal-check: %d of %d outputs match" % (len(ref64) - bad, len(ref64)))
