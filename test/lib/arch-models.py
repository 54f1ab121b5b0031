#!/usr/bin/env python3
"""Builds small models of common architectures from Plumb's supported ops,
with seeded random weights, and their ONNX Runtime reference outputs.

Usage: arch-models.py OUT_DIR [--only NAME[,NAME...]]

For each architecture NAME it writes OUT_DIR/NAME.onnx and
OUT_DIR/NAME/test_data_set_0/{input,output}_<i>.pb (ONNX Runtime, one
thread), the layout check-reference.py reads. Nothing is downloaded: the
weights come from numpy's seeded generator, so a run is the same on every
machine. The architectures are the shapes real models take, not the shared
models': a pre-norm transformer encoder block (attention with a causal
mask, GELU written with Erf), MobileNetV2 inverted residuals (BatchNorm,
ReLU6 as Clip, depthwise convolutions, a classifier head), a small U-Net
(max pooling, a transposed convolution, nearest-neighbour Resize, skip
connections by Concat), an LSTM text classifier (Gather embedding,
LSTM, LogSoftmax), a LLaMA-style decoder block (RMSNorm, rotary
embeddings, a causal mask by Where, SwiGLU, ArgMax), a 1-D convolutional
audio classifier, a 3-D convolutional video block and a bidirectional GRU.
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Graph:
    """Collects nodes and initializers; names are generated."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, base):
        self.n += 1
        return "%s_%d" % (base, self.n)

    def const(self, array, base="w"):
        name = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, shape, fan_in, base="w"):
        scale = 1.0 / np.sqrt(fan_in)
        return self.const(
            self.rng.uniform(-scale, scale, size=shape).astype(np.float32), base)

    def op(self, op_type, inputs, n_out=1, out=None, **attrs):
        """Adds a node; `out` names its (only) output, a graph output."""
        outs = [out] if out else [self.name(op_type.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, **attrs))
        return outs[0] if n_out == 1 else outs

    def model(self, name, inputs, outputs):
        g = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="plumb-arch-models")
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def transformer_block():
    seq, d, heads, ff = 32, 64, 4, 256
    dh = d // heads
    g = Graph(1)

    def layer_norm(x):
        return g.op("LayerNormalization",
                    [x, g.const(1 + 0.1 * g.rng.standard_normal(d).astype(np.float32)),
                     g.const(0.1 * g.rng.standard_normal(d).astype(np.float32))],
                    axis=-1, epsilon=1e-5)

    def linear(x, n_in, n_out):
        y = g.op("MatMul", [x, g.weight((n_in, n_out), n_in)])
        return g.op("Add", [y, g.weight((n_out,), n_in, "b")])

    def heads_of(x, perm):
        r = g.op("Reshape", [x, g.const(np.array([1, seq, heads, dh], np.int64))])
        return g.op("Transpose", [r], perm=perm)

    h = layer_norm("x")
    q = heads_of(linear(h, d, d), [0, 2, 1, 3])          # [1, H, S, dh]
    kt = heads_of(linear(h, d, d), [0, 2, 3, 1])         # [1, H, dh, S]
    v = heads_of(linear(h, d, d), [0, 2, 1, 3])
    s = g.op("Div", [g.op("MatMul", [q, kt]),
                     g.const(np.array(np.sqrt(dh), np.float32))])
    mask = np.triu(np.full((seq, seq), -1e9, np.float32), k=1)
    p = g.op("Softmax", [g.op("Add", [s, g.const(mask)])], axis=-1)
    o = g.op("Transpose", [g.op("MatMul", [p, v])], perm=[0, 2, 1, 3])
    o = g.op("Reshape", [o, g.const(np.array([1, seq, d], np.int64))])
    x1 = g.op("Add", ["x", linear(o, d, d)])
    u = linear(layer_norm(x1), d, ff)
    gelu = g.op("Mul", [g.op("Mul", [u, g.const(np.array(0.5, np.float32))]),
                        g.op("Add", [g.op("Erf", [g.op("Div", [u, g.const(
                            np.array(np.sqrt(2.0), np.float32))])]),
                                     g.const(np.array(1.0, np.float32))])])
    y = g.op("Add", [x1, linear(gelu, ff, d)], out="y")
    g.op("ReduceMean", [y], axes=[1], keepdims=0, out="pooled")
    m = g.model("transformer_block", [f32("x", [1, seq, d])],
                [f32("y", [1, seq, d]), f32("pooled", [1, d])])
    x = g.rng.standard_normal((1, seq, d)).astype(np.float32)
    return m, [x]


def mobilenet_v2():
    g = Graph(2)

    def conv(x, cin, cout, k, stride=1, group=1):
        w = g.weight((cout, cin // group, k, k), cin // group * k * k)
        return g.op("Conv", [x, w], kernel_shape=[k, k], strides=[stride, stride],
                    pads=[k // 2] * 4, group=group)

    def bn(x, c):
        return g.op("BatchNormalization", [
            x, g.const(g.rng.uniform(0.5, 1.5, c).astype(np.float32)),
            g.const(0.1 * g.rng.standard_normal(c).astype(np.float32)),
            g.const(0.1 * g.rng.standard_normal(c).astype(np.float32)),
            g.const(g.rng.uniform(0.5, 2.0, c).astype(np.float32))], epsilon=1e-5)

    def relu6(x):
        return g.op("Clip", [x, g.const(np.array(0.0, np.float32)),
                             g.const(np.array(6.0, np.float32))])

    def inverted_residual(x, cin, cout, expand, stride):
        c = cin * expand
        h = relu6(bn(conv(x, cin, c, 1), c))
        h = relu6(bn(conv(h, c, c, 3, stride, group=c), c))
        h = bn(conv(h, c, cout, 1), cout)
        return g.op("Add", [x, h]) if stride == 1 and cin == cout else h

    h = relu6(bn(conv("image", 3, 16, 3, 2), 16))        # 32x32
    h = inverted_residual(h, 16, 24, 4, 2)               # 16x16
    h = inverted_residual(h, 24, 24, 4, 1)
    h = inverted_residual(h, 24, 32, 6, 2)               # 8x8
    h = inverted_residual(h, 32, 32, 6, 1)
    h = g.op("Flatten", [g.op("GlobalAveragePool", [h])], axis=1)
    logits = g.op("Gemm", [h, g.weight((10, 32), 32), g.weight((10,), 32, "b")],
                  transB=1)
    g.op("Softmax", [logits], axis=1, out="probs")
    m = g.model("mobilenet_v2", [f32("image", [1, 3, 64, 64])],
                [f32("probs", [1, 10])])
    x = g.rng.uniform(0, 1, (1, 3, 64, 64)).astype(np.float32)
    return m, [x]


def unet():
    g = Graph(3)

    def conv(x, cin, cout, k=3):
        return g.op("Conv", [x, g.weight((cout, cin, k, k), cin * k * k),
                             g.weight((cout,), cin * k * k, "b")],
                    kernel_shape=[k, k], pads=[k // 2] * 4)

    def pool(x):
        return g.op("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])

    e1 = g.op("Relu", [conv("image", 3, 8)])                      # 8x64x64
    e2 = g.op("Relu", [conv(pool(e1), 8, 16)])                    # 16x32x32
    b = g.op("Relu", [conv(pool(e2), 16, 32)])                    # 32x16x16
    up = g.op("ConvTranspose", [b, g.weight((32, 16, 2, 2), 32 * 4),
                                g.weight((16,), 32 * 4, "b")],
              kernel_shape=[2, 2], strides=[2, 2])                # 16x32x32
    d2 = g.op("Relu", [conv(g.op("Concat", [up, e2], axis=1), 32, 16)])
    up1 = g.op("Resize", [d2, "", g.const(np.array([1, 1, 2, 2], np.float32))],
               mode="nearest")                                    # 16x64x64
    d1 = g.op("LeakyRelu", [conv(g.op("Concat", [up1, e1], axis=1), 24, 8)],
              alpha=0.1)
    g.op("Sigmoid", [conv(d1, 8, 1, 1)], out="mask")
    m = g.model("unet", [f32("image", [1, 3, 64, 64])],
                [f32("mask", [1, 1, 64, 64])])
    x = g.rng.uniform(-1, 1, (1, 3, 64, 64)).astype(np.float32)
    return m, [x]


def lstm_classifier():
    vocab, emb, hidden, seq, classes = 100, 32, 48, 20, 5
    g = Graph(4)
    e = g.op("Gather", [g.const(g.rng.standard_normal((vocab, emb)).astype(np.float32)),
                        "tokens"], axis=0)                        # [1, S, E]
    xs = g.op("Transpose", [e], perm=[1, 0, 2])                   # [S, 1, E]
    _, yh, _ = g.op("LSTM", [xs, g.weight((1, 4 * hidden, emb), emb),
                             g.weight((1, 4 * hidden, hidden), hidden),
                             g.weight((1, 8 * hidden), hidden, "b")],
                    n_out=3, hidden_size=hidden)
    h = g.op("Reshape", [yh, g.const(np.array([1, hidden], np.int64))])
    h = g.op("Tanh", [g.op("Gemm", [h, g.weight((hidden, hidden), hidden),
                                    g.weight((hidden,), hidden, "b")])])
    g.op("LogSoftmax", [g.op("Gemm", [h, g.weight((hidden, classes), hidden)])],
         axis=-1, out="log_probs")
    m = g.model("lstm_classifier",
                [helper.make_tensor_value_info("tokens", TensorProto.INT64, [1, seq])],
                [f32("log_probs", [1, classes])])
    tokens = g.rng.integers(0, vocab, (1, seq)).astype(np.int64)
    return m, [tokens]


def llama_block():
    """RMSNorm (Pow, ReduceMean, Sqrt), rotary embeddings (Split, Neg,
    Concat), a causal mask by Where, SwiGLU, ArgMax; a batch of 2."""
    B, S, D, H = 2, 16, 64, 4
    dh = D // H
    g = Graph(5)
    def rms(x):
        ms = g.op("ReduceMean", [g.op("Pow", [x, g.const(np.array(2.0, np.float32))])], axes=[-1], keepdims=1)
        r = g.op("Sqrt", [g.op("Add", [ms, g.const(np.array(1e-6, np.float32))])])
        return g.op("Mul", [g.op("Div", [x, r]), g.const(1 + 0.1*g.rng.standard_normal(D).astype(np.float32))])
    def lin(x, a, b):
        return g.op("MatMul", [x, g.weight((a, b), a)])
    def heads(x):
        return g.op("Transpose", [g.op("Reshape", [x, g.const(np.array([B, S, H, dh], np.int64))])], perm=[0, 2, 1, 3])
    def rope(x):  # rotate half: x1, x2 = split; cat(-x2, x1) * sin + x * cos
        x1, x2 = g.op("Split", [x, g.const(np.array([dh//2, dh//2], np.int64))], n_out=2, axis=-1)
        rot = g.op("Concat", [g.op("Neg", [x2]), x1], axis=-1)
        pos = np.arange(S)[:, None] * (1.0 / 10000 ** (np.arange(dh) % (dh//2) / (dh//2)))[None, :]
        return g.op("Add", [g.op("Mul", [x, g.const(np.cos(pos).astype(np.float32))]), g.op("Mul", [rot, g.const(np.sin(pos).astype(np.float32))])])
    h = rms("x")
    q, k, v = rope(heads(lin(h, D, D))), rope(heads(lin(h, D, D))), heads(lin(h, D, D))
    s = g.op("Mul", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])]), g.const(np.array(1/np.sqrt(dh), np.float32))])
    causal = np.tril(np.ones((S, S), bool))
    s = g.op("Where", [g.const(causal), s, g.const(np.array(-np.inf, np.float32))])
    o = g.op("MatMul", [g.op("Softmax", [s], axis=-1), v])
    o = g.op("Reshape", [g.op("Transpose", [o], perm=[0, 2, 1, 3]), g.const(np.array([B, S, D], np.int64))])
    x1 = g.op("Add", ["x", lin(o, D, D)])
    h2 = rms(x1)
    gate = lin(h2, D, 128); up = lin(h2, D, 128)
    silu = g.op("Mul", [gate, g.op("Sigmoid", [gate])])
    y = g.op("Add", [x1, lin(g.op("Mul", [silu, up]), 128, D)])
    logits = g.op("MatMul", [y, g.weight((D, 50), D)], out="logits")
    g.op("ArgMax", [logits], axis=-1, keepdims=0, out="next")
    m = g.model("llama_block", [f32("x", [B, S, D])], [helper.make_tensor_value_info("next", TensorProto.INT64, [B, S]), f32("logits", [B, S, 50])])
    return m, [g.rng.standard_normal((B, S, D)).astype(np.float32)]

def audio_conv1d():
    """1-D convolutions: strided, dilated, grouped; pooling; a batch of 2."""
    g = Graph(6)
    def conv(x, ci, co, k, s, d=1, p=None, grp=1):
        p = (k//2)*d if p is None else p
        return g.op("Conv", [x, g.weight((co, ci//grp, k), ci//grp*k), g.weight((co,), ci*k, "b")], kernel_shape=[k], strides=[s], dilations=[d], pads=[p, p], group=grp)
    h = g.op("Relu", [conv("wave", 1, 16, 9, 4)])
    h = g.op("Tanh", [conv(h, 16, 16, 3, 1, d=2, grp=4)])
    h = g.op("AveragePool", [h], kernel_shape=[3], strides=[2], pads=[1, 1], count_include_pad=1)
    h = g.op("MaxPool", [conv(h, 16, 32, 5, 2, p=1)], kernel_shape=[2], strides=[2])
    h = g.op("ReduceMax", [h], axes=[2], keepdims=0)
    g.op("Sigmoid", [g.op("Gemm", [h, g.weight((32, 3), 32)])], out="scores")
    m = g.model("audio_conv1d", [f32("wave", [2, 1, 4000])], [f32("scores", [2, 3])])
    return m, [g.rng.standard_normal((2, 1, 4000)).astype(np.float32)]

def video_conv3d():
    """3-D convolution, pooling and a transposed convolution with
    output_padding."""
    g = Graph(7)
    h = g.op("Conv", ["clip", g.weight((8, 3, 3, 3, 3), 81), g.weight((8,), 81, "b")], kernel_shape=[3, 3, 3], pads=[1]*6, strides=[1, 2, 2])
    h = g.op("Relu", [h])
    h = g.op("MaxPool", [h], kernel_shape=[2, 2, 2], strides=[2, 2, 2])
    h = g.op("ConvTranspose", [h, g.weight((8, 4, 2, 2, 2), 64)], kernel_shape=[2, 2, 2], strides=[2, 2, 2], output_padding=[1, 0, 0])
    g.op("GlobalAveragePool", [h], out="feat")
    m = g.model("video_conv3d", [f32("clip", [1, 3, 8, 32, 32])], [f32("feat", [1, 4, 1, 1, 1])])
    return m, [g.rng.standard_normal((1, 3, 8, 32, 32)).astype(np.float32)]

def bigru():
    """A bidirectional GRU (linear_before_reset), Slice of its last step."""
    g = Graph(8)
    S, B, E, Hd = 12, 3, 10, 16
    y, yh = g.op("GRU", ["seq", g.weight((2, 3*Hd, E), E), g.weight((2, 3*Hd, Hd), Hd), g.weight((2, 6*Hd), Hd, "b")], n_out=2, hidden_size=Hd, direction="bidirectional", linear_before_reset=1)
    last = g.op("Slice", [y, g.const(np.array([S-1], np.int64)), g.const(np.array([S], np.int64)), g.const(np.array([0], np.int64))])
    flat = g.op("Reshape", [g.op("Transpose", [last], perm=[0, 2, 1, 3]), g.const(np.array([B, 2*Hd], np.int64))])
    g.op("Softmax", [g.op("Gemm", [flat, g.weight((2*Hd, 4), 2*Hd)])], axis=1, out="p")
    m = g.model("bigru", [f32("seq", [S, B, E])], [f32("p", [B, 4])])
    return m, [g.rng.standard_normal((S, B, E)).astype(np.float32)]


ARCHS = {
    "transformer_block": transformer_block,
    "mobilenet_v2": mobilenet_v2,
    "unet": unet,
    "lstm_classifier": lstm_classifier,
    "llama_block": llama_block,
    "audio_conv1d": audio_conv1d,
    "video_conv3d": video_conv3d,
    "bigru": bigru,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    names = [n for n in a.only.split(",") if n] or list(ARCHS)
    unknown = [n for n in names if n not in ARCHS]
    if unknown:
        print("arch-models: unknown architecture(s): %s (known: %s)"
              % (", ".join(unknown), ", ".join(ARCHS)), file=sys.stderr)
        return 2
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    os.makedirs(a.out, exist_ok=True)
    for name in names:
        model, inputs = ARCHS[name]()
        path = os.path.join(a.out, name + ".onnx")
        onnx.save(model, path)
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        feeds = {i.name: x for i, x in zip(sess.get_inputs(), inputs)}
        outs = sess.run(None, feeds)
        ds = os.path.join(a.out, name, "test_data_set_0")
        os.makedirs(ds, exist_ok=True)
        # An ArgMax output is compared exactly: the reference must not hang
        # on a near-tie that another machine's float rounding could flip.
        names = [o.name for o in model.graph.output]
        if "next" in names and "logits" in names:
            top = np.sort(outs[names.index("logits")], axis=-1)
            margin = float((top[..., -1] - top[..., -2]).min())
            if margin < 1e-3:
                print("arch-models: %s: ArgMax margin %.3g is too small for an "
                      "exact reference" % (name, margin), file=sys.stderr)
                return 1
        for i, (vi, x) in enumerate(zip(model.graph.input, inputs, strict=True)):
            with open(os.path.join(ds, "input_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(x, vi.name).SerializeToString())
        for i, (vi, y) in enumerate(zip(model.graph.output, outs, strict=True)):
            with open(os.path.join(ds, "output_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(y, vi.name).SerializeToString())
        print("%s: %d nodes, outputs %s" % (
            name, len(model.graph.node),
            ", ".join("%s%s" % (o.name, list(y.shape))
                      for o, y in zip(model.graph.output, outs))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
