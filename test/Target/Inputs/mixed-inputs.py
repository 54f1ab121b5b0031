# Inputs for mixed-ops.mlir: x holds a non-canonical NaN, a negative value
# (sqrt -> NaN) and ordinary values; c selects the branch (argv[2]).
import os
import sys

import numpy as np

out = os.path.join(sys.argv[1], "in")
os.makedirs(out, exist_ok=True)
x = np.array([[4.0, -1.0, 0.25], [9.0, 2.0, 0.0]], dtype=np.float32)
x.view(np.uint32)[1, 1] = 0x7FA00001  # a signalling NaN with a payload
np.save(os.path.join(out, "input_0.npy"), x)
np.save(os.path.join(out, "input_1.npy"), np.array(sys.argv[2] == "1"))
np.save(os.path.join(out, "input_2.npy"),
        np.array([[1, 2, 3], [2147483647, -5, 6]], dtype=np.int32))
np.save(os.path.join(out, "input_3.npy"), np.array([2, 0], dtype=np.int64))
