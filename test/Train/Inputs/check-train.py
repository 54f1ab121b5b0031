#!/usr/bin/env python3
"""Checks on `plumb train --format json` and `plumb dispute --format json`
output files for the training tests.

  falls FILE RATIO        the mean of the last 10 losses is below RATIO times
                          the mean of the first 10; prints both
  same KEY FILE...        every file has the same KEY; prints it once
  trained BUNDLE DIR DATA trained.onnx holds the last checkpoint's parameters
                          and its loss (onnxruntime, float32) on DATA is below
                          the initial model's
  show FILE KEY...        prints KEY=value for a dispute's JSON
"""
import json
import os
import sys

import numpy as np


def load(path):
    with open(path) as f:
        return json.loads(f.read())


cmd = sys.argv[1]
if cmd == "falls":
    d = load(sys.argv[2])
    ls = d["losses"]
    first, last = np.mean(ls[:10]), np.mean(ls[-10:])
    print("loss %.4f -> %.4f over %d steps" % (first, last, d["steps"]))
    assert len(ls) == d["steps"] and d["final_loss"] == ls[-1]
    assert last < float(sys.argv[3]) * first, "the loss does not fall"
    print("FALLS")
elif cmd == "same":
    key = sys.argv[2]
    vals = [load(p)[key] for p in sys.argv[3:]]
    assert all(v == vals[0] for v in vals), vals
    print("SAME %s %s" % (key, vals[0]))
elif cmd == "trained":
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper
    bundle, tdir, data = sys.argv[2:5]
    man = load(os.path.join(bundle, "manifest.json"))
    params = man["training"]["parameters"]
    log = load(os.path.join(tdir, "log.json"))
    last = log["checkpoints"][-1]
    raw = np.fromfile(os.path.join(tdir, "checkpoints", "step-%d.bin" % last), np.uint8)
    m = onnx.load(os.path.join(tdir, "trained.onnx"))
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    at = 0
    for p in params:
        n = inits[p].size * 4
        assert np.array_equal(raw[at:at + n].view(np.float32).reshape(inits[p].shape), inits[p]), p
        at += n
    x = np.load(os.path.join(data, "x.npy"))
    labels = np.load(os.path.join(data, "labels.npy"))

    def loss(path):
        s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        z = s.run(None, {"x": x})[0].astype(np.float64)
        z -= z.max(axis=1, keepdims=True)
        lp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return -lp[np.arange(len(labels)), labels].mean()
    before = loss(os.path.join(bundle, "training", "model.onnx"))
    after = loss(os.path.join(tdir, "trained.onnx"))
    print("onnxruntime loss on all data %.4f -> %.4f" % (before, after))
    assert after < before
    print("TRAINED")
elif cmd == "show":
    d = load(sys.argv[2])
    for k in sys.argv[3:]:
        print("%s=%s" % (k, d[k]))
