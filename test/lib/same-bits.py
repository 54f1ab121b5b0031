#!/usr/bin/env python3
"""Runs a model compiled at 1 and 3 threads and interpreted, each with a
trace, and checks that every output file and the trace root are the same.

Usage: same-bits.py PLUMB MODEL DATASET_DIR WORK_DIR [-- extra run args...]
Prints "same outputs and trace root: threads 1, threads 3, interpreter" and
exits 0, or says what differs and exits 1.
"""
import json
import os
import subprocess
import sys


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    if len(args) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    plumb, model, dataset, work = args
    modes = [("threads 1", ["--threads", "1"]), ("threads 3", ["--threads", "3"]),
             ("interpreter", ["--interpret"])]
    seen = []
    for label, flags in modes:
        out = os.path.join(work, label.replace(" ", "-"))
        cmd = [plumb, "run", model, "--inputs-dir", dataset, "--output-dir",
               out, "--trace", out + "-trace", "--format", "json"] + flags + extra
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print("%s: plumb run failed: %s" % (label, r.stderr.strip()))
            return 1
        root = json.loads(r.stdout)["trace"]["root"]
        files = {}
        for name in sorted(os.listdir(out)):
            if name.startswith("output_"):
                with open(os.path.join(out, name), "rb") as f:
                    files[name] = f.read()
        if not files:
            print("%s: no outputs written" % label)
            return 1
        seen.append((label, root, files))
    base_label, base_root, base_files = seen[0]
    ok = True
    for label, root, files in seen[1:]:
        if root != base_root:
            print("%s: trace root %s, %s: %s" % (label, root, base_label, base_root))
            ok = False
        if files != base_files:
            diff = sorted(k for k in set(files) | set(base_files)
                          if files.get(k) != base_files.get(k))
            print("%s: %s differ from %s" % (label, ", ".join(diff), base_label))
            ok = False
    if ok:
        print("same outputs and trace root: " + ", ".join(l for l, _, _ in seen))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
