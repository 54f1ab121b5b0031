# Modifies a bundle for tamper.test: tamper.py BUNDLE ACTION [ARG] [--rehash]
#   flip-weight OFFSET  flip the low bit of byte OFFSET of weights.bin
#   edit-source         change a kernel call in cpu/model.cpp
#   node-gas            add 1 to node 3's gas in the manifest
#   total-gas           subtract 1 from the total gas
#   graph-hash          replace the graph hash by zeros
#   version             claim plumb 0.0.1 made the bundle
#   arena               add 64 to the arena size
#   traced-arena        add 64 to the traced runs' arena size
#   rehash              recompute every file hash in the manifest
# --rehash recomputes the file hashes after the change (a careful forger).
import hashlib
import os
import re
import sys

root, action = sys.argv[1], sys.argv[2]
mpath = os.path.join(root, "manifest.json")
m = open(mpath).read()


def rehash(text):
    def file_hash(match):
        path = match.group(1)
        h = hashlib.sha256(open(os.path.join(root, path), "rb").read()).hexdigest()
        return '"%s": "%s"' % (path, h)
    text = re.sub(r'"([a-z]+/model\.[a-z]+|model\.mlir|weights\.bin)": "[0-9a-f]{64}"',
                  file_hash, text)
    w = hashlib.sha256(open(os.path.join(root, "weights.bin"), "rb").read()).hexdigest()
    return re.sub(r'("alignment": 64, "sha256": ")[0-9a-f]{64}', r"\g<1>" + w, text)


if action == "flip-weight":
    off = int(sys.argv[3])
    with open(os.path.join(root, "weights.bin"), "r+b") as f:
        f.seek(off)
        b = f.read(1)
        f.seek(off)
        f.write(bytes([b[0] ^ 1]))
elif action == "edit-source":
    p = os.path.join(root, "cpu", "model.cpp")
    s = open(p).read()
    # A relu: a kernel call, or the per-element form in a fused epilogue.
    if "PLUMB_RT_RELU" in s:
        s = s.replace("PLUMB_RT_RELU", "PLUMB_RT_ABS", 1)
    else:
        assert "reluF(v)" in s, "no relu in cpu/model.cpp"
        s = s.replace("reluF(v)", "canon(absF(v))", 1)
    open(p, "w").write(s)
elif action == "node-gas":
    m = re.sub(r'("index": 3, "id": "[0-9a-f]+", "op": "[^"]+", "gas": )(\d+)',
               lambda x: x.group(1) + str(int(x.group(2)) + 1), m)
elif action == "total-gas":
    m = re.sub(r'("total": )(\d+)', lambda x: x.group(1) + str(int(x.group(2)) - 1), m)
elif action == "graph-hash":
    m = re.sub(r'("graph_hash": ")[0-9a-f]{64}', r"\g<1>" + "0" * 64, m)
elif action == "version":
    m = re.sub(r'("plumb_version": ")[^"]*', r"\g<1>0.0.1", m)
elif action == "arena":
    m = re.sub(r'("arena_bytes": )(\d+)', lambda x: x.group(1) + str(int(x.group(2)) + 64), m)
elif action == "traced-arena":
    m = re.sub(r'("traced_arena_bytes": )(\d+)', lambda x: x.group(1) + str(int(x.group(2)) + 64), m)
elif action == "rehash":
    pass
else:
    sys.exit("tamper.py: unknown action " + action)
if action == "rehash" or "--rehash" in sys.argv:
    m = rehash(m)
open(mpath, "w").write(m)
