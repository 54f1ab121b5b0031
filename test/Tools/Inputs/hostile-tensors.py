#!/usr/bin/env python3
"""Writes hostile tensor files into a folder: .npy headers that claim huge or
malformed shapes over a few bytes of data, and ONNX TensorProto files whose
dims claim more than the limits. None of them may be allocated as claimed."""
import os
import struct
import sys

import onnx
from onnx import TensorProto

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def npy(name, header, data=b"\0" * 16):
    h = header.encode("latin1")
    h += b" " * ((64 - (10 + len(h) + 1) % 64) % 64) + b"\n"
    with open(os.path.join(out, name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data)


# 2^20 x 2^20 float32 (4 TiB) claimed, 16 bytes given.
npy("huge.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, 1048576), }")
# 2^30 x 2^30 x 2^30: more than 2^40 elements (the product overflows int64).
npy("overflow.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824, 1073741824, 1073741824), }")
# A dimension that is not a number, and a negative one.
npy("text-dim.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, abc), }")
npy("negative-dim.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 2), }")
# A header length past the end of the file.
with open(os.path.join(out, "truncated.npy"), "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", 60000) + b"{'descr'")

# TensorProto: 2^20 x 2^20 floats with 16 bytes of raw_data.
t = TensorProto()
t.name = "x"
t.data_type = TensorProto.FLOAT
t.dims.extend([1 << 20, 1 << 20])
t.raw_data = b"\0" * 16
open(os.path.join(out, "huge.pb"), "wb").write(t.SerializeToString())
# 2^15 x 2^15 floats: 2^30 elements (under the element limit), 4 GiB
# (over the 2 GiB byte limit).
t.ClearField("dims")
t.dims.extend([1 << 15, 1 << 15])
open(os.path.join(out, "bytes.pb"), "wb").write(t.SerializeToString())
