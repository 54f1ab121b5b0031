#!/usr/bin/env python3
"""Writes the malformed (and a few stress) ONNX models for the lit tests.

Usage: gen.py OUTDIR [CASE...]

Writes OUTDIR/CASE.onnx (plus any data files the case needs) for each CASE,
or for every case when none is named. Everything is deterministic: no clock,
no unseeded randomness, so a failure reproduces byte for byte. Models that
protobuf cannot express (deep nesting, truncation, garbage) are written as raw
bytes.
"""

import hashlib
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 8
OPSET = 13


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def model(nodes, inputs, outputs, initializers=(), opset=OPSET, name="g"):
    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs),
                              initializer=list(initializers))
    m = helper.make_model(graph,
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = IR_VERSION
    return m


def fvi(name, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def relu_model():
    """A valid model: x[1,4] -> Relu -> y, with a weight so it has some bulk."""
    w = numpy_helper.from_array(np.arange(64, dtype=np.float32).reshape(16, 4),
                                "w")
    return model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                 [fvi("x", [1, 4])], [fvi("y", [1, 4])], [w])


def add_with_initializer(tensor):
    """x[2,3] + initializer 'w' -> y; the initializer is the faulty part."""
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [fvi("x", [2, 3])], [fvi("y", [2, 3])], [tensor])


def external_tensor(location, offset=None, length=None):
    t = TensorProto()
    t.name = "w"
    t.data_type = TensorProto.FLOAT
    t.dims.extend([2, 2])
    t.data_location = TensorProto.EXTERNAL
    entries = [("location", location)]
    if offset is not None:
        entries.append(("offset", str(offset)))
    if length is not None:
        entries.append(("length", str(length)))
    for k, v in entries:
        e = t.external_data.add()
        e.key = k
        e.value = v
    return t


def external_model(location, offset=None, length=None):
    t = external_tensor(location, offset, length)
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [fvi("x", [2, 2])], [fvi("y", [2, 2])], [t])


# Minimal protobuf wire encoding, for nesting deeper than the Python protobuf
# runtime is willing to build or serialize.

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_bytes(num, payload):
    return varint((num << 3) | 2) + varint(len(payload)) + payload


def field_varint(num, value):
    return varint(num << 3) + varint(value)


def field_str(num, s):
    return field_bytes(num, s.encode())


def nested_if_bytes(depth):
    """ModelProto whose graph nests `depth` If nodes, each in the previous
    one's then_branch. Node k (1-based) is named 'ifk'."""
    # GraphProto: node=1, name=2, input=11, output=12
    # NodeProto: input=1, output=2, name=3, op_type=4, attribute=5
    # AttributeProto: name=1, g=6, type=20 (GRAPH=5)
    # ValueInfoProto: name=1
    inner = field_str(2, "leaf")  # innermost graph: empty, just a name
    for k in range(depth, 0, -1):
        attr = (field_str(1, "then_branch") + field_bytes(6, inner) +
                field_varint(20, 5))
        node = (field_str(1, "cond") + field_str(2, "o%d" % k) +
                field_str(3, "if%d" % k) + field_str(4, "If") +
                field_bytes(5, attr))
        graph = field_bytes(1, node) + field_str(2, "g%d" % k)
        inner = graph
    # The top graph also declares input 'cond' and output 'o1'.
    cond_vi = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    out_vi = helper.make_tensor_value_info("o1", TensorProto.FLOAT, [1])
    top = (inner + field_bytes(11, cond_vi.SerializeToString()) +
           field_bytes(12, out_vi.SerializeToString()))
    opset = helper.make_opsetid("", OPSET).SerializeToString()
    # ModelProto: ir_version=1, graph=7, opset_import=8
    return field_varint(1, IR_VERSION) + field_bytes(7, top) + field_bytes(8, opset)


def deterministic_bytes(n, seed=b"plumb-malformed"):
    out = bytearray()
    block = hashlib.sha256(seed).digest()
    while len(out) < n:
        out += block
        block = hashlib.sha256(block).digest()
    return bytes(out[:n])


# --------------------------------------------------------------------------
# Cases: each returns {filename: bytes}
# --------------------------------------------------------------------------

def case_truncated():
    full = relu_model().SerializeToString()
    return {"truncated.onnx": full[:len(full) // 2]}


def case_random():
    # Fixed pseudo-random bytes (a SHA-256 chain): the same on every machine.
    return {"random.onnx": deterministic_bytes(4096)}


def case_empty():
    return {"empty.onnx": b""}


def case_trailing_garbage():
    return {"trailing_garbage.onnx":
            relu_model().SerializeToString() + b"\x00\x00\x00\x00"}


def case_no_graph():
    m = onnx.ModelProto()
    m.ir_version = IR_VERSION
    m.opset_import.add().version = OPSET
    return {"no_graph.onnx": m.SerializeToString()}


def case_directory():
    return {"directory.onnx/": None}


def case_cycle2():
    nodes = [helper.make_node("Add", ["x", "b"], ["a"], name="a"),
             helper.make_node("Mul", ["a", "x"], ["b"], name="b"),
             helper.make_node("Relu", ["b"], ["y"], name="out")]
    return {"cycle2.onnx": model(nodes, [fvi("x", [1, 4])],
                                 [fvi("y", [1, 4])]).SerializeToString()}


def case_cycle4():
    # out <- c3 ; c1 = Add(x, c4) ; c2 = Relu(c1) ; c3 = Neg(c2) ; c4 = Abs(c3)
    nodes = [helper.make_node("Relu", ["c3"], ["y"], name="out"),
             helper.make_node("Relu", ["c1"], ["c2"], name="c2"),
             helper.make_node("Add", ["x", "c4"], ["c1"], name="c1"),
             helper.make_node("Neg", ["c2"], ["c3"], name="c3"),
             helper.make_node("Abs", ["c3"], ["c4"], name="c4")]
    return {"cycle4.onnx": model(nodes, [fvi("x", [1, 4])],
                                 [fvi("y", [1, 4])]).SerializeToString()}


def case_undefined():
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="a"),
             helper.make_node("Add", ["a", "foo"], ["y"], name="add")]
    return {"undefined.onnx": model(nodes, [fvi("x", [1, 4])],
                                    [fvi("y", [1, 4])]).SerializeToString()}


def case_defined_twice():
    nodes = [helper.make_node("Relu", ["x"], ["t"], name="first"),
             helper.make_node("Neg", ["x"], ["t"], name="second"),
             helper.make_node("Abs", ["t"], ["y"], name="out")]
    return {"defined_twice.onnx": model(nodes, [fvi("x", [1, 4])],
                                        [fvi("y", [1, 4])]).SerializeToString()}


def case_duplicate_names():
    """Names given twice (the graph hash would depend on which one wins):
    two graph inputs, two initializers with different contents, and a node
    output that redefines a graph input."""
    add = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    w1 = numpy_helper.from_array(np.ones(2, np.float32), "w")
    w2 = numpy_helper.from_array(np.zeros(2, np.float32), "w")
    out = {}
    out["dup_input.onnx"] = model([add], [fvi("x", [2]), fvi("x", [2])],
                                  [fvi("y", [2])], [w1]).SerializeToString()
    out["dup_initializer.onnx"] = model([add], [fvi("x", [2])], [fvi("y", [2])],
                                        [w1, w2]).SerializeToString()
    neg = helper.make_node("Neg", ["y"], ["x"], name="neg")
    out["output_is_input.onnx"] = model([add, neg], [fvi("x", [2])],
                                        [fvi("y", [2])],
                                        [w1]).SerializeToString()
    return out


def case_conv_strides_float():
    w = numpy_helper.from_array(np.ones((1, 1, 3, 3), dtype=np.float32), "w")
    conv = helper.make_node("Conv", ["x", "w"], ["y"], name="c")
    conv.attribute.append(helper.make_attribute("strides", 1.0))
    assert conv.attribute[0].type == onnx.AttributeProto.FLOAT
    return {"conv_strides_float.onnx":
            model([conv], [fvi("x", [1, 1, 5, 5])], [fvi("y", [1, 1, 3, 3])],
                  [w]).SerializeToString()}


def case_dims_overflow():
    t = TensorProto()
    t.name = "w"
    t.data_type = TensorProto.FLOAT
    t.dims.extend([1 << 62, 1 << 62])
    t.raw_data = b"\x00" * 4
    return {"dims_overflow.onnx":
            add_with_initializer(t).SerializeToString()}


def case_negative_dim():
    t = TensorProto()
    t.name = "w"
    t.data_type = TensorProto.FLOAT
    t.dims.extend([2, -3])
    t.raw_data = b"\x00" * 24
    return {"negative_dim.onnx": add_with_initializer(t).SerializeToString()}


def case_raw_size():
    t = TensorProto()
    t.name = "w"
    t.data_type = TensorProto.FLOAT
    t.dims.extend([2, 3])
    t.raw_data = b"\x00" * 20
    return {"raw_size.onnx": add_with_initializer(t).SerializeToString()}


def case_typed_size():
    t = helper.make_tensor("w", TensorProto.FLOAT, [5], [1, 2, 3, 4, 5])
    del t.dims[:]
    t.dims.extend([2, 3])
    return {"typed_size.onnx": add_with_initializer(t).SerializeToString()}


EXT_DATA = np.arange(4, dtype="<f4").tobytes()  # 16 bytes


def case_ext_parent():
    return {"ext_parent.onnx": external_model("../x.bin").SerializeToString()}


def case_ext_absolute():
    return {"ext_absolute.onnx":
            external_model("/etc/passwd").SerializeToString()}


def case_ext_missing():
    return {"ext_missing.onnx":
            external_model("missing.bin").SerializeToString()}


def case_ext_offset():
    return {"ext_offset.onnx":
            external_model("ext.bin", offset=64).SerializeToString(),
            "ext.bin": EXT_DATA}


def case_ext_length():
    return {"ext_length.onnx":
            external_model("ext.bin", offset=8, length=16).SerializeToString(),
            "ext.bin": EXT_DATA}


def case_ext_ok():
    return {"ext_ok.onnx": external_model("ext.bin").SerializeToString(),
            "ext.bin": EXT_DATA}


def case_relu_chain():
    n = 100000
    nodes = []
    for i in range(n):
        src = "x" if i == 0 else "t%d" % (i - 1)
        dst = "y" if i == n - 1 else "t%d" % i
        nodes.append(helper.make_node("Relu", [src], [dst], name="r%d" % i))
    return {"relu_chain.onnx": model(nodes, [fvi("x", [1, 4])],
                                     [fvi("y", [1, 4])]).SerializeToString()}


def case_nested_if():
    return {"nested_if.onnx": nested_if_bytes(70)}


def case_f64_input():
    return {"f64_input.onnx":
            model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                  [fvi("x", [1, 4], TensorProto.DOUBLE)],
                  [fvi("y", [1, 4], TensorProto.DOUBLE)]).SerializeToString()}


def case_opset30():
    return {"opset30.onnx":
            model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                  [fvi("x", [1, 4])], [fvi("y", [1, 4])],
                  opset=30).SerializeToString()}


def case_free_dim():
    return {"free_dim.onnx":
            model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                  [fvi("x", ["batch", 4])],
                  [fvi("y", ["batch", 4])]).SerializeToString()}


def case_valid():
    return {"valid.onnx":
            model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                  [fvi("x", [1, 4])], [fvi("y", [1, 4])]).SerializeToString()}


def case_unknown_ops():
    nodes = [helper.make_node("Foo", ["x"], ["t"], name="a"),
             helper.make_node("Bar", ["t"], ["y"], name="b")]
    return {"unknown_ops.onnx": model(nodes, [fvi("x", [1, 4])],
                                      [fvi("y", [1, 4])]).SerializeToString()}


def case_ir13_types():
    """The data types of IR 9 to 13 (float8, int4, float4, e8m0, int2), each
    where a tensor can hold it: graph input, initializer, Constant, Cast."""
    out = {}
    relu = [helper.make_node("Relu", ["x"], ["y"], name="r")]
    for t in ("FLOAT8E4M3FN", "FLOAT8E5M2FNUZ", "UINT4", "INT2"):
        elem = getattr(TensorProto, t)
        m = model(relu, [fvi("x", [1, 4], elem)], [fvi("y", [1, 4], elem)],
                  opset=25)
        m.ir_version = 13
        out["input_%s.onnx" % t.lower()] = m.SerializeToString()
    # Initializer of type INT4 (22), raw data of two packed nibbles.
    w = TensorProto()
    w.name = "w4"
    w.data_type = TensorProto.INT4
    w.dims.extend([2, 2])
    w.raw_data = bytes([0x21, 0x43])
    m = model([helper.make_node("Add", ["x", "w4"], ["y"], name="add")],
              [fvi("x", [2, 2])], [fvi("y", [2, 2])], [w], opset=25)
    m.ir_version = 13
    out["initializer_int4.onnx"] = m.SerializeToString()
    # Constant holding FLOAT4E2M1 (23).
    c = TensorProto()
    c.data_type = TensorProto.FLOAT4E2M1
    c.dims.extend([2])
    c.raw_data = bytes([0x21])
    m = model([helper.make_node("Constant", [], ["c"], name="k", value=c),
               helper.make_node("Add", ["x", "c"], ["y"], name="add")],
              [fvi("x", [2])], [fvi("y", [2])], opset=25)
    m.ir_version = 13
    out["constant_float4.onnx"] = m.SerializeToString()
    # Cast to FLOAT8E8M0 (24), with the opset-24 attributes.
    m = model([helper.make_node("Cast", ["x"], ["y"], name="c",
                                to=TensorProto.FLOAT8E8M0, saturate=1,
                                round_mode="up")],
              [fvi("x", [2])], [fvi("y", [2], TensorProto.FLOAT8E8M0)],
              opset=25)
    m.ir_version = 13
    out["cast_e8m0.onnx"] = m.SerializeToString()
    return out


def case_ir13_fields():
    """A valid model at IR 13 / opset 25 that uses the fields newer than the
    protos Plumb builds against: metadata_props on the model, graph, nodes,
    value infos, initializers and functions, a node's device_configurations
    and overload, the model's multi-device configuration, and an unused
    function with a default attribute. Plumb ignores them all."""
    w = numpy_helper.from_array(np.array([1.0, -2.0, 3.0, -4.0],
                                         dtype=np.float32).reshape(1, 4), "w")
    w.metadata_props.add(key="origin", value="weight")
    add = helper.make_node("Add", ["x", "w"], ["t"], name="add")
    add.metadata_props.add(key="pkg.torch.onnx.stack_trace", value="here")
    dc = add.device_configurations.add()
    dc.configuration_id = "two-gpus"
    relu = helper.make_node("Relu", ["t"], ["y"], name="r")
    relu.overload = ""
    x = fvi("x", [1, 4])
    x.metadata_props.add(key="role", value="input")
    m = model([add, relu], [x], [fvi("y", [1, 4])], [w], opset=25)
    m.graph.metadata_props.add(key="graph", value="main")
    m.metadata_props.add(key="model", value="ir13")
    cfg = m.configuration.add()
    cfg.name = "two-gpus"
    cfg.num_devices = 2
    f = helper.make_function("unused.dom", "F", ["a"], ["b"],
                             [helper.make_node("Neg", ["a"], ["b"])],
                             [helper.make_opsetid("", 25)],
                             attributes=[], overload="v2")
    f.attribute_proto.add().CopyFrom(helper.make_attribute("k", 3))
    f.metadata_props.add(key="f", value="meta")
    m.functions.append(f)
    m.opset_import.append(helper.make_opsetid("unused.dom", 1))
    m.ir_version = 13
    return {"ir13_fields.onnx": m.SerializeToString()}


def case_ir14():
    m = model([helper.make_node("Relu", ["x"], ["y"], name="r")],
              [fvi("x", [1, 4])], [fvi("y", [1, 4])], opset=25)
    m.ir_version = 14
    return {"ir14.onnx": m.SerializeToString()}


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items())
         if name.startswith("case_")}


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: gen.py OUTDIR [CASE...]\ncases: %s\n" %
                         " ".join(sorted(CASES)))
        return 2
    outdir = argv[1]
    names = argv[2:] or sorted(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        sys.stderr.write("gen.py: unknown case(s): %s\n" % ", ".join(unknown))
        return 2
    if os.path.exists(outdir) and not os.path.isdir(outdir):
        os.remove(outdir)
    os.makedirs(outdir, exist_ok=True)
    for name in names:
        for fname, data in CASES[name]().items():
            path = os.path.join(outdir, fname)
            if data is None:
                os.makedirs(path, exist_ok=True)
                continue
            with open(path, "wb") as f:
                f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
