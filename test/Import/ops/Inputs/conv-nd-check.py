"""Checks the outputs of conv-3d.onnxtxt against a float64 Conv (ONNX's
definition: y[o] = sum x[o * stride - pad_begin + k * dilation] * w[k],
padding reads 0). Prints each output's shape and `ok`."""
import itertools
import sys

import numpy as np

inp, out = sys.argv[1], sys.argv[2]
X, W, B, V = (np.load(f"{inp}/input_{i}.npy").astype(np.float64) for i in range(4))


def conv(x, w, bias, group, strides, dil, pb, pe):
    n, cin = x.shape[:2]
    cout, cg = w.shape[:2]
    mg = cout // group
    sd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pb[j], pe[j]) for j in range(sd)])
    shape = tuple((xp.shape[2 + j] - ((w.shape[2 + j] - 1) * dil[j] + 1)) // strides[j] + 1
                  for j in range(sd))
    y = np.zeros((n, cout) + shape)
    for co in range(cout):
        g = co // mg
        for k in itertools.product(*(range(s) for s in w.shape[2:])):
            sl = tuple(slice(k[j] * dil[j], k[j] * dil[j] + (shape[j] - 1) * strides[j] + 1,
                             strides[j]) for j in range(sd))
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            y[:, co] += np.tensordot(patch, w[(co, slice(None)) + k], axes=([1], [0]))
        if bias is not None:
            y[:, co] += bias[co]
    return y


want = [
    conv(X, W, B, 2, (2, 1, 2), (1, 2, 1), (1, 0, 1), (0, 1, 2)),
    np.maximum(conv(X, V, None, 1, (1, 1, 1), (1, 1, 1), (0, 0, 0), (0, 0, 0)), 0.0),
]
fail = False
for i, w in enumerate(want):
    got = np.load(f"{out}/output_{i}.npy")
    ok = got.shape == w.shape and np.allclose(got, w, rtol=1e-5, atol=1e-5)
    print(f"output {i} {got.shape}", "ok" if ok else f"MISMATCH max err {np.abs(got - w).max()}")
    fail |= not ok
sys.exit(1 if fail else 0)
