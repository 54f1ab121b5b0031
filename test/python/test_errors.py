"""Every error path of the plumb module: its exception class and the
message (the plumb tool's, naming the input or node)."""
import json
import os
import shutil

import numpy as np
import pytest

import plumb
from conftest import FEATURES, make_model


def test_exception_classes():
    assert issubclass(plumb.ModelError, plumb.PlumbError)
    assert issubclass(plumb.InputError, plumb.PlumbError)
    assert issubclass(plumb.InputError, ValueError)
    assert issubclass(plumb.UsageError, ValueError)


def test_wrong_input_name(mlp_bundle):
    with pytest.raises(plumb.InputError,
                       match="inputs name 'feature', which is not an input of the model"):
        mlp_bundle.run({"feature": FEATURES})


def test_missing_input(mlp_bundle):
    with pytest.raises(plumb.InputError, match=r"no value for input 'features' \(#0\)"):
        mlp_bundle.run({})


def test_wrong_count(mlp_bundle):
    with pytest.raises(plumb.InputError, match="the model has 1 inputs, 2 were given"):
        mlp_bundle.run([FEATURES, FEATURES])


def test_wrong_dtype(mlp_bundle):
    with pytest.raises(plumb.InputError,
                       match=r"input 'features' must be float32\[1x4\], got float64\[1x4\]"):
        mlp_bundle.run([FEATURES.astype(np.float64)])
    with pytest.raises(plumb.InputError,
                       match=r"input 'features' must be float32\[1x4\], got int32\[1x4\]"):
        mlp_bundle.run([FEATURES.astype(np.int32)])
    with pytest.raises(ValueError):  # InputError is a ValueError
        mlp_bundle.run([[0.5, 1.0, 2.0, 3.0]])  # a list of floats is float64


def test_wrong_shape(mlp_bundle):
    with pytest.raises(plumb.InputError,
                       match=r"input 'features' must be float32\[1x4\], got float32\[4\]"):
        mlp_bundle.run([FEATURES[0]])


def test_not_inputs(mlp_bundle):
    with pytest.raises(plumb.InputError, match="inputs must be a dict"):
        mlp_bundle.run(3)
    with pytest.raises(plumb.InputError,
                       match=r"input 'features' must be float32\[1x4\], got object\[1\]"):
        mlp_bundle.run([object()])


def test_bound_input_must_equal_its_value(tmp_path, mixed_onnx):
    b = plumb.compile(mixed_onnx, input_values={"k": 3})
    x = np.zeros((2, 3), np.float32)
    n = np.zeros((2, 3), np.int64)
    m = np.zeros((2, 3), bool)
    with pytest.raises(plumb.InputError,
                       match="input 'k' was fixed at import .* must equal the bound value"):
        b.run({"x": x, "n": n, "m": m, "k": np.array([4], np.int32)})


def test_bad_model(tmp_path):
    with pytest.raises(plumb.ModelError, match="cannot load"):
        plumb.compile(str(tmp_path / "absent.mlir"))
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(plumb.ModelError, match="bad.onnx"):
        plumb.hash(str(bad))
    with pytest.raises(plumb.ModelError):
        plumb.import_model(b"\x08\x01garbage")
    with pytest.raises(TypeError, match="model must be a path, bytes or an onnx.ModelProto"):
        plumb.compile(42)


def test_unsupported_operator_names_the_node(tmp_path):
    m = make_model("""
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y)
{
    y = ImageDecoder (x)
}
""")
    with pytest.raises(plumb.ModelError, match="ImageDecoder"):
        plumb.compile(m)


def test_bad_import_options(mixed_onnx):
    with pytest.raises(plumb.UsageError, match="not an input of the model"):
        plumb.hash(mixed_onnx, input_shapes={"nope": (1,)})
    with pytest.raises(plumb.UsageError, match="needs 1"):
        plumb.hash(mixed_onnx, input_values={"k": [1, 2]})
    with pytest.raises(plumb.UsageError, match="--input-shape, --dim and --input-value apply to .onnx"):
        plumb.hash(os.path.join(os.path.dirname(__file__), "absent.mlir"), dims={"N": 1})


def test_bad_run_arguments(mlp_bundle, tmp_path):
    with pytest.raises(plumb.UsageError, match="device must be cpu or cuda"):
        mlp_bundle.run([FEATURES], device="tpu")
    with pytest.raises(plumb.UsageError, match="cannot be combined with device cuda"):
        mlp_bundle.run([FEATURES], device="cuda", interpret=True)
    with pytest.raises(plumb.UsageError, match="threads must be a number from 1 to 1024"):
        mlp_bundle.run([FEATURES], threads=0)
    with pytest.raises(plumb.UsageError, match="keep_tensors needs trace=DIR"):
        mlp_bundle.run([FEATURES], keep_tensors=True)
    with pytest.raises(plumb.UsageError, match="target must be cpu, cuda or all"):
        plumb.compile(os.fspath(tmp_path / "x.onnx"), target="tpu")


def test_refused_bundles(tmp_path, mlp_bundle):
    with pytest.raises(plumb.ModelError, match="refusing bundle .* is not a Plumb bundle"):
        plumb.load(tmp_path)
    copy = tmp_path / "copy.plumb"
    shutil.copytree(mlp_bundle.path, copy)
    with open(copy / "cpu" / "model.cpp", "a") as f:
        f.write("// changed\n")
    with pytest.raises(plumb.ModelError,
                       match="bundle file 'cpu/model.cpp' does not match its SHA-256"):
        plumb.load(copy)


def test_dispute_errors(tmp_path, mlp_bundle):
    good = tmp_path / "good"
    mlp_bundle.run([FEATURES], trace=good, keep_tensors=True)
    with pytest.raises(plumb.UsageError, match="party B: '.*' is not a trace folder"):
        plumb.dispute(mlp_bundle, party_a=good, party_b=tmp_path)
    with pytest.raises(plumb.UsageError, match="party 'A' is given twice"):
        plumb.dispute(mlp_bundle, party_a=good, party_b=good, names=("A", "A"))
    other = tmp_path / "other"
    mlp_bundle.run([FEATURES * 2], trace=other, keep_tensors=True)
    with pytest.raises(plumb.UsageError, match="the parties committed to different inputs"):
        plumb.dispute(mlp_bundle, party_a=good, party_b=other)
    # Given the inputs, the referee knows who ran the others.
    v = plumb.dispute(mlp_bundle, party_a=good, party_b=other, inputs=[FEATURES])
    assert v.loser == "B" and "committed to input 0" in v.parties["B"]["reason"]
