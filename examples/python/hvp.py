"""Hessian-vector products by forward-over-reverse, jvp(grad(f)), without forming the Hessian;
checked against hessian(f) @ v.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/hvp.py
"""
import argparse

import numpy as np

import strata
import strata.numpy as jnp


def f(x):
    """A non-quadratic scalar function (its Hessian depends on x)."""
    return jnp.sum(jnp.sin(x) * x ** 2) + jnp.sum(x[:-1] * x[1:]) ** 2 + jnp.log(
        1.0 + jnp.sum(jnp.exp(x)))


def hvp(fun, x, v):
    """H(x) @ v for scalar fun: the directional derivative of grad(fun) at x along v."""
    return strata.jvp(strata.grad(fun), (x,), (v,))[1]


def run(n=16, seed=0, jit=False, verbose=True):
    """(H v, hessian(f)(x) @ v, hessian(f)(x)) at a random x, v; with jit the hvp is compiled."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)  # float64 in 64-bit mode (main turns it on), else float32
    v = rng.standard_normal(n)
    fn = (lambda x, v: hvp(f, x, v))
    hv = np.asarray((strata.jit(fn) if jit else fn)(x, v))
    h = np.asarray(strata.hessian(f)(x))
    ref = h @ v
    err = float(np.max(np.abs(hv - ref)) / np.max(np.abs(ref)))
    if verbose:
        print("H v           :", np.array2string(hv[:6], precision=5), "...")
        print("hessian(f) @ v:", np.array2string(ref[:6], precision=5), "...")
        print(f"max relative difference {err:.2e}; Hessian symmetric: "
              f"{np.allclose(h, h.T, atol=1e-10)}")
    return hv, ref, h


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--jit", action="store_true", help="compile the hvp with strata.jit")
    a = ap.parse_args(argv)
    strata.config.update("jax_enable_x64", True)  # the check compares at float64 precision
    return run(a.n, jit=a.jit)


if __name__ == "__main__":
    main()
