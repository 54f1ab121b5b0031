#!/usr/bin/env python3
"""Reads a party's answers (docs/dispute.md) from stdin: prints each JSON
line, and for a tensors answer the size of its binary attachment and the
first element of each tensor."""
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
