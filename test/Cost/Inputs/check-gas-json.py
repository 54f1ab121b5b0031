#!/usr/bin/env python3
"""Checks a `plumb cost --format json` report against the published schedule.

Usage: check-gas-json.py GasSchedules.def REPORT.json

Re-derives every node's gas from its counts and the schedule's row in
lib/Cost/GasSchedules.def (an independent reading of the table), and checks
the total, the op-type sums and the canonical indices. Prints "ok: N nodes,
total G" or the first mismatch (exit 1).
"""
import json
import re
import sys

FIELDS = ["base", "macs", "elementwise", "transcendental", "compare", "indexed",
          "bytes_read", "bytes_written"]


def schedules(path):
    text = open(path).read()
    rows = {}
    for m in re.finditer(r'^PLUMB_GAS_SCHEDULE\("([^"]+)",((?:\s*\d+\s*,){8})', text, re.M):
        rows[m.group(1)] = [int(x) for x in m.group(2).replace(" ", "").strip(",").split(",")]
    return rows


def main():
    rows = schedules(sys.argv[1])
    report = json.load(open(sys.argv[2]))
    coef = rows[report["schedule"]]
    total = 0
    by_op = {}
    for i, n in enumerate(report["nodes"]):
        if n["index"] != i:
            sys.exit("node %d has index %d" % (i, n["index"]))
        if n["op"] == "plumb.if":
            continue  # its branches' bases are not in its counts
        # A fused node's counts are its chain's summed; each op of the chain
        # pays its own base (docs/gas.md), so fusion never changes gas.
        bases = 1
        if n["op"].startswith("plumb.fused("):
            bases = len(n["op"][len("plumb.fused("):-1].split(","))
        want = bases * coef[0] + sum(c * n[f] for c, f in zip(coef[1:], FIELDS[1:]))
        if want != n["gas"]:
            sys.exit("node %d (%s): gas %d, schedule gives %d" % (i, n["op"], n["gas"], want))
        total += n["gas"]
        by_op[n["op"]] = by_op.get(n["op"], 0) + n["gas"]
    if total != report["total_gas"]:
        sys.exit("total %d, nodes sum to %d" % (report["total_gas"], total))
    for t in report["op_types"]:
        if by_op.get(t["op"]) != t["gas"]:
            sys.exit("op type %s: %d, nodes sum to %s" % (t["op"], t["gas"], by_op.get(t["op"])))
    print("ok: %d nodes, total %d" % (len(report["nodes"]), total))


if __name__ == "__main__":
    main()
