"""numpy peers for the CPU benchmarks, measured in the same scripts/bench run.
Prints one JSON line per measurement: {"peer": name, "value": milliseconds}."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import time_per_call  # noqa: E402 (this folder's shared timing)



def median_time(fn, reps=5, inner=1):
    return time_per_call(fn, inner, reps)


def chain6():
    """The six-op chain of bench_jit: tanh(x * 1.5 + 0.5) * exp(-x) - 0.25 on 1e7 float32."""
    x = np.random.default_rng(0).random(10_000_000, dtype=np.float32)
    f = lambda: (np.tanh(x * np.float32(1.5) + np.float32(0.5)) * np.exp(-x)) - np.float32(0.25)
    return {"numpy_chain6_1e7_f32": median_time(f) * 1e3}


if __name__ == "__main__":
    flt = sys.argv[1] if len(sys.argv) > 1 else ""
    if flt in "jit_chain6_1e7_f32_time":
        for k, v in chain6().items():
            print(json.dumps({"peer": k, "value": v}))
