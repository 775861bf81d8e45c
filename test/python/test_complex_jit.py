"""Jitted complex functions on the CPU against numpy and against the same function run eagerly:
elementwise ops, conversions, data movement, sums and products, FFTs; complex64 and complex128;
the clear compile-time error of a complex op that has no compiled lowering."""

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import lax
from conftest import x64_mode

RNG = np.random.default_rng(7)


def rand_complex(shape, dtype):
    re = RNG.uniform(0.3, 1.5, shape)
    im = RNG.uniform(0.3, 1.5, shape) * RNG.choice([-1, 1], shape)
    return (re + 1j * im).astype(dtype)


def tol(dtype):
    return (2e-5, 2e-6) if np.dtype(dtype) in (np.complex64, np.float32) else (1e-12, 1e-13)


def close(got, want, dtype):
    rtol, atol = tol(dtype)
    got = np.asarray(got)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# name: (strata function, numpy oracle)
UNARY = {
    "neg": (lambda z: -z, lambda z: -z),
    "conj": (jnp.conj, np.conj),
    "real": (jnp.real, np.real),
    "imag": (jnp.imag, np.imag),
    "abs": (jnp.abs, np.abs),
    "exp": (jnp.exp, np.exp),
    "log": (jnp.log, np.log),
    "log1p": (jnp.log1p, np.log1p),
    "expm1": (jnp.expm1, np.expm1),
    "sqrt": (jnp.sqrt, np.sqrt),
    "rsqrt": (lax.rsqrt, lambda z: 1 / np.sqrt(z)),
    "sin": (jnp.sin, np.sin),
    "cos": (jnp.cos, np.cos),
    "tan": (jnp.tan, np.tan),
    "tanh": (jnp.tanh, np.tanh),
    "sinh": (jnp.sinh, np.sinh),
    "cosh": (jnp.cosh, np.cosh),
    "arcsin": (jnp.arcsin, np.arcsin),
    "arccos": (jnp.arccos, np.arccos),
    "arctan": (jnp.arctan, np.arctan),
    "arcsinh": (jnp.arcsinh, np.arcsinh),
    "arccosh": (jnp.arccosh, np.arccosh),
    "arctanh": (jnp.arctanh, np.arctanh),
    "sign": (jnp.sign, lambda z: z / np.abs(z)),
    "cube": (lambda z: lax.integer_pow(z, 3), lambda z: z**3),
    "inverse_square": (lambda z: lax.integer_pow(z, -2), lambda z: 1 / z**2),
    "sum_axis": (lambda z: jnp.sum(z, axis=1), lambda z: np.sum(z, axis=1)),
    "sum_all": (jnp.sum, np.sum),
    "prod_axis": (lambda z: jnp.prod(z, axis=0), lambda z: np.prod(z, axis=0)),
    "transpose": (lambda z: z.T, lambda z: z.T),
    "reshape": (lambda z: z.reshape(-1), lambda z: z.reshape(-1)),
    "slice": (lambda z: z[1:, ::2], lambda z: z[1:, ::2]),
    "flip": (lambda z: z[::-1], lambda z: z[::-1]),
    "scale": (lambda z: z * 2.0 + 1j, lambda z: z * 2.0 + 1j),
    "fft": (jnp.fft.fft, np.fft.fft),
    "ifft_of_fft": (lambda z: jnp.fft.ifft(jnp.fft.fft(z) * 2.0), lambda z: 2 * z),
}

BINARY = {
    "add": (lambda z, w: z + w, lambda z, w: z + w),
    "sub": (lambda z, w: z - w, lambda z, w: z - w),
    "mul": (lambda z, w: z * w, lambda z, w: z * w),
    "div": (lambda z, w: z / w, lambda z, w: z / w),
    "pow": (lambda z, w: z**w, lambda z, w: z**w),
    "eq": (lambda z, w: z == w, lambda z, w: z == w),
    "ne": (lambda z, w: z != w, lambda z, w: z != w),
    "complex": (lambda z, w: lax.complex(jnp.real(z), jnp.imag(w)),
                lambda z, w: z.real + 1j * w.imag),
    "where": (lambda z, w: jnp.where(jnp.real(z) > 0.9, z, w),
              lambda z, w: np.where(z.real > 0.9, z, w)),
    "matmul": (lambda z, w: z @ w.T, lambda z, w: z @ w.T),
    "vdot": (jnp.vdot, np.vdot),
    "outer": (lambda z, w: jnp.outer(z[0], w[1]), lambda z, w: np.outer(z[0], w[1])),
    "batched_einsum": (lambda z, w: jnp.einsum("ij,kj->ik", z, jnp.conj(w)),
                       lambda z, w: np.einsum("ij,kj->ik", z, np.conj(w))),
    "concatenate": (lambda z, w: jnp.concatenate([z, w], axis=1),
                    lambda z, w: np.concatenate([z, w], axis=1)),
}

DTYPES = [np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_numpy_and_eager(name, dtype):
    f, oracle = UNARY[name]
    with x64_mode(dtype == np.complex128):
        z = rand_complex((3, 5), dtype)
        got = strata.jit(f)(z)
        close(got, oracle(z), dtype)
        close(got, f(jnp.asarray(z)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_matches_numpy_and_eager(name, dtype):
    f, oracle = BINARY[name]
    with x64_mode(dtype == np.complex128):
        z, w = rand_complex((3, 5), dtype), rand_complex((3, 5), dtype)
        w[0, 0] = z[0, 0]  # eq and ne see one equal pair
        got = strata.jit(f)(z, w)
        close(got, oracle(z, w), dtype)
        close(got, f(jnp.asarray(z), jnp.asarray(w)), dtype)


@pytest.mark.parametrize("shape", [(1,), (0,), (7,), (2, 3, 4)])
def test_sizes_one_empty_odd_and_rank_three(shape):
    z = rand_complex(shape, np.complex64)
    f = strata.jit(lambda v: jnp.exp(v) * jnp.conj(v) - v)
    close(f(z), np.exp(z) * np.conj(z) - z, np.complex64)


def test_identity_and_rfft_of_real_input():
    z = rand_complex((4,), np.complex64)
    close(strata.jit(lambda v: v)(z), z, np.complex64)
    x = RNG.uniform(size=(3, 8)).astype(np.float32)
    got = strata.jit(jnp.fft.rfft)(x)
    assert np.asarray(got).dtype == np.complex64
    close(got, np.fft.rfft(x), np.complex64)


def test_conversions_to_and_from_complex():
    x = RNG.uniform(size=5).astype(np.float32)
    i = np.arange(5, dtype=np.int32)
    with x64_mode():
        z = rand_complex((5,), np.complex128)
        close(strata.jit(lambda v: v.astype(jnp.complex64))(z), z.astype(np.complex64),
              np.complex64)
        close(strata.jit(lambda v: v.astype(jnp.complex128))(x), x.astype(np.complex128),
              np.complex128)
        close(strata.jit(lambda v: v.astype(jnp.complex64))(i), i.astype(np.complex64),
              np.complex64)
        close(strata.jit(lambda v: jnp.abs(v * 1j))(x), x, np.float32)


def test_closed_over_complex_constants():
    small = np.array([1 + 2j, -3j], np.complex64)
    large = rand_complex((40,), np.complex64)
    f = strata.jit(lambda v: v * small[0] + jnp.sum(large) + small[1])
    z = rand_complex((6,), np.complex64)
    close(f(z), z * small[0] + np.sum(large) + small[1], np.complex64)


def test_complex_op_without_a_compiled_lowering_is_a_clear_error():
    z = rand_complex((6,), np.complex64)
    with pytest.raises(RuntimeError,
                       match=r"\[jit\] argmax is not compiled for complex values"):
        strata.jit(lambda v: jnp.argmax(v))(z)


# ---- Indexing, scans, sorts and extrema under jit ---------------------------------------------

def awkward_complex(shape, dtype):
    """Parts with ties (so the imaginary part decides), signed zeros, infinities and NaNs."""
    n = int(np.prod(shape))
    re = RNG.integers(-2, 3, n).astype(np.float64)
    im = RNG.integers(-2, 3, n).astype(np.float64)
    re[::7] = np.nan
    im[3::11] = np.nan
    re[5::13] = -0.0
    im[2::9] = np.inf
    re[4::17] = -np.inf
    z = np.empty(n, dtype)
    z.real, z.imag = re, im  # not re + 1j * im: inf * 1j would make NaN real parts
    return z.reshape(shape)


def same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


# name: (function of z (and an int32 vector k), numpy oracle or None: eager only)
INDEXING = {
    "take": (lambda z, k: jnp.take(z, jnp.array([0, 3, 3, 1]), axis=1),
             lambda z, k: np.take(z, [0, 3, 3, 1], axis=1)),
    "fancy_index": (lambda z, k: z[k % 3], lambda z, k: z[k % 3]),
    "at_set": (lambda z, k: z.at[:, k % 5].set(z[0, :4] * 2j),
               lambda z, k: _np_set(z, k % 5, z[0, :4] * 2j)),
    "at_add": (lambda z, k: z.at[1, k % 5].add(1 - 1j), lambda z, k: _np_add(z, k % 5)),
    "at_multiply": (lambda z, k: z.at[0, k % 5].multiply(2j), None),
    "at_min": (lambda z, k: z.at[2, k % 5].min(jnp.asarray(z[0, :4])), None),
    "at_max": (lambda z, k: z.at[2, k % 5].max(jnp.asarray(z[1, :4])), None),
    "cumsum": (lambda z, k: jnp.cumsum(z, axis=1), lambda z, k: np.cumsum(z, axis=1)),
    "cumsum_reverse": (lambda z, k: lax.cumsum(z, axis=0, reverse=True),
                       lambda z, k: np.cumsum(z[::-1], axis=0)[::-1]),
    "cumprod": (lambda z, k: jnp.cumprod(z, axis=1), lambda z, k: np.cumprod(z, axis=1)),
    "cummax": (lambda z, k: lax.cummax(z, axis=1), None),
    "cummin_reverse": (lambda z, k: lax.cummin(z, axis=0, reverse=True), None),
    "sort": (lambda z, k: jnp.sort(z, axis=1), lambda z, k: np.sort(z, axis=1)),
    "sort_axis0": (lambda z, k: jnp.sort(z, axis=0), lambda z, k: np.sort(z, axis=0)),
    "argsort": (lambda z, k: jnp.argsort(z, axis=1), None),
    "sort_complex_payload": (lambda z, k: lax.sort((k, z[0, :4]), num_keys=1)[1], None),
    "sort_two_keys": (lambda z, k: lax.sort((z[1, :4], k, z[0, :4]), num_keys=2), None),
    "maximum": (lambda z, k: jnp.maximum(z[0], z[1]), None),
    "minimum": (lambda z, k: jnp.minimum(z[0], z[1]), None),
}


def _np_set(z, idx, v):
    out = z.copy()
    out[:, idx] = v
    return out


def _np_add(z, idx):
    out = z.copy()
    np.add.at(out[1], idx, 1 - 1j)
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(INDEXING))
def test_indexing_scans_and_sorts_match_eager_bitwise(name, dtype):
    f, oracle = INDEXING[name]
    with x64_mode(dtype == np.complex128):
        z = rand_complex((3, 5), dtype)
        k = np.array([4, 1, 1, 6], np.int32)
        got = strata.jit(f)(z, k)
        want = f(jnp.asarray(z), jnp.asarray(k))
        for g, w in zip(strata.tree_util.tree_leaves(got), strata.tree_util.tree_leaves(want)):
            same_bits(g, w)
        if oracle is not None:
            close(got, oracle(z, k), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sorts_and_extrema_at_nan_inf_and_signed_zero_match_eager(dtype):
    with x64_mode(dtype == np.complex128):
        z = awkward_complex((4, 300), dtype)  # long lines: the kernel's radix passes
        w = awkward_complex((4, 300), dtype)
        fns = [lambda a, b: jnp.sort(a, axis=1), lambda a, b: jnp.sort(a, axis=0),
               lambda a, b: jnp.argsort(a, axis=1), lambda a, b: lax.cummax(a, axis=1),
               lambda a, b: lax.cummin(a, axis=1), lambda a, b: jnp.maximum(a, b),
               lambda a, b: jnp.minimum(a, b), lambda a, b: lax.sort((a, b), num_keys=2)]
        for f in fns:
            got = strata.jit(f)(z, w)
            want = f(jnp.asarray(z), jnp.asarray(w))
            for g, e in zip(strata.tree_util.tree_leaves(got), strata.tree_util.tree_leaves(want)):
                same_bits(g, e)
        # XLA's order (as JAX's): by real part, then imaginary part, NaN last in each (numpy's
        # np.sort instead puts every R + nanj after all the numbers). numpy's lexsort on the
        # parts is that order.
        want = z[0][np.lexsort((z[0].imag, z[0].real))]
        np.testing.assert_array_equal(np.asarray(strata.jit(jnp.sort)(z[0])), want)


@pytest.mark.parametrize("shape", [(1,), (0,), (7,), (2, 1)])
def test_sort_and_cumsum_at_size_one_empty_and_odd(shape):
    z = rand_complex(shape, np.complex64)
    for f, oracle in [(jnp.sort, np.sort), (jnp.cumsum, np.cumsum),
                      (lambda v: jnp.sort(v, axis=-1), lambda v: np.sort(v, axis=-1))]:
        close(strata.jit(f)(z), oracle(z), np.complex64)


def test_grad_through_jitted_complex_sort_and_gather():
    def f(x):
        z = lax.complex(x, 2.0 * x[::-1])
        return jnp.sum(jnp.abs(jnp.sort(z)[:3] * jnp.take(z, jnp.array([0, 0]))[0]) ** 2)
    x = np.array([0.3, -1.2, 0.7, 2.0], np.float32)
    got = strata.jit(strata.grad(f))(x)
    close(got, strata.grad(f)(jnp.asarray(x)), np.float32)


def test_clip_of_complex_raises_value_error_as_jax():
    z = rand_complex((3,), np.complex64)
    for call in [lambda: jnp.clip(z, 0, 1), lambda: jnp.clip(np.real(z), 1j, 2),
                 lambda: jnp.clip(np.real(z), None, 2 + 0j), lambda: jnp.asarray(z).clip(0, 1)]:
        with pytest.raises(ValueError, match="Clip received a complex value either through the "
                           "input or the min/max keywords. Complex values have no ordering"):
            call()
