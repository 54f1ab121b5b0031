# Type stubs of the plumb package (python/plumb/__init__.py and the native
# module plumb._plumb).
import os
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Union

import numpy

__version__: str
CONTRACT: str

class PlumbError(Exception): ...
class ModelError(PlumbError): ...
class InputError(PlumbError, ValueError): ...
class UsageError(PlumbError, ValueError): ...

class TensorInfo(NamedTuple):
    name: str
    shape: tuple
    dtype: numpy.dtype
    bound: bool = ...

class Node(NamedTuple):
    index: int
    id: str
    op: str
    gas: int

class CostRow(NamedTuple):
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
    op: str
    nodes: int
    gas: int
    flops: int
    bytes: int

class Cost:
    schedule: str
    graph_hash: str
    total_gas: int
    total_flops: int
    total_bytes: int
    nodes: List[CostRow]
    op_types: List[OpTypeCost]

class Result:
    @property
    def outputs(self) -> Dict[str, numpy.ndarray]: ...
    @property
    def output_hashes(self) -> Dict[str, str]: ...
    @property
    def trace_root(self) -> Optional[str]: ...
    @property
    def trace_nodes(self) -> int: ...

class Verdict:
    loser: str
    first_divergent_index: int
    node_id: str
    op: str
    rounds: int
    messages: int
    bytes_exchanged: int
    executed_nodes: int
    roots_agree: bool
    sub_node: bool
    divergent_chunk: int
    num_chunks: int
    chunk_rounds: int
    supplier: str
    referee_ms: float
    num_nodes: int
    graph_hash: str
    parties: Dict[str, Dict[str, Any]]
    log: List[str]

class Bundle:
    @property
    def path(self) -> str: ...
    @property
    def graph_hash(self) -> str: ...
    @property
    def inputs(self) -> List[TensorInfo]: ...
    @property
    def outputs(self) -> List[TensorInfo]: ...
    @property
    def nodes(self) -> List[Node]: ...
    def cost(self, schedule: Optional[str] = ...) -> Cost: ...
    def run(
        self,
        inputs: Union[Mapping[str, Any], Sequence[Any]],
        *,
        threads: int = ...,
        device: str = ...,
        interpret: bool = ...,
        trace: Union[str, os.PathLike, None] = ...,
        keep_tensors: bool = ...,
    ) -> Result: ...

ModelLike = Union[str, os.PathLike, bytes, Any]

def import_model(
    model: ModelLike,
    *,
    input_shapes: Optional[Mapping[str, Sequence[int]]] = ...,
    dims: Optional[Mapping[str, int]] = ...,
    input_values: Optional[Mapping[str, Any]] = ...,
    canonicalize: bool = ...,
) -> str: ...
def hash(
    model: ModelLike,
    *,
    input_shapes: Optional[Mapping[str, Sequence[int]]] = ...,
    dims: Optional[Mapping[str, int]] = ...,
    input_values: Optional[Mapping[str, Any]] = ...,
) -> str: ...
def compile(
    model: ModelLike,
    *,
    input_shapes: Optional[Mapping[str, Sequence[int]]] = ...,
    dims: Optional[Mapping[str, int]] = ...,
    input_values: Optional[Mapping[str, Any]] = ...,
    target: str = ...,
    output: Union[str, os.PathLike, None] = ...,
) -> Bundle: ...
def load(path: Union[str, os.PathLike]) -> Bundle: ...
def dispute(
    bundle: Union[Bundle, str, os.PathLike],
    *,
    party_a: Union[str, os.PathLike],
    party_b: Union[str, os.PathLike],
    names: Sequence[str] = ...,
    inputs: Union[Mapping[str, Any], Sequence[Any], None] = ...,
    timeout_ms: int = ...,
) -> Verdict: ...
def from_torch(
    module: Any,
    example_inputs: Any,
    *,
    output: Union[str, os.PathLike, None] = ...,
    **export_kwargs: Any,
) -> Bundle: ...
