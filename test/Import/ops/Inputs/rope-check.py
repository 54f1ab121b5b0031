"""Checks rotaryembedding.onnxtxt's variant with caches longer than the
rotated dimension / 2 (ONNX's function body slices them to r / 2; onnx's
reference and onnxruntime take only caches of exactly that width): every
output must be what onnx's reference computes on the caches sliced to
r / 2, within rtol 1e-5 / atol 1e-6. Prints each output's shape and `ok`.

Usage: rope-check.py INPUTS_DIR PLUMB_OUTPUT_DIR"""
import sys

import numpy as np
from onnx.reference.ops.op_rotary_embedding import rotary_embedding

inp, out = sys.argv[1], sys.argv[2]
x, c, s, p, x3, c2, s2, c3, s3 = (np.load(f"{inp}/input_{i}.npy")
                                  for i in range(9))
want = [rotary_embedding(x, c, s, p),
        rotary_embedding(x3, c2[:, :2], s2[:, :2], p, interleaved=1,
                         rotary_embedding_dim=4, num_heads=2),
        rotary_embedding(x, c3, s3, interleaved=1)]
fail = False
for i, w in enumerate(want):
    got = np.load(f"{out}/output_{i}.npy")
    ok = got.shape == w.shape and np.allclose(got, w, rtol=1e-5, atol=1e-6)
    print(f"output {i} {got.shape}", "ok" if ok else "MISMATCH")
    fail |= not ok
sys.exit(1 if fail else 0)
