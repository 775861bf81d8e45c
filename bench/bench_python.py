"""Benchmarks of Strata from Python, printed as one JSON record per line in the format of
bench/bench_util.h's record() (scripts/bench collects them): the cache-hit call of a jitted
tiny function, eager op dispatch, and an epoch of the digits MLP against PyTorch 1.13, each
peer measured in the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_python.py [filter]
"""
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "python"))

import strata  # noqa: E402
from timing import record, run_benches, time_per_call  # noqa: E402
import strata.numpy as jnp  # noqa: E402


def bench_jit_cache_hit():
    f = strata.jit(lambda x: x * 2.0 + 1.0)
    x = jnp.ones((8,), dtype=jnp.float32)
    f(x)  # compile once: every timed call is a cache hit
    xn = np.ones(8, np.float32)

    def peer(x):
        return x * 2.0 + 1.0
    s = time_per_call(lambda: f(x), 20000)
    p = time_per_call(lambda: peer(xn), 20000)
    assert f.stats()["misses"] == 1
    record("python_jit_cache_hit_call", "us", s * 1e6,
           "plain Python function doing the same numpy op (numpy 1.24; no jitted PyTorch call "
           "exists to compare)", p * 1e6, "lower", target=4.0,
           note="strata.jit(lambda x: x * 2.0 + 1.0) on f32[8], cache hit")


def bench_eager_dispatch():
    import torch
    a, b = jnp.ones((8,), dtype=jnp.float32), jnp.ones((8,), dtype=jnp.float32)
    ta, tb = torch.ones(8), torch.ones(8)
    s = time_per_call(lambda: jnp.add(a, b), 20000)
    p = time_per_call(lambda: torch.add(ta, tb), 20000)
    record("python_eager_add_f32x8", "us", s * 1e6, "torch.add on f32[8] (PyTorch 1.13 eager)",
           p * 1e6, "lower", target=5.0, peer_threads=torch.get_num_threads())


def torch_digits_epoch(x_tr, y_tr, hidden, batch, lr, epochs, seed=0):
    """Seconds per epoch (median) of the same MLP, loss and Adam in PyTorch, and its test
    accuracy."""
    import torch
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU(),
                                torch.nn.Linear(hidden, 10))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    x_t, y_t = torch.from_numpy(x_tr), torch.from_numpy(y_tr.astype(np.int64))
    rng = np.random.default_rng(seed)
    n_batches = len(x_tr) // batch
    times = []
    for _ in range(epochs):
        t0 = time.perf_counter()
        perm = torch.from_numpy(rng.permutation(len(x_tr)))
        total = 0.0
        for b in range(n_batches):
            idx = perm[b * batch:(b + 1) * batch]
            loss = torch.nn.functional.cross_entropy(model(x_t[idx]), y_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        times.append(time.perf_counter() - t0)
    return times, model


def bench_digits_mlp():
    import torch
    import train_digits as td
    hidden, batch, lr, epochs = 128, 64, 3e-3, 12
    out = td.train(epochs=epochs, hidden=hidden, batch=batch, lr=lr, verbose=False)
    s = float(np.median(out["epoch_seconds"][2:]))  # epoch 1 compiles
    x_tr, y_tr, x_te, y_te = td.load_digits()
    times, model = torch_digits_epoch(x_tr, y_tr, hidden, batch, lr, epochs)
    p = float(np.median(times[2:]))
    with torch.no_grad():
        acc = float((model(torch.from_numpy(x_te)).argmax(-1).numpy() == y_te).mean())
    record("python_digits_mlp_epoch", "ms", s * 1e3,
           "PyTorch 1.13 eager, same MLP 64-128-10, Adam, batch 64", p * 1e3, "lower",
           peer_threads=torch.get_num_threads(),
           note=f"{len(x_tr) // batch} steps/epoch; test accuracy after {epochs} epochs: "
                f"strata {out['test_accuracy']:.3f}, torch {acc:.3f}")


BENCHES = [("python_jit_cache_hit_call", bench_jit_cache_hit),
           ("python_eager_add_f32x8", bench_eager_dispatch),
           ("python_digits_mlp_epoch", bench_digits_mlp)]


if __name__ == "__main__":
    run_benches(BENCHES)
