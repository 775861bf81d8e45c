"""Benchmarks of the workloads users run, each beside its peer in the same run (PyTorch 1.13
eager with the same threads, numpy), printed as one JSON record per line in the format of
bench/bench_util.h's record(): a 2-layer transformer train step (batched and 2-D dense forms)
and its compile time, row reductions forward and backward (softmax, log-softmax, layer norm,
RMS norm, logsumexp), the last-axis sum, cumsum, sort and argsort, per-example gradients, and
the growth of compile time with program size (written to bench/results/compile_growth.png).

Every workload is also run eagerly: its `jit_vs_eager_*` record holds the rule that a jitted
workload is at least as fast as the same workload eager (scripts/bench --check fails on it).
With STRATA_BENCH_SMOKE=1 every workload runs once at small sizes, untimed, and its jitted
result is checked against the eager one (test/python/test_bench_workloads.py).

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_workloads.py [filter]
"""
import json
import os
import sys
import time

import numpy as np

os.environ.pop("STRATA_CACHE_DIR", None)  # cold compiles: no persistent cache

import strata  # noqa: E402
import strata.nn as nn  # noqa: E402
import strata.numpy as jnp  # noqa: E402
from strata import lax  # noqa: E402
from timing import record, run_benches, time_per_call  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
THREADS = int(os.environ.get("STRATA_NUM_THREADS", os.cpu_count()))
SMOKE = os.environ.get("STRATA_BENCH_SMOKE") == "1"
# torch.set_num_threads does not reach Debian's BLIS (PyTorch's gemm): its threads come from
# the environment, read when the library loads. Strata sets its own per call.
os.environ.setdefault("BLIS_NUM_THREADS", str(THREADS))


def size(full, smoke):
    return smoke if SMOKE else full


def torch_or_none():
    if SMOKE:
        return None
    try:
        import torch
    except ImportError:
        print("torch peers skipped: PyTorch is not installed (scripts/install-deps --bench)",
              file=sys.stderr)
        return None
    torch.set_num_threads(THREADS)  # the same threads as Strata
    return torch


def block(x):
    """Waits for a result (a pytree of arrays) and returns it."""
    for leaf in strata.tree_util.tree_leaves(x):
        np.asarray(leaf)
    return x


def jit_and_eager(name, fn, args, peer_ms, peer_desc, unit_note, target_ratio=None,
                  inner=1, reps=5):
    """Times jit(fn)(*args) against the peer's time and against fn(*args) eager; records both
    ratios and returns the jitted function. The arguments become Strata arrays first, as a
    user's would be: the timed calls do not convert them."""
    args = strata.tree_util.tree_map(jnp.asarray, args)
    jf = strata.jit(fn)
    got = block(jf(*args))
    if SMOKE:
        want = block(fn(*args))
        for g, w in zip(strata.tree_util.tree_leaves(got), strata.tree_util.tree_leaves(want)):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-4, atol=2e-5,
                                       err_msg=name)
        return jf
    s = time_per_call(lambda: block(jf(*args)), inner, reps) * 1e3
    e = time_per_call(lambda: block(fn(*args)), 1, 3) * 1e3
    extra = {"note": unit_note, "peer_threads": THREADS}
    if target_ratio is not None:
        extra["target_ratio"] = target_ratio
    if peer_ms is not None:
        record(name, "ms", s, peer_desc, peer_ms, "lower", **extra)
    record("jit_vs_eager_" + name, "ms", s, "the same workload in Strata eager (same run)", e,
           "lower", target_ratio=1.0, note=unit_note)
    return jf


# --- the transformer --------------------------------------------------------------------------

B, T, D, H, F = size(8, 2), size(128, 8), size(256, 16), 4, size(1024, 32)


def transformer_params(rng, layers=2):
    def w(*shape):
        return (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)
    ps = []
    for _ in range(layers):
        ps.append({"wq": w(D, D), "wk": w(D, D), "wv": w(D, D), "wo": w(D, D),
                   "g1": np.ones(D, np.float32), "b1": np.zeros(D, np.float32),
                   "w1": w(D, F), "c1": np.zeros(F, np.float32), "w2": w(F, D),
                   "c2": np.zeros(D, np.float32),
                   "g2": np.ones(D, np.float32), "b2": np.zeros(D, np.float32)})
    return ps


def layer_norm(x, g, b, eps=1e-5):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + eps) * g + b


def transformer_loss(params, x, y, dense2d=False):
    """Pre-LN transformer blocks (multi-head attention, GELU MLP), mean squared error.
    `dense2d` writes the dense layers on (B*T, D) matrices instead of rank-3 operands."""
    def dense(h, w):
        if dense2d:
            return (h.reshape(-1, h.shape[-1]) @ w).reshape(h.shape[:-1] + (w.shape[1],))
        return h @ w
    h = x
    for p in params:
        a = layer_norm(h, p["g1"], p["b1"])
        q = dense(a, p["wq"]).reshape(B, T, H, D // H)
        k = dense(a, p["wk"]).reshape(B, T, H, D // H)
        v = dense(a, p["wv"]).reshape(B, T, H, D // H)
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.float32(np.sqrt(D // H))
        o = jnp.einsum("bhqk,bkhd->bqhd", nn.softmax(s, axis=-1), v).reshape(B, T, D)
        h = h + dense(o, p["wo"])
        m = layer_norm(h, p["g2"], p["b2"])
        h = h + dense(nn.gelu(dense(m, p["w1"]) + p["c1"]), p["w2"]) + p["c2"]
    return jnp.mean((h - y) ** 2)


def torch_transformer_step_ms(torch, params, x, y):
    tp = [{k: torch.from_numpy(v).requires_grad_() for k, v in p.items()} for p in params]
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    F_ = torch.nn.functional

    def loss():
        h = tx
        for p in tp:
            a = F_.layer_norm(h, (D,), p["g1"], p["b1"])
            q = (a @ p["wq"]).reshape(B, T, H, D // H)
            k = (a @ p["wk"]).reshape(B, T, H, D // H)
            v = (a @ p["wv"]).reshape(B, T, H, D // H)
            s = torch.einsum("bqhd,bkhd->bhqk", q, k) / float(np.sqrt(D // H))
            o = torch.einsum("bhqk,bkhd->bqhd", torch.softmax(s, -1), v).reshape(B, T, D)
            h = h + o @ p["wo"]
            m = F_.layer_norm(h, (D,), p["g2"], p["b2"])
            h = h + F_.gelu(m @ p["w1"] + p["c1"]) @ p["w2"] + p["c2"]
        return ((h - ty) ** 2).mean()

    leaves = [t for p in tp for t in p.values()]

    def step():
        torch.autograd.grad(loss(), leaves)
    return time_per_call(step, 1, 7) * 1e3


def bench_transformer():
    torch = torch_or_none()
    rng = np.random.default_rng(0)
    params = transformer_params(rng)
    x = rng.standard_normal((B, T, D)).astype(np.float32)
    y = rng.standard_normal((B, T, D)).astype(np.float32)
    peer = torch_transformer_step_ms(torch, params, x, y) if torch else None
    note = f"2 pre-LN blocks, d={D}, {H} heads, seq {T}, batch {B}; value_and_grad"
    for suffix, dense2d in (("", False), ("_dense2d", True)):
        fn = strata.value_and_grad(lambda p, x, y: transformer_loss(p, x, y, dense2d))
        jit_and_eager("transformer2_train_step" + suffix, fn, (params, x, y), peer,
                           "PyTorch 1.13 eager, same model (same run)", note,
                           target_ratio=0.8)
        if not dense2d and not SMOKE:
            cold = strata.jit(fn)
            block(cold(params, x, y))
            record("transformer2_train_step_compile", "ms",
                   cold.stats()["compile_seconds"] * 1e3, "target", 1000.0, "lower",
                   target=1000.0, note="staging and compiling jit(value_and_grad) of it")


# --- row reductions ---------------------------------------------------------------------------

def row_fns(torch):
    """(name, strata loss, torch loss) of each row reduction, as sum(f(x) * w): the gradient
    runs the forward and the backward pass."""
    F_ = torch.nn.functional if torch else None

    def ln(x):
        return layer_norm(x, 1.0, 0.0)

    def rms(x):
        return x * lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)
    out = [("softmax", lambda x: nn.softmax(x, axis=-1),
            (lambda x: torch.softmax(x, -1)) if torch else None),
           ("log_softmax", lambda x: nn.log_softmax(x, axis=-1),
            (lambda x: torch.log_softmax(x, -1)) if torch else None),
           ("layer_norm", ln, (lambda x: F_.layer_norm(x, (x.shape[-1],))) if torch else None),
           ("rms_norm", rms,
            (lambda x: x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6)) if torch else None),
           ("logsumexp", lambda x: nn.logsumexp(x, axis=-1, keepdims=True),
            (lambda x: torch.logsumexp(x, -1, keepdim=True)) if torch else None)]
    return out


def bench_row_reductions():
    torch = torch_or_none()
    rng = np.random.default_rng(1)
    rows, cols = size(4096, 16), size(1024, 37)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    for name, f, tf in row_fns(torch):
        w = rng.standard_normal((rows, 1 if name == "logsumexp" else cols)).astype(np.float32)
        g = strata.grad(lambda x, w: jnp.sum(f(x) * w))
        peer = None
        if tf is not None:
            tx, tw = torch.from_numpy(x).requires_grad_(), torch.from_numpy(w)
            peer = time_per_call(lambda: torch.autograd.grad((tf(tx) * tw).sum(), tx), 1, 7) * 1e3
        jit_and_eager(f"{name}_fwd_bwd_4096x1024", g, (x, w), peer,
                      "PyTorch 1.13 eager forward+backward (same run)",
                      "grad of sum(f(x) * w) along the last axis, f32", target_ratio=1.0)


def bench_last_axis_sum():
    torch = torch_or_none()
    n = size(4096, 37)
    x = np.random.default_rng(2).standard_normal((n, n)).astype(np.float32)
    peer = time_per_call(lambda: x.sum(axis=-1), 1, 7) * 1e3
    jit_and_eager("sum_last_axis_4096x4096", lambda x: jnp.sum(x, axis=-1), (x,), peer,
                  "numpy 1.24 x.sum(axis=-1) (same run)", "f32", target_ratio=1.0)
    if torch and not SMOKE:
        tx = torch.from_numpy(x)
        tp = time_per_call(lambda: tx.sum(-1), 1, 7) * 1e3
        jf = strata.jit(lambda x: jnp.sum(x, axis=-1))
        x = jnp.asarray(x)
        block(jf(x))
        s = time_per_call(lambda: block(jf(x)), 1, 7) * 1e3
        record("sum_last_axis_4096x4096_vs_torch", "ms", s, "PyTorch 1.13 x.sum(-1) (same run)",
               tp, "lower", target_ratio=1.0, peer_threads=THREADS)


# --- scans and sort ---------------------------------------------------------------------------

def bench_cumsum():
    x = np.random.default_rng(3).standard_normal(size(10**7, 1001)).astype(np.float32)
    peer = time_per_call(lambda: np.cumsum(x), 1, 7) * 1e3
    jit_and_eager("cumsum_1e7_f32", lambda x: jnp.cumsum(x), (x,), peer,
                  "numpy 1.24 np.cumsum (same run)", "f32[1e7]", target_ratio=1.2)


def bench_sort():
    rng = np.random.default_rng(4)
    x = rng.standard_normal(size(10**6, 1001)).astype(np.float32)
    x[::97] = x[1::97]  # ties: the sort must be stable
    peer = time_per_call(lambda: np.sort(x), 1, 7) * 1e3
    jit_and_eager("sort_1e6_f32", lambda x: jnp.sort(x), (x,), peer,
                  "numpy 1.24 np.sort (same run)", "f32[1e6]", target_ratio=2.0)
    if SMOKE:
        return
    xs = jnp.asarray(x)
    e = time_per_call(lambda: block(jnp.sort(xs)), 1, 5) * 1e3
    record("eager_sort_1e6_f32", "ms", e, "numpy 1.24 np.sort (same run)", peer, "lower",
           target_ratio=1.5)
    peer = time_per_call(lambda: np.argsort(x), 1, 5) * 1e3
    jit_and_eager("argsort_1e6_f32", lambda x: jnp.argsort(x), (x,), peer,
                  "numpy 1.24 np.argsort (same run)", "f32[1e6]", target_ratio=2.0)


# --- per-example gradients --------------------------------------------------------------------

def bench_per_example_grads():
    rng = np.random.default_rng(5)
    n_in, hid, batch = size(784, 24), size(256, 16), size(128, 5)
    params = {"w1": (0.05 * rng.standard_normal((n_in, hid))).astype(np.float32),
              "b1": np.zeros(hid, np.float32),
              "w2": (0.05 * rng.standard_normal((hid, 10))).astype(np.float32),
              "b2": np.zeros(10, np.float32)}
    x = rng.standard_normal((batch, n_in)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int32)

    def loss(p, x, y):
        h = jnp.maximum(x @ p["w1"] + p["b1"], 0.0)
        logits = h @ p["w2"] + p["b2"]
        return -nn.log_softmax(logits)[y]
    g = strata.vmap(strata.grad(loss), in_axes=(None, 0, 0))
    jit_and_eager("per_example_grads_mlp784", g, (params, x, y), None, None,
                  "vmap(grad) of a 784-256-10 MLP over a batch of 128", target_ratio=0.9)


# --- compile time against program size ---------------------------------------------------------

def chain(n):
    def f(x):
        for i in range(n):
            x = (jnp.sin(x), x * 1.01, x + 0.1)[i % 3]
        return x
    return f


def mlp_step(depth, width=128, batch=32):
    rng = np.random.default_rng(depth)
    ps = [((0.1 * rng.standard_normal((width, width))).astype(np.float32),
           np.zeros(width, np.float32)) for _ in range(depth)]
    x = rng.standard_normal((batch, width)).astype(np.float32)

    def loss(ps, x):
        for w, b in ps:
            x = jnp.tanh(x @ w + b)
        return jnp.mean(x * x)

    def step(ps, x):
        g = strata.grad(loss)(ps, x)
        return [(w - 0.01 * gw, b - 0.01 * gb) for (w, b), (gw, gb) in zip(ps, g)]
    return step, (ps, x)


def compile_seconds(fn, args, reps):
    times = []
    for _ in range(reps):
        jf = strata.jit(fn)
        block(jf(*args))
        times.append(jf.stats()["compile_seconds"])
    return sorted(times)[len(times) // 2]


def bench_compile_growth():
    if SMOKE:  # the jitted chain and MLP step against eager, at small sizes
        jit_and_eager("chain", chain(7), (np.linspace(-2, 2, 33, dtype=np.float32),), None,
                      None, "")
        fn, args = mlp_step(3, 8, 4)
        jit_and_eager("mlp_step", fn, args, None, None, "")
        return
    x = np.ones(1024, np.float32)
    curves = {"chain": [], "mlp": []}
    for n in (10, 100, 1000, 3000):
        curves["chain"].append((n, compile_seconds(chain(n), (x,), 3 if n <= 100 else 1)))
    for d in (1, 8, 32, 64):
        fn, args = mlp_step(d)
        curves["mlp"].append((d, compile_seconds(fn, args, 3 if d <= 8 else 1)))
    for key, label, size_name in (("chain", "compile_chain", "ops"),
                                  ("mlp", "compile_mlp_train_step", "layers")):
        pts = curves[key]
        for n, t in pts[:-1]:  # the largest size is the target record below
            print(json.dumps({"name": f"{label}_{n}", "unit": "ms", "strata": t * 1e3,
                              "peer": "none (growth curve point)", "peer_value": t * 1e3,
                              "ratio": 1.0, "better": "lower", "curve": True}), flush=True)
        (n0, t0), (n1, t1) = pts[0], pts[1]
        n_big, t_big = pts[-1]
        linear = t1 + (t1 - t0) / (n1 - n0) * (n_big - n1)
        record(f"{label}_{n_big}", "ms", t_big * 1e3, "target", 1500.0, "lower", target=1500.0,
               note=f"cold jit compile, {n_big} {size_name}")
        record(f"{label}_{n_big}_vs_linear", "ms", t_big * 1e3,
               f"linear extrapolation from {n0} and {n1} {size_name} (same run)", linear * 1e3,
               "lower", target_ratio=1.3)
    plot_growth(curves)


def plot_growth(curves):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, (key, xlabel) in zip(axes, (("chain", "elementwise ops in the chain"),
                                        ("mlp", "layers of the MLP train step"))):
        n, t = zip(*curves[key])
        ax.plot(n, t, "o-", label="Strata cold compile")
        slope = (t[1] - t[0]) / (n[1] - n[0])
        ax.plot(n, [t[1] + slope * (v - n[1]) for v in n], "k--",
                label="linear from the two smallest")
        ax.axhline(1.5, color="tab:red", linewidth=0.8, label="target 1.5 s")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("seconds")
        ax.legend()
    fig.suptitle("Compile time against program size, " + time.strftime("%Y-%m-%d"))
    fig.tight_layout()
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    fig.savefig(os.path.join(out, "compile_growth.png"), dpi=100)


BENCHES = [("transformer2_train_step", bench_transformer),
           ("row_reductions_fwd_bwd", bench_row_reductions),
           ("sum_last_axis", bench_last_axis_sum),
           ("cumsum", bench_cumsum),
           ("sort", bench_sort),
           ("per_example_grads", bench_per_example_grads),
           ("compile_growth", bench_compile_growth)]


if __name__ == "__main__":
    run_benches(BENCHES)
