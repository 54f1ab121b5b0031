#!/usr/bin/env python3
"""Prints how two trace folders compare: same graph, first differing node."""
import json
import os
import sys

a, b = [json.load(open(os.path.join(d, "trace.json"))) for d in sys.argv[1:3]]
print("graph", "same" if a["graph_hash"] == b["graph_hash"] else "differs")
first = next((x for x, y in zip(a["nodes"], b["nodes"]) if x["hash"] != y["hash"]), None)
print("first differing node", *((first["index"], first["op"]) if first else ("none",)))
print("note '%s'" % b["note"])
