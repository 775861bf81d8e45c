"""strata.random (jax.random's names): JAX's own expected values under Threefry, JAX's bit
algorithms redone in numpy, distributions by scipy.stats tests with fixed seeds, typed keys,
vmap against loops, jit against eager, and derivatives of reparameterized samplers. Every test
here runs with jax_threefry_partitionable=False (JAX's layout before 0.5.0, the one its value
tables are for); test_random_partitionable.py covers the default layout."""

import math
import zlib

import numpy as np
import pytest

from conftest import check_jit_and_vmap, x64_mode
import scipy.special
import scipy.stats

import strata
import strata.numpy as jnp
from strata import lax, random

F32 = np.float32


def close(got, want, rtol=1e-5, atol=1e-6):
    got = np.asarray(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def same(a, b):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.fixture(autouse=True)
def original_threefry_layout():
    """jax_threefry_partitionable=False for each test, restored afterwards."""
    old = strata.config.read("jax_threefry_partitionable")
    strata.config.update("jax_threefry_partitionable", False)
    yield
    strata.config.update("jax_threefry_partitionable", old)


# ---- JAX's expected values (tests/random_test.py, threefry2x32, partitionable off) -------------

JAX_CASES = [
    ("bernoulli", (5,), None, {"p": 0.5}, [False, True, True, True, False]),
    ("beta", (5,), F32, {"a": 0.8, "b": 0.9}, [0.13259, 0.824893, 0.948363, 0.964155, 0.235448]),
    ("bits", (5,), np.uint8, {}, [10, 158, 82, 54, 158]),
    ("bits", (5,), np.uint32, {}, [1978747883, 4134381225, 3628107870, 689687174, 2788938207]),
    ("cauchy", (5,), F32, {}, [-0.088416, -10.169713, 3.49677, -1.18056, 0.34556]),
    ("dirichlet", (2,), F32, {"alpha": np.array([0.5, 0.6, 0.7], F32)},
     [[0.003128, 0.009694, 0.987178], [0.025938, 0.479091, 0.494971]]),
    ("double_sided_maxwell", (5,), F32, {"loc": 1, "scale": 2},
     [-2.408914, -3.370437, 3.235352, -0.907734, -1.708732]),
    ("exponential", (5,), F32, {}, [0.526067, 0.043046, 0.039932, 0.46427, 0.123886]),
    ("gamma", (5,), F32, {"a": 0.8}, [0.824221, 1.724476, 0.502882, 5.386132, 0.685543]),
    ("gumbel", (5,), F32, {}, [2.06701, 0.911726, 0.145736, 0.185427, -0.00711]),
    ("laplace", (5,), F32, {}, [0.578939, -0.204902, 0.555733, 0.911053, -0.96456]),
    ("loggamma", (5,), F32, {"a": 0.8}, [0.240559, -3.575443, -0.450946, -2.161372, -2.943277]),
    ("logistic", (5,), F32, {}, [0.19611, -1.709053, -0.274093, -0.208322, -1.675489]),
    ("maxwell", (5,), F32, {}, [3.070779, 0.908479, 1.521317, 0.875551, 1.306137]),
    ("multivariate_normal", (2,), F32, {"mean": np.ones((1, 3)), "cov": np.eye(3)},
     [[1.067826, 1.215599, 0.234166], [-0.237534, 1.32591, 1.413987]]),
    ("normal", (5,), F32, {}, [-1.173234, -1.511662, 0.070593, -0.099764, 1.052845]),
    ("pareto", (5,), F32, {"b": 0.5}, [2.751398, 1.281863, 87.85448, 1.254542, 2.824487]),
    ("poisson", (5,), np.int32, {"lam": 5}, [7, 3, 6, 11, 6]),
    ("rademacher", (5,), np.int32, {}, [-1, -1, -1, -1, 1]),
    ("randint", (5,), np.int32, {"minval": 0, "maxval": 10}, [0, 5, 7, 7, 5]),
    ("truncated_normal", (5,), F32, {"lower": 0, "upper": 2},
     [0.582807, 1.709771, 0.159513, 0.861376, 0.36148]),
    ("uniform", (5,), F32, {}, [0.298671, 0.073213, 0.873356, 0.260549, 0.412797]),
    ("weibull_min", (5,), F32, {"scale": 1, "concentration": 1},
     [1.605863, 0.841809, 0.224218, 0.4826, 0.027901]),
]


@pytest.mark.parametrize("make_key", [random.PRNGKey, random.key])
@pytest.mark.parametrize("case", JAX_CASES, ids=[f"{c[0]}_{np.dtype(c[2] or bool).name}"
                                                 for c in JAX_CASES])
def test_jax_distribution_values(case, make_key):
    name, shape, dtype, params, expected = case
    k = make_key(zlib.adler32((name + "threefry2x32").encode()))
    f = getattr(random, name)
    got = f(k, **params, shape=shape, dtype=dtype) if dtype else f(k, **params, shape=shape)
    if dtype is not None:
        assert got.dtype == np.dtype(dtype)
    close(got, np.asarray(expected), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("make_key", [random.PRNGKey, random.key])
def test_jax_prng_values(make_key):
    k = make_key(0)
    assert random.randint(k, (3, 3), 0, 8).dtype == np.int32
    same(random.randint(k, (3, 3), 0, 8, dtype="int32"), [[2, 1, 3], [6, 1, 5], [6, 3, 4]])
    same(random.key_data(random.split(k, 4)),
         [[2285895361, 1501764800], [1518642379, 4090693311], [433833334, 4221794875],
          [839183663, 3740430601]])
    same(random.key_data(random.fold_in(k, 4)), [2285895361, 433833334])
    same(random.key_data(random.split(k)), [[4146024105, 967050713], [2718843009, 1272950319]])


def test_seeds():
    same(random.PRNGKey(-1), [0, 4294967295])
    same(random.PRNGKey(2 ** 32 - 1), [0, 4294967295])
    same(random.PRNGKey(42), [0, 42])
    same(random.key_data(random.key(7)), [0, 7])
    same(strata.jit(random.PRNGKey)(jnp.asarray(np.int32(-5))), [0, 2 ** 32 - 5])
    with pytest.raises(TypeError):
        random.PRNGKey(np.ones(2, np.int32))
    with pytest.raises(TypeError):
        random.PRNGKey(1.5)
    with pytest.raises(TypeError):
        random.PRNGKey(random.key(0))


def test_threefry_reference_vectors():
    # Random123's known answers, through the Python Threefry that traced fold_in uses.
    u = lambda *v: jnp.asarray(np.array(v, np.uint32))  # noqa: E731
    m = 2 ** 32 - 1
    for key, count, want in [((0, 0), (0, 0), (0x6b200159, 0x99ba4efe)),
                             ((m, m), (m, m), (0x1cb996fc, 0xbb002be7)),
                             ((0x13198a2e, 0x03707344), (0x243f6a88, 0x85a308d3),
                              (0xc4923a9c, 0x483df7a0))]:
        x0, x1 = random._threefry2x32(u(key[0])[0], u(key[1])[0], u(count[0]), u(count[1]))
        assert (int(np.asarray(x0)[0]), int(np.asarray(x1)[0])) == want


def test_fold_in_traced_data():
    k = random.PRNGKey(3)
    for d in (0, 4, 2 ** 31 + 5):
        same(strata.jit(random.fold_in)(k, jnp.asarray(np.uint32(d))), random.fold_in(k, d))
    same(strata.vmap(lambda d: random.fold_in(k, d))(jnp.arange(3)),
         np.stack([np.asarray(random.fold_in(k, i)) for i in range(3)]))


# ---- bits and JAX's float construction redone in numpy ------------------------------------------

def test_bits_widths():
    k = random.PRNGKey(1701)
    same(random.bits(k, (3,), np.uint8), np.array([216, 115, 43], np.uint8))
    same(random.bits(k, (3,)), np.array([56197195, 4200222568, 961309823], np.uint32))
    same(random._small_bits(k, 16, (3,)), [41682, 1300, 55017])
    same(random._small_bits(random.PRNGKey(zlib.adler32(b"bitsthreefry2x32")), 16, (5,)),
         [6738, 38161, 50695, 57337, 61600])
    # JAX's view property: 8- and 16-bit draws are the 32-bit words' bytes.
    w32 = np.asarray(random.bits(k, (20,)))
    same(np.asarray(random.bits(k, (80,), np.uint8)).view(np.uint32), w32)
    same(np.asarray(random._small_bits(k, 16, (40,))).astype(np.uint16).view(np.uint32), w32)
    assert random.bits(k, (2, 0)).shape == (2, 0) and random.bits(k).shape == ()
    hi, lo = random._bits64(k, (3,))
    same((np.asarray(hi).astype(np.uint64) << np.uint64(32)) | np.asarray(lo),
         np.array([3982329540505020460, 16822122385914693683, 7882654074788531506], np.uint64))
    with pytest.raises(ValueError, match=r"\[bits\]"):
        random.bits(k, (2,), np.int32)


def test_uniform_low_precision_and_f64_follow_jax_bits():
    k = random.PRNGKey(11)
    n = 33
    words = np.asarray(random.bits(k, (-(-n // 2),)))
    b16 = words.view(np.uint16)[:n]
    want16 = ((b16 >> 6) | np.uint16(0x3C00)).view(np.float16) - np.float16(1)
    same(random.uniform(k, (n,), np.float16), want16)
    b8 = np.asarray(random.bits(k, (-(-n // 4),))).view(np.uint8)[:n].astype(np.uint32)
    wantbf = ((b8 >> 1) | 0x3F80).astype(np.uint32) << 16
    got = np.asarray(random.uniform(k, (n,), jnp.bfloat16).astype(np.float32))
    same(got, wantbf.view(np.float32) - np.float32(1))
    w = np.asarray(random.bits(k, (2 * n,))).astype(np.uint64)
    b64 = (w[:n] << np.uint64(32)) | w[n:]
    want64 = ((b64 >> np.uint64(12)) | np.uint64(0x3FF0000000000000)).view(np.float64) - 1.0
    with x64_mode(True):  # float64 exists only in 64-bit mode
        same(random._unit(k, (n,), np.dtype("float64")), want64)


def test_uniform_bounds_and_dtype():
    k = random.PRNGKey(5)
    lo = np.array([[-1.0], [2.0]], F32)
    hi = np.array([0.0, 3.0, 10.0], F32)
    u = np.asarray(random.uniform(k, (2, 3), minval=lo, maxval=hi))
    base = np.asarray(random.uniform(k, (2, 3)))
    close(u, np.maximum(lo, base * (hi - lo) + lo), rtol=1e-6)
    assert random.uniform(k).dtype == np.float32 and random.uniform(k).shape == ()
    with pytest.raises(ValueError, match=r"\[uniform\]"):
        random.uniform(k, (2,), jnp.int32)
    with pytest.raises(ValueError, match=r"\[uniform\]"):
        random.uniform(k, (2,), minval=np.zeros(3))


def test_randint_dtypes_and_ranges():
    k = random.PRNGKey(9)
    r8 = np.asarray(random.randint(k, (4000,), -128, 128, jnp.int8))
    assert r8.dtype == np.int8 and r8.min() == -128 and r8.max() == 127
    u8 = np.asarray(random.randint(k, (4000,), 0, 256, jnp.uint8))
    assert u8.min() == 0 and u8.max() == 255
    assert len(np.unique(u8)) > 250
    arr = np.asarray(random.randint(k, (3, 1000), np.array([[0], [10], [-5]]), 13))
    for row, lo in zip(arr, (0, 10, -5)):
        assert row.min() == lo and row.max() == 12
    same(random.randint(k, (5,), 4, 2), np.full(5, 4))  # maxval <= minval gives minval
    full = np.asarray(random.randint(k, (3000,), -2 ** 31, 2 ** 31 - 1))
    assert full.min() < -2 ** 30 and full.max() > 2 ** 30
    counts = np.bincount(np.asarray(random.randint(k, (12000,), 0, 6)), minlength=6)
    assert scipy.stats.chisquare(counts).pvalue > 1e-3
    with pytest.raises(TypeError, match=r"\[randint\]"):
        random.randint(k, (2,), 0, 3, F32)


# ---- distributions: scipy.stats with fixed seeds -------------------------------------------------

N = 8000
CONTINUOUS = [
    ("uniform", lambda k: random.uniform(k, (N,), minval=-2.0, maxval=3.0),
     scipy.stats.uniform(-2, 5).cdf),
    ("normal", lambda k: random.normal(k, (N,)), scipy.stats.norm.cdf),
    ("truncated_normal", lambda k: random.truncated_normal(k, -0.5, 1.5, (N,)),
     scipy.stats.truncnorm(-0.5, 1.5).cdf),
    ("gumbel", lambda k: random.gumbel(k, (N,)), scipy.stats.gumbel_r.cdf),
    ("laplace", lambda k: random.laplace(k, (N,)), scipy.stats.laplace.cdf),
    ("logistic", lambda k: random.logistic(k, (N,)), scipy.stats.logistic.cdf),
    ("exponential", lambda k: random.exponential(k, (N,)), scipy.stats.expon.cdf),
    ("cauchy", lambda k: random.cauchy(k, (N,)), scipy.stats.cauchy.cdf),
    ("pareto", lambda k: random.pareto(k, 2.5, (N,)), scipy.stats.pareto(2.5).cdf),
    ("lognormal", lambda k: random.lognormal(k, 0.7, (N,)), scipy.stats.lognorm(0.7).cdf),
    ("rayleigh", lambda k: random.rayleigh(k, 1.5, (N,)), scipy.stats.rayleigh(scale=1.5).cdf),
    ("wald", lambda k: random.wald(k, 0.8, (N,)), scipy.stats.invgauss(0.8).cdf),
    ("weibull_min", lambda k: random.weibull_min(k, 2.0, 1.7, (N,)),
     scipy.stats.weibull_min(1.7, scale=2.0).cdf),
    ("triangular", lambda k: random.triangular(k, -1.0, 0.5, 2.0, (N,)),
     scipy.stats.triang(0.5, loc=-1, scale=3).cdf),
    ("maxwell", lambda k: random.maxwell(k, (N,)), scipy.stats.maxwell.cdf),
    ("double_sided_maxwell", lambda k: jnp.abs(random.double_sided_maxwell(k, 1.0, 2.0, (N,))
                                               - 1.0) / 2.0, scipy.stats.maxwell.cdf),
    ("gamma_small", lambda k: random.gamma(k, 0.3, (N,)), scipy.stats.gamma(0.3).cdf),
    ("gamma", lambda k: random.gamma(k, 4.5, (N,)), scipy.stats.gamma(4.5).cdf),
    ("loggamma", lambda k: jnp.exp(random.loggamma(k, 0.6, (N,))), scipy.stats.gamma(0.6).cdf),
    ("beta", lambda k: random.beta(k, 0.7, 2.5, (N,)), scipy.stats.beta(0.7, 2.5).cdf),
    ("chisquare", lambda k: random.chisquare(k, 3.0, (N,)), scipy.stats.chi2(3.0).cdf),
    ("f", lambda k: random.f(k, 4.0, 7.0, (N,)), scipy.stats.f(4.0, 7.0).cdf),
    ("t", lambda k: random.t(k, 3.5, (N,)), scipy.stats.t(3.5).cdf),
    ("generalized_normal", lambda k: random.generalized_normal(k, 1.5, (N,)),
     scipy.stats.gennorm(1.5).cdf),
    ("ball_radius", lambda k: jnp.sqrt(jnp.sum(random.ball(k, 3, 2, (N,)) ** 2, axis=-1)),
     lambda r: np.clip(r, 0, 1) ** 3),
    ("dirichlet_marginal", lambda k: random.dirichlet(k, jnp.asarray([0.5, 1.5, 2.0]), (N,))[:, 1],
     scipy.stats.beta(1.5, 2.5).cdf),
]


@pytest.mark.parametrize("name,draw,cdf", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous_distributions(name, draw, cdf):
    x = np.asarray(draw(random.PRNGKey(zlib.adler32(name.encode()))), np.float64)
    assert x.shape == (N,) and np.all(np.isfinite(x))
    assert scipy.stats.kstest(x, cdf).pvalue > 1e-4


def discrete_check(x, pmf, support):
    counts = np.array([(x == s).sum() for s in support], float)
    expected = pmf(np.asarray(support)) * len(x)
    rest = len(x) - counts.sum()
    counts = np.append(counts, rest)
    expected = np.append(expected, len(x) - expected.sum())
    keep = expected > 5
    obs, exp = counts[keep], expected[keep]
    assert scipy.stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-4


@pytest.mark.parametrize("lam", [0.7, 4.0, 25.0, 200.0])
def test_poisson(lam):
    x = np.asarray(random.poisson(random.PRNGKey(int(lam * 10)), lam, (N,)))
    assert x.dtype == np.int32
    discrete_check(x, scipy.stats.poisson(lam).pmf, range(int(lam + 6 * math.sqrt(lam) + 5)))
    same(random.poisson(random.PRNGKey(0), jnp.asarray([0.0, 0.0]), (2,)), [0, 0])


@pytest.mark.parametrize("n,p", [(5, 0.3), (20, 0.8), (200, 0.35), (1000, 0.9)])
def test_binomial(n, p):
    x = np.asarray(random.binomial(random.PRNGKey(n), float(n), p, (N,)))
    assert x.dtype == np.float32 and x.min() >= 0 and x.max() <= n
    discrete_check(x, scipy.stats.binom(n, p).pmf, range(n + 1))


def test_binomial_edge_cases():
    k = random.PRNGKey(1)
    out = np.asarray(random.binomial(k, jnp.asarray([0.0, 10.0, 10.0, -1.0, 10.0]),
                                     jnp.asarray([0.5, 0.0, 1.0, 0.5, np.nan])))
    same(out[:3], [0.0, 0.0, 10.0])
    assert np.isnan(out[3]) and np.isnan(out[4])


def test_geometric_bernoulli_rademacher():
    k = random.PRNGKey(4)
    g = np.asarray(random.geometric(k, 0.3, (N,)))
    assert g.dtype == np.int32 and g.min() >= 1
    discrete_check(g, scipy.stats.geom(0.3).pmf, range(1, 25))
    b = np.asarray(random.bernoulli(k, jnp.asarray([0.1, 0.5, 0.9]), (N, 3)))
    assert b.dtype == np.bool_
    close(b.mean(0), [0.1, 0.5, 0.9], atol=0.02)
    r = np.asarray(random.rademacher(k, (N,)))
    assert set(np.unique(r)) == {-1, 1} and abs(r.mean()) < 0.05
    assert random.rademacher(k, (3,), F32).dtype == np.float32
    with pytest.raises(TypeError, match=r"\[bernoulli\]"):
        random.bernoulli(k, jnp.asarray([1, 0]))


def test_multinomial():
    k = random.PRNGKey(8)
    p = np.array([0.2, 0.5, 0.3], F32)
    x = np.asarray(random.multinomial(k, 50.0, p, shape=(4000, 3)))
    same(x.sum(-1), np.full(4000, 50.0))
    close(x.mean(0), 50 * p, rtol=0.03)
    close(np.cov(x.T), 50 * (np.diag(p) - np.outer(p, p)), rtol=0.1, atol=0.4)
    y = np.asarray(random.multinomial(k, jnp.asarray([10.0, 20.0]), jnp.asarray([p, p])))
    same(y.sum(-1), [10.0, 20.0])


def test_categorical_and_choice():
    k = random.PRNGKey(13)
    logits = np.log(np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]], F32))
    s = np.asarray(random.categorical(k, logits, shape=(N, 2)))
    for j in range(2):
        discrete_check(s[:, j], lambda v: np.exp(logits[j])[v], range(3))
    s0 = np.asarray(random.categorical(k, logits.T, axis=0))
    assert s0.shape == (2,)
    nr = np.asarray(random.categorical(k, np.zeros(6, F32), shape=(6,), replace=False))
    same(np.sort(nr), np.arange(6))
    p = np.array([0.1, 0.2, 0.3, 0.4], F32)
    c = np.asarray(random.choice(k, 4, (N,), p=p))
    discrete_check(c, lambda v: p[v], range(4))
    a = np.arange(20.0).reshape(4, 5)
    cc = np.asarray(random.choice(k, a, (3,), replace=False, axis=1))
    assert cc.shape == (4, 3) and len(set(cc[0])) == 3 and np.all(cc - cc[0] == a[:, :1])
    u = np.asarray(random.choice(k, 10, (10,), replace=False))
    same(np.sort(u), np.arange(10))
    wp = np.asarray(random.choice(k, 5, (5,), replace=False, p=np.full(5, 0.2, F32)))
    same(np.sort(wp), np.arange(5))
    with pytest.raises(ValueError, match=r"\[choice\]"):
        random.choice(k, 3, (4,), replace=False)


def test_permutation_and_shuffle():
    k = random.PRNGKey(21)
    p = np.asarray(random.permutation(k, 50))
    same(np.sort(p), np.arange(50))
    x = np.arange(24).reshape(4, 6)
    px = np.asarray(random.permutation(k, x, axis=1))
    same(np.sort(px, axis=1), x)
    assert np.all(px - px[0] == x[:, :1])  # the same column permutation for every row
    pi = np.asarray(random.permutation(k, x, axis=1, independent=True))
    same(np.sort(pi, axis=1), x)
    assert any(not np.array_equal(pi[i] - pi[i].min(), pi[0] - pi[0].min()) for i in range(4))
    same(random.shuffle(k, jnp.arange(50)), p)
    with pytest.raises(TypeError):
        random.permutation(k, 2.5)


def test_multivariate_normal_methods():
    k = random.PRNGKey(2)
    mean = np.array([1.0, -2.0, 0.5], F32)
    cov = np.array([[2.0, 0.6, 0.2], [0.6, 1.0, -0.3], [0.2, -0.3, 0.5]], F32)
    for method in ("cholesky", "eigh", "svd"):
        x = np.asarray(random.multivariate_normal(k, mean, cov, (20000,), method=method))
        assert x.shape == (20000, 3)
        close(x.mean(0), mean, atol=0.03)
        close(np.cov(x.T), cov, atol=0.05)
    z = np.asarray(random.normal(k, (4, 3)), np.float64)
    want = mean + z @ np.linalg.cholesky(cov.astype(np.float64)).T
    close(random.multivariate_normal(k, mean, cov, (4,)), want, rtol=1e-5, atol=1e-5)
    sing = np.array([[1.0, 1.0], [1.0, 1.0]], F32)
    xs = np.asarray(random.multivariate_normal(k, np.zeros(2, F32), sing, (100,), method="eigh"))
    close(xs[:, 0], xs[:, 1], atol=1e-4)
    with pytest.raises(ValueError, match="method"):
        random.multivariate_normal(k, mean, cov, method="lu")
    with pytest.raises(ValueError):
        random.multivariate_normal(k, mean, cov[:2, :2])


def test_orthogonal_matches_numpy_qr_on_same_bits():
    k = random.PRNGKey(6)
    q = np.asarray(random.orthogonal(k, 4, (2,)), np.float64)
    close(np.einsum("bij,bik->bjk", q, q), np.broadcast_to(np.eye(4), (2, 4, 4)), atol=1e-5)
    z = np.asarray(random.normal(k, (2, 4, 4)), np.float64)
    for i in range(2):
        qq, r = np.linalg.qr(z[i])
        close(q[i], qq * np.sign(np.diag(r)), rtol=1e-4, atol=1e-5)


# ---- typed keys ----------------------------------------------------------------------------------

def test_typed_key_array():
    k = random.key(0)
    assert k.shape == () and k.ndim == 0 and str(k.dtype) == "key<fry>"
    assert random.key_dtype() == k.dtype
    ks = random.split(k, 5)
    assert isinstance(ks, random.PRNGKeyArray) and ks.shape == (5,) and len(ks) == 5
    same(random.key_data(ks[2]), random.split(random.PRNGKey(0), 5)[2])
    same(random.key_data(ks[1:3]), np.asarray(random.key_data(ks))[1:3])
    assert [kk.shape for kk in ks] == [()] * 5
    grid = random.split(k, (2, 3))
    assert grid.shape == (2, 3) and grid.reshape(6).shape == (6,) and grid.T.shape == (3, 2)
    w = random.wrap_key_data(random.key_data(ks))
    assert bool(jnp.all(w == ks)) and not bool(jnp.any(w != ks))
    assert str(random.key_impl(k)) == "threefry2x32"
    assert random.key_impl(random.PRNGKey(0)) == random.default_prng_impl()
    assert random.clone(k) is k
    assert "key<fry>" in repr(k)
    with pytest.raises(TypeError):
        random.wrap_key_data(k)
    with pytest.raises(TypeError, match="single key"):
        random.uniform(ks)
    with pytest.raises(TypeError, match="invalid PRNG key"):
        random.normal(jnp.asarray([1.0, 2.0]))
    with pytest.raises(TypeError):
        random.normal(3)


def test_typed_keys_through_vmap_jit_and_scan():
    ks = random.split(random.key(3), 4)
    raw = random.key_data(ks)
    v = strata.vmap(lambda kk: random.normal(kk, (3,)))(ks)
    same(v, np.stack([np.asarray(random.normal(raw[i], (3,))) for i in range(4)]))
    j = strata.jit(lambda kk: random.uniform(random.fold_in(kk, 1), (2,)))(random.key(3))
    same(j, random.uniform(random.fold_in(random.PRNGKey(3), 1), (2,)))
    sk = strata.jit(lambda kk: random.split(kk, 3))(random.key(3))
    assert isinstance(sk, random.PRNGKeyArray)
    same(random.key_data(sk), random.split(random.PRNGKey(3), 3))

    def step(kk, _):
        kk, sub = random.split(kk)
        return kk, random.uniform(sub)
    _, ys = lax.scan(step, random.key(1), None, length=3)
    kk, want = random.PRNGKey(1), []
    for _ in range(3):
        kk, sub = random.split(kk)
        want.append(float(random.uniform(sub)))
    close(ys, np.array(want, F32))


# ---- transforms ----------------------------------------------------------------------------------

SAMPLERS = {
    "uniform": lambda k: random.uniform(k, (3,)),
    "normal": lambda k: random.normal(k, (3,)),
    "randint": lambda k: random.randint(k, (3,), -4, 9),
    "gamma": lambda k: random.gamma(k, jnp.asarray([0.4, 1.0, 3.0])),
    "beta": lambda k: random.beta(k, 0.5, 2.0, (3,)),
    "poisson": lambda k: random.poisson(k, jnp.asarray([1.0, 5.0, 40.0])),
    "binomial": lambda k: random.binomial(k, 30.0, jnp.asarray([0.1, 0.5, 0.9])),
    "categorical": lambda k: random.categorical(k, jnp.zeros((3, 5))),
    "permutation": lambda k: random.permutation(k, 7),
    "choice": lambda k: random.choice(k, 9, (3,), replace=False),
    "truncated_normal": lambda k: random.truncated_normal(k, -1.0, 2.0, (3,)),
    "dirichlet": lambda k: random.dirichlet(k, jnp.asarray([0.5, 1.0, 2.0])),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_jit_equals_eager_and_vmap_equals_loop(name):
    check_jit_and_vmap(SAMPLERS[name], random.PRNGKey(17))


def test_grad_of_reparameterized_normal_and_uniform():
    k = random.PRNGKey(0)
    z = np.asarray(random.normal(k, (5,)))
    g = strata.grad(lambda mu, s: jnp.sum((mu + s * random.normal(k, (5,))) ** 2), (0, 1))(
        F32(0.5), F32(2.0))
    close(g[0], np.sum(2 * (0.5 + 2.0 * z)), rtol=1e-5)
    close(g[1], np.sum(2 * (0.5 + 2.0 * z) * z), rtol=1e-5)
    u = np.asarray(random.uniform(k, (5,)))
    gu = strata.grad(lambda hi: jnp.sum(random.uniform(k, (5,), minval=0.0, maxval=hi)))(F32(3.0))
    close(gu, u.sum(), rtol=1e-5)
    ge = strata.grad(lambda lam: jnp.sum(random.exponential(k, (5,)) / lam))(F32(2.0))
    close(ge, -np.asarray(random.exponential(k, (5,))).sum() / 4.0, rtol=1e-5)


def test_gamma_implicit_gradient():
    # dz/da = -(dF/da)(a, z) / f(a, z), F the regularized lower incomplete gamma function.
    k = random.PRNGKey(23)
    a = np.array([0.3, 1.0, 2.5, 7.0], F32)
    z = np.asarray(random.gamma(k, a), np.float64)
    g = np.asarray(strata.grad(lambda aa: jnp.sum(random.gamma(k, aa)))(a))
    eps = 1e-6
    a64 = a.astype(np.float64)
    dFda = (scipy.special.gammainc(a64 + eps, z) - scipy.special.gammainc(a64 - eps, z)) / (2 * eps)
    want = -dFda / scipy.stats.gamma(a64).pdf(z)
    close(g, want, rtol=2e-3, atol=1e-5)
    lg = np.asarray(strata.grad(lambda aa: jnp.sum(random.loggamma(k, aa)))(a))
    zl = np.exp(np.asarray(random.loggamma(k, a), np.float64))
    dFl = (scipy.special.gammainc(a64 + eps, zl) -
           scipy.special.gammainc(a64 - eps, zl)) / (2 * eps)
    close(lg, -dFl / scipy.stats.gamma(a64).pdf(zl) / zl, rtol=2e-3, atol=1e-5)


def test_random_gamma_p_bind():
    k = random.PRNGKey(zlib.adler32(b"gammathreefry2x32"))
    close(random.random_gamma_p.bind(k, jnp.full((5,), 0.8, F32)),
          random.gamma(k, 0.8, (5,)), rtol=1e-6)


def test_dtype_errors_are_value_errors():
    k = random.PRNGKey(0)
    for f in (random.normal, random.gumbel, random.laplace, random.exponential, random.cauchy):
        with pytest.raises(ValueError, match="dtype argument"):
            f(k, (2,), jnp.int32)
    with pytest.raises(ValueError, match="dtype argument"):
        random.geometric(k, 0.5, (2,), F32)
    with pytest.raises(ValueError, match=r"\[gamma\]"):
        random.gamma(k, np.ones(3), (2,))
    with pytest.raises(ValueError, match="broadcast-compatible"):
        random.gamma(k, np.ones((2, 3)), (3,))


def test_public_names():
    names = ["PRNGKey", "ball", "bernoulli", "binomial", "beta", "bits", "categorical", "cauchy",
             "chisquare", "choice", "clone", "dirichlet", "double_sided_maxwell", "exponential",
             "f", "fold_in", "gamma", "generalized_normal", "geometric", "gumbel", "key",
             "key_data", "key_dtype", "key_impl", "laplace", "logistic", "loggamma", "lognormal",
             "maxwell", "multinomial", "multivariate_normal", "normal", "orthogonal", "pareto",
             "permutation", "poisson", "rademacher", "randint", "random_gamma_p", "rayleigh",
             "split", "t", "triangular", "truncated_normal", "uniform", "wald", "weibull_min",
             "wrap_key_data"]
    assert len(names) == 48
    missing = [n for n in names if not hasattr(random, n)]
    assert not missing


def test_gamma_jvp_wiring(monkeypatch):
    # The derivative rule scales tangents by lax.random_gamma_grad(a, sample) (by it over the
    # sample in log space); a stand-in grad of (a + 2 * sample) checks the plumbing under grad,
    # vmap and jit whether or not the real primitive is built.
    monkeypatch.setattr(lax, "random_gamma_grad", lambda a, x: a + 2 * x, raising=False)
    k = random.PRNGKey(3)
    a = np.array([0.5, 1.5, 4.0], F32)
    z = np.asarray(random.gamma(k, a))
    close(strata.grad(lambda aa: jnp.sum(random.gamma(k, aa)))(a), a + 2 * z, rtol=1e-6)
    close(strata.jit(strata.grad(lambda aa: jnp.sum(random.gamma(k, aa))))(a), a + 2 * z,
          rtol=1e-6)
    zl = np.exp(np.asarray(random.loggamma(k, a)))
    close(strata.grad(lambda aa: jnp.sum(random.loggamma(k, aa)))(a), (a + 2 * zl) / zl,
          rtol=1e-5)
    ks = random.split(k, 2)
    gv = strata.vmap(strata.grad(lambda kk, aa: jnp.sum(random.gamma(kk, aa)), 1), (0, None))(ks, a)
    zs = np.stack([np.asarray(random.gamma(ks[i], a)) for i in range(2)])
    close(gv, a + 2 * zs, rtol=1e-6)


def test_keys_from_traced_seeds():
    raw = strata.vmap(random.PRNGKey)(jnp.arange(3))
    same(raw, [[0, 0], [0, 1], [0, 2]])
    typed = strata.vmap(random.key)(jnp.arange(3))
    assert isinstance(typed, random.PRNGKeyArray) and typed.shape == (3,)
    got = strata.vmap(lambda s: random.uniform(random.key(s)))(jnp.arange(3))
    close(got, [float(random.uniform(random.PRNGKey(i))) for i in range(3)])


@pytest.fixture
def x64(monkeypatch):
    """jax_enable_x64 on: through strata.config where the option exists, else by the module's
    own switch."""
    try:
        old = strata.config.read("jax_enable_x64")
    except AttributeError:
        monkeypatch.setattr(random, "_x64", lambda: True)
        yield
        return
    strata.config.update("jax_enable_x64", True)
    yield
    strata.config.update("jax_enable_x64", old)


def test_x64_values(x64):
    k = random.PRNGKey(0)
    got = random.randint(k, (3, 3), 0, 8)
    assert got.dtype == np.int64
    same(got, [[7, 2, 6], [2, 1, 0], [6, 7, 7]])  # JAX's testPRNGValues with x64
    same(random.randint(k, (3, 3), 0, 8, dtype=jnp.int32), [[2, 1, 3], [6, 1, 5], [6, 3, 4]])
    same(random.PRNGKey(-1), [4294967295, 4294967295])
    same(random.PRNGKey(2 ** 40 + 3), [256, 3])
    wide = np.asarray(random.randint(k, (20000,), -2 ** 63, 2 ** 63 - 1))
    assert wide.min() < -2 ** 62 and wide.max() > 2 ** 62
    big = np.asarray(random.randint(k, (20000,), 5, 5 + 3 * 2 ** 61)) - 5
    assert big.min() >= 0 and big.max() < 3 * 2 ** 61 and big.max() > 2 * 2 ** 61
    counts = np.bincount(np.asarray(random.randint(k, (12000,), 0, 6)), minlength=6)
    assert scipy.stats.chisquare(counts).pvalue > 1e-3
    u = random.uniform(k, (5,))
    assert u.dtype == np.float64
    w = np.asarray(random._words(k, 10))
    b64 = (w[:5].astype(np.uint64) << np.uint64(32)) | w[5:].astype(np.uint64)
    same(u, ((b64 >> np.uint64(12)) | np.uint64(0x3FF0000000000000)).view(np.float64) - 1.0)
    p = random.poisson(k, jnp.asarray([3.0, 30.0]), (2,))
    assert p.dtype == np.int64 and np.all(np.asarray(p) >= 0)
