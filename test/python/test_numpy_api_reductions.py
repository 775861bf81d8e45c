"""strata.numpy reductions with JAX's keywords, cumulative and NaN reductions, quantiles,
statistics and closeness tests, against numpy values, finite differences, vmap loops and jit."""

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from test_numpy_api_common import close, check_grad

rng = np.random.default_rng(1)
A = rng.standard_normal((3, 4)).astype(np.float32)
AN = A.copy()
AN[0, 1] = AN[2, 3] = np.nan
W = rng.standard_normal((3, 4))


# ---- keyword arguments -----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
def test_reduction_axis_keepdims(name, axis):
    close(getattr(jnp, name)(A, axis=axis, keepdims=True),
          getattr(np, name)(A, axis=axis, keepdims=True), rtol=1e-5)


def test_sum_dtype_initial_where():
    x = np.arange(12, dtype=np.int8).reshape(3, 4)
    assert jnp.sum(x).dtype == np.int32  # promote_integers
    assert jnp.sum(x, promote_integers=False).dtype == np.int8
    assert jnp.sum(x, dtype=jnp.float32).dtype == np.float32
    assert jnp.sum(np.ones(3, bool)).dtype == np.int32
    mask = A > 0
    close(jnp.sum(A, axis=1, where=mask, initial=2.0), np.sum(A, axis=1, where=mask, initial=2.0))
    close(jnp.prod(A, axis=0, where=mask), np.prod(A, axis=0, where=mask))
    close(jnp.max(A, axis=1, where=mask, initial=-5.0),
          np.max(A, axis=1, where=mask, initial=-5.0))
    close(jnp.min(A, initial=-9.0), np.min(A, initial=-9.0))
    close(jnp.mean(A, axis=0, where=mask), np.mean(A, axis=0, where=mask))
    close(jnp.var(A, axis=1, where=mask, ddof=1), np.var(A, axis=1, where=mask, ddof=1))
    close(jnp.std(A, axis=1, correction=1), np.std(A, axis=1, ddof=1))
    close(jnp.all(A > -1, axis=0, where=mask), np.all(A > -1, axis=0, where=mask))
    close(jnp.any(A > 1, axis=1, where=mask), np.any(A > 1, axis=1, where=mask))
    assert jnp.mean(np.arange(4, dtype=np.int32)).dtype == np.float32
    assert jnp.mean(A, dtype=jnp.float16).dtype == np.float16
    # 16-bit floats are averaged in float32 (as JAX): no overflow of the sum or the count
    h = np.ones(100000, np.float16)
    for r in (jnp.mean(h, where=h > 0), jnp.nanmean(h), jnp.var(h, where=h > 0) + 1,
              jnp.nanvar(h) + 1, jnp.nanstd(h) + 1):
        assert r.dtype == np.float16 and float(r) == 1.0


def test_reduction_errors():
    with pytest.raises(ValueError, match=r"^\[max\]"):
        jnp.max(A, where=A > 0)
    with pytest.raises(NotImplementedError, match=r"^\[sum\]"):
        jnp.sum(A, out=np.zeros(()))
    with pytest.raises(ValueError, match=r"^\[min\]"):
        jnp.min(np.zeros((0,), np.float32))
    with pytest.raises(ValueError, match=r"^\[var\]"):
        jnp.var(A, ddof=1, correction=1)
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.cumsum(A, axis=2)
    for name in ("sum", "prod", "max", "min", "mean", "var", "std", "all", "any", "argmax",
                 "argmin", "ptp", "nansum", "nanmean", "median"):
        with pytest.raises(ValueError, match=r"^\[\w+\] axis 2 is out of bounds") as e:
            getattr(jnp, name)(A, axis=2)
        assert isinstance(e.value, IndexError)  # and numpy's AxisError is an IndexError


def test_reduction_grads():
    mask = A > 0
    check_grad(lambda v: jnp.sum(v, axis=1, where=mask), lambda v: np.sum(v, 1, where=mask), A)
    check_grad(lambda v: jnp.mean(v, 0, where=mask), lambda v: np.mean(v, 0, where=mask), A)
    check_grad(lambda v: jnp.var(v, 1, where=mask), lambda v: np.var(v, 1, where=mask), A)
    check_grad(lambda v: jnp.max(v, 1, where=mask, initial=-3.0),
               lambda v: np.max(v, 1, where=mask, initial=-3.0), A)


def test_argmax_keepdims_ptp_count_nonzero():
    close(jnp.argmax(A, axis=1, keepdims=True), np.argmax(A, axis=1, keepdims=True))
    close(jnp.argmin(A, axis=0, keepdims=True), np.argmin(A, axis=0, keepdims=True))
    close(jnp.ptp(A, axis=0), np.ptp(A, axis=0))
    close(jnp.ptp(A, keepdims=True), np.ptp(A, keepdims=True))
    close(jnp.count_nonzero(A > 0, axis=1), np.count_nonzero(A > 0, axis=1))
    close(jnp.count_nonzero(np.array([0, 3, 0, 1])), 2)
    assert jnp.amax is jnp.max and jnp.amin is jnp.min and jnp.product is jnp.prod
    check_grad(lambda v: jnp.ptp(v, axis=1), lambda v: np.ptp(v, axis=1), A)


# ---- cumulative ------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1])
def test_cumsum_cumprod(axis):
    close(jnp.cumsum(A, axis), np.cumsum(A, axis))
    close(jnp.cumprod(A, axis), np.cumprod(A, axis), rtol=1e-5)
    close(jnp.nancumsum(AN, axis), np.nancumsum(AN, axis))
    close(jnp.nancumprod(AN, axis), np.nancumprod(AN, axis), rtol=1e-5)


def test_cumsum_dtypes():
    x = np.array([100, 100], np.int8)
    r = jnp.cumsum(x)
    assert r.dtype == np.int8  # JAX: cumulative ops keep narrow integers
    close(r, np.array([100, -56], np.int8))
    assert jnp.cumsum(np.array([True, True])).dtype == np.int32
    assert jnp.cumsum(x, dtype=jnp.int32).dtype == np.int32
    close(jnp.cumulative_sum(np.arange(4), include_initial=True), [0, 0, 1, 3, 6])
    close(jnp.cumulative_prod(A, axis=1), np.cumprod(A, axis=1), rtol=1e-5)
    with pytest.raises(ValueError, match=r"^\[cumulative_sum\]"):
        jnp.cumulative_sum(A)


def test_cumulative_grads():
    check_grad(lambda v: jnp.cumsum(v, 1), lambda v: np.cumsum(v, 1), A)
    check_grad(lambda v: jnp.cumprod(v, 0), lambda v: np.cumprod(v, 0), A)


# ---- NaN reductions --------------------------------------------------------------------------

NAN_CASES = ["nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd",
             "nanargmax", "nanargmin", "nanmedian"]


@pytest.mark.parametrize("name", NAN_CASES)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nan_reductions(name, axis):
    close(getattr(jnp, name)(AN, axis=axis), getattr(np, name)(AN, axis=axis), rtol=1e-5)


def test_nan_reductions_all_nan_and_ints():
    x = np.array([[np.nan, np.nan], [1.0, 2.0]], np.float32)
    close(jnp.nanmax(x, axis=1), [np.nan, 2.0])
    close(jnp.nanmean(x, axis=1), [np.nan, 1.5])
    close(jnp.nanargmax(x, axis=1), [-1, 1])  # JAX's -1 for an all-NaN slice
    close(jnp.nanvar(x, axis=1, ddof=1), [np.nan, 0.5])
    close(jnp.nansum(np.arange(4)), 6)
    close(jnp.nanmax(np.arange(4)), 3)


@pytest.mark.parametrize("name", ["nansum", "nanmean", "nanvar", "nanstd", "nanmax", "nanprod"])
def test_nan_reduction_grads(name):
    x = AN.copy()
    x[np.isnan(x)] = 0.0
    mask = np.isnan(AN)

    def with_nan(v, xp):
        return xp.where(mask, np.nan, v)
    check_grad(lambda v: getattr(jnp, name)(with_nan(v, jnp), axis=1),
               lambda v: getattr(np, name)(with_nan(v, np), axis=1), x)


def test_nan_reductions_vmap_jit():
    f = lambda v: jnp.nanmean(v) + jnp.nanmax(v)
    batched = strata.vmap(f)(AN)
    loop = np.array([np.asarray(f(AN[i])) for i in range(AN.shape[0])])
    close(batched, loop)
    close(strata.jit(lambda v: jnp.nanstd(v, axis=0))(AN), np.nanstd(AN, axis=0))


# ---- quantiles -------------------------------------------------------------------------------

METHODS = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_quantile_methods(method, axis):
    q = np.array([0.0, 0.1, 0.5, 0.77, 1.0], np.float32)
    close(jnp.quantile(A, q, axis=axis, method=method), np.quantile(A, q, axis=axis,
                                                                       method=method))
    close(jnp.percentile(A, 30.0, axis=axis, method=method),
          np.percentile(A, 30.0, axis=axis, method=method), rtol=1e-5)
    close(jnp.nanquantile(AN, q, axis=axis, method=method),
          np.nanquantile(AN, q, axis=axis, method=method))
    close(jnp.nanpercentile(AN, 90, axis=axis, method=method),
          np.nanpercentile(AN, 90, axis=axis, method=method), rtol=1e-5)


def test_quantile_keepdims_median_nan():
    close(jnp.quantile(A, 0.3, axis=1, keepdims=True), np.quantile(A, 0.3, axis=1,
                                                                     keepdims=True))
    close(jnp.median(A, axis=0), np.median(A, axis=0))
    close(jnp.median(A[:, :3], axis=1, keepdims=True), np.median(A[:, :3], axis=1,
                                                                 keepdims=True))
    close(jnp.median(AN, axis=1), np.median(AN, axis=1))  # NaN slices stay NaN
    close(jnp.nanmedian(AN), np.nanmedian(AN))
    close(jnp.quantile(A, 0.5, axis=(0, 1)), np.quantile(A, 0.5, axis=(0, 1)))
    with pytest.raises(ValueError, match=r"^\[quantile\]"):
        jnp.quantile(A, 0.5, method="bogus")


def test_quantile_grads():
    check_grad(lambda v: jnp.quantile(v, 0.3, axis=1), lambda v: np.quantile(v, 0.3, axis=1), A)
    check_grad(lambda v: jnp.median(v, axis=0), lambda v: np.median(v, axis=0), A)
    q = np.float32(0.3)
    g = strata.grad(lambda t: jnp.quantile(A[0], t))(q)
    fd = (np.quantile(A[0].astype(np.float64), 0.3 + 1e-4) -
          np.quantile(A[0].astype(np.float64), 0.3 - 1e-4)) / 2e-4
    np.testing.assert_allclose(float(g), fd, rtol=1e-3)


def test_quantile_vmap_jit():
    f = lambda v: jnp.quantile(v, np.array([0.25, 0.75], np.float32))
    close(strata.vmap(f)(A), np.stack([np.asarray(f(A[i])) for i in range(3)]))
    close(strata.jit(f)(A[0]), np.quantile(A[0], [0.25, 0.75]))


# ---- statistics ------------------------------------------------------------------------------

def test_average():
    w = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    close(jnp.average(A, axis=1, weights=w), np.average(A, axis=1, weights=w))
    close(jnp.average(A, weights=np.abs(A)), np.average(A, weights=np.abs(A)))
    r, s = jnp.average(A, axis=0, returned=True)
    rr, ss = np.average(A, axis=0, returned=True)
    close(r, rr)
    close(s, ss)
    r, s = jnp.average(A, axis=1, weights=w, returned=True)
    rr, ss = np.average(A, axis=1, weights=w, returned=True)
    close(r, rr)
    close(s, ss)
    close(jnp.average(A, axis=1, keepdims=True), np.mean(A, axis=1, keepdims=True))
    check_grad(lambda v: jnp.average(v, 1, weights=w), lambda v: np.average(v, 1, weights=w), A)
    with pytest.raises(ValueError, match=r"^\[average\]"):
        jnp.average(A, axis=0, weights=w)


def test_cov_corrcoef():
    close(jnp.cov(A), np.cov(A), rtol=1e-4)
    close(jnp.cov(A, rowvar=False, bias=True), np.cov(A, rowvar=False, bias=True), rtol=1e-4)
    close(jnp.cov(A[0], A[1]), np.cov(A[0], A[1]), rtol=1e-4)
    fw = np.array([1, 2, 1, 3])
    aw = np.array([0.5, 1.0, 2.0, 1.0], np.float32)
    close(jnp.cov(A, fweights=fw, aweights=aw), np.cov(A, fweights=fw, aweights=aw), rtol=1e-4)
    close(jnp.cov(A, ddof=0), np.cov(A, ddof=0), rtol=1e-4)
    close(jnp.cov(A[0]), np.cov(A[0]), rtol=1e-4)
    close(jnp.corrcoef(A), np.corrcoef(A), rtol=1e-4, atol=1e-5)
    close(jnp.corrcoef(A[0], A[2]), np.corrcoef(A[0], A[2]), rtol=1e-4, atol=1e-5)
    check_grad(jnp.cov, np.cov, A)
    check_grad(jnp.corrcoef, np.corrcoef, A)


# ---- closeness -------------------------------------------------------------------------------

def test_isclose_allclose_inf_nan():
    a = np.array([np.inf, -np.inf, np.inf, 1.0, np.nan, 1e10, 0.0], np.float32)
    b = np.array([np.inf, np.inf, 1.0, 1.000001, np.nan, 1.00001e10, 1e-9], np.float32)
    close(jnp.isclose(a, b), np.isclose(a, b))
    close(jnp.isclose(a, b, equal_nan=True), np.isclose(a, b, equal_nan=True))
    close(jnp.isclose(a, b, rtol=0, atol=0), np.isclose(a, b, rtol=0, atol=0))
    close(jnp.isclose(np.array([1, 2, 3]), np.array([1, 2, 4])), [True, True, False])
    assert bool(jnp.allclose(np.inf, np.inf))
    assert not bool(jnp.allclose(np.nan, np.nan))
    assert bool(jnp.allclose(np.nan, np.nan, equal_nan=True))
    assert bool(jnp.allclose(A, A + 1e-7))
    assert bool(jnp.array_equal(A, A)) and not bool(jnp.array_equal(A, A[:2]))
    assert bool(jnp.array_equal(AN, AN, equal_nan=True)) and not bool(jnp.array_equal(AN, AN))
    assert bool(jnp.array_equiv(np.ones(3), np.ones((2, 3))))
    assert not bool(jnp.array_equiv(np.ones(3), np.ones((2, 2))))
    close(strata.jit(lambda x, y: jnp.isclose(x, y))(a, b), np.isclose(a, b))
