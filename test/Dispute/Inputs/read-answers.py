#!/usr/bin/env python3
"""Reads a party's answers (docs/dispute.md) from stdin: prints each JSON
line, and for a tensors or tensor_chunks answer the size of its binary
attachment and the first element of each tensor or chunk; each chunk is
checked against its Merkle proof and the item's chunk root."""
import hashlib
import json
import struct
import sys

data = sys.stdin.buffer.read()
pos = 0
while pos < len(data):
    nl = data.index(b"\n", pos)
    line = data[pos:nl].decode()
    pos = nl + 1
    print(line)
    msg = json.loads(line)
    if msg.get("type") == "tensors":
        sizes = [item["bytes"] for item in msg["items"]]
        print("attachment %d bytes" % sum(sizes))
        for item, n in zip(msg["items"], sizes):
            raw = data[pos:pos + n]
            pos += n
            fmt = {"float32": "<f", "int64": "<q", "int32": "<i", "bool": "<?"}[item["dtype"]]
            first = struct.unpack_from(fmt, raw)[0] if n else None
            print("  %s %d first element %r" % (item["kind"], item["index"], first))
    elif msg.get("type") == "tensor_chunks":
        parts = []
        for item in msg["items"]:
            if item.get("whole"):
                parts.append((item, None, item["bytes"], []))
            else:
                for c in item["chunks"]:
                    parts.append((item, c["chunk"], c["bytes"], c["proof"]))
        print("attachment %d bytes" % sum(p[2] for p in parts))
        for item, c, n, proof in parts:
            raw = data[pos:pos + n]
            pos += n
            fmt = {"float32": "<f", "int64": "<q", "int32": "<i", "bool": "<?"}[item["dtype"]]
            first = struct.unpack_from(fmt, raw)[0] if n else None
            if c is None:
                print("  %s %d whole first element %r" % (item["kind"], item["index"], first))
                continue
            # Single-chunk tensors only here: the root is the chunk's leaf.
            leaf = hashlib.sha256(b"\x00" + hashlib.sha256(raw).digest()).hexdigest()
            ok = not proof and leaf == item["chunk_root"]
            print("  %s %d chunk %d first element %r proof %s" % (
                item["kind"], item["index"], c, first, "ok" if ok else "BAD"))
