"""A small causal transformer (pre-norm, multi-head attention, GELU MLP) trained
character-level on a text file that a Debian package ships (the GPL-3 text from base-files),
with jit(value_and_grad) and Adam in Strata. The loss falls from about log(vocab size).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/tiny_transformer.py [--steps 300]
"""
import argparse
import time

import numpy as np

import strata
import strata.numpy as jnp
from strata import nn, random, tree_util

TEXT = "/usr/share/common-licenses/GPL-3"


def load_text(path=TEXT):
    """(tokens i32[n], vocabulary string): one token per distinct character."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    vocab = "".join(sorted(set(text)))
    lookup = {c: i for i, c in enumerate(vocab)}
    return np.array([lookup[c] for c in text], dtype=np.int32), vocab


def init_params(key, vocab, d_model, n_layers, context, d_ff=None):
    d_ff = d_ff or 4 * d_model
    keys = iter(random.split(key, 4 + 4 * n_layers))

    def dense(m, n):
        return random.normal(next(keys), (m, n)) * np.float32(1 / np.sqrt(m))

    layers = [{"ln1": jnp.ones((d_model,), dtype=jnp.float32),
               "qkv": dense(d_model, 3 * d_model), "proj": dense(d_model, d_model),
               "ln2": jnp.ones((d_model,), dtype=jnp.float32),
               "ff1": dense(d_model, d_ff), "ff2": dense(d_ff, d_model)}
              for _ in range(n_layers)]
    return {"embed": random.normal(next(keys), (vocab, d_model)) * np.float32(0.1),
            "pos": random.normal(next(keys), (context, d_model)) * np.float32(0.1),
            "layers": layers, "ln_f": jnp.ones((d_model,), dtype=jnp.float32),
            "out": dense(d_model, vocab)}


def attention(layer, x, n_heads):
    b, t, d = x.shape
    hd = d // n_heads
    qkv = jnp.reshape(x @ layer["qkv"], (b, t, 3, n_heads, hd))
    q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]  # each (b, t, heads, hd)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) * np.float32(1 / np.sqrt(hd))
    causal = jnp.arange(t)[:, None] >= jnp.arange(t)[None, :]
    scores = jnp.where(causal, scores, np.float32(-1e9))
    out = jnp.einsum("bhqk,bkhd->bqhd", nn.softmax(scores, axis=-1), v)
    return jnp.reshape(out, (b, t, d)) @ layer["proj"]


def forward(params, tokens, n_heads):
    """Logits f32[batch, t, vocab] predicting the character after each position."""
    t = tokens.shape[1]
    x = params["embed"][tokens] + params["pos"][:t]
    for layer in params["layers"]:
        x = x + attention(layer, nn.layer_norm(x, layer["ln1"]), n_heads)
        h = nn.gelu(nn.layer_norm(x, layer["ln2"]) @ layer["ff1"])
        x = x + h @ layer["ff2"]
    return nn.layer_norm(x, params["ln_f"]) @ params["out"]


def loss_fn(params, tokens, targets, n_heads):
    logp = nn.log_softmax(forward(params, tokens, n_heads), axis=-1)
    return -jnp.mean(jnp.sum(logp * nn.one_hot(targets, logp.shape[-1]), axis=-1))


def make_train_step(n_heads, lr, b1=0.9, b2=0.99, eps=1e-8):
    @strata.jit
    def step(params, opt, tokens, targets):
        loss, g = strata.value_and_grad(loss_fn)(params, tokens, targets, n_heads)
        t = opt["t"] + 1.0
        m = tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, opt["m"], g)
        v = tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, opt["v"], g)
        scale = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        params = tree_util.tree_map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + eps),
                                    params, m, v)
        return params, {"m": m, "v": v, "t": t}, loss
    return step


def train(steps=300, batch=16, context=16, d_model=32, n_heads=4, n_layers=2, lr=3e-3,
          seed=0, verbose=True):
    """Returns the per-step losses."""
    data, vocab = load_text()
    params = init_params(random.key(seed), len(vocab), d_model, n_layers, context)
    zeros = tree_util.tree_map(jnp.zeros_like, params)
    opt = {"m": zeros, "v": zeros, "t": jnp.zeros((), dtype=jnp.float32)}
    step = make_train_step(n_heads, lr)
    rng = np.random.default_rng(seed)
    losses = []
    t0 = time.perf_counter()
    for i in range(steps):
        start = rng.integers(0, len(data) - context - 1, size=batch)
        window = data[start[:, None] + np.arange(context + 1)]
        params, opt, loss = step(params, opt, window[:, :-1], window[:, 1:])
        losses.append(float(loss))
        if verbose and (i % 50 == 0 or i == steps - 1):
            print(f"step {i:4d}  loss {losses[-1]:.4f}  ({time.perf_counter() - t0:.1f} s)")
    if verbose:
        print(f"vocabulary {len(vocab)}, log(vocab) = {np.log(len(vocab)):.3f}; "
              f"loss {np.mean(losses[:5]):.3f} -> {np.mean(losses[-5:]):.3f}")
    return losses


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--context", type=int, default=16)
    ap.add_argument("--d-model", type=int, default=32)
    ap.add_argument("--layers", type=int, default=2)
    a = ap.parse_args(argv)
    return train(a.steps, a.batch, a.context, a.d_model, n_layers=a.layers)


if __name__ == "__main__":
    main()
