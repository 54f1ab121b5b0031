"""Checks hardmax.onnxtxt's outputs on inputs holding NaN against numpy:
one-hot at np.argmax along each axis (numpy's argmax picks the first NaN,
the rule Plumb's Hardmax documents). Writes the inputs with `write DIR`,
checks with `check INPUTS OUTPUTS`; prints each output and `ok`."""
import os
import sys

import numpy as np


def onehot(x, axis):
    i = np.expand_dims(np.argmax(x, axis=axis), axis)
    y = np.zeros(x.shape, np.float32)
    np.put_along_axis(y, i, 1.0, axis)
    return y


if sys.argv[1] == "write":
    r = np.random.RandomState(24)
    x = (r.randn(3, 4, 5) * 2).astype(np.float32)
    x[0, 1, 3] = np.nan
    x[1, :, 2] = np.nan
    x[2, 3, 1] = np.nan
    x[2, 3, 4] = np.nan
    os.makedirs(sys.argv[2], exist_ok=True)
    np.save(os.path.join(sys.argv[2], "input_0.npy"), x)
    sys.exit(0)
x = np.load(os.path.join(sys.argv[2], "input_0.npy"))
f = np.floor(x)
want = [onehot(f, -1), onehot(f, 0), onehot(f, 1), onehot(x, -1)]
bad = False
for k, w in enumerate(want):
    got = np.load(os.path.join(sys.argv[3], "output_%d.npy" % k))
    ok = got.shape == w.shape and np.array_equal(got.view(np.uint32), w.view(np.uint32))
    print("output %d %s" % (k, "ok" if ok else "MISMATCH"))
    bad |= not ok
sys.exit(1 if bad else 0)
