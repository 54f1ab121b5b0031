"""Checks the outputs of convtranspose-3d.onnxtxt against a float64 scatter
ConvTranspose: y[o] += x[i] * w[k] at o = i * stride - pad_begin + k *
dilation (ONNX's definition). Prints each output's shape and `ok`."""
import itertools
import sys

import numpy as np

inp, out = sys.argv[1], sys.argv[2]
X, W, B, V = (np.load(f"{inp}/input_{i}.npy").astype(np.float64) for i in range(4))


def conv_transpose(x, w, bias, group, strides, dil, pb, shape):
    n, cin = x.shape[:2]
    cg, mg = cin // group, w.shape[1]
    y = np.zeros(shape)
    if bias is not None:
        y += bias.reshape((1, -1) + (1,) * (len(shape) - 2))
    for c in range(cin):
        g = c // cg
        for i in itertools.product(*(range(s) for s in x.shape[2:])):
            for k in itertools.product(*(range(s) for s in w.shape[2:])):
                o = tuple(i[j] * strides[j] - pb[j] + k[j] * dil[j] for j in range(len(i)))
                if all(0 <= o[j] < shape[2 + j] for j in range(len(o))):
                    y[(slice(None), slice(g * mg, (g + 1) * mg)) + o] += (
                        x[(slice(None), c) + i][:, None] * w[(c, slice(None)) + k][None, :])
    return y


want = [
    conv_transpose(X, W, B, 2, (2, 1, 2), (1, 2, 1), (1, 0, 1), (2, 6, 7, 5, 9)),
    conv_transpose(X, V, None, 1, (1, 1, 1), (1, 1, 1), (0, 0, 0), (2, 2, 4, 5, 6)),
]
fail = False
for i, w in enumerate(want):
    got = np.load(f"{out}/output_{i}.npy")
    ok = got.shape == w.shape and np.allclose(got, w, rtol=1e-5, atol=1e-5)
    print(f"output {i} {got.shape}", "ok" if ok else f"MISMATCH max err {np.abs(got - w).max()}")
    fail |= not ok
sys.exit(1 if fail else 0)
