#!/usr/bin/env python3
"""Checks every gradient rule of `plumb compile --train` against float64
central finite differences (docs/training.md).

Each case is a one-op ONNX model whose inputs are trainable initializers;
loss = ReduceSum(op(...) * R) with R a fixed random initializer (--frozen R).
The step program is compiled with sgd:lr=1 and run interpreted once, so the
gradient is p - p' (exact to float32 rounding of p'). The reference is the
same loss in float64 numpy, differentiated by central differences.

usage: gradcheck.py PLUMB WORKDIR
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

PLUMB, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
rng = np.random.default_rng(17)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def case(name, op, params, ref, attrs=None, out_shape=None, consts=None,
         loss=None):
    """params: dict name -> array (trainable); consts: frozen inputs; loss:
    (--loss, its input name, its value, the float64 loss of y)."""
    return dict(name=name, op=op, params=params, ref=ref, attrs=attrs or {},
                consts=consts or {}, out_shape=out_shape, loss=loss)


LABELS = np.array([2, 0, 4, 1], dtype=np.int64)
TARGETS = rng.uniform(-1, 1, (4, 5)).astype(np.float32)


def xent(y):
    lp = np.log(softmax(y, 1))
    return -lp[np.arange(4), LABELS].mean()


def mse(y):
    return ((y - TARGETS.astype(np.float64)) ** 2).mean()


def r(*shape, lo=-1.5, hi=1.5):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


CASES = [
    case("add-broadcast", "Add", {"a": r(3, 4), "b": r(4)},
         lambda a, b: a + b),
    case("sub-broadcast", "Sub", {"a": r(3, 1), "b": r(1, 4)},
         lambda a, b: a - b),
    case("mul-broadcast", "Mul", {"a": r(2, 3, 4), "b": r(3, 1)},
         lambda a, b: a * b),
    case("div", "Div", {"a": r(3, 4), "b": r(3, 4, lo=0.5, hi=2.0)},
         lambda a, b: a / b),
    case("neg", "Neg", {"a": r(5)}, lambda a: -a),
    case("relu", "Relu", {"a": r(4, 5)}, lambda a: np.maximum(a, 0)),
    case("tanh", "Tanh", {"a": r(4, 5)}, np.tanh),
    case("sigmoid", "Sigmoid", {"a": r(4, 5)}, lambda a: 1 / (1 + np.exp(-a))),
    case("exp", "Exp", {"a": r(4, 5)}, np.exp),
    case("log", "Log", {"a": r(4, 5, lo=0.3, hi=3.0)}, np.log),
    case("sqrt", "Sqrt", {"a": r(4, 5, lo=0.3, hi=3.0)}, np.sqrt),
    case("gemm", "Gemm", {"a": r(3, 4), "b": r(5, 4), "c": r(5)},
         lambda a, b, c: 0.5 * a @ b.T + 2.0 * c,
         attrs=dict(alpha=0.5, beta=2.0, transB=1)),
    case("gemm-transA", "Gemm", {"a": r(4, 3), "b": r(4, 5), "c": r(3, 1)},
         lambda a, b, c: a.T @ b + c, attrs=dict(transA=1)),
    case("gemm-both", "Gemm", {"a": r(4, 3), "b": r(5, 4)},
         lambda a, b: a.T @ b.T, attrs=dict(transA=1, transB=1)),
    case("matmul", "MatMul", {"a": r(3, 4), "b": r(4, 5)}, lambda a, b: a @ b),
    case("matmul-3d", "MatMul", {"a": r(2, 3, 4), "b": r(4, 5)},
         lambda a, b: a @ b),
    case("softmax", "Softmax", {"a": r(3, 6)}, lambda a: softmax(a, 1),
         attrs=dict(axis=1)),
    case("log-softmax", "LogSoftmax", {"a": r(3, 6)},
         lambda a: np.log(softmax(a, 1)), attrs=dict(axis=1)),
    case("reduce-sum", "ReduceSum", {"a": r(3, 4, 5)},
         lambda a: a.sum(axis=1, keepdims=True), consts={"axes": np.array([1])}),
    case("reduce-mean", "ReduceMean", {"a": r(3, 4, 5)},
         lambda a: a.mean(axis=(0, 2)), attrs=dict(axes=[0, 2], keepdims=0)),
    case("reshape", "Reshape", {"a": r(3, 4)}, lambda a: a.reshape(2, 6),
         consts={"shape": np.array([2, 6])}),
    case("flatten", "Flatten", {"a": r(2, 3, 4)}, lambda a: a.reshape(2, 12),
         attrs=dict(axis=1)),
    case("transpose", "Transpose", {"a": r(2, 3, 4)},
         lambda a: a.transpose(2, 0, 1), attrs=dict(perm=[2, 0, 1])),
    # The losses, on y = a * s (s a frozen all-ones initializer).
    case("loss-cross-entropy", "Mul", {"a": r(4, 5, lo=-3, hi=3)},
         lambda a: a, consts={"s": None},
         loss=("cross_entropy", "labels", LABELS, xent)),
    case("loss-mse", "Mul", {"a": r(4, 5)}, lambda a: a, consts={"s": None},
         loss=("mse", "targets", TARGETS, mse)),
]


def build(c, path):
    params = c["params"]
    args = [p.astype(np.float64) for p in params.values()]
    y = c["ref"](*args)
    R = r(*y.shape)
    inits = [numpy_helper.from_array(v, k) for k, v in params.items()]
    for k, v in c["consts"].items():
        v = np.ones(y.shape, np.float32) if v is None else v.astype(np.int64)
        inits.append(numpy_helper.from_array(v, k))
    inputs = list(params) + list(c["consts"])
    nodes = [helper.make_node(c["op"], inputs, ["y"], **c["attrs"])]
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y.shape))
    if not c["loss"]:
        inits.append(numpy_helper.from_array(R, "R"))
        nodes += [helper.make_node("Mul", ["y", "R"], ["p"]),
                  helper.make_node("ReduceSum", ["p"], ["loss"], keepdims=0)]
        out = helper.make_tensor_value_info("loss", TensorProto.FLOAT, [])
    g = helper.make_graph(nodes, c["name"], [], [out], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)
    return R.astype(np.float64)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))


def check(c):
    d = os.path.join(WORK, c["name"])
    os.makedirs(d, exist_ok=True)
    model = os.path.join(d, "m.onnx")
    R = build(c, model)
    bundle = os.path.join(d, "m.plumb")
    loss = c["loss"]
    frozen = ["--frozen", "s"] if loss else ["--frozen", "R"]
    run([PLUMB, "compile", model, "--train", "--loss",
         loss[0] if loss else "output", "--optimizer", "sgd:lr=1"] + frozen +
        ["--target", "cuda", "--quiet", "-o", bundle])
    names = list(c["params"])
    cmd = [PLUMB, "run", bundle, "--interpret", "--output-dir", d]
    if loss:
        np.save(os.path.join(d, loss[1] + ".npy"), loss[2])
        cmd += ["--input", "%s=%s" % (loss[1], os.path.join(d, loss[1] + ".npy"))]
    for k in names:
        np.save(os.path.join(d, k + ".npy"), c["params"][k])
        cmd += ["--input", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
    np.save(os.path.join(d, "step.npy"), np.array(1, dtype=np.int64))
    cmd += ["--input", "step=" + os.path.join(d, "step.npy")]
    run(cmd)
    worst = 0.0
    for i, k in enumerate(names):
        new = np.load(os.path.join(d, "output_%d.npy" % i)).astype(np.float64)
        got = c["params"][k].astype(np.float64) - new
        base = [c["params"][n].astype(np.float64) for n in names]
        fd = np.zeros_like(got)
        h = 1e-6
        for idx in np.ndindex(*got.shape):
            up = [b.copy() for b in base]
            dn = [b.copy() for b in base]
            up[i][idx] += h
            dn[i][idx] -= h
            f = loss[3] if loss else (lambda y: (y * R).sum())
            fd[idx] = (f(c["ref"](*up)) - f(c["ref"](*dn))) / (2 * h)
        err = np.abs(got - fd) / (np.abs(fd) + 1e-2)
        worst = max(worst, float(err.max()))
    ok = worst < 2e-4
    print("%s %s max relative error %.2e" % ("PASS" if ok else "FAIL", c["name"], worst))
    return ok


failed = [c["name"] for c in CASES if not check(c)]
print("%d of %d gradient rules match float64 finite differences"
      % (len(CASES) - len(failed), len(CASES)))
sys.exit(1 if failed else 0)
