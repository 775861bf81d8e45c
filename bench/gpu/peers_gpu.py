#!/usr/bin/env python3
"""GPU peers of strata-device-check --bench (tools/device-check/device_check.cpp): the same MLP train
step and transformer block (same shapes, dtypes and init scale) in JAX (jax.jit of
value_and_grad) and PyTorch (eager, and torch.compile when it compiles within COMPILE_LIMIT_S), plus
PyTorch's device copy bandwidth and torch.matmul for reference. Prints one JSON object per line
(name, value, unit, peer, ratio, device), like the C++ side; scripts/device-check joins them.

  peers_gpu.py            on the GPU, full sizes (the lent machine: JAX 0.11, PyTorch 2.11)
  peers_gpu.py --cpu --small   here: PyTorch on the CPU at small sizes, JAX skipped if absent
"""
import argparse
import contextlib
import json
import math
import os
import signal
import statistics
import sys
import time

ARGS = None
DEVICE_DESC = "?"


def emit(name, value, unit, framework, **extra):
    rec = {"name": name, "value": value, "unit": unit, "peer": None, "ratio": None,
           "device": DEVICE_DESC, "framework": framework}
    rec.update(extra)
    print(json.dumps(rec), flush=True)


def emit_error(name, framework, err):
    print(json.dumps({"name": name, "framework": framework, "error": str(err)[:500],
                      "device": DEVICE_DESC}), flush=True)


def note(msg):
    print("[peers] " + msg, file=sys.stderr, flush=True)


def steady(fn, sync, reps, inner=1, warmup=2):
    """Seconds per call: median of `reps` batches of `inner` calls, synchronized per batch."""
    for _ in range(warmup):
        sync(fn())
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = None
        for _ in range(inner):
            out = fn()
        sync(out)
        ts.append((time.perf_counter() - t0) / inner)
    return statistics.median(ts)


class Timeout(Exception):
    pass


def with_alarm(seconds, fn):
    """fn() unless it takes longer than `seconds` (SIGALRM; main thread only)."""
    def on_alarm(signum, frame):
        raise Timeout(f"took more than {seconds} s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        return fn()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def block_config():
    # d_model, heads, seq, batch: as device_check.cpp's BlockConfig (and its --small one).
    return (64, 4, 32, 2) if ARGS.small else (1024, 16, 1024, 8)


# torch.compile gets this long for its first call (compilation) before it is reported as too slow.
COMPILE_LIMIT_S = 45
MLP_SIZES = [784, 512, 512, 10]
MLP_BATCH = 256
LR = 0.01


# ---- JAX ----------------------------------------------------------------------------------------
def run_jax():
    # JAX would take 75% of the GPU's memory up front, leaving PyTorch little if both run here.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as e:
        note(f"JAX skipped: {e}")
        return
    global DEVICE_DESC
    if ARGS.cpu:
        jax.config.update("jax_platforms", "cpu")
    dev = jax.devices()[0]
    DEVICE_DESC = dev.device_kind if dev.platform == "gpu" else f"cpu ({os.cpu_count()} threads)"
    fw = f"jax {jax.__version__} jit ({dev.platform})"
    note(f"{fw} on {dev}")

    def sync(out):
        jax.block_until_ready(out)

    def compiled(fn, *args, f32=True):
        # Strata's f32 matmuls are full f32 (TF32 is opt-in): so are the peer's.
        t0 = time.perf_counter()
        with jax.default_matmul_precision("highest") if f32 else contextlib.nullcontext():
            exe = jax.jit(fn).lower(*args).compile()
        compile_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        sync(exe(*args))
        return exe, compile_s, compile_s + time.perf_counter() - t0

    # MLP train step: value_and_grad + SGD update in one jit.
    try:
        key = jax.random.PRNGKey(0)
        params = []
        for i in range(3):
            key, k = jax.random.split(key)
            fan_in = MLP_SIZES[i]
            params.append(jax.random.normal(k, (fan_in, MLP_SIZES[i + 1]), jnp.float32)
                          / math.sqrt(fan_in))
            params.append(jnp.zeros((MLP_SIZES[i + 1],), jnp.float32))
        x = jax.random.normal(jax.random.PRNGKey(1), (MLP_BATCH, 784), jnp.float32)
        y = jax.random.randint(jax.random.PRNGKey(2), (MLP_BATCH,), 0, 10)

        def mlp_loss(p, x, y):
            h = x
            for i in range(0, len(p), 2):
                h = h @ p[i] + p[i + 1]
                if i + 2 < len(p):
                    h = jax.nn.relu(h)
            return -jnp.mean(jnp.sum(jax.nn.log_softmax(h) * jax.nn.one_hot(y, 10), -1))

        def mlp_step(p, x, y):
            loss, g = jax.value_and_grad(mlp_loss)(p, x, y)
            return loss, [a - LR * b for a, b in zip(p, g)]

        exe, compile_s, first = compiled(mlp_step, params, x, y)
        t = steady(lambda: exe(params, x, y), sync, 20, 5)
        emit("mlp_train_step_784_512_512_10_b256_f32", t * 1e3, "ms", fw,
             first_call_s=first, compile_s=compile_s)
    except Exception as e:  # report, keep going
        emit_error("mlp_train_step", fw, e)

    d, heads, s, b = block_config()
    for dtype_name, dtype in (("f32", jnp.float32), ("bf16", jnp.bfloat16)):
        name = f"transformer_block_step_d{d}_h{heads}_s{s}_b{b}_{dtype_name}"
        try:
            p = jax_block_init(jax, jnp, d, dtype)
            x = jax.random.normal(jax.random.PRNGKey(7), (b, s, d), jnp.float32).astype(dtype)
            tgt = jax.random.normal(jax.random.PRNGKey(8), (b, s, d), jnp.float32).astype(dtype)

            def loss(p, x, tgt):
                out = jax_block_forward(jax, jnp, p, x, heads).astype(jnp.float32)
                return jnp.mean(jnp.square(out - tgt.astype(jnp.float32)))

            exe, compile_s, first = compiled(jax.value_and_grad(loss), p, x, tgt,
                                             f32=dtype == jnp.float32)
            t = steady(lambda: exe(p, x, tgt), sync, 10, 1)
            emit(name, t * 1e3, "ms", fw)
            emit(name.replace("_step_", "_first_call_"), first, "s", fw, compile_s=compile_s)
        except Exception as e:
            emit_error(name, fw, e)


def jax_block_init(jax, jnp, d, dtype):
    def w(seed, fan_in, fan_out):
        return (jax.random.normal(jax.random.PRNGKey(100 + seed), (fan_in, fan_out), jnp.float32)
                / math.sqrt(fan_in)).astype(dtype)
    z = lambda n: jnp.zeros((n,), dtype)
    o = lambda n: jnp.ones((n,), dtype)
    return [o(d), z(d), w(0, d, 3 * d), z(3 * d), w(1, d, d), z(d), o(d), z(d),
            w(2, d, 4 * d), z(4 * d), w(3, 4 * d, d), z(d)]


def jax_layer_norm(jnp, x, scale, bias, eps=1e-5):
    mean = jnp.mean(x, -1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), -1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps) * scale + bias


def jax_block_forward(jax, jnp, p, x, heads):
    ln1s, ln1b, wqkv, bqkv, wo, bo, ln2s, ln2b, w1, b1, w2, b2 = p
    b, s, d = x.shape
    hd = d // heads
    h = jax_layer_norm(jnp, x, ln1s, ln1b)
    q, k, v = jnp.split(h @ wqkv + bqkv, 3, axis=-1)
    to_heads = lambda t: t.reshape(b, s, heads, hd).transpose(0, 2, 1, 3)
    q, k, v = to_heads(q), to_heads(k), to_heads(v)
    scores = (q @ jnp.swapaxes(k, -1, -2)) * (1.0 / math.sqrt(hd))
    causal = jnp.arange(s)[None, :] <= jnp.arange(s)[:, None]
    scores = jnp.where(causal, scores, jnp.asarray(-1e9, scores.dtype))
    attn = (jax.nn.softmax(scores, -1) @ v).transpose(0, 2, 1, 3).reshape(b, s, d)
    x1 = x + (attn @ wo + bo)
    m = jax.nn.gelu(jax_layer_norm(jnp, x1, ln2s, ln2b) @ w1 + b1, approximate=True)
    return x1 + (m @ w2 + b2)


# ---- PyTorch ------------------------------------------------------------------------------------
def run_torch():
    try:
        import torch
    except ImportError as e:
        note(f"PyTorch skipped: {e}")
        return
    global DEVICE_DESC
    use_cuda = not ARGS.cpu and torch.cuda.is_available()
    if not ARGS.cpu and not use_cuda:
        note("PyTorch: no CUDA device; skipped (use --cpu to run on the host)")
        return
    dev = torch.device("cuda:0" if use_cuda else "cpu")
    DEVICE_DESC = f"cpu ({os.cpu_count()} threads)"
    if use_cuda:
        DEVICE_DESC = torch.cuda.get_device_name(0)
        torch.backends.cuda.matmul.allow_tf32 = False  # full f32, as Strata's default
        torch.backends.cudnn.allow_tf32 = False
    fw = f"torch {torch.__version__}"
    note(f"{fw} on {dev}")

    def sync(_out=None):
        if use_cuda:
            torch.cuda.synchronize()

    # Copy bandwidth and matmul, for reference next to strata::cuda's.
    n = (1 << 20) if ARGS.small else (1 << 26)
    try:
        src = torch.rand(n, device=dev)
        dst = torch.empty_like(src)
        t = steady(lambda: dst.copy_(src), sync, 7, 10)
        emit("device_copy_bandwidth", 8.0 * n / t / 1e9, "GB/s", fw + " copy_", n=n)
    except Exception as e:
        emit_error("device_copy_bandwidth", fw, e)
    m = 256 if ARGS.small else 4096
    for dtype_name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
        try:
            a = torch.randn(m, m, device=dev).to(dtype)
            b = torch.randn(m, m, device=dev).to(dtype)
            t = steady(lambda: torch.matmul(a, b), sync, 7, 5)
            emit(f"matmul_{dtype_name}_{m}", 2.0 * m ** 3 / t / 1e12, "TFLOP/s",
                 fw + " matmul")
        except Exception as e:
            emit_error(f"matmul_{dtype_name}", fw, e)

    have_compile = hasattr(torch, "compile") and not ARGS.no_compile
    if not have_compile:
        note("torch.compile not available (or --no-compile): compiled peers skipped")
    variants = [("eager", lambda f: f)]
    if have_compile:
        variants.append(("compile", lambda f: torch.compile(f)))

    # MLP train step: forward, backward, SGD update.
    torch.manual_seed(0)
    mlp_params = []
    for i in range(3):
        fan_in = MLP_SIZES[i]
        mlp_params.append((torch.randn(fan_in, MLP_SIZES[i + 1], device=dev) / fan_in ** 0.5)
                          .requires_grad_())
        mlp_params.append(torch.zeros(MLP_SIZES[i + 1], device=dev, requires_grad=True))
    x = torch.randn(MLP_BATCH, 784, device=dev)
    y = torch.randint(0, 10, (MLP_BATCH,), device=dev)

    def mlp_loss(p, x, y):
        h = x
        for i in range(0, len(p), 2):
            h = h @ p[i] + p[i + 1]
            if i + 2 < len(p):
                h = torch.relu(h)
        return torch.nn.functional.cross_entropy(h, y)

    d, heads, s, bsz = block_config()
    for variant, wrap in variants:
        vfw = f"{fw} {variant}"
        try:
            loss_fn = wrap(mlp_loss)

            def mlp_step():
                loss = loss_fn(mlp_params, x, y)
                grads = torch.autograd.grad(loss, mlp_params)
                with torch.no_grad():
                    for p_, g_ in zip(mlp_params, grads):
                        p_.sub_(LR * g_)
                return loss

            t0 = time.perf_counter()
            with_alarm(COMPILE_LIMIT_S, lambda: sync(mlp_step()))
            first = time.perf_counter() - t0
            t = steady(mlp_step, sync, 20, 5)
            emit("mlp_train_step_784_512_512_10_b256_f32", t * 1e3, "ms", vfw, first_call_s=first)
        except Exception as e:
            emit_error(f"mlp_train_step ({variant})", vfw, e)

        for dtype_name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
            name = f"transformer_block_step_d{d}_h{heads}_s{s}_b{bsz}_{dtype_name}"
            try:
                p = torch_block_init(torch, d, dtype, dev)
                xb = torch.randn(bsz, s, d, device=dev).to(dtype)
                tgt = torch.randn(bsz, s, d, device=dev).to(dtype)
                fwd = wrap(lambda p, xb, tgt, heads=heads: torch_block_loss(torch, p, xb, tgt,
                                                                            heads))

                def value_and_grad():
                    loss = fwd(p, xb, tgt)
                    return loss, torch.autograd.grad(loss, p)

                t0 = time.perf_counter()
                with_alarm(COMPILE_LIMIT_S, lambda: sync(value_and_grad()))
                first = time.perf_counter() - t0
                t = steady(value_and_grad, sync, 10, 1)
                emit(name, t * 1e3, "ms", vfw)
                emit(name.replace("_step_", "_first_call_"), first, "s", vfw)
            except Exception as e:
                emit_error(f"{name} ({variant})", vfw, e)


def torch_block_init(torch, d, dtype, dev):
    torch.manual_seed(1)

    def w(fan_in, fan_out):
        return (torch.randn(fan_in, fan_out, device=dev) / fan_in ** 0.5).to(dtype)
    z = lambda n: torch.zeros(n, device=dev, dtype=dtype)
    o = lambda n: torch.ones(n, device=dev, dtype=dtype)
    p = [o(d), z(d), w(d, 3 * d), z(3 * d), w(d, d), z(d), o(d), z(d),
         w(d, 4 * d), z(4 * d), w(4 * d, d), z(d)]
    return [t.requires_grad_() for t in p]


def torch_block_loss(torch, p, x, tgt, heads):
    F = torch.nn.functional
    ln1s, ln1b, wqkv, bqkv, wo, bo, ln2s, ln2b, w1, b1, w2, b2 = p
    b, s, d = x.shape
    hd = d // heads
    h = F.layer_norm(x, (d,), ln1s, ln1b, 1e-5)
    q, k, v = (h @ wqkv + bqkv).split(d, dim=-1)
    to_heads = lambda t: t.reshape(b, s, heads, hd).transpose(1, 2)
    q, k, v = to_heads(q), to_heads(k), to_heads(v)
    scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(hd))
    causal = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
    scores = scores.masked_fill(~causal, -1e9)
    attn = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, s, d)
    x1 = x + (attn @ wo + bo)
    m = F.gelu(F.layer_norm(x1, (d,), ln2s, ln2b, 1e-5) @ w1 + b1, approximate="tanh")
    out = x1 + (m @ w2 + b2)
    return torch.mean(torch.square(out.float() - tgt.float()))


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", action="store_true", help="run the peers on the CPU")
    ap.add_argument("--small", action="store_true", help="small sizes (as device_check --small)")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--only", choices=["jax", "torch"], help="one framework")
    ARGS = ap.parse_args()
    if ARGS.only in (None, "jax"):
        run_jax()
    if ARGS.only in (None, "torch"):
        run_torch()


if __name__ == "__main__":
    main()
