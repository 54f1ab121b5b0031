#!/usr/bin/env python3
"""Writes small float16 / bfloat16 models and their inputs, the way users
make them, for test/e2e/half-precision.test.

Usage: make-half-models.py OUT_DIR
       make-half-models.py --check-bf16 MODEL_DIR PLUMB_OUTPUT_DIR

OUT_DIR/<name>/model.onnx and OUT_DIR/<name>/in/input_<i>.npy for:
  cnn16   a Conv / Relu / pooling / MatMul / Softmax / LayerNormalization
          network entirely in float16 (convert_float_to_float16 with
          keep_io_types=False gives this form: float16 weights, inputs and
          outputs);
  keepio  the same network with float32 inputs and outputs, a Cast to
          FLOAT16 after each input and a Cast to FLOAT before each output
          (keep_io_types=True);
  casts   Cast to and from FLOAT16 and BFLOAT16 in a float32 graph, on
          values chosen at the rounding boundaries (ties, subnormals, the
          overflow threshold, NaN);
  bf16    a bfloat16 MatMul / Add / Tanh graph between Casts (ONNX Runtime's
          CPU provider has no bfloat16 MatMul, so the test checks it against
          numpy, which bfloat16 reaches through ml_dtypes, onnx's own
          dependency).
--check-bf16 compares Plumb's outputs of bf16 with numpy: each node in
float32 on the bfloat16 inputs, rounded to bfloat16 (ml_dtypes), within one
bfloat16 unit in the last place (the sums' order and tanh may differ by one
float32 rounding before it); Plumb's bfloat16 output file holds the bits
(<u2) of its float32 output's values.
onnxconverter-common is not among the pinned test requirements, so the
graphs are built with onnx.helper directly.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F16 = TensorProto.FLOAT16
F32 = TensorProto.FLOAT


def net(b, x, prefix=""):
    """The CNN body on float16 value `x` [1, 3, 8, 8]; returns the names of
    its two float16 results (softmax [1, 5], layer norm [1, 4, 64])."""
    rng = np.random.default_rng(7)

    def init(name, shape, scale):
        v = (rng.standard_normal(shape) * scale).astype(np.float16)
        b["inits"].append(numpy_helper.from_array(v, prefix + name))
        return prefix + name

    w = init("w", [4, 3, 3, 3], 0.4)
    bias = init("b", [4], 0.1)
    wm = init("wm", [4, 5], 0.7)
    bm = init("bm", [5], 0.1)
    g = init("g", [64], 1.0)
    beta = init("beta", [64], 0.1)
    shape = prefix + "shape"
    b["inits"].append(numpy_helper.from_array(np.array([1, 4, 64], np.int64),
                                              shape))
    n = b["nodes"]
    n.append(helper.make_node("Conv", [x, w, bias], [prefix + "c"],
                              pads=[1, 1, 1, 1]))
    n.append(helper.make_node("Relu", [prefix + "c"], [prefix + "r"]))
    n.append(helper.make_node("GlobalAveragePool", [prefix + "r"],
                              [prefix + "p"]))
    n.append(helper.make_node("Flatten", [prefix + "p"], [prefix + "f"]))
    n.append(helper.make_node("MatMul", [prefix + "f", wm], [prefix + "m"]))
    n.append(helper.make_node("Add", [prefix + "m", bm], [prefix + "a"]))
    n.append(helper.make_node("Softmax", [prefix + "a"], [prefix + "s"],
                              axis=-1))
    n.append(helper.make_node("Reshape", [prefix + "c", shape],
                              [prefix + "rs"]))
    n.append(helper.make_node("LayerNormalization", [prefix + "rs", g, beta],
                              [prefix + "ln"], axis=-1, epsilon=1e-5))
    return prefix + "s", prefix + "ln"


def save(out, name, graph, inputs, opset=17):
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for i, v in enumerate(inputs):
        np.save(os.path.join(d, "in", "input_%d.npy" % i), v)


def check_bf16(model_dir, plumb_dir):
    import ml_dtypes
    bf = ml_dtypes.bfloat16
    m = onnx.load(os.path.join(model_dir, "model.onnx"))
    wf = numpy_helper.to_array([t for t in m.graph.initializer
                                if t.name == "wf"][0])
    x = np.load(os.path.join(model_dir, "in", "input_0.npy"))
    r = lambda v: v.astype(bf).astype(np.float32)
    xb, wb = r(x), r(wf)
    y = r(r(np.tanh(r(xb @ wb))) + xb[:, :6])
    yf = np.load(os.path.join(plumb_dir, "output_0.npy"))
    bits = np.load(os.path.join(plumb_dir, "output_1.npy"))
    if bits.dtype != np.uint16 or yf.dtype != np.float32:
        print("bf16: output types %s %s" % (yf.dtype, bits.dtype))
        return 1
    if not np.array_equal(bits.view(bf).astype(np.float32).view(np.uint32),
                          yf.view(np.uint32)):
        print("bf16: the <u2 output is not the float32 output's bits")
        return 1
    if not np.array_equal(r(yf).view(np.uint32), yf.view(np.uint32)):
        print("bf16: output values are not bfloat16 values")
        return 1
    err = np.abs(yf - y) / np.maximum(np.abs(y), 2.0**-7)
    same = int(np.sum(yf == y))
    if np.max(err) > 2.0**-7:
        print("bf16: max relative error %g" % np.max(err))
        return 1
    print("bf16: matches numpy (%d of %d equal, the others within one ulp)"
          % (same, y.size))
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--check-bf16":
        return check_bf16(sys.argv[2], sys.argv[3])
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    x = np.random.default_rng(3).standard_normal((1, 3, 8, 8))

    b = {"nodes": [], "inits": []}
    s, ln = net(b, "X")
    g = helper.make_graph(
        b["nodes"], "cnn16", [helper.make_tensor_value_info("X", F16, [1, 3, 8, 8])],
        [helper.make_tensor_value_info(s, F16, [1, 5]),
         helper.make_tensor_value_info(ln, F16, [1, 4, 64])], b["inits"])
    save(out, "cnn16", g, [x.astype(np.float16)])

    b = {"nodes": [helper.make_node("Cast", ["X"], ["X16"], to=F16)],
         "inits": []}
    s, ln = net(b, "X16")
    b["nodes"].append(helper.make_node("Cast", [s], ["S"], to=F32))
    b["nodes"].append(helper.make_node("Cast", [ln], ["LN"], to=F32))
    g = helper.make_graph(
        b["nodes"], "keepio", [helper.make_tensor_value_info("X", F32, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("S", F32, [1, 5]),
         helper.make_tensor_value_info("LN", F32, [1, 4, 64])], b["inits"])
    save(out, "keepio", g, [x.astype(np.float32)])

    # Rounding boundaries: float16 ties (1 + 2^-11, 1 + 3 * 2^-11), the
    # overflow threshold 65520 and just below it, subnormals and their ties,
    # a value below half the smallest subnormal, -0, +-inf, NaN; bfloat16
    # ties (0x3F808000, 0x3F818000) and its overflow threshold.
    v = np.array([1 + 2**-11, 1 + 3 * 2**-11, 65520.0, 65519.996, -65520.0,
                  2**-24, 2**-25, 3 * 2**-25, 2**-26, -0.0, np.inf, -np.inf,
                  np.nan, 0.1, -3.14159, 70000.0], np.float32)
    bfbits = np.array([0x3F808000, 0x3F818000, 0x7F7F8000, 0x7F7F7FFF,
                       0x00018000, 0x3DCCCCCD, 0xC0490FD0, 0x00000001],
                      np.uint32)
    bfv = np.concatenate([bfbits.view(np.float32), -bfbits.view(np.float32)])
    ints = np.array([0, 1, -1, 2049, 65504, 65519, 65520, -70000, 4097,
                     12345, -2, 3, 1 << 20, (1 << 24) + 1, 7, 100000], np.int64)
    nodes = [
        helper.make_node("Cast", ["V"], ["V16"], to=F16),
        helper.make_node("Cast", ["V16"], ["A"], to=F32),
        helper.make_node("Cast", ["W"], ["W16"], to=TensorProto.BFLOAT16),
        helper.make_node("Cast", ["W16"], ["B"], to=F32),
        helper.make_node("Cast", ["I"], ["C"], to=F16),
    ]
    g = helper.make_graph(
        nodes, "casts",
        [helper.make_tensor_value_info("V", F32, [16]),
         helper.make_tensor_value_info("W", F32, [16]),
         helper.make_tensor_value_info("I", TensorProto.INT64, [16])],
        [helper.make_tensor_value_info("A", F32, [16]),
         helper.make_tensor_value_info("B", F32, [16]),
         helper.make_tensor_value_info("C", F16, [16])])
    save(out, "casts", g, [v, bfv, ints])

    rng = np.random.default_rng(11)
    wf = rng.standard_normal((8, 6)).astype(np.float32)
    nodes = [
        helper.make_node("Cast", ["X"], ["Xb"], to=TensorProto.BFLOAT16),
        helper.make_node("Cast", ["wf"], ["Wb"], to=TensorProto.BFLOAT16),
        helper.make_node("MatMul", ["Xb", "Wb"], ["M"]),
        helper.make_node("Tanh", ["M"], ["T"]),
        helper.make_node("Slice", ["Xb", "st", "en", "ax"], ["Xh"]),
        helper.make_node("Add", ["T", "Xh"], ["Y"]),
        helper.make_node("Cast", ["Y"], ["Yf"], to=F32),
    ]
    inits = [numpy_helper.from_array(wf, "wf"),
             numpy_helper.from_array(np.array([0], np.int64), "st"),
             numpy_helper.from_array(np.array([6], np.int64), "en"),
             numpy_helper.from_array(np.array([1], np.int64), "ax")]
    g = helper.make_graph(
        nodes, "bf16", [helper.make_tensor_value_info("X", F32, [4, 8])],
        [helper.make_tensor_value_info("Yf", F32, [4, 6]),
         helper.make_tensor_value_info("Y", TensorProto.BFLOAT16, [4, 6])],
        inits)
    save(out, "bf16", g, [rng.standard_normal((4, 8)).astype(np.float32)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
