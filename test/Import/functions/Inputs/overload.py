#!/usr/bin/env python3
"""Writes a model with two overloads of one function (IR 10): (local, F, "")
negates, (local, F, "abs") takes the absolute value; node `n` calls the
first, node `a` the second (NodeProto.overload).

Usage: overload.py OUT.onnx [twice | explode]
`twice` defines (local, F, "abs") a second time; `explode` adds functions
E0..E23, each calling the previous one twice (2^24 nodes once inlined);
`deep` adds D0..D69, each calling the previous one once (70 levels)."""
import sys

from onnx import TensorProto, helper, save

neg = helper.make_function("local", "F", ["x"], ["y"],
                           [helper.make_node("Neg", ["x"], ["y"])],
                           [helper.make_opsetid("", 18)])
absf = helper.make_function("local", "F", ["x"], ["y"],
                            [helper.make_node("Abs", ["x"], ["y"])],
                            [helper.make_opsetid("", 18)], overload="abs")
n = helper.make_node("F", ["X"], ["N"], name="n", domain="local")
a = helper.make_node("F", ["X"], ["A"], name="a", domain="local")
a.overload = "abs"
g = helper.make_graph(
    [n, a], "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3])],
    [helper.make_tensor_value_info("N", TensorProto.FLOAT, [3]),
     helper.make_tensor_value_info("A", TensorProto.FLOAT, [3])])
functions = [neg, absf]
if sys.argv[2:] == ["twice"]:
    functions.append(absf)
if sys.argv[2:] == ["explode"]:
    prev = "F"
    for k in range(24):
        functions.append(helper.make_function(
            "local", "E%d" % k, ["x"], ["y"],
            [helper.make_node(prev, ["x"], ["t"], domain="local"),
             helper.make_node(prev, ["t"], ["y"], domain="local")],
            [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)]))
        prev = "E%d" % k
    g.node.append(helper.make_node(prev, ["X"], ["E"], domain="local"))
    g.output.append(helper.make_tensor_value_info("E", TensorProto.FLOAT, [3]))
if sys.argv[2:] == ["deep"]:
    prev = "F"
    for k in range(70):
        functions.append(helper.make_function(
            "local", "D%d" % k, ["x"], ["y"],
            [helper.make_node(prev, ["x"], ["y"], domain="local")],
            [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)]))
        prev = "D%d" % k
    g.node.append(helper.make_node(prev, ["X"], ["D"], domain="local",
                                   name="deep"))
    g.output.append(helper.make_tensor_value_info("D", TensorProto.FLOAT, [3]))
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18),
                                        helper.make_opsetid("local", 1)],
                      functions=functions)
m.ir_version = 10
save(m, sys.argv[1])
