#!/usr/bin/env python3
"""Writes small models in the form torch 2.15's default (dynamo) ONNX exporter
writes them, built with onnx.helper (no torch): IR 10, opset 20, weights as
external data in MODEL.onnx.data, metadata_props on every node
(pkg.torch.onnx.*), Reshape with allowzero=1, axes as inputs (ReduceMean,
Squeeze, Unsqueeze), Split with a `split` input, Resize with the opset-18
attributes spelled out, Gelu and LayerNormalization, LSTM with layout 0
between Transposes, MaxPool with ceil_mode, Gemm with transB.

Usage: dynamo-like.py OUTDIR
Writes OUTDIR/{cnn,encoder,lstm}.onnx (+ .onnx.data) and for each
OUTDIR/NAME_in/input_<i>.npy. Deterministic (seeded)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

R = np.random.RandomState(20)
F = TensorProto.FLOAT


def w(name, *shape):
    return numpy_helper.from_array(
        (R.randn(*shape) * 0.3).astype(np.float32), name)


def i64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def node(self, op, inputs, n_out=1, **attrs):
        self.count += 1
        outs = ["%s_%d" % (op.lower(), self.count)] if n_out == 1 else \
            ["%s_%d_%d" % (op.lower(), self.count, k) for k in range(n_out)]
        nd = helper.make_node(op, inputs, outs, name="node_%s_%d" %
                              (op, self.count), **attrs)
        for key, value in (("namespace", ": __main__.M/%s" % op),
                           ("pkg.torch.onnx.fx_node", "%%%s" % outs[0]),
                           ("pkg.torch.onnx.stack_trace", "model.py:1")):
            nd.metadata_props.add(key=key, value=value)
        self.nodes.append(nd)
        return outs[0] if n_out == 1 else outs

    def const(self, t):
        self.inits.append(t)
        return t.name

    def model(self, name, inputs, outputs, out_dir, feeds):
        g = helper.make_graph(self.nodes, "main_graph", inputs, outputs,
                              initializer=self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)],
                              producer_name="pytorch",
                              producer_version="2.15.0")
        m.ir_version = 10
        path = os.path.join(out_dir, name + ".onnx")
        onnx.save(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                  location=name + ".onnx.data", size_threshold=1024)
        d = os.path.join(out_dir, name + "_in")
        os.makedirs(d, exist_ok=True)
        for k, a in enumerate(feeds):
            np.save(os.path.join(d, "input_%d.npy" % k), a)


def cnn(out_dir):
    g = Graph()
    x = "x"
    c1 = g.node("Conv", [x, g.const(w("c1.weight", 8, 3, 3, 3)),
                         g.const(w("c1.bias", 8))],
                kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1],
                dilations=[1, 1], group=1, auto_pad="NOTSET")
    bn = g.node("BatchNormalization",
                [c1, g.const(w("bn.weight", 8)), g.const(w("bn.bias", 8)),
                 g.const(w("bn.running_mean", 8)),
                 g.const(numpy_helper.from_array(
                     (np.abs(R.randn(8)) + 0.5).astype(np.float32),
                     "bn.running_var"))],
                epsilon=1e-5, momentum=0.9, training_mode=0)
    r = g.node("Relu", [bn])
    p = g.node("MaxPool", [r], kernel_shape=[2, 2], strides=[2, 2],
               pads=[0, 0, 0, 0], dilations=[1, 1], ceil_mode=1,
               storage_order=0, auto_pad="NOTSET")
    c2 = g.node("Conv", [p, g.const(w("c2.weight", 8, 8, 3, 3)),
                         g.const(w("c2.bias", 8))],
                kernel_shape=[3, 3], pads=[0, 0, 0, 0], strides=[2, 2],
                dilations=[1, 1], group=1, auto_pad="NOTSET")
    r2 = g.node("Relu", [c2])
    m = g.node("ReduceMean", [r2, g.const(i64("val_11", [-1, -2]))],
               keepdims=1, noop_with_empty_axes=0)
    v = g.node("Reshape", [m, g.const(i64("val_15", [1, 8]))], allowzero=1)
    y = g.node("Gemm", [v, g.const(w("fc.weight", 5, 8)),
                        g.const(w("fc.bias", 5))],
               alpha=1.0, beta=1.0, transA=0, transB=1)
    g.model("cnn", [helper.make_tensor_value_info(x, F, [1, 3, 17, 17])],
            [helper.make_tensor_value_info(y, F, [1, 5])], out_dir,
            [R.randn(1, 3, 17, 17).astype(np.float32)])


def encoder(out_dir):
    g = Graph()
    d, h = 16, 2
    x = "x"  # [batch 2, seq 5, d]
    t = g.node("Transpose", [x], perm=[1, 0, 2])
    qkv = g.node("Add", [g.node("MatMul", [t, g.const(w("in_proj", d, 3 * d))]),
                         g.const(w("in_proj_bias", 3 * d))])
    v3 = g.node("Reshape", [qkv, g.const(i64("val_7", [5, 2, 3, d]))],
                allowzero=1)
    u = g.node("Unsqueeze", [v3, g.const(i64("val_8", [0]))])
    tq = g.node("Transpose", [u], perm=[3, 1, 2, 0, 4])
    sq = g.node("Squeeze", [tq, g.const(i64("val_9", [3]))])
    heads = []
    for k in range(3):
        sel = g.node("Gather", [sq, g.const(i64("val_g%d" % k, k))], axis=0)
        rh = g.node("Reshape", [sel, g.const(i64("val_h%d" % k,
                                                 [5, 2 * h, d // h]))],
                    allowzero=1)
        heads.append(g.node("Transpose", [rh], perm=[1, 0, 2]))
    q, kk, vv = heads
    scale = g.const(numpy_helper.from_array(
        np.array(1.0 / np.sqrt(np.sqrt(d // h)), np.float32), "val_68"))
    s = g.node("MatMul", [g.node("Mul", [q, scale]),
                          g.node("Mul", [g.node("Transpose", [kk],
                                                perm=[0, 2, 1]), scale])])
    a = g.node("MatMul", [g.node("Softmax", [s], axis=-1), vv])
    a = g.node("Reshape", [g.node("Transpose", [a], perm=[1, 0, 2]),
                           g.const(i64("val_78", [10, d]))], allowzero=1)
    o = g.node("Gemm", [a, g.const(w("out_proj.weight", d, d))],
               alpha=1.0, beta=1.0, transA=0, transB=1)
    o = g.node("Transpose", [g.node("Reshape", [o, g.const(
        i64("val_83", [5, 2, d]))], allowzero=1)], perm=[1, 0, 2])
    n1 = g.node("LayerNormalization", [g.node("Add", [x, o]),
                                       g.const(w("norm1.weight", d)),
                                       g.const(w("norm1.bias", d))],
                axis=-1, epsilon=1e-5, stash_type=1)
    parts = g.node("Split", [n1, g.const(i64("val_s", [4, 12]))], n_out=2,
                   axis=-1)
    ff = g.node("Gelu", [g.node("Add", [g.node("MatMul", [
        n1, g.const(w("linear1.weight", d, 2 * d))]),
        g.const(w("linear1.bias", 2 * d))])], approximate="none")
    ff = g.node("Add", [g.node("MatMul", [ff, g.const(
        w("linear2.weight", 2 * d, d))]), g.const(w("linear2.bias", d))])
    lo = g.const(numpy_helper.from_array(np.array(-1.0, np.float32), "val_1"))
    hi = g.const(numpy_helper.from_array(np.array(1.0, np.float32), "val_3"))
    y = g.node("Clip", [g.node("Add", [n1, ff]), lo, hi])
    up = g.node("Resize", [g.node("Unsqueeze", [parts[0], g.const(
        i64("val_u", [1]))]), "", g.const(numpy_helper.from_array(
            np.array([1.0, 1.0, 2.0, 2.0], np.float32), "val_sc"))],
        mode="nearest", coordinate_transformation_mode="asymmetric",
        nearest_mode="floor", antialias=0, keep_aspect_ratio_policy="stretch",
        exclude_outside=0, extrapolation_value=0.0, cubic_coeff_a=-0.75)
    g.model("encoder", [helper.make_tensor_value_info(x, F, [2, 5, d])],
            [helper.make_tensor_value_info(y, F, [2, 5, d]),
             helper.make_tensor_value_info(up, F, [2, 1, 10, 8])], out_dir,
            [R.randn(2, 5, d).astype(np.float32)])


def lstm(out_dir):
    g = Graph()
    x = "x"  # [batch 2, seq 6, 8]
    t = g.node("Transpose", [x], perm=[1, 0, 2])
    hs = 12
    h0 = g.const(numpy_helper.from_array(np.zeros((1, 2, hs), np.float32),
                                         "val_16"))
    y, _, _ = g.node("LSTM", [t, g.const(w("val_41", 1, 4 * hs, 8)),
                              g.const(w("val_42", 1, 4 * hs, hs)),
                              g.const(w("val_64", 1, 8 * hs)), "", h0, h0],
                     n_out=3, hidden_size=hs, direction="forward",
                     input_forget=0, layout=0)
    y = g.node("Reshape", [g.node("Transpose", [y], perm=[0, 2, 1, 3]),
                           g.const(i64("val_78", [6, 2, hs]))], allowzero=0)
    last = g.node("Gather", [g.node("Transpose", [y], perm=[1, 0, 2]),
                             g.const(i64("val_80", 5))], axis=1)
    out = g.node("Gemm", [last, g.const(w("fc.weight", 3, hs)),
                          g.const(w("fc.bias", 3))], transB=1)
    g.model("lstm", [helper.make_tensor_value_info(x, F, [2, 6, 8])],
            [helper.make_tensor_value_info(out, F, [2, 3])], out_dir,
            [R.randn(2, 6, 8).astype(np.float32)])


if __name__ == "__main__":
    os.makedirs(sys.argv[1], exist_ok=True)
    for make in (cnn, encoder, lstm):
        make(sys.argv[1])
