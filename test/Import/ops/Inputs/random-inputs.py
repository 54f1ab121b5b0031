"""Writes seeded random float32 inputs for every graph input of a model
(those that are not initializers), as input_<i>.npy in DIR: standard normal
values times SCALE (default 1).

Usage: random-inputs.py MODEL.onnx DIR SEED [SCALE]"""
import os
import sys

import numpy as np
import onnx

model, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
scale = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
m = onnx.load(model)
inits = {t.name for t in m.graph.initializer}
r = np.random.RandomState(seed)
os.makedirs(out, exist_ok=True)
k = 0
for i in m.graph.input:
    if i.name in inits:
        continue
    shape = [d.dim_value for d in i.type.tensor_type.shape.dim]
    x = (r.randn(*shape) * scale).astype(np.float32)
    np.save(os.path.join(out, "input_%d.npy" % k), x)
    k += 1
