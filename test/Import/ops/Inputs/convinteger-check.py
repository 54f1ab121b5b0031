"""Checks the outputs of a convinteger*.onnxtxt model against ONNX's
definition of ConvInteger, computed here in int64 with numpy: the input is
padded with x_zero_point, y[n, m, o] = sum over the window and the group's
channels of (x - x_zero_point) * (w[m] - w_zero_point[m]).

Usage: convinteger-check.py MODEL.onnx INPUTS_DIR OUTPUTS_DIR

The model's nodes are evaluated in order: QuantizeLinear (round half to
even, saturate) and ConvInteger; initializers give the constants. Prints each
graph output's shape and `ok`, or the largest difference; exits 1 on any
difference (integers must be equal)."""
import itertools
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

model_path, inp, out = sys.argv[1:4]
m = onnx.load(model_path)
g = m.graph
vals = {t.name: numpy_helper.to_array(t) for t in g.initializer}
inputs = [i.name for i in g.input if i.name not in vals]
for k, name in enumerate(inputs):
    vals[name] = np.load(f"{inp}/input_{k}.npy")
RANGES = {np.dtype(np.uint8): (0, 255), np.dtype(np.int8): (-128, 127)}


def quantize(x, s, z):
    lo, hi = RANGES[z.dtype]
    q = np.round(x.astype(np.float64) / s) + z.astype(np.int64)
    return np.clip(q, lo, hi).astype(np.int64)


def conv_integer(x, w, xz, wz, attrs):
    x, w = x.astype(np.int64), w.astype(np.int64)
    sd = x.ndim - 2
    kernel = w.shape[2:]
    group = attrs.get("group", 1)
    strides = attrs.get("strides", [1] * sd)
    dil = attrs.get("dilations", [1] * sd)
    pads = list(attrs.get("pads", [0] * (2 * sd)))
    auto = attrs.get("auto_pad", b"NOTSET").decode()
    if auto == "VALID":
        pads = [0] * (2 * sd)
    elif auto in ("SAME_UPPER", "SAME_LOWER"):
        for j in range(sd):
            o = -(-x.shape[2 + j] // strides[j])
            total = max(0, (o - 1) * strides[j] + (kernel[j] - 1) * dil[j] + 1 - x.shape[2 + j])
            small, big = total // 2, total - total // 2
            pads[j], pads[sd + j] = (small, big) if auto == "SAME_UPPER" else (big, small)
    xz = 0 if xz is None else int(xz)
    wz = np.zeros(w.shape[0], np.int64) if wz is None else np.broadcast_to(wz.astype(np.int64).reshape(-1), (w.shape[0],))
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[j], pads[sd + j]) for j in range(sd)], constant_values=xz)
    shape = tuple((xp.shape[2 + j] - ((kernel[j] - 1) * dil[j] + 1)) // strides[j] + 1 for j in range(sd))
    n, cout, cg = x.shape[0], w.shape[0], w.shape[1]
    mg = cout // group
    y = np.zeros((n, cout) + shape, np.int64)
    for co in range(cout):
        gi = co // mg
        for k in itertools.product(*(range(s) for s in kernel)):
            sl = tuple(slice(k[j] * dil[j], k[j] * dil[j] + (shape[j] - 1) * strides[j] + 1, strides[j])
                       for j in range(sd))
            patch = xp[(slice(None), slice(gi * cg, (gi + 1) * cg)) + sl] - xz
            y[:, co] += np.tensordot(patch, w[(co, slice(None)) + k] - wz[co], axes=([1], [0]))
    return y


for node in g.node:
    a = {at.name: helper.get_attribute_value(at) for at in node.attribute}
    ins = [vals[i] if i else None for i in node.input] + [None] * 4
    if node.op_type == "QuantizeLinear":
        vals[node.output[0]] = quantize(ins[0], ins[1], ins[2])
    elif node.op_type == "ConvInteger":
        vals[node.output[0]] = conv_integer(ins[0], ins[1], ins[2], ins[3], a)
    else:
        sys.exit(f"convinteger-check.py: unexpected {node.op_type}")

fail = False
for k, o in enumerate(g.output):
    want = vals[o.name]
    got = np.load(f"{out}/output_{k}.npy")
    ok = got.dtype == np.int32 and got.shape == want.shape and np.array_equal(got.astype(np.int64), want)
    err = np.abs(got.astype(np.int64) - want).max() if got.shape == want.shape else "shape"
    print(f"output {k} {got.shape}", "ok" if ok else f"MISMATCH {got.dtype} max diff {err}")
    fail |= not ok
sys.exit(1 if fail else 0)
