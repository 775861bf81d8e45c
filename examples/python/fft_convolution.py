"""A convolution by FFT: rfft both signals (zero-padded to the full output length), multiply,
irfft; batched with vmap and differentiated with grad, checked against direct convolution
(lax.conv_general_dilated where Strata has it, numpy.convolve otherwise).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/fft_convolution.py
"""
import argparse

import numpy as np

import strata
import strata.numpy as jnp
from strata import lax


def fft_convolve(x, k):
    """The full linear convolution of 1-D x and k (length len(x) + len(k) - 1) by FFT."""
    n = x.shape[-1] + k.shape[-1] - 1
    return jnp.fft.irfft(jnp.fft.rfft(x, n=n) * jnp.fft.rfft(k, n=n), n=n)


def direct_convolve(x, k):
    """The same convolution computed directly: lax.conv_general_dilated (which correlates, so
    the kernel is flipped) when available, else numpy.convolve."""
    if hasattr(lax, "conv_general_dilated"):
        lhs = jnp.asarray(x)[None, None, :]
        rhs = jnp.flip(jnp.asarray(k))[None, None, :]
        pad = k.shape[-1] - 1
        out = lax.conv_general_dilated(lhs, rhs, (1,), [(pad, pad)])
        return np.asarray(out)[0, 0]
    return np.convolve(np.asarray(x), np.asarray(k))


def run(n=64, taps=9, batch=4, seed=0, verbose=True):
    """The FFT convolution of a batch of signals with one kernel, its direct counterpart, and
    the gradient of a loss through it with respect to the kernel, against finite differences.
    Returns (fft result, direct result, gradient, finite-difference gradient)."""
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((batch, n))
    k = rng.standard_normal(taps)
    got = np.asarray(strata.vmap(fft_convolve, in_axes=(0, None))(xs, k))
    want = np.stack([direct_convolve(x, k) for x in xs])

    def loss(kk):
        return jnp.sum(jnp.tanh(fft_convolve(jnp.asarray(xs[0]), kk)))

    g = np.asarray(strata.grad(loss)(k))
    eps = 1e-6
    fd = np.array([(float(loss(k + eps * e)) - float(loss(k - eps * e))) / (2 * eps)
                   for e in np.eye(taps)])
    if verbose:
        print(f"{batch} signals of {n} samples * a {taps}-tap kernel by FFT")
        print(f"max |fft - direct| = {np.max(np.abs(got - want)):.2e}")
        print(f"max |grad - finite differences| = {np.max(np.abs(g - fd)):.2e}")
    return got, want, g, fd


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--taps", type=int, default=9)
    a = ap.parse_args(argv)
    strata.config.update("jax_enable_x64", True)  # the checks compare at float64 precision
    return run(a.n, a.taps)


if __name__ == "__main__":
    main()
