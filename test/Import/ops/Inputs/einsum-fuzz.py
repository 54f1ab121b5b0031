"""Random Einsum equations against numpy (float64 reference): one model of
60 Einsum nodes (1 to 3 operands, up to 3 labels each from 'abcde' so that
labels repeat within an operand, explicit or implicit output, '...' with
size-1 broadcasting in some), run interpreted and compiled with Plumb.

Usage: einsum-fuzz.py PLUMB SEED WORKDIR
Prints 'N equations, M ellipsis, 0 mismatches' and 'compiled: same bits'."""
import os
import random
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

plumb, seed, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
nr = np.random.RandomState(seed)
os.makedirs(os.path.join(work, "in"), exist_ok=True)
nodes, ins, outs, want, eqs = [], [], [], [], []
k = 0
while len(nodes) < 60:
    size = {c: rng.choice([1, 2, 3, 4]) for c in "abcde"}
    terms = ["".join(rng.choice("abcde") for _ in range(rng.randint(0, 3)))
             for _ in range(rng.choice([1, 2, 2, 3]))]
    shapes = [[size[c] for c in t] for t in terms]
    out = None
    if rng.random() < 0.5:
        out = "".join(c for c in sorted(set("".join(terms)))
                      if rng.random() < 0.5)
    if rng.random() < 0.4:
        es = [rng.choice([2, 3]) for _ in range(rng.randint(1, 2))]
        terms = ["..." + t for t in terms]
        shapes = [[e if rng.random() < 0.7 else 1 for e in es] + s
                  for s in shapes]
        out = None if out is None else "..." + out
    eq = ",".join(terms) + ("" if out is None else "->" + out)
    xs = [np.asarray(nr.randn(*s), dtype=np.float32) for s in shapes]
    try:
        w = np.einsum(eq, *[x.astype(np.float64) for x in xs])
    except ValueError:
        continue
    names = []
    for x in xs:
        names.append("x%d" % k)
        ins.append(helper.make_tensor_value_info(names[-1], TensorProto.FLOAT,
                                                 x.shape))
        np.save(os.path.join(work, "in", "input_%d.npy" % k), x)
        k += 1
    y = "y%d" % len(nodes)
    nodes.append(helper.make_node("Einsum", names, [y], equation=eq))
    outs.append(helper.make_tensor_value_info(y, TensorProto.FLOAT, np.shape(w)))
    want.append(w)
    eqs.append(eq)
model = helper.make_model(helper.make_graph(nodes, "fuzz", ins, outs),
                          opset_imports=[helper.make_opsetid("", 12)],
                          ir_version=8)
path = os.path.join(work, "fuzz.onnx")
onnx.save(model, path)


def run(what, out):
    r = subprocess.run([plumb, "run", what, "--inputs-dir",
                        os.path.join(work, "in"), "--output-dir", out] +
                       (["--interpret"] if what == path else []),
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("plumb run failed:", r.stderr.strip())
        sys.exit(1)
    return r.stdout


interp = run(path, os.path.join(work, "i"))
bad = 0
for i, (eq, w) in enumerate(zip(eqs, want)):
    got = np.load(os.path.join(work, "i", "output_%d.npy" % i))
    if got.shape != np.shape(w) or not np.allclose(got, w, rtol=1e-5,
                                                   atol=1e-5):
        print("MISMATCH", eq, got.shape, np.shape(w))
        bad += 1
print("%d equations, %d ellipsis, %d mismatches" %
      (len(eqs), sum("..." in e for e in eqs), bad))
bundle = os.path.join(work, "b.plumb")
subprocess.run([plumb, "compile", path, "-o", bundle, "--target", "cpu",
                "--quiet"], check=True, stdout=subprocess.DEVNULL)
same = run(bundle, os.path.join(work, "c")) == interp
print("compiled:", "same bits" if same else "DIFFERENT")
sys.exit(1 if bad or not same else 0)
