#!/usr/bin/env python3
"""Writes small quantized ONNX models (seeded) and their inputs for the
quantization tests: make-quant-models.py OUTDIR NAME.

  dynamic   DynamicQuantizeLinear -> MatMulInteger (int8 weights, scalar zero
            points) -> Cast -> Mul, as onnxruntime's quantize_dynamic writes
  dynamic_wide  the same, 40x96 by 96x80 (the packed narrow kernels)
  rowcol    MatMulInteger of uint8 operands with a per-row A zero point and a
            per-column B zero point, batched (3-D A)
  lstm, bilstm, lstm_per_channel
            a float LSTM through onnxruntime's quantize_dynamic (forward,
            bidirectional, per-channel weight scales): DynamicQuantizeLSTM
  qdq       QuantizeLinear/DequantizeLinear pairs (uint8 per tensor, int8 per
            axis, int16) around a Conv whose weights are int8 per output
            channel, as QDQ-format static quantization writes
Inputs go to OUTDIR/NAME/in/input_<i>.npy, the model to OUTDIR/NAME/model.onnx.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh


def const(name, arr, dtype=None):
    return nh.from_array(np.asarray(arr, dtype=dtype), name)


def dynamic(r, rows=4, k=16, n=8):
    # 7-bit weights, as quantize_dynamic(reduce_range=True) writes them:
    # ONNX Runtime's u8 x s8 kernel on AVX2 adds pairs of products in
    # saturating int16, which full-range weights overflow; the exact int32
    # result is the definition (and Plumb's).
    w = r.randint(-64, 64, size=(k, n)).astype(np.int8)
    nodes = [
        h.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        h.make_node("MatMulInteger", ["xq", "w", "xz", "wz"], ["acc"]),
        h.make_node("Cast", ["acc"], ["accf"], to=T.FLOAT),
        h.make_node("Mul", ["xs", "ws"], ["s"]),
        h.make_node("Mul", ["accf", "s"], ["y"]),
    ]
    g = h.make_graph(nodes, "dynamic",
                     [h.make_tensor_value_info("x", T.FLOAT, [rows, k])],
                     [h.make_tensor_value_info("y", T.FLOAT, [rows, n]),
                      h.make_tensor_value_info("xs", T.FLOAT, [])],
                     [const("w", w), const("wz", 0, np.int8),
                      const("ws", 0.0123, np.float32)])
    x = (r.randn(rows, k) * 2).astype(np.float32)
    x[0, :3] = [0.0, -0.0, 1e-30]
    return g, [x]


def dynamic_wide(r):
    # Large enough for the packed narrow kernels (runtime/src/qdot.h): the
    # compiled program packs the weights once, the interpreter per call.
    return dynamic(r, rows=40, k=96, n=80)


def rowcol(r):
    nodes = [h.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])]
    g = h.make_graph(nodes, "rowcol",
                     [h.make_tensor_value_info("a", T.INT32, [2, 3, 5])],
                     [h.make_tensor_value_info("y", T.INT32, [2, 3, 4])],
                     [const("b", r.randint(0, 256, (5, 4)), np.uint8),
                      const("az", [3, 200, 7], np.uint8),
                      const("bz", [0, 255, 128, 1], np.uint8)])
    return g, None


def rowcol_model(r):
    # MatMulInteger takes 8-bit A: a QuantizeLinear with scale 1 turns the
    # float input (whole numbers 0..255) into uint8 (graph inputs of 8-bit
    # types are not taken yet).
    g, _ = rowcol(r)
    g.node.insert(0, h.make_node("QuantizeLinear", ["af", "one", "zero"],
                                 ["a"]))
    g.initializer.extend([const("one", 1.0, np.float32),
                          const("zero", 0, np.uint8)])
    del g.input[:]
    g.input.extend([h.make_tensor_value_info("af", T.FLOAT, [2, 3, 5])])
    return g, [r.randint(0, 256, (2, 3, 5)).astype(np.float32)]


def qdq(r):
    wq = r.randint(-127, 128, size=(4, 3, 3, 3)).astype(np.int8)
    nodes = [
        h.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        h.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        h.make_node("DequantizeLinear", ["wq", "wsc", "wz"], ["w"], axis=0),
        h.make_node("Conv", ["xd", "w"], ["c"], pads=[1, 1, 1, 1]),
        h.make_node("QuantizeLinear", ["c", "cs", "cz"], ["cq"], axis=1),
        h.make_node("DequantizeLinear", ["cq", "cs", "cz"], ["y"], axis=1),
        h.make_node("QuantizeLinear", ["x", "s16"], ["q16"]),
        h.make_node("DequantizeLinear", ["q16", "s16"], ["y16"]),
    ]
    # The int16 pair takes its type from a zero point.
    nodes[6].input.append("z16")
    nodes[7].input.append("z16")
    g = h.make_graph(nodes, "qdq",
                     [h.make_tensor_value_info("x", T.FLOAT, [1, 3, 6, 6])],
                     [h.make_tensor_value_info("y", T.FLOAT, [1, 4, 6, 6]),
                      h.make_tensor_value_info("xd", T.FLOAT, [1, 3, 6, 6]),
                      h.make_tensor_value_info("y16", T.FLOAT, [1, 3, 6, 6])],
                     [const("xs", 0.02, np.float32), const("xz", 128, np.uint8),
                      const("wq", wq),
                      const("wsc", [0.01, 0.02, 0.005, 0.03], np.float32),
                      const("wz", [0, 0, 0, 0], np.int8),
                      const("cs", [0.05, 0.1, 0.02, 0.2], np.float32),
                      const("cz", [0, 5, -7, 0], np.int8),
                      const("s16", 0.001, np.float32),
                      const("z16", -3, np.int16)])
    x = (r.randn(1, 3, 6, 6) * 2).astype(np.float32)
    # Ties of x / scale (x = (k + 0.5) * scale where representable), the
    # clamp on both sides, and signed zeros.
    x[0, 0, 0, :6] = [0.01, 0.03, -0.01, -0.03, 100.0, -100.0]
    x[0, 1, 0, :2] = [0.0, -0.0]
    return g, [x]


def check_rowcol(d):
    """ONNX Runtime takes only scalar A zero points: numpy is the reference
    for the per-row case (exact int64 arithmetic, then int32)."""
    m = onnx.load(os.path.join(d, "model.onnx"))
    w = {t.name: nh.to_array(t).astype(np.int64) for t in m.graph.initializer}
    a = np.load(os.path.join(d, "in", "input_0.npy")).astype(np.int64)
    want = (a - w["az"].reshape(3, 1)) @ (w["b"] - w["bz"])
    got = np.load(os.path.join(d, "c", "output_0.npy"))
    ok = got.dtype == np.int32 and np.array_equal(got, want.astype(np.int32))
    print("numpy: rowcol", "matches" if ok else "DIFFERS")
    return 0 if ok else 1


def lstm(r, d, direction, extra=()):
    """A float LSTM quantized by onnxruntime's quantize_dynamic, which turns
    it into com.microsoft.DynamicQuantizeLSTM with int8 weights."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    I, H, S, Bn = 6, 5, 4, 2
    dirs = 2 if direction == "bidirectional" else 1
    inits = [const("W", r.randn(dirs, 4 * H, I) * 0.5, np.float32),
             const("R", r.randn(dirs, 4 * H, H) * 0.5, np.float32),
             const("B", r.randn(dirs, 8 * H) * 0.1, np.float32)]
    node = h.make_node("LSTM", ["x", "W", "R", "B"], ["y", "yh", "yc"],
                       hidden_size=H, direction=direction)
    g = h.make_graph([node], "lstm",
                     [h.make_tensor_value_info("x", T.FLOAT, [S, Bn, I])],
                     [h.make_tensor_value_info("y", T.FLOAT, [S, dirs, Bn, H]),
                      h.make_tensor_value_info("yh", T.FLOAT, [dirs, Bn, H]),
                      h.make_tensor_value_info("yc", T.FLOAT, [dirs, Bn, H])],
                     inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)], ir_version=8)
    os.makedirs(d, exist_ok=True)
    f = os.path.join(d, "float.onnx")
    onnx.save(m, f)
    # reduce_range: 7-bit weights (see dynamic() on ONNX Runtime's
    # saturating AVX2 kernel, which its quantized LSTM uses too).
    quantize_dynamic(f, os.path.join(d, "model.onnx"),
                     weight_type=QuantType.QInt8, op_types_to_quantize=["LSTM"],
                     reduce_range=True, **dict(extra))
    x = r.randn(S, Bn, I).astype(np.float32)
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    np.save(os.path.join(d, "in", "input_0.npy"), x)


def main():
    out, name = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3 and sys.argv[3] == "--check":
        sys.exit(check_rowcol(os.path.join(out, name)))
    r = np.random.RandomState(7)
    if name in ("lstm", "bilstm", "lstm_per_channel"):
        lstm(r, os.path.join(out, name),
             "bidirectional" if name == "bilstm" else "forward",
             [("per_channel", True)] if name == "lstm_per_channel" else [])
        return
    g, ins = {"dynamic": dynamic, "dynamic_wide": dynamic_wide,
              "rowcol": rowcol_model, "qdq": qdq}[name](r)
    # int16 quantization is opset 21's.
    opset = 21 if name == "qdq" else 13
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)],
                     ir_version=10 if opset == 21 else 8)
    onnx.checker.check_model(m)
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for i, a in enumerate(ins):
        np.save(os.path.join(d, "in", "input_%d.npy" % i), a)


if __name__ == "__main__":
    main()
