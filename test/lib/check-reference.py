#!/usr/bin/env python3
"""Runs `plumb run` on an ONNX test_data_set folder and compares every output
with the reference output_<i>.pb within a tolerance.

Usage: check-reference.py PLUMB MODEL.onnx DATASET_DIR [--rtol R] [--atol A]
                          [--threads N] [-- extra plumb run args...]
Prints one line per output with the max abs/rel error; exits 1 on mismatch.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plumb")
    ap.add_argument("model")
    ap.add_argument("dataset")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as out:
        cmd = [a.plumb, "run", a.model, "--inputs-dir", a.dataset,
               "--output-dir", out, "--threads", str(a.threads)] + a.extra
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print("plumb run failed:", r.stderr.strip())
            return 1
        refs = sorted(glob.glob(os.path.join(a.dataset, "output_*.pb")),
                      key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
        ok = True
        for i, ref_path in enumerate(refs):
            ref = numpy_helper.to_array(onnx.load_tensor(ref_path))
            got = np.load(os.path.join(out, f"output_{i}.npy"))
            if ref.shape != got.shape:
                print(f"output {i}: shape {got.shape} != reference {ref.shape}")
                ok = False
                continue
            if ref.dtype.kind in "iub":
                same = np.array_equal(ref, got)
                print(f"output {i}: {'equal' if same else 'DIFFERENT'} ({ref.dtype})")
                ok &= same
                continue
            err = np.abs(got.astype(np.float64) - ref.astype(np.float64))
            rel = err / np.maximum(np.abs(ref.astype(np.float64)), 1e-30)
            close = np.allclose(got, ref, rtol=a.rtol, atol=a.atol)
            print(f"output {i}: shape {list(ref.shape)} max_abs_err={err.max():.3g} "
                  f"max_rel_err={rel.max():.3g} {'ok' if close else 'MISMATCH'}"
                  f" (rtol={a.rtol}, atol={a.atol})")
            ok &= bool(close)
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
