"""Checks the outputs of qlinearmatmul-axes.onnxtxt against QLinearMatMul
computed here with numpy in the float32 sequence docs/determinism.md gives
(ONNX Runtime's): acc = exact integer matmul of (a - a_zero_point) and
(b - b_zero_point); s = (a_scale * b_scale) / y_scale in float32;
y = clip(round_half_even(float32(acc) * s), qmin - y_zp, qmax - y_zp) + y_zp.
Per-row a and per-column b and y parameters broadcast as ONNX says.

Usage: qlinearmatmul-check.py MODEL.onnx INPUTS_DIR OUTPUTS_DIR"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

model_path, inp, out = sys.argv[1:4]
g = onnx.load(model_path).graph
vals = {t.name: numpy_helper.to_array(t) for t in g.initializer}
for k, name in enumerate(i.name for i in g.input if i.name not in vals):
    vals[name] = np.load(f"{inp}/input_{k}.npy")
RANGES = {np.dtype(np.uint8): (0, 255), np.dtype(np.int8): (-128, 127)}


def row(v, x):
    return v.reshape(-1, 1) if v.ndim == 1 and v.size > 1 and v.size == x.shape[-2] else v


for node in g.node:
    a = {at.name: helper.get_attribute_value(at) for at in node.attribute}
    ins = [vals[i] for i in node.input]
    if node.op_type == "QuantizeLinear":
        lo, hi = RANGES[ins[2].dtype]
        vals[node.output[0]] = np.clip(np.round(ins[0].astype(np.float64) / ins[1]) + ins[2], lo, hi).astype(ins[2].dtype)
    elif node.op_type == "QLinearMatMul":
        A, As, Az, B, Bs, Bz, Ys, Yz = ins
        acc = np.matmul(A.astype(np.int64) - row(Az, A), B.astype(np.int64) - Bz)
        s = (row(As, A).astype(np.float32) * Bs.astype(np.float32)) / Ys.astype(np.float32)
        v = acc.astype(np.float32) * s
        lo, hi = RANGES[Yz.dtype]
        v = np.minimum(np.maximum(v, np.float32(lo) - Yz.astype(np.float32)), np.float32(hi) - Yz.astype(np.float32))
        assert v.dtype == np.float32
        vals[node.output[0]] = (np.rint(v).astype(np.int64) + Yz).astype(Yz.dtype)
    elif node.op_type == "Cast":
        vals[node.output[0]] = ins[0].astype(np.int32)
    else:
        sys.exit(f"qlinearmatmul-check.py: unexpected {node.op_type}")

fail = False
for k, o in enumerate(g.output):
    want, got = vals[o.name], np.load(f"{out}/output_{k}.npy")
    ok = got.shape == want.shape and np.array_equal(got.astype(np.int64), want.astype(np.int64))
    print(f"output {k} {got.shape}", "ok" if ok else "MISMATCH")
    fail |= not ok
sys.exit(1 if fail else 0)
