"""An MLP trained on the handwritten digits set that python3-sklearn ships (8x8 images, 10
classes; read with gzip + numpy, no download, no sklearn import), with jit(value_and_grad) and
Adam written in Strata.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/train_digits.py [--epochs 30]
"""
import argparse
import gzip
import time

import numpy as np

import strata
import strata.numpy as jnp
from strata import nn, random, tree_util

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"


def load_digits(path=DIGITS, test_fraction=0.2, seed=0):
    """(x_train, y_train, x_test, y_test): f32 pixels scaled to [0, 1], i32 labels."""
    with gzip.open(path, "rt") as f:
        data = np.loadtxt(f, delimiter=",", dtype=np.float32)
    x, y = data[:, :-1] / 16.0, data[:, -1].astype(np.int32)
    perm = np.random.default_rng(seed).permutation(len(x))
    n_test = int(len(x) * test_fraction)
    test, train = perm[:n_test], perm[n_test:]
    return x[train], y[train], x[test], y[test]


def init_params(key, sizes):
    params = []
    for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
        k = random.fold_in(key, i)
        params.append({"w": random.normal(k, (m, n)) * np.float32(np.sqrt(2.0 / m)),
                       "b": jnp.zeros((n,), dtype=jnp.float32)})
    return params


def forward(params, x):
    for layer in params[:-1]:
        x = nn.relu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, y):
    logits = forward(params, x)
    return -jnp.mean(jnp.sum(nn.log_softmax(logits) * nn.one_hot(y, 10), axis=-1))


def adam_init(params):
    zeros = tree_util.tree_map(jnp.zeros_like, params)
    return {"m": zeros, "v": zeros, "t": jnp.zeros((), dtype=jnp.float32)}


def make_train_step(lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    @strata.jit
    def train_step(params, opt, x, y):
        loss, g = strata.value_and_grad(loss_fn)(params, x, y)
        t = opt["t"] + 1.0
        m = tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, opt["m"], g)
        v = tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, opt["v"], g)
        scale = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        params = tree_util.tree_map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + eps),
                                    params, m, v)
        return params, {"m": m, "v": v, "t": t}, loss
    return train_step


@strata.jit
def predict(params, x):
    return jnp.argmax(forward(params, x), axis=-1)


def accuracy(params, x, y):
    return float(np.mean(np.asarray(predict(params, x)) == y))


def train(epochs=30, hidden=128, batch=64, lr=3e-3, seed=0, verbose=True):
    """Trains and returns {'test_accuracy', 'train_accuracy', 'losses', 'epoch_seconds'}."""
    x_tr, y_tr, x_te, y_te = load_digits(seed=seed)
    params = init_params(random.key(seed), [64, hidden, 10])
    opt = adam_init(params)
    step = make_train_step(lr)
    rng = np.random.default_rng(seed)
    n_batches = len(x_tr) // batch  # drop the ragged batch: one shape, one compilation
    losses, times = [], []
    for epoch in range(epochs):
        t0 = time.perf_counter()
        perm = rng.permutation(len(x_tr))
        total = 0.0
        for b in range(n_batches):
            idx = perm[b * batch:(b + 1) * batch]
            params, opt, loss = step(params, opt, x_tr[idx], y_tr[idx])
            total += float(loss)
        times.append(time.perf_counter() - t0)
        losses.append(total / n_batches)
        if verbose:
            print(f"epoch {epoch + 1:3d}  loss {losses[-1]:.4f}  {times[-1] * 1e3:.1f} ms")
    out = {"test_accuracy": accuracy(params, x_te, y_te),
           "train_accuracy": accuracy(params, x_tr, y_tr), "losses": losses,
           "epoch_seconds": times}
    if verbose:
        print(f"train accuracy {out['train_accuracy']:.4f}  "
              f"test accuracy {out['test_accuracy']:.4f}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    return train(a.epochs, a.hidden, a.batch, a.lr, a.seed)


if __name__ == "__main__":
    main()
