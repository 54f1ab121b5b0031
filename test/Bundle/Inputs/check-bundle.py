# Checks a bundle's weights layout and file hashes against its manifest, from
# the outside (an independent reading of docs/bundle.md).
import hashlib
import json
import os
import sys

root = sys.argv[1]
m = json.load(open(os.path.join(root, "manifest.json")))
w = m["weights"]
data = open(os.path.join(root, w["file"]), "rb").read()
assert len(data) == w["bytes"], "weights.bin size"
assert hashlib.sha256(data).hexdigest() == w["sha256"], "weights sha256"
end = 0
for e in w["entries"]:
    assert e["offset"] % w["alignment"] == 0, "alignment"
    assert e["offset"] >= end, "overlap"
    end = e["offset"] + e["bytes"]
print("weights: %d entries, all %d-byte aligned, sha256 ok" %
      (len(w["entries"]), w["alignment"]))
for path, h in m["files"].items():
    got = hashlib.sha256(open(os.path.join(root, path), "rb").read()).hexdigest()
    assert got == h, path
print("files: %d listed, all hashes ok" % len(m["files"]))
