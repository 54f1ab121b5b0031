#!/usr/bin/env python3
"""Makes a small training model and its data for the training tests
(docs/training.md), seeded: OUT/model.onnx and OUT/data/<input>.npy.

  mlp: x [N, 8] -> Gemm 16 -> Relu -> Gemm 16 -> Tanh -> Gemm 4 (logits);
       labels = argmax of a fixed random teacher (cross_entropy)
  mse: x [N, 4] -> MatMul + Add -> Sigmoid -> MatMul + Add -> y [N, 2];
       targets = a smooth function of x (mse)

usage: make-train-data.py KIND OUT [--examples N]
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ap = argparse.ArgumentParser()
ap.add_argument("kind", choices=["mlp", "mse"])
ap.add_argument("out")
ap.add_argument("--examples", type=int, default=256)
a = ap.parse_args()
os.makedirs(os.path.join(a.out, "data"), exist_ok=True)
rng = np.random.default_rng(2026)


def w(*shape):
    fan_in = shape[-1] if len(shape) > 1 else shape[0]
    return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)


def save(graph_nodes, inputs, outputs, inits):
    g = helper.make_graph(graph_nodes, a.kind, inputs, outputs,
                          [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(a.out, "model.onnx"))


n = a.examples
if a.kind == "mlp":
    x = rng.standard_normal((n, 8)).astype(np.float32)
    teacher = rng.standard_normal((8, 4))
    labels = np.argmax(x @ teacher, axis=1).astype(np.int64)
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h1"], transB=1),
             helper.make_node("Relu", ["h1"], ["r1"]),
             helper.make_node("Gemm", ["r1", "w2", "b2"], ["h2"], transB=1),
             helper.make_node("Tanh", ["h2"], ["t2"]),
             helper.make_node("Gemm", ["t2", "w3", "b3"], ["logits"], transB=1)]
    save(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
         [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 4])],
         {"w1": w(16, 8), "b1": np.zeros(16, np.float32), "w2": w(16, 16),
          "b2": np.zeros(16, np.float32), "w3": w(4, 16),
          "b3": np.zeros(4, np.float32)})
    np.save(os.path.join(a.out, "data", "x.npy"), x)
    np.save(os.path.join(a.out, "data", "labels.npy"), labels)
else:
    x = rng.uniform(-1, 1, (n, 4)).astype(np.float32)
    y = np.stack([np.sin(2 * x[:, 0]) * x[:, 1], x[:, 2] * x[:, 3]], axis=1)
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["m1"]),
             helper.make_node("Add", ["m1", "b1"], ["a1"]),
             helper.make_node("Sigmoid", ["a1"], ["s1"]),
             helper.make_node("MatMul", ["s1", "w2"], ["m2"]),
             helper.make_node("Add", ["m2", "b2"], ["y"])]
    save(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
         [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2])],
         {"w1": w(4, 32), "b1": np.zeros(32, np.float32),
          "w2": w(32, 2), "b2": np.zeros(2, np.float32)})
    np.save(os.path.join(a.out, "data", "x.npy"), x)
    np.save(os.path.join(a.out, "data", "targets.npy"), y.astype(np.float32))
