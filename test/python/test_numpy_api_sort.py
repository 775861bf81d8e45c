"""strata.numpy sorting, searching, set operations, counting and histograms against numpy,
with size= under jit and vmap, and gradients where the values flow through."""

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from test_numpy_api_common import close, check_grad

rng = np.random.default_rng(3)
A = rng.standard_normal((3, 5)).astype(np.float32)
I = rng.integers(0, 6, (4, 5)).astype(np.int32)


# ---- sorting ---------------------------------------------------------------------------------

def test_sort_complex_as_numpy_along_the_first_axis():
    from conftest import x64_mode
    # Ties on the real part are decided by the imaginary part.
    v = (rng.integers(-2, 3, (6, 4)) + 1j * rng.standard_normal((6, 4))).astype(np.complex64)
    # JAX's sorts axis 0 where numpy's sorts the last one: the same on 1-D input.
    np.testing.assert_array_equal(np.asarray(jnp.sort_complex(v)), np.sort_complex(v.T).T)
    np.testing.assert_array_equal(np.asarray(jnp.sort_complex(v[:, 0])), np.sort_complex(v[:, 0]))
    for x, want in ((np.array([3, 1, 2], np.int32), np.complex64),
                    (np.array([2.5, -1.0], np.float32), np.complex64),
                    (np.array([1.0, 0.5], np.float16), np.complex64),
                    (np.array([True, False]), np.complex64)):
        got = jnp.sort_complex(x)
        assert got.dtype == want, (x.dtype, got.dtype)
        np.testing.assert_array_equal(np.asarray(got), np.sort_complex(x).astype(want))
    with x64_mode(True):
        assert jnp.sort_complex(np.array([3, 1], np.int64)).dtype == np.complex128
        assert jnp.sort_complex(np.array([3.0, 1.0], np.float32)).dtype == np.complex64
        w = v.astype(np.complex128)
        np.testing.assert_array_equal(np.asarray(jnp.sort_complex(w[:, 1])),
                                      np.sort_complex(w[:, 1]))
    # NaN parts sort last within their part, as in JAX's sort (numpy puts every value with a
    # NaN after all the others).
    n = np.array([complex(np.nan, 0), 2 + 0j, complex(1, np.nan), 1 + 0j], np.complex64)
    want = sorted(n, key=lambda z: (np.isnan(z.real), np.nan_to_num(z.real), np.isnan(z.imag),
                                    np.nan_to_num(z.imag)))
    np.testing.assert_array_equal(np.asarray(jnp.sort_complex(n)), np.array(want))
    assert jnp.sort_complex(np.zeros((0,), np.float32)).shape == (0,)
    with pytest.raises(ValueError, match=r"\[sort_complex\].*float32"):
        jnp.sort_complex(np.float32(1.0))


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_sort_argsort(axis):
    close(jnp.sort(A, axis=axis), np.sort(A, axis=axis))
    close(jnp.argsort(A, axis=axis), np.argsort(A, axis=axis, kind="stable"))
    close(jnp.sort(I, axis=axis), np.sort(I, axis=axis))
    close(jnp.argsort(I, axis=axis), np.argsort(I, axis=axis, kind="stable"))
    close(jnp.sort(A, axis=axis, descending=True), -np.sort(-A, axis=axis))
    # Descending argsort stays stable: ties keep their original order.
    close(jnp.argsort(I, axis=axis, descending=True), np.argsort(-I, axis=axis, kind="stable"))


def test_sort_nan_and_misc():
    x = np.array([3.0, np.nan, -np.inf, 1.0, np.nan, 0.0], np.float32)
    close(jnp.sort(x), np.sort(x))
    close(jnp.argsort(x), np.argsort(x, kind="stable"))
    close(jnp.msort(A), np.sort(A, axis=0))
    keys = (np.array([1, 2, 1, 2, 1]), np.array([0, 0, 1, 1, 0]), np.array([5, 4, 3, 2, 1]))
    close(jnp.lexsort(keys), np.lexsort(keys))
    close(jnp.lexsort(np.stack(keys[:2])), np.lexsort(np.stack(keys[:2])))
    close(jnp.lexsort((A[0], A[1] > 0), axis=0), np.lexsort((A[0], A[1] > 0), axis=0))
    with pytest.raises(ValueError, match=r"^\[sort\]"):
        jnp.sort(A, order="x")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.int64,
                                   np.float16])
def test_sort_long_lines_eager_and_jit(dtype):
    # Lines long enough for the radix sort, with ties, infinities, NaNs and signed zeros; under
    # jit the sort and the cumulative scans run the eager kernels, so the bits agree.
    r = np.random.default_rng(5)
    x = (r.integers(-40, 40, (3, 2000)) / 4).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        x.flat[::17] = np.nan
        x.flat[3::29] = -0.0
        x.flat[5::31] = -np.inf
    want = np.sort(x, axis=1)
    for got in (jnp.sort(x, axis=1), strata.jit(lambda a: jnp.sort(a, axis=1))(x)):
        np.testing.assert_array_equal(np.asarray(got), want)
    perm = np.argsort(x, axis=1, kind="stable")
    for got in (jnp.argsort(x, axis=1), strata.jit(lambda a: jnp.argsort(a, axis=1))(x)):
        np.testing.assert_array_equal(np.asarray(got), perm)
    vals, idx = strata.jit(lambda a: strata.lax.top_k(a, 7))(x)
    want_idx = np.argsort(-x.astype(np.float64), axis=1, kind="stable")[:, :7]
    if np.issubdtype(dtype, np.floating):  # NaN counts as the largest: first, by index
        key = np.where(np.isnan(x), np.inf, x.astype(np.float64))
        nan_first = np.lexsort((np.arange(x.shape[1])[None].repeat(3, 0), -key,
                                ~np.isnan(x)), axis=1)
        want_idx = nan_first[:, :7]
    np.testing.assert_array_equal(np.asarray(idx), want_idx)
    if dtype not in (np.uint8,):
        c = np.asarray(strata.jit(lambda a: jnp.cumsum(a, axis=1))(x))
        e = np.asarray(jnp.cumsum(x, axis=1))
        np.testing.assert_array_equal(c.view(np.uint8), e.view(np.uint8))


@pytest.mark.parametrize("kth", [0, 2, 4, -1])
def test_partition(kth):
    p = np.asarray(jnp.partition(A, kth, axis=1))
    s = np.sort(A, axis=1)
    close(p[:, kth], s[:, kth])
    assert (np.sort(p, axis=1) == s).all()
    k = kth % 5
    assert (p[:, :k] <= p[:, k:k + 1]).all() and (p[:, k + 1:] >= p[:, k:k + 1]).all()
    ip = np.asarray(jnp.argpartition(A, kth, axis=1))
    close(np.take_along_axis(A, ip, 1)[:, kth], s[:, kth])
    with pytest.raises(ValueError, match=r"^\[partition\]"):
        jnp.partition(A, 9, axis=1)


def test_sort_grads_vmap_jit():
    check_grad(lambda v: jnp.sort(v, axis=1), lambda v: np.sort(v, axis=1), A)
    check_grad(lambda v: jnp.sort(v, axis=0, descending=True),
               lambda v: -np.sort(-v, axis=0), A)
    check_grad(lambda v: jnp.partition(v, 1, axis=1)[:, 1], lambda v: np.sort(v, axis=1)[:, 1], A)
    close(strata.vmap(jnp.argsort)(A), np.argsort(A, axis=1, kind="stable"))
    close(strata.jit(lambda v: jnp.sort(v, axis=0))(A), np.sort(A, axis=0))


# ---- searchsorted, digitize ------------------------------------------------------------------

@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("method", ["scan", "sort", "compare_all"])
def test_searchsorted(side, method):
    for n in (1, 2, 7, 16, 33):
        a = np.sort(rng.integers(0, 10, n)).astype(np.float32)
        v = np.array([-1, 0, 3, 3.5, 9, 10, 11], np.float32)
        close(jnp.searchsorted(a, v, side, method=method), np.searchsorted(a, v, side))
    a = np.array([0.0, 1.0, 1.0, np.nan, np.nan], np.float32)
    v = np.array([1.0, np.nan, np.inf, -1.0], np.float32)
    close(jnp.searchsorted(a, v, side, method=method), np.searchsorted(a, v, side))
    perm = rng.permutation(9)
    a = np.arange(9, dtype=np.float32)[np.argsort(perm)]
    close(jnp.searchsorted(a, np.array([2.5, 7]), side, sorter=np.argsort(a)),
          np.searchsorted(a, [2.5, 7], side, sorter=np.argsort(a)))
    close(jnp.searchsorted(np.arange(5), np.array([[1, 7], [2, -3]]), side),
          np.searchsorted(np.arange(5), [[1, 7], [2, -3]], side))


def test_searchsorted_vmap_jit_errors():
    a = np.sort(A, axis=1)
    v = np.array([-0.5, 0.0, 0.5], np.float32)
    got = strata.vmap(lambda r: jnp.searchsorted(r, v))(a)
    close(got, np.stack([np.searchsorted(r, v) for r in a]))
    close(strata.jit(lambda r, q: jnp.searchsorted(r, q, "right"))(a[0], v),
          np.searchsorted(a[0], v, "right"))
    with pytest.raises(ValueError, match=r"^\[searchsorted\]"):
        jnp.searchsorted(a[0], v, side="middle")
    with pytest.raises(ValueError, match=r"^\[searchsorted\]"):
        jnp.searchsorted(a, v)


@pytest.mark.parametrize("right", [False, True])
def test_digitize(right):
    x = np.array([-1.0, 0.0, 0.2, 1.0, 2.5, 6.4, 10.0, 11.0], np.float32)
    inc = np.array([0.0, 1.0, 2.5, 4.0, 10.0], np.float32)
    close(jnp.digitize(x, inc, right), np.digitize(x, inc, right))
    close(jnp.digitize(x, inc[::-1], right), np.digitize(x, inc[::-1], right))
    close(jnp.digitize(x.reshape(2, 4), inc, right), np.digitize(x.reshape(2, 4), inc, right))


# ---- unique and set operations ---------------------------------------------------------------

def test_unique_flags():
    for x in (I, A.round(0), np.array([1.0, np.nan, 2.0, np.nan], np.float32)):
        got = jnp.unique(x, return_index=True, return_inverse=True, return_counts=True)
        want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
        close(got[0], want[0])
        close(got[1], want[1])
        close(got[2], want[2].reshape(np.shape(x)))  # the inverse has x's shape (numpy 2)
        close(np.asarray(got[0])[np.asarray(got[2])], x)
        close(got[3], want[3])
    close(jnp.unique(np.array([1.0, np.nan, np.nan], np.float32)), [1.0, np.nan])
    close(jnp.unique(np.array([1.0, np.nan, np.nan], np.float32), equal_nan=False),
          [1.0, np.nan, np.nan])
    assert jnp.unique(np.zeros(0, np.float32)).shape == (0,)


@pytest.mark.parametrize("axis", [0, 1])
def test_unique_axis(axis):
    x = np.array([[1, 2, 1, 2], [3, 4, 3, 0], [1, 2, 1, 2]], np.int32)
    got = jnp.unique(x, axis=axis, return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(x, axis=axis, return_index=True, return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        close(g, w.reshape(-1) if w.ndim == 2 and g.ndim == 1 else w)


def test_unique_size_under_jit_vmap():
    f = strata.jit(lambda v: jnp.unique(v, size=5, fill_value=-1, return_counts=True))
    vals, counts = f(np.array([3, 1, 3, 7, 3], np.int32))
    close(vals, [1, 3, 7, -1, -1])
    close(counts, [1, 3, 1, 0, 0])
    vals = jnp.unique(np.array([3, 1, 3], np.int32), size=4)  # fill: the minimum
    close(vals, [1, 3, 1, 1])
    v, i, c = jnp.unique(np.array([3, 1, 3], np.int32), size=4, return_index=True,
                         return_counts=True)
    close(i, [1, 0, 1, 1])  # JAX pads the indices with the minimum's
    close(c, [1, 2, 0, 0])
    with pytest.raises(ValueError, match=r"^\[unique\]"):
        jnp.unique(np.zeros(0, np.int32), size=2)
    close(jnp.unique(np.zeros(0, np.int32), size=2, fill_value=5), [5, 5])
    close(jnp.unique(np.array([5, 4, 3, 2, 1]), size=3), [1, 2, 3])
    got = strata.vmap(lambda v: jnp.unique(v, size=5, fill_value=0))(I)
    want = np.stack([np.concatenate([np.unique(r), [0] * 5])[:5] for r in I])
    close(got, want)
    with pytest.raises(TypeError, match=r"^\[unique\]"):
        strata.jit(jnp.unique)(I)


def test_unique_namedtuples():
    x = np.array([4, 2, 4, 1], np.int32)
    r = jnp.unique_all(x)
    w = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    close(r.values, w[0])
    close(r.indices, w[1])
    close(r.inverse_indices, w[2])
    close(r.counts, w[3])
    c = jnp.unique_counts(x)
    close(c.values, w[0])
    close(c.counts, w[3])
    v = jnp.unique_inverse(x)
    close(v.inverse_indices, w[2])
    close(jnp.unique_values(x), w[0])
    # The Array API variants count each NaN separately (as JAX).
    xn = np.array([1.0, np.nan, np.nan], np.float32)
    close(jnp.unique_values(xn), [1.0, np.nan, np.nan])
    close(jnp.unique_counts(xn).counts, [1, 1, 1])


def test_set_operations():
    a = np.array([5, 1, 3, 3, 9, 7, 1], np.int32)
    b = np.array([3, 8, 1, 1, 6], np.int32)
    close(jnp.intersect1d(a, b), np.intersect1d(a, b))
    for g, w in zip(jnp.intersect1d(a, b, return_indices=True),
                    np.intersect1d(a, b, return_indices=True)):
        close(g, w)
    close(jnp.union1d(a, b), np.union1d(a, b))
    close(jnp.setdiff1d(a, b), np.setdiff1d(a, b))
    close(jnp.setxor1d(a, b), np.setxor1d(a, b))
    ua, ub = np.unique(a), np.unique(b)
    close(jnp.intersect1d(ua, ub, assume_unique=True), np.intersect1d(ua, ub, True))
    close(jnp.setdiff1d(ua, ub, assume_unique=True), np.setdiff1d(ua, ub, True))
    close(jnp.setxor1d(ua, ub, assume_unique=True), np.setxor1d(ua, ub, True))
    close(jnp.isin(a, b), np.isin(a, b))
    close(jnp.isin(I, [1, 4]), np.isin(I, [1, 4]))
    close(jnp.isin(I, [1, 4], invert=True), np.isin(I, [1, 4], invert=True))
    close(jnp.isin(I, [1, 4], method="sort"), np.isin(I, [1, 4]))
    f = strata.jit(lambda x, y: (jnp.intersect1d(x, y, size=4, fill_value=-1),
                                 jnp.setdiff1d(x, y, size=5, fill_value=0),
                                 jnp.union1d(x, y, size=9, fill_value=99),
                                 jnp.setxor1d(x, y, size=6, fill_value=-5)))
    r = f(a, b)
    pad = lambda v, n, fill: np.concatenate([v, [fill] * n])[:n]
    close(r[0], pad(np.intersect1d(a, b), 4, -1))
    close(r[1], pad(np.setdiff1d(a, b), 5, 0))
    close(jnp.setdiff1d(a, b, size=5), pad(np.setdiff1d(a, b), 5, 0))  # JAX's default fill 0
    close(jnp.intersect1d(a, b, size=3), pad(np.intersect1d(a, b), 3, 1))  # the smallest
    v, i1, i2 = jnp.intersect1d(a, b, return_indices=True, size=3)
    close(i1, [1, 2, 7])  # padded indices are the input sizes, as JAX
    close(i2, [2, 0, 5])
    close(r[2], pad(np.union1d(a, b), 9, 99))
    close(r[3], pad(np.setxor1d(a, b), 6, -5))


# ---- counting and histograms -----------------------------------------------------------------

def test_bincount():
    x = np.array([0, 1, 1, 3, 2, 1, 7], np.int32)
    w = rng.standard_normal(7).astype(np.float32)
    close(jnp.bincount(x), np.bincount(x))
    close(jnp.bincount(x, weights=w), np.bincount(x, weights=w))
    close(jnp.bincount(x, minlength=10), np.bincount(x, minlength=10))
    # JAX: with a fixed length, values past it are dropped and negatives count as 0.
    close(jnp.bincount(np.array([0, 1, 1, 5, -2]), length=3), [2, 2, 0])
    f = strata.jit(lambda v, ww: jnp.bincount(v, ww, length=8))
    close(f(x, w), np.bincount(x, weights=w, minlength=8))
    g = strata.grad(lambda ww: jnp.sum(jnp.bincount(x, ww, length=8) ** 2))(w)
    counts = np.bincount(x, weights=w, minlength=8)
    close(g, 2 * counts[x], rtol=1e-5)
    with pytest.raises(TypeError, match=r"^\[bincount\]"):
        jnp.bincount(np.array([1.0]))
    with pytest.raises(TypeError, match=r"^\[bincount\]"):
        strata.jit(jnp.bincount)(x)


@pytest.mark.parametrize("bins", [5, 10, np.array([-3.0, -1.0, 0.0, 0.5, 3.0])])
def test_histogram(bins):
    x = rng.standard_normal(100).astype(np.float32)
    w = rng.random(100).astype(np.float32)
    for kw in ({}, {"weights": w}, {"density": True}, {"range": (-1.0, 2.0)},
               {"weights": w, "density": True}):
        got_c, got_e = jnp.histogram(x, bins, **kw)
        want_c, want_e = np.histogram(x, bins, **kw)
        close(got_c, want_c, rtol=1e-4)
        close(got_e, want_e, rtol=1e-5)
    close(jnp.histogram_bin_edges(x, bins), np.histogram_bin_edges(x, bins), rtol=1e-5)
    close(jnp.histogram(np.ones(4, np.float32), 3)[1], np.histogram(np.ones(4), 3)[1])


def test_histogram2d_dd():
    x = rng.standard_normal(60).astype(np.float32)
    y = rng.standard_normal(60).astype(np.float32)
    for bins in (4, (3, 5)):
        for kw in ({}, {"density": True}, {"weights": np.abs(x)}):
            got = jnp.histogram2d(x, y, bins, **kw)
            want = np.histogram2d(x, y, bins, **kw)
            for g, w in zip(got, want):
                close(g, w, rtol=1e-4)
    s = np.stack([x, y, x * y], 1)
    got_c, got_e = jnp.histogramdd(s, (2, 3, 4))
    want_c, want_e = np.histogramdd(s, (2, 3, 4))
    close(got_c, want_c)
    for g, w in zip(got_e, want_e):
        close(g, w, rtol=1e-5)
    got_c, _ = jnp.histogramdd(s, 3, range=[(-1, 1)] * 3, density=True)
    want_c, _ = np.histogramdd(s, 3, range=[(-1, 1)] * 3, density=True)
    close(got_c, want_c, rtol=1e-4)
    close(strata.jit(lambda v: jnp.histogram(v, 4, range=(-2.0, 2.0))[0])(x),
          np.histogram(x, 4, range=(-2.0, 2.0))[0])
