#!/usr/bin/env python3
"""Writes the input of movement.mlir into a folder: x.npy (64x96 float32)."""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
x = (np.sin(np.arange(64 * 96, dtype=np.float64) * 0.37) * 2.3).astype(np.float32).reshape(64, 96)
np.save(os.path.join(out, "x.npy"), x)
