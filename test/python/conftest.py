"""Fixtures of the Python module's tests: the plumb tool they compare with,
the shared models, small generated models, and running the tool.

The tool is $PLUMB_BIN, else build/bin/plumb of this checkout; tests that
compare with it are skipped where neither exists (an installed wheel).
Bundles and libraries are cached in a folder of the session
($PLUMB_CACHE_DIR), never in $HOME.
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.normpath(os.path.join(ROOT, "..", "shared", "models"))


def _plumb_bin():
    p = os.environ.get("PLUMB_BIN") or os.path.join(
        os.environ.get("PLUMB_BUILD_DIR", os.path.join(ROOT, "build")), "bin", "plumb")
    return p if os.path.exists(p) else None


@pytest.fixture(scope="session", autouse=True)
def _cache(tmp_path_factory):
    if "PLUMB_CACHE_DIR" not in os.environ:
        os.environ["PLUMB_CACHE_DIR"] = str(tmp_path_factory.mktemp("plumb-cache"))


@pytest.fixture(scope="session")
def cli():
    """Runs the plumb tool: cli(args...) -> CompletedProcess (text)."""
    exe = _plumb_bin()
    if exe is None:
        pytest.skip("no plumb tool to compare with (set PLUMB_BIN)")

    def run(*args, check=True):
        p = subprocess.run([exe, *map(str, args)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if check and p.returncode != 0:
            raise AssertionError(f"plumb {' '.join(map(str, args))} exited "
                                 f"{p.returncode}:\n{p.stderr}")
        return p

    run.exe = exe
    return run


def cli_json(cli, *args):
    return json.loads(cli(*args, "--format", "json").stdout)


@pytest.fixture(scope="session")
def models():
    if not os.path.isdir(MODELS):
        pytest.skip("../shared/models is absent")
    return MODELS


def mlp_model():
    """examples/mlp.onnxtxt as an onnx.ModelProto."""
    import onnx.parser

    with open(os.path.join(ROOT, "examples", "mlp.onnxtxt")) as f:
        return onnx.parser.parse_model(f.read())


def make_model(text):
    import onnx.parser

    return onnx.parser.parse_model(text)


# A model with every dtype Plumb has, an int input fixed at import and two
# outputs: x float[2,3], n int64[2,3], k int32[1] (bindable), m bool[2,3].
MIXED = """
<ir_version: 8, opset_import: ["" : 13]>
mixed (float[2, 3] x, int64[2, 3] n, int32[1] k, bool[2, 3] m) => (float[2, 3] y, int64[2, 3] z)
{
    nf = Cast <to = 1> (n)
    kf = Cast <to = 1> (k)
    s = Add (x, nf)
    t = Mul (s, kf)
    zero = Constant <value = float {0.0}> ()
    y = Where (m, t, zero)
    z = Add (n, n)
}
"""


@pytest.fixture(scope="session")
def mlp_onnx(tmp_path_factory):
    import onnx

    p = tmp_path_factory.mktemp("mlp") / "mlp.onnx"
    onnx.save(mlp_model(), str(p))
    return str(p)


@pytest.fixture(scope="session")
def mixed_onnx(tmp_path_factory):
    import onnx

    p = tmp_path_factory.mktemp("mixed") / "mixed.onnx"
    onnx.save(make_model(MIXED), str(p))
    return str(p)


@pytest.fixture(scope="session")
def mlp_bundle(tmp_path_factory, mlp_onnx):
    import plumb

    return plumb.compile(mlp_onnx, output=tmp_path_factory.mktemp("b") / "mlp.plumb")


FEATURES = np.array([[0.5, -1.25, 2.0, 0.75]], dtype=np.float32)


def save_inputs(folder, arrays):
    """input_<i>.npy files for --inputs-dir."""
    os.makedirs(folder, exist_ok=True)
    for i, a in enumerate(arrays):
        np.save(os.path.join(folder, f"input_{i}.npy"), a)
    return folder
