"""Writes seeded random inputs for every graph input of a model (those that
are not initializers) as input_<i>.npy in DIR: float32 standard normal
values; bool masks true with probability 0.7 and always true in column 0 (no
row is masked out entirely); int64 inputs uniform in [LO, HI] as given by
NAME=LO:HI arguments (position ids, sequence lengths).

Usage: attention-inputs.py MODEL.onnx DIR SEED [NAME=LO:HI ...]"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto

model, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
ranges = {}
for arg in sys.argv[4:]:
    name, lohi = arg.split("=")
    lo, hi = lohi.split(":")
    ranges[name] = (int(lo), int(hi))
m = onnx.load(model)
inits = {t.name for t in m.graph.initializer}
r = np.random.RandomState(seed)
os.makedirs(out, exist_ok=True)
k = 0
for i in m.graph.input:
    if i.name in inits:
        continue
    tt = i.type.tensor_type
    shape = [d.dim_value for d in tt.shape.dim]
    if tt.elem_type == TensorProto.BOOL:
        x = r.uniform(size=shape) < 0.7
        x[..., 0] = True
    elif tt.elem_type == TensorProto.INT64:
        lo, hi = ranges[i.name]
        x = r.randint(lo, hi + 1, size=shape).astype(np.int64)
    else:
        x = r.randn(*shape).astype(np.float32)
    np.save(os.path.join(out, "input_%d.npy" % k), x)
    k += 1
