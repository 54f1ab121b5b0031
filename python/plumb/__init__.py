"""Plumb: ONNX models whose results are the same, bit for bit, on every machine.

The Python face of the Plumb library (not a wrapper around the ``plumb``
tool): compile a model into a verified bundle, run it (compiled, or with the
reference interpreter), price it in gas, record traces and settle disputes
between two traces. Every answer is the one ``plumb`` gives for the same
model and inputs: output hashes, trace roots, gas and verdicts. See
docs/python.md.
"""
from __future__ import annotations

import os
import tempfile
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Union

from . import _plumb
from ._plumb import (  # noqa: F401  (re-exported)
    CONTRACT,
    InputError,
    ModelError,
    PlumbError,
    Result,
    UsageError,
    __version__,
)

__all__ = [
    "__version__", "CONTRACT", "PlumbError", "ModelError", "InputError",
    "UsageError", "Bundle", "Result", "TensorInfo", "Node", "Cost", "CostRow",
    "OpTypeCost", "Verdict", "compile", "load", "dispute", "import_model",
    "hash", "from_torch",
]


class TensorInfo(NamedTuple):
    """An input or output of a model."""

    name: str
    shape: tuple
    dtype: Any  # numpy.dtype
    bound: bool = False  # fixed at import (input_values); may be omitted


class Node(NamedTuple):
    """A node of the canonical graph: its index, id (hex), op and gas."""

    index: int
    id: str
    op: str
    gas: int


class CostRow(NamedTuple):
    """One node's price (the rows of ``plumb cost --format json``)."""

    index: int
    id: str
    op: str
    shapes: str
    gas: int
    flops: int
    bytes: int
    macs: int
    elementwise: int
    transcendental: int
    compare: int
    indexed: int
    bytes_read: int
    bytes_written: int


class OpTypeCost(NamedTuple):
    """All nodes of one op type."""

    op: str
    nodes: int
    gas: int
    flops: int
    bytes: int


class Cost:
    """The gas of a model under one schedule (``plumb cost``)."""

    def __init__(self, d: Dict[str, Any]):
        self.schedule: str = d["schedule"]
        self.graph_hash: str = d["graph_hash"]
        self.total_gas: int = d["total_gas"]
        self.total_flops: int = d["total_flops"]
        self.total_bytes: int = d["total_bytes"]
        self.nodes: List[CostRow] = [CostRow(**r) for r in d["nodes"]]
        self.op_types: List[OpTypeCost] = [OpTypeCost(**t) for t in d["op_types"]]

    def __repr__(self) -> str:
        return (f"Cost(total_gas={self.total_gas}, schedule={self.schedule!r}, "
                f"nodes={len(self.nodes)})")


class Verdict:
    """The outcome of a dispute (``plumb dispute --format json``)."""

    def __init__(self, d: Dict[str, Any]):
        self.loser: str = d["loser"]
        self.first_divergent_index: int = d["first_divergent_index"]
        self.node_id: str = d["node_id"]
        self.op: str = d["op"]
        self.rounds: int = d["rounds"]
        self.messages: int = d["messages"]
        self.bytes_exchanged: int = d["bytes_exchanged"]
        self.executed_nodes: int = d["executed_nodes"]
        self.roots_agree: bool = d["roots_agree"]
        self.sub_node: bool = d["sub_node"]
        self.divergent_chunk: int = d["divergent_chunk"]
        self.num_chunks: int = d["num_chunks"]
        self.chunk_rounds: int = d["chunk_rounds"]
        self.supplier: str = d["supplier"]
        self.referee_ms: float = d["referee_ms"]
        self.num_nodes: int = d["num_nodes"]
        self.graph_hash: str = d["graph_hash"]
        self.parties: Dict[str, Dict[str, Any]] = d["parties"]
        self.log: List[str] = d["log"]

    def __repr__(self) -> str:
        return (f"Verdict(loser={self.loser!r}, first_divergent_index="
                f"{self.first_divergent_index}, op={self.op!r}, rounds={self.rounds})")


class Bundle:
    """A verified bundle (the folder ``plumb compile`` writes).

    Opening one checks it exactly as ``plumb run`` does: every file against
    the manifest, the graph hash, node table and gas recomputed from the IR,
    the weights and the C++ source re-derived and compared. The library a
    run needs is built from the re-derived source (or taken from the cache)
    the first time it is needed.
    """

    def __init__(self, native: Any, keep: Any = None):
        self._b = native
        self._keep = keep  # a temporary folder the bundle lives in

    @property
    def path(self) -> str:
        """The bundle folder."""
        return self._b.dir

    @property
    def graph_hash(self) -> str:
        """The graph hash (64 hex digits), as ``plumb hash`` prints it."""
        return self._b.graph_hash

    @property
    def inputs(self) -> List[TensorInfo]:
        """The model's inputs, in order."""
        return self._b.inputs(TensorInfo)

    @property
    def outputs(self) -> List[TensorInfo]:
        """The model's outputs, in order."""
        return self._b.outputs(TensorInfo)

    @property
    def nodes(self) -> List[Node]:
        """The nodes of the canonical graph, in canonical order."""
        return self._b.nodes(Node)

    def cost(self, schedule: Optional[str] = None) -> Cost:
        """The model's gas under ``schedule`` (default: the newest)."""
        return Cost(self._b.cost(schedule or ""))

    def run(self, inputs: Union[Mapping[str, Any], Sequence[Any]], *,
            threads: int = 1, device: str = "cpu", interpret: bool = False,
            trace: Union[str, os.PathLike, None] = None,
            keep_tensors: bool = False) -> Result:
        """Runs the model on ``inputs`` (a dict name -> array, or a list in
        input order) and returns a Result.

        An array of the right dtype in C order is read in place; the dtype
        and shape must be the input's exactly (InputError otherwise: Plumb
        never converts). ``threads`` never changes a bit. ``interpret`` runs
        the IR with the reference interpreter (what a referee runs).
        ``trace`` names a folder to write the run's trace to (the format of
        ``plumb run --trace``); ``keep_tensors`` also keeps every tensor (what
        a party needs in a dispute). The GIL is released while the model runs.
        """
        return self._b.run(inputs, threads=threads, device=device,
                           interpret=interpret, trace=trace,
                           keep_tensors=keep_tensors)

    def __repr__(self) -> str:
        return f"Bundle({self.path!r}, graph_hash={self.graph_hash[:16]}...)"


ModelLike = Union[str, os.PathLike, bytes, Any]


def _bindings(input_shapes: Optional[Mapping[str, Sequence[int]]],
              dims: Optional[Mapping[str, int]],
              input_values: Optional[Mapping[str, Any]]):
    """The import options in the tool's syntax."""
    shapes = []
    for name, shape in (input_shapes or {}).items():
        if isinstance(shape, int):
            shape = (shape,)
        shapes.append(f"{name}=" + "x".join(str(int(d)) for d in shape))
    ds = [f"{name}={int(n)}" for name, n in (dims or {}).items()]
    values = []
    for name, v in (input_values or {}).items():
        if hasattr(v, "tolist"):
            v = v.tolist()
        if isinstance(v, (list, tuple)):
            flat: List[Any] = []

            def walk(x: Any) -> None:
                if isinstance(x, (list, tuple)):
                    for y in x:
                        walk(y)
                else:
                    flat.append(x)

            walk(v)
            v = ",".join(_value_text(x) for x in flat)
        else:
            v = _value_text(v)
        values.append(f"{name}={v}")
    return shapes, ds, values


def _value_text(x: Any) -> str:
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, float):
        return repr(x)
    return str(x)


class _ModelFile:
    """A path to the model: the given one, or a temporary .onnx file holding
    the bytes (or serialised onnx.ModelProto) given."""

    def __init__(self, model: ModelLike):
        self._tmp: Optional[tempfile.TemporaryDirectory] = None
        if isinstance(model, (str, os.PathLike)):
            self.path = os.fspath(model)
            self.name = os.path.basename(self.path)
            return
        if hasattr(model, "SerializeToString"):  # an onnx.ModelProto
            model = model.SerializeToString()
        if isinstance(model, (bytearray, memoryview)):
            model = bytes(model)
        if not isinstance(model, bytes):
            raise TypeError("model must be a path, bytes or an onnx.ModelProto, "
                            f"not {type(model).__name__}")
        self._tmp = tempfile.TemporaryDirectory(prefix="plumb-model-")
        self.name = "model.onnx"
        self.path = os.path.join(self._tmp.name, self.name)
        with open(self.path, "wb") as f:
            f.write(model)

    def __enter__(self) -> "_ModelFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()


def import_model(model: ModelLike, *, input_shapes=None, dims=None,
                 input_values=None, canonicalize: bool = True) -> str:
    """The model's canonical plumb IR, as ``plumb import`` writes it."""
    with _ModelFile(model) as m:
        return _plumb.import_model(m.path, *_bindings(input_shapes, dims,
                                                      input_values),
                                   canonicalize)


def hash(model: ModelLike, *, input_shapes=None, dims=None,
         input_values=None) -> str:
    """The graph hash of the model's canonical form (``plumb hash``)."""
    with _ModelFile(model) as m:
        return _plumb.hash_model(m.path, *_bindings(input_shapes, dims,
                                                    input_values))


def compile(model: ModelLike, *, input_shapes=None, dims=None,
            input_values=None, target: str = "cpu",
            output: Union[str, os.PathLike, None] = None) -> Bundle:
    """Compiles ``model`` (a path to .onnx or .mlir, ONNX bytes or an
    onnx.ModelProto) into a bundle, as ``plumb compile`` does, and opens it.

    ``input_shapes`` maps an input name to its shape (a tuple), ``dims`` a
    symbolic dimension to its size, ``input_values`` an input to the value it
    is fixed to. ``target`` is cpu, cuda or all. ``output`` is the bundle
    folder; without it the bundle lives in a temporary folder as long as the
    returned Bundle does.
    """
    keep = None
    if output is None:
        keep = tempfile.TemporaryDirectory(prefix="plumb-bundle-")
        out = os.path.join(keep.name, "model.plumb")
    else:
        out = os.fspath(output)
    with _ModelFile(model) as m:
        _plumb.compile_model(m.path, *_bindings(input_shapes, dims,
                                                input_values),
                             target, out, m.name)
    return Bundle(_plumb._Bundle.open(out), keep)


def load(path: Union[str, os.PathLike]) -> Bundle:
    """Opens the bundle at ``path``, verified as ``plumb run`` verifies it."""
    return Bundle(_plumb._Bundle.open(os.fspath(path)))


def dispute(bundle: Union[Bundle, str, os.PathLike], *,
            party_a: Union[str, os.PathLike], party_b: Union[str, os.PathLike],
            names: Sequence[str] = ("A", "B"), inputs=None,
            timeout_ms: int = 20000) -> Verdict:
    """Settles a dispute between two traces of the bundle's model, as
    ``plumb dispute BUNDLE --party A=DIR --party B=DIR`` does; the parties
    answer from their trace folders (recorded with trace=DIR,
    keep_tensors=True) in this process. ``inputs`` are inputs the referee
    knows (a party that committed to others loses).
    """
    b = bundle if isinstance(bundle, Bundle) else load(bundle)
    if len(names) != 2:
        raise UsageError("a dispute needs exactly two party names")
    return Verdict(b._b.dispute(os.fspath(party_a), os.fspath(party_b),
                                names[0], names[1], inputs, timeout_ms))


def from_torch(module: Any, example_inputs: Any, *,
               output: Union[str, os.PathLike, None] = None,
               **export_kwargs: Any) -> Bundle:
    """Exports a torch.nn.Module with torch.onnx.export (``export_kwargs``
    go to it; opset_version defaults to 17, the newest Plumb imports) and
    compiles the ONNX model. Needs torch."""
    try:
        import torch  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise PlumbError("from_torch needs torch (pip install torch)") from e
    import io

    if not isinstance(example_inputs, tuple):
        example_inputs = (example_inputs,)
    export_kwargs.setdefault("opset_version", 17)
    buf = io.BytesIO()
    torch.onnx.export(module, example_inputs, buf, **export_kwargs)
    return compile(buf.getvalue(), output=output)
