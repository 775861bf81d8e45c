"""Automatic differentiation variational inference: a diagonal Gaussian fitted to an
unnormalized 2-D density by stochastic gradients of a Monte Carlo ELBO, as JAX's
examples/advi.py (without its plots): only the imports differ.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/jax_style/advi.py
"""
from functools import partial

import strata.numpy as jnp
import strata.scipy.stats.norm as norm
from strata import jit, grad, vmap
from strata import random
from strata.example_libraries import optimizers


# ========= Functions to define the evidence lower bound. =========

def diag_gaussian_sample(rng, mean, log_std):
    # Take a single sample from a diagonal multivariate Gaussian.
    return mean + jnp.exp(log_std) * random.normal(rng, mean.shape)


def diag_gaussian_logpdf(x, mean, log_std):
    # Evaluate a single point on a diagonal multivariate Gaussian.
    return jnp.sum(vmap(norm.logpdf)(x, mean, jnp.exp(log_std)))


def elbo(logprob, rng, mean, log_std):
    # Single-sample Monte Carlo estimate of the variational lower bound.
    sample = diag_gaussian_sample(rng, mean, log_std)
    return logprob(sample) - diag_gaussian_logpdf(sample, mean, log_std)


def batch_elbo(logprob, rng, params, num_samples):
    # Average over a batch of random samples.
    rngs = random.split(rng, num_samples)
    vectorized_elbo = vmap(partial(elbo, logprob), in_axes=(0, None, None))
    return jnp.mean(vectorized_elbo(rngs, *params))


# ========= Helper function for plotting. =========

@partial(jit, static_argnums=(0, 1, 2, 4))
def _mesh_eval(func, x_limits, y_limits, params, num_ticks):
    # Evaluate func on a 2D grid defined by x_limits and y_limits.
    x = jnp.linspace(*x_limits, num=num_ticks)
    y = jnp.linspace(*y_limits, num=num_ticks)
    X, Y = jnp.meshgrid(x, y)
    xy_vec = jnp.stack([X.ravel(), Y.ravel()]).T
    zs = vmap(func, in_axes=(0, None))(xy_vec, params)
    return X, Y, zs.reshape(X.shape)


def mesh_eval(func, x_limits, y_limits, params, num_ticks=101):
    return _mesh_eval(func, x_limits, y_limits, params, num_ticks)


# ========= Define an intractable unnormalized density =========

def funnel_log_density(params):
    return norm.logpdf(params[0], 0, jnp.exp(params[1])) + \
        norm.logpdf(params[1], 0, 1.35)


def main(num_steps=200, num_samples=40, step_size=0.01, verbose=True):
    # JAX's example steps 0.1 for 100 iterations; on this funnel that oscillates and diverges
    # near iteration 140, while 0.01 climbs steadily.
    @jit
    def objective(params, t):
        rng = random.key(t)
        return -batch_elbo(funnel_log_density, rng, params, num_samples)

    # Set up optimizer.
    D = 2
    init_mean = jnp.zeros(D)
    init_std = jnp.zeros(D)
    init_params = (init_mean, init_std)
    opt_init, opt_update, get_params = optimizers.momentum(step_size, mass=0.9)
    opt_state = opt_init(init_params)

    @jit
    def update(i, opt_state):
        params = get_params(opt_state)
        gradient = grad(objective)(params, i)
        return opt_update(i, gradient, opt_state)

    history = []
    for t in range(num_steps):
        opt_state = update(t, opt_state)
        params = get_params(opt_state)
        history.append(-float(objective(params, t)))
        if verbose and t % 20 == 0:
            print(f"Iteration {t} lower bound {history[-1]:.4f}")
    params = get_params(opt_state)
    X, Y, Z = mesh_eval(lambda xy, p: funnel_log_density(xy), (-2, 2), (-4, 2), params, 31)
    return {"history": history, "params": params, "grid": (X, Y, Z)}


if __name__ == "__main__":
    main()
