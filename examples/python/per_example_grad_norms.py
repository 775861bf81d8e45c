"""Per-example gradient norms with vmap(grad) (the building block of DP-SGD's clipping),
checked against a Python loop that takes one gradient per example.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/per_example_grad_norms.py
"""
import argparse

import numpy as np

import strata
import strata.numpy as jnp
from strata import nn, random, tree_util


def init_params(key, sizes):
    return [{"w": random.normal(random.fold_in(key, i), (m, n)) * np.float32(1 / np.sqrt(m)),
             "b": jnp.zeros((n,), dtype=jnp.float32)}
            for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:]))]


def loss_one(params, x, y):
    """Cross-entropy of ONE example (x: f32[d], y: an int32 scalar label)."""
    h = x
    for layer in params[:-1]:
        h = jnp.tanh(h @ layer["w"] + layer["b"])
    logits = h @ params[-1]["w"] + params[-1]["b"]
    return -jnp.sum(nn.log_softmax(logits) * nn.one_hot(y, logits.shape[-1]))


def global_norm(tree):
    return jnp.sqrt(sum(jnp.sum(g * g) for g in tree_util.tree_leaves(tree)))


def per_example_norms(params, x, y):
    """f32[batch]: the norm of each example's gradient, all examples in one vmap(grad)."""
    grads = strata.vmap(strata.grad(loss_one), in_axes=(None, 0, 0))(params, x, y)
    # Every leaf now has a leading batch axis; sum the squares over the other axes.
    sq = [jnp.sum(jnp.reshape(g * g, (g.shape[0], -1)), axis=1)
          for g in tree_util.tree_leaves(grads)]
    return jnp.sqrt(sum(sq))


def loop_norms(params, x, y):
    """The oracle: one grad call per example."""
    g = strata.grad(loss_one)
    return np.array([float(global_norm(g(params, x[i], y[i]))) for i in range(len(x))])


def run(batch=32, dim=20, hidden=16, classes=5, seed=0, jit=True, verbose=True):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, dim)).astype(np.float32)
    y = rng.integers(0, classes, size=batch).astype(np.int32)
    params = init_params(random.key(seed), [dim, hidden, classes])
    f = strata.jit(per_example_norms) if jit else per_example_norms
    norms = np.asarray(f(params, x, y))
    ref = loop_norms(params, x, y)
    err = float(np.max(np.abs(norms - ref) / np.maximum(ref, 1e-6)))
    if verbose:
        print("per-example gradient norms:", np.array2string(norms[:8], precision=4), "...")
        print(f"max relative difference from the loop: {err:.2e}")
    return norms, ref, err


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--dim", type=int, default=20)
    a = ap.parse_args(argv)
    return run(a.batch, a.dim)


if __name__ == "__main__":
    main()
