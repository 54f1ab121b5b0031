"""The plumb module on the real models in ../shared/models (skipped where
they are absent): the same output hashes and trace roots as the plumb tool
at 1 and 2 threads, compiled and interpreted, and outputs close to the
references shipped with the models."""
import glob
import os

import numpy as np
import pytest

import plumb
from conftest import cli_json

# Small enough to compile in seconds; between them every dtype path of a
# real model's inputs (float32; int32 tokens).
MODELS = ["mnist-8", "magika_standard_v3_3"]
# The import options each needs (as the lit tests give them).
DIMS = {"magika_standard_v3_3": {"unk__214": 1}}


def dim_args(name):
    return [a for k, v in DIMS.get(name, {}).items() for a in ("--dim", f"{k}={v}")]


def read_pb(path):
    import onnx
    from onnx import numpy_helper

    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


@pytest.fixture(scope="module", params=MODELS)
def model(request, models, tmp_path_factory):
    name = request.param
    data = os.path.join(models, "testdata", name, "test_data_set_0")
    bundle = plumb.compile(os.path.join(models, name + ".onnx"),
                           dims=DIMS.get(name), output=tmp_path_factory.mktemp(name) / "m.plumb")
    inputs = [read_pb(p) for p in sorted(glob.glob(os.path.join(data, "input_*.pb")))]
    outputs = [read_pb(p) for p in sorted(glob.glob(os.path.join(data, "output_*.pb")))]
    return name, bundle, data, inputs, outputs


@pytest.mark.parametrize("threads", [1, 2])
def test_same_bits_as_the_tool(cli, tmp_path, model, threads):
    name, bundle, data, inputs, _ = model
    want = cli_json(cli, "run", bundle.path, "--inputs-dir", data, "--threads",
                    threads, "--trace", tmp_path / "cli")
    hashes = {o["name"]: o["sha256"] for o in want["outputs"]}
    r = bundle.run(inputs, threads=threads, trace=tmp_path / "py")
    assert r.output_hashes == hashes
    assert r.trace_root == want["trace"]["root"]
    plain = bundle.run(dict(zip([t.name for t in bundle.inputs], inputs)),
                       threads=threads)
    assert plain.output_hashes == hashes
    interpreted = bundle.run(inputs, threads=threads, interpret=True)
    assert interpreted.output_hashes == hashes


def test_close_to_the_reference(model):
    name, bundle, _, inputs, refs = model
    r = bundle.run(inputs)
    for (out_name, got), ref in zip(r.outputs.items(), refs):
        np.testing.assert_allclose(got, ref, rtol=1e-3, atol=1e-3 if name == "mnist-8" else 1e-5,
                                   err_msg=f"{name} {out_name}")


def test_cost_and_hash_as_the_tool(cli, model, models):
    name, bundle, _, _, _ = model
    path = os.path.join(models, name + ".onnx")
    want = cli_json(cli, "cost", path, *dim_args(name))
    assert bundle.cost().total_gas == want["total_gas"]
    assert [r._asdict() for r in bundle.cost().nodes] == want["nodes"]
    assert plumb.hash(path, dims=DIMS.get(name)) == bundle.graph_hash == want["graph_hash"]
