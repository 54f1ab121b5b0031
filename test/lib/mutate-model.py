#!/usr/bin/env python3
"""Writes variants of an ONNX model for graph-identity tests.

Usage: mutate-model.py MODEL.onnx OUTDIR [--seed N]

Variants that must keep the canonical IR and graph hash (same-*.onnx):
  order       nodes in another random topological order
  names       every node renamed and every internal tensor renamed
  inits       initializers shuffled
  meta        doc strings, producer, model version and metadata changed
  constnodes  initializers turned into Constant nodes (and back when the
              model already had Constant nodes)
  all         all of the above at once
Variants that must change the hash (diff-*.onnx):
  ulp         one float weight changed by one ulp
  attr        one attribute changed (BatchNormalization epsilon, Gemm or
              LeakyRelu alpha), or else one Add turned into Sub
  rewire      one node input rewired to another tensor of the same type
"""
import argparse
import copy
import os
import random
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def topo_shuffle(graph, rng):
    produced = {}
    for i, n in enumerate(graph.node):
        for o in n.output:
            produced[o] = i
    deps = []
    for n in graph.node:
        d = set()
        names = list(n.input)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                names += [x for sub in [a.g] for node in sub.node for x in node.input]
        for x in names:
            if x in produced:
                d.add(produced[x])
        deps.append(d)
    done, order = set(), []
    remaining = list(range(len(graph.node)))
    while remaining:
        ready = [i for i in remaining if deps[i] <= done]
        pick = rng.choice(ready)
        order.append(pick)
        done.add(pick)
        remaining.remove(pick)
    nodes = [copy.deepcopy(graph.node[i]) for i in order]
    del graph.node[:]
    graph.node.extend(nodes)


def rename(graph, rng):
    keep = {v.name for v in graph.input} | {v.name for v in graph.output}
    keep |= {i.name for i in graph.initializer}
    mapping = {}
    for n in graph.node:
        for o in n.output:
            if o and o not in keep:
                mapping[o] = "t%08x" % rng.getrandbits(32)
    for n in graph.node:
        n.name = "n%08x" % rng.getrandbits(32)
        n.input[:] = [mapping.get(x, x) for x in n.input]
        n.output[:] = [mapping.get(x, x) for x in n.output]
        # Subgraphs may read the renamed tensors from the enclosing scope.
        for sub in subgraphs(n):
            rename_refs(sub, mapping)
    for vi in graph.value_info:
        vi.name = mapping.get(vi.name, vi.name)


def subgraphs(node):
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            yield a.g
        for g in a.graphs:
            yield g


def rename_refs(graph, mapping):
    local = {o for n in graph.node for o in n.output}
    for n in graph.node:
        n.input[:] = [x if x in local else mapping.get(x, x) for x in n.input]
        for sub in subgraphs(n):
            rename_refs(sub, {k: v for k, v in mapping.items() if k not in local})
    for o in graph.output:
        if o.name not in local and o.name in mapping:
            o.name = mapping[o.name]


def float_constants(graph):
    """Float tensors of initializers and Constant nodes, subgraphs included."""
    out = [i for i in graph.initializer if i.data_type == onnx.TensorProto.FLOAT]
    for n in graph.node:
        if n.op_type == "Constant":
            for at in n.attribute:
                if at.name == "value" and at.t.data_type == onnx.TensorProto.FLOAT:
                    out.append(at.t)
        for sub in subgraphs(n):
            out += float_constants(sub)
    return out


def to_constant_nodes(graph):
    inputs = {v.name for v in graph.input}
    moved = [i for i in graph.initializer if i.name not in inputs]
    if not moved:
        return
    nodes = [helper.make_node("Constant", [], [i.name], value=i) for i in moved]
    keep = [i for i in graph.initializer if i.name in inputs]
    del graph.initializer[:]
    graph.initializer.extend(keep)
    rest = list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes + rest)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    base = onnx.load(a.model)
    os.makedirs(a.outdir, exist_ok=True)

    def save(name, m):
        onnx.save(m, os.path.join(a.outdir, name + ".onnx"))

    m = copy.deepcopy(base); topo_shuffle(m.graph, rng); save("same-order", m)
    m = copy.deepcopy(base); rename(m.graph, rng); save("same-names", m)
    m = copy.deepcopy(base)
    inits = list(m.graph.initializer); rng.shuffle(inits)
    del m.graph.initializer[:]; m.graph.initializer.extend(inits); save("same-inits", m)
    m = copy.deepcopy(base)
    m.doc_string = "changed"; m.producer_name = "someone-else"; m.producer_version = "9"
    m.model_version = 42; m.graph.doc_string = "other"
    for n in m.graph.node:
        n.doc_string = "doc"
    helper.set_model_props(m, {"key": "value"}); save("same-meta", m)
    m = copy.deepcopy(base); to_constant_nodes(m.graph); save("same-constnodes", m)
    m = copy.deepcopy(base)
    to_constant_nodes(m.graph); topo_shuffle(m.graph, rng); rename(m.graph, rng)
    m.doc_string = "x"; save("same-all", m)

    # Models whose work sits in If branches (one of them removed at import
    # when the condition is bound) get each mutation in every graph, so the
    # branch that survives is always changed.
    def graphs(g):
        yield g
        for n in g.node:
            for sub in subgraphs(n):
                yield from graphs(sub)

    # One ulp in the largest float weight of each graph.
    m = copy.deepcopy(base)
    done = False
    for g in graphs(m.graph):
        local = [i for i in g.initializer if i.data_type == onnx.TensorProto.FLOAT]
        local += [at.t for n in g.node if n.op_type == "Constant"
                  for at in n.attribute
                  if at.name == "value" and at.t.data_type == onnx.TensorProto.FLOAT]
        if not local:
            continue
        t = max(local, key=lambda x: int(np.prod(x.dims)) if len(x.dims) else 1)
        arr = numpy_helper.to_array(t).copy()
        flat = arr.reshape(-1)
        k = len(flat) // 2
        flat[k] = np.nextafter(flat[k], np.float32(np.inf))
        t.CopyFrom(numpy_helper.from_array(arr, t.name))
        done = True
    if done:
        save("diff-ulp", m)

    # An attribute that keeps every shape (BatchNormalization epsilon, Gemm or
    # LeakyRelu alpha), else an Add turned into Sub, in every graph.
    m = copy.deepcopy(base)
    done = False
    for g in graphs(m.graph):
        for n in g.node:
            hit = False
            for at in n.attribute:
                if (n.op_type == "BatchNormalization" and at.name == "epsilon") or \
                   (n.op_type in ("Gemm", "LeakyRelu") and at.name == "alpha"):
                    at.f = at.f * 2
                    hit = True
                    break
            if not hit and n.op_type in ("Add", "Sub"):
                n.op_type = "Sub" if n.op_type == "Add" else "Add"
                hit = True
            if hit:
                done = True
                break
    if done:
        save("diff-attr", m)

    # Rewire: a binary or variadic node reads its first operand twice.
    m = copy.deepcopy(base)
    done = False
    for g in graphs(m.graph):
        for n in g.node:
            if n.op_type in ("Add", "Mul", "Sub", "Sum") and len(n.input) >= 2 \
                    and n.input[0] != n.input[1]:
                n.input[1] = n.input[0]
                done = True
                break
    if done:
        save("diff-rewire", m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
