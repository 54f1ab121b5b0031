#!/usr/bin/env python3
"""Replaces a trace's chunks.bin with one whose first result claims a
2^20 x 2^20 float32 shape and its 2^28 chunk digests (8 GiB of them), with
none of them in the file (docs/trace.md: magic, then per result dtype,
rank, dims, chunk count and the digests)."""
import struct
import sys

path = sys.argv[1] + "/chunks.bin"
data = b"PLMBCHK1" + bytes([1, 2]) + struct.pack("<QQ", 1 << 20, 1 << 20)
data += struct.pack("<Q", (1 << 40) * 4 // 16384)
open(path, "wb").write(data + b"\0" * 64)
