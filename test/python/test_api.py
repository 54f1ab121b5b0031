"""Every function of the plumb module, on small generated models, against
the plumb tool's answers for the same model and inputs."""
import json
import os

import numpy as np
import pytest

import plumb
from conftest import FEATURES, cli_json, mlp_model, save_inputs


def test_version_and_contract(cli):
    assert plumb.CONTRACT == "plumb-det-v1"
    assert cli("--version").stdout.strip() == (
        f"plumb {plumb.__version__} (contract {plumb.CONTRACT})")


def test_hash_and_import_match_the_tool(cli, mlp_onnx):
    h = plumb.hash(mlp_onnx)
    assert h == cli("hash", mlp_onnx).stdout.strip().splitlines()[-1]
    assert len(h) == 64
    ir = plumb.import_model(mlp_onnx)
    assert ir == cli("import", mlp_onnx).stdout
    assert "plumb.fused" in ir
    raw = plumb.import_model(mlp_onnx, canonicalize=False)
    assert raw == cli("import", mlp_onnx, "--no-canonicalize").stdout
    assert raw != ir


def test_model_as_path_bytes_and_modelproto(mlp_onnx):
    proto = mlp_model()
    by_path = plumb.hash(mlp_onnx)
    assert plumb.hash(proto) == by_path
    assert plumb.hash(proto.SerializeToString()) == by_path
    import pathlib

    assert plumb.hash(pathlib.Path(mlp_onnx)) == by_path


def test_bundle_interface(cli, mlp_bundle, mlp_onnx):
    b = mlp_bundle
    assert b.graph_hash == plumb.hash(mlp_onnx)
    assert [(t.name, t.shape, t.dtype) for t in b.inputs] == [
        ("features", (1, 4), np.dtype("float32"))]
    assert [(t.name, t.shape, t.dtype) for t in b.outputs] == [
        ("probabilities", (1, 3), np.dtype("float32"))]
    table = cli_json(cli, "hash", mlp_onnx)["nodes"]
    assert [(n.index, n.id, n.op) for n in b.nodes] == [
        (n["index"], n["id"], n["op"]) for n in table]
    manifest = json.load(open(os.path.join(b.path, "manifest.json")))
    assert manifest["graph_hash"] == b.graph_hash


def test_cost_matches_the_tool(cli, mlp_bundle, mlp_onnx):
    want = cli_json(cli, "cost", mlp_onnx)
    c = mlp_bundle.cost()
    assert isinstance(c.total_gas, int)
    assert c.total_gas == want["total_gas"] == 484237
    assert c.schedule == want["schedule"]
    assert c.graph_hash == want["graph_hash"]
    assert [r._asdict() for r in c.nodes] == want["nodes"]
    assert [t._asdict() for t in c.op_types] == want["op_types"]
    assert sum(n.gas for n in mlp_bundle.nodes) == c.total_gas
    same = mlp_bundle.cost(want["schedule"])
    assert same.total_gas == c.total_gas


@pytest.mark.parametrize("threads", [1, 2])
def test_run_matches_the_tool(cli, tmp_path, mlp_bundle, threads):
    ins = save_inputs(str(tmp_path / "in"), [FEATURES])
    want = cli_json(cli, "run", mlp_bundle.path, "--inputs-dir", ins,
                    "--threads", threads)["outputs"][0]
    for inputs in ({"features": FEATURES}, [FEATURES], (FEATURES,)):
        r = mlp_bundle.run(inputs, threads=threads)
        out = r.outputs["probabilities"]
        assert out.dtype == np.float32 and out.shape == (1, 3)
        assert r.output_hashes == {"probabilities": want["sha256"]}
        assert r.trace_root is None
    np.testing.assert_allclose(out.sum(), 1.0, rtol=1e-6)


def test_interpreter_gives_the_same_bits(mlp_bundle):
    a = mlp_bundle.run({"features": FEATURES})
    b = mlp_bundle.run({"features": FEATURES}, interpret=True)
    assert a.outputs["probabilities"].tobytes() == b.outputs["probabilities"].tobytes()
    assert a.output_hashes == b.output_hashes


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("interpret", [False, True])
def test_trace_matches_the_tool(cli, tmp_path, mlp_bundle, threads, interpret):
    ins = save_inputs(str(tmp_path / "in"), [FEATURES])
    args = ["run", mlp_bundle.path, "--inputs-dir", ins, "--threads", threads,
            "--trace", tmp_path / "cli-trace"]
    if interpret:
        args.append("--interpret")
    want = cli_json(cli, *args)
    r = mlp_bundle.run({"features": FEATURES}, threads=threads,
                       interpret=interpret, trace=tmp_path / "py-trace")
    assert r.trace_root == want["trace"]["root"]
    assert r.trace_nodes == want["trace"]["nodes"] == 3
    assert r.output_hashes["probabilities"] == want["outputs"][0]["sha256"]
    py = json.load(open(tmp_path / "py-trace" / "trace.json"))
    tool = json.load(open(tmp_path / "cli-trace" / "trace.json"))
    for key in ("format", "version", "contract", "root", "graph_hash",
                "num_nodes", "inputs", "nodes"):
        assert py[key] == tool[key], key


def test_outputs_own_their_memory(mlp_bundle):
    r = mlp_bundle.run({"features": FEATURES})
    out = r.outputs["probabilities"]
    assert out.flags.owndata and out.flags.c_contiguous and out.flags.writeable
    again = mlp_bundle.run({"features": FEATURES}).outputs["probabilities"]
    assert again.ctypes.data != out.ctypes.data
    out[...] = 0  # the next run's output is another array
    assert again.sum() > 0


def test_inputs_are_read_in_place(mlp_bundle):
    x = np.ascontiguousarray(FEATURES)
    assert mlp_bundle._b._input_addresses({"features": x}) == [x.ctypes.data]
    strided = np.zeros((1, 8), np.float32)[:, ::2]
    strided[...] = FEATURES
    assert not strided.flags.c_contiguous
    (addr,) = mlp_bundle._b._input_addresses([strided])
    assert addr != strided.ctypes.data  # a C-order copy is made
    assert (mlp_bundle.run([strided]).output_hashes ==
            mlp_bundle.run([x]).output_hashes)


def test_compile_temporary_and_load(mlp_onnx, mlp_bundle):
    b = plumb.compile(mlp_onnx)
    folder = b.path
    assert os.path.isdir(folder) and b.graph_hash == mlp_bundle.graph_hash
    again = plumb.load(folder)
    assert again.run([FEATURES]).output_hashes == b.run([FEATURES]).output_hashes
    del b, again
    import gc

    gc.collect()
    assert not os.path.exists(folder)


def test_compile_records_the_tool_manifest(cli, tmp_path, mlp_onnx):
    plumb.compile(mlp_onnx, output=tmp_path / "py.plumb")
    cli("compile", mlp_onnx, "-o", tmp_path / "cli.plumb", "--target", "cpu", "--quiet")
    py = json.load(open(tmp_path / "py.plumb" / "manifest.json"))
    tool = json.load(open(tmp_path / "cli.plumb" / "manifest.json"))
    for key in ("graph_hash", "contract", "nodes", "inputs", "outputs", "gas",
                "weights", "memory", "source"):
        assert py[key] == tool[key], key
    # Every file but the library the compiler built is byte for byte the tool's.
    files = {k: v for k, v in py["files"].items() if not k.endswith(".so")}
    assert files == {k: v for k, v in tool["files"].items() if not k.endswith(".so")}
    assert "cpu/model.cpp" in files


def test_import_options(cli, tmp_path, mixed_onnx):
    k = np.array([3], np.int32)
    h = plumb.hash(mixed_onnx, input_values={"k": k})
    assert h == cli("hash", mixed_onnx, "--input-value", "k=3").stdout.split()[-1]
    assert h != plumb.hash(mixed_onnx)
    b = plumb.compile(mixed_onnx, input_values={"k": 3}, output=tmp_path / "m.plumb")
    assert [t.bound for t in b.inputs] == [False, False, True, False]
    assert [t.dtype for t in b.inputs] == [np.dtype(d) for d in
                                          ("float32", "int64", "int32", "bool")]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    n = np.array([[1, 2, 3], [4, 5, 6]], np.int64)
    m = np.array([[True, False, True], [False, True, True]])
    r = b.run({"x": x, "n": n, "m": m})  # the bound input may be omitted
    np.testing.assert_array_equal(r.outputs["y"], np.where(m, (x + n) * 3, 0))
    np.testing.assert_array_equal(r.outputs["z"], n + n)
    assert r.output_hashes == b.run({"x": x, "n": n, "k": k, "m": m}).output_hashes
    ins = save_inputs(str(tmp_path / "in"), [x, n, k, m])
    want = cli_json(cli, "run", b.path, "--inputs-dir", ins)["outputs"]
    assert r.output_hashes == {o["name"]: o["sha256"] for o in want}


def test_input_shapes_and_dims(cli, tmp_path):
    from conftest import make_model

    free = make_model("""
<ir_version: 8, opset_import: ["" : 13]>
free (float[N, 4] x) => (float[N, 4] y)
{
    y = Relu (x)
}
""")
    shaped = plumb.hash(free, input_shapes={"x": (2, 4)})
    assert shaped == plumb.hash(free, dims={"N": 2})
    path = str(tmp_path / "free.onnx")
    import onnx

    onnx.save(free, path)
    assert shaped == cli("hash", path, "--dim", "N=2").stdout.split()[-1]
    b = plumb.compile(free, dims={"N": 2})
    assert b.inputs[0].shape == (2, 4)


def test_dispute_matches_the_tool(cli, tmp_path, mlp_bundle):
    ins = save_inputs(str(tmp_path / "in"), [FEATURES])
    honest, faulty = tmp_path / "honest", tmp_path / "faulty"
    r = mlp_bundle.run({"features": FEATURES}, trace=honest, keep_tensors=True)
    cli("run", mlp_bundle.path, "--inputs-dir", ins, "--trace", faulty,
        "--keep-tensors", "--inject-fault", "node=1,bit=3")
    p = cli("dispute", mlp_bundle.path, "--party", f"A={honest}", "--party",
            f"B={faulty}", "--format", "json", check=False)
    assert p.returncode == 1  # a party lost
    want = json.loads(p.stdout)
    v = plumb.dispute(mlp_bundle, party_a=honest, party_b=faulty)
    assert v.loser == want["loser"] == "B"
    assert v.first_divergent_index == want["first_divergent_index"] == 1
    for key in ("node_id", "op", "rounds", "messages", "bytes_exchanged",
                "executed_nodes", "roots_agree", "sub_node", "divergent_chunk",
                "num_chunks", "chunk_rounds", "supplier", "num_nodes",
                "graph_hash", "log"):
        assert getattr(v, key) == want[key], key
    for name in ("A", "B"):
        for key in ("lost", "reason", "root", "claim", "bytes_sent", "bytes_received"):
            assert v.parties[name][key] == want["parties"][name][key], (name, key)
    assert v.parties["A"]["root"] == r.trace_root
    # The referee given the inputs; a path instead of a Bundle.
    v2 = plumb.dispute(mlp_bundle.path, party_a=honest, party_b=faulty,
                       inputs={"features": FEATURES})
    assert (v2.loser, v2.first_divergent_index) == ("B", 1)
    same = plumb.dispute(mlp_bundle, party_a=honest, party_b=honest,
                         names=("P", "Q"))
    assert same.loser == "none" and same.roots_agree


def test_gil_is_released(tmp_path):
    import threading
    import time

    from conftest import make_model

    big = make_model("""
<ir_version: 8, opset_import: ["" : 13]>
big (float[384, 384] a, float[384, 384] b) => (float[384, 384] c)
{
    m1 = MatMul (a, b)
    m2 = MatMul (m1, b)
    m3 = MatMul (m2, b)
    c = MatMul (m3, b)
}
""")
    bundle = plumb.compile(big)
    a = np.full((384, 384), 0.001, np.float32)
    bundle.run([a, a], interpret=True)
    t0 = time.perf_counter()
    bundle.run([a, a], interpret=True)
    single = time.perf_counter() - t0
    ticks = 0
    done = threading.Event()
    th = threading.Thread(target=lambda: (bundle.run([a, a], interpret=True), done.set()))
    th.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0)
    th.join()
    # The main thread kept running Python while the model ran.
    assert ticks > 10, (ticks, single)


def test_from_torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(),
                            torch.nn.Linear(8, 3)).eval()
    x = torch.randn(1, 4)
    b = plumb.from_torch(m, (x,), input_names=["x"], output_names=["y"])
    assert [(t.name, t.shape) for t in b.inputs] == [("x", (1, 4))]
    y = b.run([x.numpy()]).outputs["y"]
    np.testing.assert_allclose(y, m(x).detach().numpy(), rtol=1e-5, atol=1e-6)
