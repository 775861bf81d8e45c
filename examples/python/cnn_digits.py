"""A LeNet-style CNN (two conv + max-pool stages, then dense layers) trained under jit on the
handwritten digits set that python3-sklearn ships (8x8 images, 10 classes; loaded as
train_digits.py loads it), with stax layers and the Adam of example_libraries.optimizers.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/cnn_digits.py [--epochs 20]
"""
import argparse
import importlib.util
import os
import time

import numpy as np

import strata
import strata.numpy as jnp
from strata import nn, random
from strata.example_libraries import optimizers, stax

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("train_digits",
                                               os.path.join(_HERE, "train_digits.py"))
train_digits = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train_digits)
DIGITS = train_digits.DIGITS


def lenet(channels=(16, 32), hidden=128):
    """conv 3x3 SAME -> relu -> max pool 2x2/2, twice (8x8 -> 4x4 -> 2x2), then dense layers."""
    c1, c2 = channels
    return stax.serial(
        stax.Conv(c1, (3, 3), padding="SAME"), stax.Relu, stax.MaxPool((2, 2), (2, 2)),
        stax.Conv(c2, (3, 3), padding="SAME"), stax.Relu, stax.MaxPool((2, 2), (2, 2)),
        stax.Flatten, stax.Dense(hidden), stax.Relu, stax.Dense(10), stax.LogSoftmax)


def train(epochs=20, batch=64, lr=2e-3, seed=0, use_jit=True, verbose=True):
    """Trains and returns {'test_accuracy', 'train_accuracy', 'losses', 'epoch_seconds'}."""
    x_tr, y_tr, x_te, y_te = train_digits.load_digits(seed=seed)
    x_tr, x_te = x_tr.reshape(-1, 8, 8, 1), x_te.reshape(-1, 8, 8, 1)  # NHWC
    init_fun, apply_fun = lenet()
    _, params = init_fun(random.key(seed), (batch, 8, 8, 1))
    opt_init, opt_update, get_params = optimizers.adam(lr)
    opt_state = opt_init(params)
    maybe_jit = strata.jit if use_jit else (lambda f: f)

    def loss_fn(p, x, y):
        return -jnp.mean(jnp.sum(apply_fun(p, x) * nn.one_hot(y, 10), axis=-1))

    @maybe_jit
    def step(i, state, x, y):
        loss, g = strata.value_and_grad(loss_fn)(get_params(state), x, y)
        return opt_update(i, g, state), loss

    @maybe_jit
    def predict(p, x):
        return jnp.argmax(apply_fun(p, x), axis=-1)

    def accuracy(p, x, y):
        return float(np.mean(np.asarray(predict(p, x)) == y))

    rng = np.random.default_rng(seed)
    n_batches = len(x_tr) // batch  # drop the ragged batch: one shape, one compilation
    losses, times, i = [], [], 0
    for epoch in range(epochs):
        t0 = time.perf_counter()
        perm = rng.permutation(len(x_tr))
        total = 0.0
        for b in range(n_batches):
            idx = perm[b * batch:(b + 1) * batch]
            opt_state, loss = step(i, opt_state, x_tr[idx], y_tr[idx])
            total += float(loss)
            i += 1
        times.append(time.perf_counter() - t0)
        losses.append(total / n_batches)
        if verbose:
            print(f"epoch {epoch + 1:3d}  loss {losses[-1]:.4f}  {times[-1] * 1e3:.1f} ms")
    params = get_params(opt_state)
    out = {"test_accuracy": accuracy(params, x_te, y_te),
           "train_accuracy": accuracy(params, x_tr, y_tr), "losses": losses,
           "epoch_seconds": times}
    if verbose:
        print(f"train accuracy {out['train_accuracy']:.4f}  "
              f"test accuracy {out['test_accuracy']:.4f}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-jit", action="store_true", help="run op by op (eager)")
    a = ap.parse_args(argv)
    return train(a.epochs, a.batch, a.lr, a.seed, use_jit=not a.no_jit)


if __name__ == "__main__":
    main()
