"""Gaussian-process regression: the log marginal likelihood of a kernel's hyperparameters from a
Cholesky solve, its gradient by strata.grad, a few (jitted) Adam steps that raise it, and the
posterior mean and variance at test points.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/gaussian_process.py

The kernel is scikit-learn's ConstantKernel(c) * RBF(length) + WhiteKernel(noise), with the
hyperparameters as theta = log([c, length, noise]) (scikit-learn's theta), so the likelihood and
its gradient can be checked against GaussianProcessRegressor.log_marginal_likelihood."""
import argparse
import math

import numpy as np

import strata
import strata.numpy as jnp
import strata.scipy.linalg as jsl
from strata.example_libraries import optimizers


def kernel(theta, x1, x2):
    """c * exp(-|x1 - x2|^2 / (2 length^2)) for inputs (n1, d) and (n2, d)."""
    c, length = jnp.exp(theta[0]), jnp.exp(theta[1])
    d2 = jnp.sum((x1[:, None, :] - x2[None, :, :]) ** 2, axis=-1)
    return c * jnp.exp(-0.5 * d2 / length ** 2)


def log_marginal_likelihood(theta, x, y):
    """log p(y | x, theta) = -y^T K^-1 y / 2 - log det(K) / 2 - n log(2 pi) / 2 with
    K = kernel(x, x) + noise I, through the Cholesky factor L of K: log det K is
    2 sum(log diag L) and K^-1 y comes from two triangular solves."""
    n = x.shape[0]
    k = kernel(theta, x, x) + jnp.exp(theta[2]) * jnp.eye(n, dtype=x.dtype)
    factor = jsl.cho_factor(k, lower=True)
    alpha = jsl.cho_solve(factor, y)
    log_det = 2.0 * jnp.sum(jnp.log(jnp.diagonal(factor[0])))
    return -0.5 * jnp.dot(y, alpha) - 0.5 * log_det - 0.5 * n * math.log(2 * math.pi)


def predict(theta, x, y, x_test):
    """The posterior mean and variance of the noise-free function at x_test."""
    n = x.shape[0]
    k = kernel(theta, x, x) + jnp.exp(theta[2]) * jnp.eye(n, dtype=x.dtype)
    factor = jsl.cho_factor(k, lower=True)
    k_star = kernel(theta, x, x_test)
    mean = k_star.T @ jsl.cho_solve(factor, y)
    v = jsl.solve_triangular(factor[0], k_star, lower=True)
    var = jnp.exp(theta[0]) - jnp.sum(v * v, axis=0)
    return mean, var


def data(n=40, seed=0, noise=0.1):
    """Noisy samples of sin(3x) on [-2, 2] and a test grid."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-2.0, 2.0, n))[:, None]
    y = np.sin(3 * x[:, 0]) + noise * rng.standard_normal(n)
    return x, y, np.linspace(-2.0, 2.0, 50)[:, None]


def fit(theta0, x, y, steps=50, step_size=0.05, jit=True, verbose=True):
    """Adam ascent of the log marginal likelihood from theta0, each step's value and gradient
    compiled once (jit): (theta, [lml per step])."""
    init, update, get_params = optimizers.adam(step_size)
    neg = strata.value_and_grad(lambda t: -log_marginal_likelihood(t, x, y))
    neg = strata.jit(neg) if jit else neg
    state = init(jnp.asarray(theta0))
    history = []
    for i in range(steps):
        value, g = neg(get_params(state))
        history.append(-float(value))
        state = update(i, g, state)
        if verbose and (i % 10 == 0 or i == steps - 1):
            t = np.exp(np.asarray(get_params(state)))
            print(f"step {i:3d}  log marginal likelihood {-float(value):9.4f}  c {t[0]:.3f}  "
                  f"length {t[1]:.3f}  noise {t[2]:.4f}")
    return get_params(state), history


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=40)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--no-jit", action="store_true", help="run the steps eagerly")
    args = p.parse_args(argv)
    strata.config.update("jax_enable_x64", True)
    x, y, x_test = data(args.n)
    theta, history = fit(np.log([1.0, 1.0, 0.5]), x, y, steps=args.steps, jit=not args.no_jit)
    mean, var = predict(theta, x, y, x_test)
    err = float(np.sqrt(np.mean((np.asarray(mean) - np.sin(3 * x_test[:, 0])) ** 2)))
    print(f"log marginal likelihood {history[0]:.4f} -> {history[-1]:.4f}; posterior mean RMS "
          f"error against sin(3x) {err:.4f}; mean posterior std {np.mean(np.sqrt(var)):.4f}")
    return {"theta": np.asarray(theta), "history": history, "rmse": err}


if __name__ == "__main__":
    main()
