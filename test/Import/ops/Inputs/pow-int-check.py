"""Checks the outputs of pow-int-base.onnxtxt against Plumb's integer Pow,
computed with Python integers: exact power wrapped to the width, negative
exponents 1 / +-1 / 0, and int ^ float through f32 and plumb.cast (truncate,
NaN -> 0, saturate). Prints each output and `ok`, or exits 1."""
import sys

import numpy as np

inp, out = sys.argv[1], sys.argv[2]
A, B, C, D, F = (np.load(f"{inp}/input_{i}.npy") for i in range(5))


def wrap(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def ipow(x, e, bits):
    x, e = int(x), int(e)
    if e < 0:
        return 1 if x == 1 else (-1 if e % 2 else 1) if x == -1 else 0
    return wrap(pow(x, e, 1 << bits), bits)


def fcast(v, bits):
    if np.isnan(v):
        return 0
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if v >= 2.0 ** (bits - 1):
        return hi
    if v < -(2.0 ** (bits - 1)):
        return lo
    return int(v)


with np.errstate(all="ignore"):
    want = {
        "Z1": [ipow(x, e, 32) for x, e in zip(A, B)],
        "Z2": [ipow(x, e, 64) for x, e in zip(C, D)],
        # f32 pow of small exact cases: numpy's float32 power is exact here.
        "Z3": [fcast(np.power(np.float32(x), e), 32) for x, e in zip(A, F)],
        "Z4": [fcast(np.power(np.float32(x), e), 64) for x, e in zip(C, F)],
        "Z5": [wrap(ipow(x, e, 64), 32) for x, e in zip(A, D)],
        "Z6": [ipow(x, e, 64) for x, e in zip(C, B)],
    }
fail = False
for i, (name, w) in enumerate(want.items()):
    got = np.load(f"{out}/output_{i}.npy")
    ok = got.tolist() == w
    print(name, got.dtype, w, "ok" if ok else f"MISMATCH got {got.tolist()}")
    fail |= not ok
sys.exit(1 if fail else 0)
