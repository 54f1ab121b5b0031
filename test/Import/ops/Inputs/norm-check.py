"""Checks the outputs of instancenormalization.onnxtxt / lrn.onnxtxt against
float64 references of ONNX's definitions (InstanceNormalization: population
variance per (n, c) plane; LRN: clipped channel window of
[c - floor((size-1)/2), c + ceil((size-1)/2)]). Prints each output's shape
and `ok`."""
import sys

import numpy as np

which, inp, out = sys.argv[1], sys.argv[2], sys.argv[3]


def load(i):
    return np.load(f"{inp}/input_{i}.npy").astype(np.float64)


def instancenorm(x, s, b, eps):
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    sh = (-1,) + (1,) * (x.ndim - 2)
    return s.reshape(sh) * (x - mean) / np.sqrt(var + eps) + b.reshape(sh)


def lrn(x, size, alpha=1e-4, beta=0.75, bias=1.0):
    c = x.shape[1]
    lo, hi = (size - 1) // 2, size // 2
    sq = np.zeros_like(x)
    for k in range(c):
        sq[:, k] = (x[:, max(0, k - lo):min(c, k + hi + 1)] ** 2).sum(axis=1)
    return x / (bias + alpha / size * sq) ** beta


if which == "instancenorm":
    want = [instancenorm(load(0), load(1), load(2), np.float64(np.float32(0.01))),
            instancenorm(load(3), load(4), load(5), np.float64(np.float32(1e-5))),
            instancenorm(load(6), load(4), load(5), np.float64(np.float32(1e-5)))]
else:
    x, x3 = load(0), load(1)
    want = [lrn(x, 3), lrn(x, 4, 2.0, 0.5, 2.5), lrn(x3, 7, 0.7, 1.25, 0.5),
            lrn(x, 1, 0.3)]
fail = False
for i, w in enumerate(want):
    got = np.load(f"{out}/output_{i}.npy")
    ok = got.shape == w.shape and np.allclose(got, w, rtol=1e-5, atol=1e-5)
    print(f"output {i} {got.shape}", "ok" if ok else f"MISMATCH max err {np.abs(got - w).max()}")
    fail |= not ok
sys.exit(1 if fail else 0)
