#!/usr/bin/env python3
"""Models and data folders for test/Train/train-errors.test, in OUT:
fixed.onnx (x [4, 3] fixed batch, one weight), conv.onnx (a Conv on the
loss's path), rank3.onnx (rank-3 output), unused.onnx (a weight the output
does not use), mlp.mlir (not ONNX), badshape/, few/, uneven/, other/."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]


def save(name, nodes, ins, outs, inits):
    g = helper.make_graph(nodes, name, ins, outs,
                          [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, os.path.join(out, name + ".onnx"))


f = TensorProto.FLOAT
save("fixed", [helper.make_node("MatMul", ["x", "w"], ["y"])],
     [helper.make_tensor_value_info("x", f, [4, 3])],
     [helper.make_tensor_value_info("y", f, [4, 3])],
     {"w": np.eye(3, dtype=np.float32)})
save("conv", [helper.make_node("Conv", ["x", "w"], ["y"])],
     [helper.make_tensor_value_info("x", f, [2, 1, 4, 4])],
     [helper.make_tensor_value_info("y", f, [2, 1, 2, 2])],
     {"w": np.ones((1, 1, 3, 3), np.float32)})
save("rank3", [helper.make_node("Mul", ["x", "w"], ["y"])],
     [helper.make_tensor_value_info("x", f, [2, 3, 4])],
     [helper.make_tensor_value_info("y", f, [2, 3, 4])],
     {"w": np.ones(4, np.float32)})
save("unused", [helper.make_node("Mul", ["x", "w"], ["y"]),
                helper.make_node("Add", ["x", "u"], ["z"])],
     [helper.make_tensor_value_info("x", f, [2, 4])],
     [helper.make_tensor_value_info("y", f, [2, 4]),
      helper.make_tensor_value_info("z", f, [2, 4])],
     {"w": np.ones(4, np.float32), "u": np.ones(4, np.float32)})
open(os.path.join(out, "mlp.mlir"), "w").write("module {}\n")
rng = np.random.default_rng(1)
for d, n, k, nl in [("badshape", 64, 5, 64), ("few", 10, 8, 10),
                    ("uneven", 64, 8, 50), ("other", 256, 8, 256)]:
    os.makedirs(os.path.join(out, d), exist_ok=True)
    np.save(os.path.join(out, d, "x.npy"), rng.standard_normal((n, k)).astype(np.float32))
    np.save(os.path.join(out, d, "labels.npy"), rng.integers(0, 4, nl).astype(np.int64))
