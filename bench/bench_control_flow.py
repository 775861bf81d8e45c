"""Benchmarks of control flow from Python (issue 8), one JSON record per line in the format of
bench/bench_util.h's record(): the cold compile time of jit(grad(loss)) of an RNN written with
lax.scan, for 100 and 1000 steps (the loop is compiled as a loop, so compile time must not grow
with the trip count). The C++ side (a jitted 1000-step fori_loop against the same loop by hand)
is in bench_jit.cpp.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_control_flow.py [filter]
"""
import os
import sys

import numpy as np

os.environ.pop("STRATA_CACHE_DIR", None)  # cold compiles: no persistent cache

import strata  # noqa: E402
import strata.numpy as jnp  # noqa: E402
from strata import lax  # noqa: E402
from timing import record, run_benches  # noqa: E402


def rnn_loss(params, xs, ys):
    """Mean squared error of an Elman RNN (tanh, hidden 64) over the steps of xs: [T, B, 16]."""
    def step(h, xy):
        x, y = xy
        h = jnp.tanh(h @ params["wh"] + x @ params["wx"] + params["b"])
        return h, jnp.mean((h @ params["wo"] - y) ** 2)
    h0 = jnp.zeros((xs.shape[1], params["wh"].shape[0]), jnp.float32)
    _, errs = lax.scan(step, h0, (xs, ys))
    return jnp.mean(errs)


def compile_ms(steps, reps=3):
    """Median cold compile time (staging included) of jit(grad(rnn_loss)) for `steps` steps:
    each rep is a fresh jitted function, so nothing comes from the cache."""
    rng = np.random.default_rng(0)
    hid, inp, batch = 64, 16, 8
    params = {"wh": (0.1 * rng.standard_normal((hid, hid))).astype(np.float32),
              "wx": (0.1 * rng.standard_normal((inp, hid))).astype(np.float32),
              "b": np.zeros(hid, np.float32),
              "wo": (0.1 * rng.standard_normal((hid, 1))).astype(np.float32)}
    xs = rng.standard_normal((steps, batch, inp)).astype(np.float32)
    ys = rng.standard_normal((steps, batch, 1)).astype(np.float32)
    times = []
    for _ in range(reps):
        f = strata.jit(strata.grad(rnn_loss))
        g = f(params, xs, ys)
        np.asarray(g["wh"])
        times.append(f.stats()["compile_seconds"] * 1e3)
    return sorted(times)[len(times) // 2]


def bench_scan_rnn_compile():
    try:
        c100 = compile_ms(100)
    except (ValueError, TypeError, RuntimeError) as e:
        if "under jit" not in str(e):
            raise
        print("python_jit_compile_grad_scan_rnn skipped (jit of control flow has not landed):",
              e, file=sys.stderr)
        return
    c1000 = compile_ms(1000)
    record("python_jit_compile_grad_scan_rnn100", "ms", c100, "target", 500.0, "lower",
           target=500.0, note="jit(grad(loss)) of a 100-step lax.scan RNN (hidden 64, batch 8), "
                              "staging and compiling")
    record("python_jit_compile_grad_scan_rnn_1000_vs_100", "ms", c1000,
           "the same at 100 steps (same run)", c100, "lower", target_ratio=1.2,
           note="compile time must not grow with the trip count (no unrolling)")


BENCHES = [("python_jit_compile_grad_scan_rnn", bench_scan_rnn_compile)]


if __name__ == "__main__":
    run_benches(BENCHES)
