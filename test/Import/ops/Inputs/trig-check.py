"""Checks trig.onnxtxt's outputs: each equals numpy's float64 function of the
float32 input rounded once to float32, NaN exactly where numpy gives NaN and
then the canonical 0x7FC00000. Usage: trig-check.py INPUTS OUTPUTS"""
import os
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")
x = np.load(os.path.join(sys.argv[1], "input_0.npy")).astype(np.float64)
for i, fn in enumerate(["sin", "cos", "tan", "arcsin", "arccos", "arctan",
                        "sinh", "cosh", "arcsinh", "arccosh", "arctanh"]):
    got = np.load(os.path.join(sys.argv[2], "output_%d.npy" % i))
    want = getattr(np, fn)(x).astype(np.float32)
    nan = np.isnan(want)
    ok = np.array_equal(np.isnan(got), nan)
    ok &= bool((got.view(np.uint32)[nan] == 0x7FC00000).all())
    ok &= np.array_equal(got.view(np.uint32)[~nan], want.view(np.uint32)[~nan])
    bad = np.flatnonzero((got.view(np.uint32) != want.view(np.uint32)) & ~nan)
    print("%s: %s" % (fn, "correctly rounded" if ok else
                      "MISMATCH at %s" % [(x.flat[j], got.flat[j], want.flat[j]) for j in bad[:5]]))
