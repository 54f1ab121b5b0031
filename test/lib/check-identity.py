#!/usr/bin/env python3
"""Graph-identity property check for one model.

Usage: check-identity.py PLUMB MODEL.onnx WORKDIR [--seeds N] [-- import flags]

For each seed, writes the variants of mutate-model.py and checks that every
same-* variant gives the base model's canonical IR text byte for byte and
its graph hash, and that every diff-* variant gives another hash. Prints one
line per check; exits 1 on any failure.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd):
    r = subprocess.run(cmd, capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plumb")
    ap.add_argument("model")
    ap.add_argument("workdir")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("flags", nargs="*")
    a = ap.parse_args()
    ok = True
    rc, base_ir, err = run([a.plumb, "import", a.model] + a.flags)
    rc2, base_hash, err2 = run([a.plumb, "hash", a.model] + a.flags)
    if rc or rc2:
        print("base model failed:", err, err2)
        return 1
    base_hash = base_hash.decode().strip().splitlines()[-1]
    print(f"base {os.path.basename(a.model)} {base_hash}")
    for seed in range(1, a.seeds + 1):
        out = os.path.join(a.workdir, f"seed{seed}")
        subprocess.run([sys.executable, os.path.join(HERE, "mutate-model.py"),
                        a.model, out, "--seed", str(seed)], check=True)
        for f in sorted(os.listdir(out)):
            path = os.path.join(out, f)
            rc, h, err = run([a.plumb, "hash", path] + a.flags)
            h = h.decode().strip().splitlines()[-1] if rc == 0 else None
            kind = f.split("-")[0]
            if kind == "same":
                rc, ir, err = run([a.plumb, "import", path] + a.flags)
                good = h == base_hash and ir == base_ir
                print(f"seed {seed} {f}: {'same hash and IR' if good else 'DIFFERENT: ' + str(h) + ' ' + err.strip()}")
            else:
                good = h is not None and h != base_hash
                print(f"seed {seed} {f}: {'different hash' if good else 'SAME OR FAILED: ' + err.strip()}")
            ok &= good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
