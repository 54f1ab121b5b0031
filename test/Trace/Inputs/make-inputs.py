#!/usr/bin/env python3
"""Writes the inputs of small.mlir into a folder: x.npy (2x8 float32) and
c.npy (bool scalar; c=false with --else)."""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
x = (np.sin(np.arange(16, dtype=np.float64) * 1.7) * 3.1).astype(np.float32).reshape(2, 8)
np.save(os.path.join(out, "x.npy"), x)
np.save(os.path.join(out, "c.npy"), np.array("--else" not in sys.argv[2:]))
