"""strata.random under jax_threefry_partitionable=True (JAX's default since 0.5.0): values JAX
printed in its own documentation and values recorded from JAX by other projects, a numpy
Threefry-2x32 written from the Random123 specification with JAX's partitionable layout on top
(split, fold_in, bits of each width, the float and integer constructions), both layouts
selectable through strata.config, and jit/vmap/grad in the partitionable layout."""

import math
import zlib

import numpy as np
import pytest

from conftest import check_jit_and_vmap, x64_mode
import scipy.special
import scipy.stats

import strata
import strata.numpy as jnp
from strata import random

F32 = np.float32
U32 = np.uint32
OPTION = "jax_threefry_partitionable"


def close(got, want, rtol=1e-5, atol=1e-6):
    got = np.asarray(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_array_equal(a, b)


@pytest.fixture(autouse=True)
def partitionable():
    """The partitionable layout for each test (whatever the environment set), restored after."""
    old = strata.config.read(OPTION)
    strata.config.update(OPTION, True)
    yield
    strata.config.update(OPTION, old)


@pytest.fixture
def original():
    strata.config.update(OPTION, False)


# ---- an independent Threefry-2x32 in numpy (Random123: Salmon et al., SC'11) ------------------

_M = np.uint64(0xFFFFFFFF)
_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)


def np_threefry(key, x0, x1):
    """Threefry-2x32 with 20 rounds of counters x0, x1 (arrays) under key (two words), in
    uint64 arithmetic masked to 32 bits: key schedule k0, k1, k0^k1^0x1BD11BDA injected after
    every 4 rounds (injection s adds ks[s % 3], ks[(s + 1) % 3] + s)."""
    k0, k1 = np.uint64(int(key[0])), np.uint64(int(key[1]))
    ks = (k0, k1, k0 ^ k1 ^ np.uint64(0x1BD11BDA))
    a = (np.asarray(x0, np.uint64) + ks[0]) & _M
    b = (np.asarray(x1, np.uint64) + ks[1]) & _M
    for d in range(20):
        r = np.uint64(_ROTATIONS[d % 8])
        a = (a + b) & _M
        b = ((b << r) | (b >> (np.uint64(32) - r))) & _M
        b = b ^ a
        if d % 4 == 3:
            s = d // 4 + 1
            a = (a + ks[s % 3]) & _M
            b = (b + ks[(s + 1) % 3] + np.uint64(s)) & _M
    return a.astype(U32), b.astype(U32)


def np_key(seed):
    """jax.random.PRNGKey(seed) for 0 <= seed < 2**32 with x64 off: [0, seed]."""
    return np.array([0, seed], U32)


def np_hash(key, shape):
    """The partitionable layout: element i (flat) hashes the counter (hi(i), lo(i))."""
    i = np.arange(int(np.prod(shape)), dtype=np.uint64)
    w1, w2 = np_threefry(key, i >> np.uint64(32), i & _M)
    return w1.reshape(shape), w2.reshape(shape)


def np_split(key, n):
    return np.stack(np_hash(key, (n,)), axis=-1)


def np_fold_in(key, data):
    a, b = np_threefry(key, [0], [data % 2 ** 32])
    return np.array([a[0], b[0]], U32)


def np_bits(key, shape, width=32):
    w1, w2 = np_hash(key, shape)
    x = w1 ^ w2
    return x if width == 32 else (x & U32(2 ** width - 1)).astype(f"uint{width}")


def np_bits64(key, shape):
    w1, w2 = np_hash(key, shape)
    return (w1.astype(np.uint64) << np.uint64(32)) | w2.astype(np.uint64)


def np_uniform32(key, shape):
    b = np_bits(key, shape)
    return ((b >> U32(9)) | U32(0x3F800000)).view(F32) - F32(1)


def test_numpy_threefry_matches_random123_known_answers():
    m = 2 ** 32 - 1
    for key, ctr, want in [((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
                           ((m, m), (m, m), (0x1CB996FC, 0xBB002BE7)),
                           ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3),
                            (0xC4923A9C, 0x483DF7A0))]:
        a, b = np_threefry(key, [ctr[0]], [ctr[1]])
        assert (int(a[0]), int(b[0])) == want


# ---- the option ----------------------------------------------------------------------------------

def test_option_default_is_jax_default(monkeypatch):
    # JAX 0.5.0's CHANGELOG: "Enable jax_threefry_partitionable by default"; jax/_src/config.py
    # declares it with default=True. A fresh Config with no environment override says the same.
    from strata._config import Config
    monkeypatch.delenv("JAX_THREEFRY_PARTITIONABLE", raising=False)
    monkeypatch.delenv("STRATA_THREEFRY_PARTITIONABLE", raising=False)
    c = Config()
    c.define(OPTION, True)
    assert c.read(OPTION) is True
    monkeypatch.setenv("JAX_THREEFRY_PARTITIONABLE", "0")  # JAX's environment variable
    c.define(OPTION, True)
    assert c.read(OPTION) is False
    assert OPTION in strata.config.values()
    strata.config.update(OPTION, "false")  # strings parse as for any boolean option
    assert strata.config.jax_threefry_partitionable is False
    strata.config.update(OPTION, True)
    assert strata.config.read(OPTION) is True


def test_both_layouts_selectable(original):
    k = random.PRNGKey(0)
    # JAX's testPRNGValues (tests/random_test.py, layout before 0.5.0).
    same(random.split(k, 4), [[2285895361, 1501764800], [1518642379, 4090693311],
                              [433833334, 4221794875], [839183663, 3740430601]])
    same(random.bits(k, (3,)), np.asarray(random._words(k, 3)))
    strata.config.update(OPTION, True)
    same(random.split(k, 4), np_split(np_key(0), 4))
    same(random.bits(k, (3,)), np_bits(np_key(0), (3,)))
    assert not np.array_equal(np.asarray(random.split(k, 4)),
                              [[2285895361, 1501764800], [1518642379, 4090693311],
                               [433833334, 4221794875], [839183663, 3740430601]])


# ---- values JAX printed or others recorded from JAX ---------------------------------------------

def test_jax_documentation_values():
    # JAX's "Pseudorandom numbers" tutorial (docs/random-numbers), as rendered for JAX >= 0.5.
    key = random.key(42)
    close(random.normal(key), F32(-0.028304616))
    close(random.normal(key, shape=(3,)), [-0.02830462, 0.46713185, 0.29570296])
    subkeys = random.split(key, 3)
    close(np.stack([np.asarray(random.normal(s)) for s in subkeys]),
          [0.07592554, 0.60576403, 0.4323065])
    close(strata.vmap(random.normal)(subkeys), [0.07592554, 0.60576403, 0.4323065])
    draws = []
    for _ in range(3):
        key, subkey = random.split(key)
        draws.append(float(random.normal(subkey)))
    close(np.array(draws, F32), [0.6057640314102173, -0.21089035272598267, -0.3948981463909149])


def test_values_recorded_from_jax_by_other_projects():
    # mlir-tensorrt's JAX integration test (test_random): split(PRNGKey(seed)) for seeds 0..2,
    # then normal(k1, (4, 4)) and uniform(k2, (4, 4)) for seed 0, under jit.
    want = np.array([[[1797259609, 2579123966], [928981903, 3453687069]],
                     [[507451445, 1853169794], [1948878966, 4237131848]],
                     [[1821159224, 3364244817], [637334850, 3278974502]]], U32)
    for seed in range(3):
        same(strata.jit(random.split)(random.PRNGKey(seed)), want[seed])
    k1, k2 = random.split(random.PRNGKey(0))
    normal = [[1.0040143, -0.9063372, -0.7481722, -1.1713669],
              [-0.8712328, 0.58883816, 0.72392994, -1.0255982],
              [1.661628, -1.8910251, -1.2889339, 0.13360691],
              [-1.1530392, 0.23929629, 1.7448071, 0.5050189]]
    uniform = [[0.00729382, 0.02089119, 0.5814265, 0.36183798],
               [0.22303772, 0.11928833, 0.12543893, 0.61683],
               [0.0950073, 0.9834225, 0.4248221, 0.8324801],
               [0.0966121, 0.22702086, 0.3545748, 0.67104137]]
    f = strata.jit(lambda a, b: (random.normal(a, (4, 4)), random.uniform(b, (4, 4))))
    n, u = f(k1, k2)
    close(n, np.array(normal, F32), rtol=1e-4)
    close(u, np.array(uniform, F32), rtol=1e-4)
    # xtrax's golden key_data of JAX 0.10.2: split(key(seed), 13) for seeds 0 and 12345.
    g0 = [(1797259609, 2579123966), (928981903, 3453687069), (4146024105, 2718843009),
          (2467461003, 3840466878), (2285895361, 433833334), (1524306142, 1887795613),
          (3792494674, 2909014575), (2716826189, 292468403), (2292653872, 931858003),
          (823147153, 450340679), (3668660785, 652965180), (255289810, 156206175),
          (2763346363, 124557586)]
    g12345 = [(1214163296, 439912094), (867802714, 3762255628), (795667951, 2300365598),
              (709272294, 1661227809), (305750198, 730924241), (1545186055, 432531754),
              (3552431482, 1517125165), (3645526921, 1314572738), (3549796694, 2529333308),
              (2657012232, 1416960692), (1763606390, 309040335), (3052679535, 1314812838),
              (2650252694, 1226034348)]
    same(random.key_data(random.split(random.key(0), 13)), np.array(g0, U32))
    same(random.key_data(random.split(random.key(12345), 13)), np.array(g12345, U32))
    # jax-js's consistency tests: bits(key(0)), bits(key(10), (4,)), split(key(0), 3).
    same(random.bits(random.key(0)), U32(4070199207))
    same(random.bits(random.key(10), (4,)), np.array([169096361, 1572511259, 2689743692,
                                                      2228103506], U32))
    same(random.key_data(random.split(random.key(0), 3)), np.array(g0[:3], U32))


# ---- split and fold_in ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 7, 2 ** 32 - 1])
def test_split_is_threefry_of_iota_counters(seed):
    k = random.PRNGKey(seed)
    for n in (1, 2, 5, 1000):
        same(random.split(k, n), np_split(np_key(seed), n))
    grid = random.split(k, (2, 3))
    same(grid, np_split(np_key(seed), 6).reshape(2, 3, 2))
    same(random.key_data(random.split(random.key(seed), (2, 3))), grid)
    assert random.split(k, 0).shape == (0, 2) and random.split(k, (3, 0)).shape == (3, 0, 2)


def test_iota_2x32_is_the_64_bit_flat_index():
    hi, lo = random._iota_2x32((3, 4))
    same(hi, np.zeros((3, 4), U32))
    same(lo, np.arange(12, dtype=U32).reshape(3, 4))
    hi, lo = random._iota_2x32(())
    same(hi, U32(0))
    same(lo, U32(0))


@pytest.mark.parametrize("data", [0, 1, 4, 2 ** 31 + 3, 2 ** 32 - 1])
def test_fold_in_is_the_same_in_both_layouts(data):
    k = random.PRNGKey(3)
    want = np_fold_in(np_key(3), data)
    for mode in (True, False):
        strata.config.update(OPTION, mode)
        same(random.fold_in(k, data), want)
        same(strata.jit(lambda kk, d: random.fold_in(kk, d))(k, jnp.asarray(np.uint32(data))),
             want)


def test_split_fold_in_symmetry():
    # JAX's test_threefry_split_fold_in_symmetry and test_threefry_split_vmapped_fold_in_symmetry
    # (enabled for the partitionable layout): fold_in(key, i) == split(key, n)[i].
    for make_key in (random.PRNGKey, random.key):
        key = make_key(72)
        s = random.key_data(random.split(key, 3))
        f = np.stack([np.asarray(random.key_data(random.fold_in(key, i))) for i in range(3)])
        same(f, s)
        v = strata.vmap(lambda i: random.key_data(random.fold_in(key, i)))(jnp.arange(3))
        same(v, s)


# ---- bits of each width --------------------------------------------------------------------------

def test_bits_widths_follow_the_partitionable_layout():
    k, nk = random.PRNGKey(1701), np_key(1701)
    same(random.bits(k, (3,)), np_bits(nk, (3,)))
    same(random.bits(k, (3, 4)), np_bits(nk, (3, 4)))
    same(random.bits(k), np_bits(nk, ()))
    got8 = random.bits(k, (40,), np.uint8)
    assert got8.dtype == np.uint8
    same(got8, np_bits(nk, (40,), 8))
    same(random._small_bits(k, 16, (40,)), np_bits(nk, (40,), 16).astype(U32))
    hi, lo = random._bits64(k, (5,))
    same((np.asarray(hi).astype(np.uint64) << np.uint64(32)) | np.asarray(lo), np_bits64(nk, (5,)))
    # Unlike the original layout, 8-bit draws are not the bytes of the 32-bit draws.
    assert not np.array_equal(np.asarray(got8[:4]), np.asarray(random.bits(k, (1,))).view(np.uint8))
    assert random.bits(k, (2, 0)).shape == (2, 0)


def test_bits_uint16():
    k = random.PRNGKey(5)
    same(random.bits(k, (9,), jnp.uint16), np_bits(np_key(5), (9,), 16))


# ---- floats --------------------------------------------------------------------------------------

def test_uniform_float_constructions():
    k, nk = random.PRNGKey(11), np_key(11)
    n = 33
    same(random.uniform(k, (n,)), np_uniform32(nk, (n,)))
    b16 = np_bits(nk, (n,), 16)
    same(random.uniform(k, (n,), np.float16),
         ((b16 >> np.uint16(6)) | np.uint16(0x3C00)).view(np.float16) - np.float16(1))
    b8 = np_bits(nk, (n,), 8).astype(U32)
    want_bf16 = (((b8 >> U32(1)) | U32(0x3F80)) << U32(16)).view(F32) - F32(1)
    same(np.asarray(random.uniform(k, (n,), jnp.bfloat16).astype(np.float32)), want_bf16)
    b64 = np_bits64(nk, (n,))
    want64 = ((b64 >> np.uint64(12)) | np.uint64(0x3FF0000000000000)).view(np.float64) - 1.0
    with x64_mode(True):  # float64 exists only in 64-bit mode
        same(random._unit(k, (n,), np.dtype("float64")), want64)
    lo = np.array([[-1.0], [2.0]], F32)
    hi = np.array([0.0, 3.0, 10.0], F32)
    u01 = np_uniform32(nk, (2, 3))
    close(random.uniform(k, (2, 3), minval=lo, maxval=hi), np.maximum(lo, u01 * (hi - lo) + lo))


def test_normal_is_erfinv_of_the_uniform_bits():
    k, nk = random.PRNGKey(4), np_key(4)
    lo = np.nextafter(F32(-1), F32(0))
    u = np.maximum(lo, np_uniform32(nk, (2000,)) * (F32(1) - lo) + lo)
    want = np.sqrt(2.0) * scipy.special.erfinv(u.astype(np.float64))
    close(random.normal(k, (2000,)), want, rtol=2e-5, atol=2e-6)


def test_distributions_built_on_uniform():
    k, nk = random.PRNGKey(8), np_key(8)
    u = np_uniform32(nk, (500,)).astype(np.float64)
    close(random.exponential(k, (500,)), -np.log1p(-u), rtol=1e-5, atol=1e-6)
    tiny = float(np.finfo(F32).tiny)
    ug = np.maximum(tiny, u * (1 - tiny) + tiny)
    close(random.gumbel(k, (500,)), -np.log(-np.log(ug)), rtol=1e-4, atol=1e-5)
    same(random.bernoulli(k, 0.3, (500,)), np_uniform32(nk, (500,)) < F32(0.3))
    eps = float(np.finfo(F32).eps)
    uc = np.maximum(eps, u * (1 - eps) + eps)
    close(random.cauchy(k, (500,)), np.tan(np.pi * (uc - 0.5)), rtol=1e-3, atol=1e-3)


# ---- integers ------------------------------------------------------------------------------------

def np_randint(key, shape, lo, hi, nbits):
    """JAX's randint (two draws from split(key), remainder with a 2**(nbits/2) multiplier) in
    unsigned nbits arithmetic, for in-range bounds lo < hi."""
    ks = np_split(key, 2)
    ut = np.dtype(f"uint{nbits}")
    hb = np_bits(ks[0], shape, nbits).astype(ut)
    lb = np_bits(ks[1], shape, nbits).astype(ut)
    span = ut.type((hi - lo) % 2 ** nbits)
    m = 2 ** (nbits // 2) % int(span)
    mult = ut.type(m * m % 2 ** nbits % int(span))  # the square wraps, as in uint arithmetic
    off = ((hb % span).astype(np.uint64) * int(mult) % 2 ** nbits + (lb % span)) % 2 ** nbits
    return lo + (off % int(span)).astype(np.int64)


@pytest.mark.parametrize("lo,hi", [(0, 10), (-5, 13), (-2 ** 31, 2 ** 31 - 1), (3, 4)])
def test_randint_int32(lo, hi):
    k = random.PRNGKey(9)
    got = random.randint(k, (300,), lo, hi)
    assert got.dtype == np.int32
    same(np.asarray(got).astype(np.int64), np_randint(np_key(9), (300,), lo, hi, 32))


def test_randint_narrow_and_degenerate():
    k = random.PRNGKey(2)
    got = random.randint(k, (200,), -3, 9, jnp.int8)
    assert got.dtype == np.int8
    same(np.asarray(got).astype(np.int64), np_randint(np_key(2), (200,), -3, 9, 8))
    got = random.randint(k, (200,), 10, 250, jnp.uint8)
    same(np.asarray(got).astype(np.int64), np_randint(np_key(2), (200,), 10, 250, 8))
    same(random.randint(k, (4,), 5, 2), np.full(4, 5, np.int32))  # maxval <= minval: minval
    counts = np.bincount(np.asarray(random.randint(k, (12000,), 0, 6)), minlength=6)
    assert scipy.stats.chisquare(counts).pvalue > 1e-3


def test_permutation_sorts_by_the_bits_of_a_split_key():
    # JAX's _shuffle: one round for small n, sorting by bits(split(key)[1], (n,)) (stable).
    k = random.PRNGKey(21)
    sub = np_split(np_key(21), 2)[1]
    order = np.argsort(np_bits(sub, (50,)), kind="stable")
    same(random.permutation(k, 50), order.astype(np.int32))
    x = np.arange(24.0, dtype=F32).reshape(4, 6)
    same(random.permutation(k, x, axis=1), x[:, np.argsort(np_bits(sub, (6,)), kind="stable")])


# ---- statistics of the loop-based samplers in this layout ---------------------------------------

N = 6000


@pytest.mark.parametrize("name,draw,cdf", [
    ("gamma", lambda k: random.gamma(k, 0.7, (N,)), scipy.stats.gamma(0.7).cdf),
    ("beta", lambda k: random.beta(k, 2.0, 3.0, (N,)), scipy.stats.beta(2.0, 3.0).cdf),
    ("t", lambda k: random.t(k, 4.0, (N,)), scipy.stats.t(4.0).cdf),
    ("truncated_normal", lambda k: random.truncated_normal(k, -1.0, 0.5, (N,)),
     scipy.stats.truncnorm(-1.0, 0.5).cdf),
])
def test_continuous_distributions(name, draw, cdf):
    x = np.asarray(draw(random.PRNGKey(zlib.adler32(name.encode()))), np.float64)
    assert np.all(np.isfinite(x))
    assert scipy.stats.kstest(x, cdf).pvalue > 1e-4


@pytest.mark.parametrize("lam", [3.0, 40.0])
def test_poisson(lam):
    x = np.asarray(random.poisson(random.PRNGKey(int(lam)), lam, (N,)))
    assert x.dtype == np.int32
    support = np.arange(int(lam + 6 * math.sqrt(lam) + 5))
    counts = np.array([(x == s).sum() for s in support], float)
    expected = scipy.stats.poisson(lam).pmf(support) * N
    keep = expected > 5
    c, e = counts[keep], expected[keep]
    assert scipy.stats.chisquare(c, e * c.sum() / e.sum()).pvalue > 1e-4


# ---- transforms ----------------------------------------------------------------------------------

SAMPLERS = {
    "split": lambda k: random.split(k, 3),
    "bits8": lambda k: random.bits(k, (5,), jnp.uint8),
    "uniform": lambda k: random.uniform(k, (3,)),
    "normal": lambda k: random.normal(k, (3,)),
    "randint": lambda k: random.randint(k, (3,), -4, 9),
    "gamma": lambda k: random.gamma(k, jnp.asarray([0.4, 1.0, 3.0])),
    "poisson": lambda k: random.poisson(k, jnp.asarray([1.0, 5.0, 40.0])),
    "binomial": lambda k: random.binomial(k, 30.0, jnp.asarray([0.1, 0.5, 0.9])),
    "permutation": lambda k: random.permutation(k, 7),
    "dirichlet": lambda k: random.dirichlet(k, jnp.asarray([0.5, 1.0, 2.0])),
    "fold_in_traced": lambda k: random.fold_in(k, jnp.asarray(np.uint32(9))),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_jit_equals_eager_and_vmap_equals_loop(name):
    check_jit_and_vmap(SAMPLERS[name], random.PRNGKey(17))


def test_typed_keys_batched():
    ks = random.split(random.key(3), 4)
    v = strata.vmap(lambda kk: random.bits(kk, (2,)))(ks)
    raw = np.asarray(random.key_data(ks))
    same(v, np.stack([np_bits(raw[i], (2,)) for i in range(4)]))


def test_jit_follows_the_layout_at_trace_time():
    k = random.PRNGKey(5)
    new = strata.jit(lambda kk: random.uniform(kk, (4,)))(k)
    strata.config.update(OPTION, False)
    old = strata.jit(lambda kk: random.uniform(kk, (4,)))(k)
    same(old, random.uniform(k, (4,)))
    strata.config.update(OPTION, True)
    same(new, np_uniform32(np_key(5), (4,)))
    assert not np.array_equal(np.asarray(new), np.asarray(old))


def test_grad_of_reparameterized_samplers():
    k = random.PRNGKey(0)
    z = np_uniform32(np_key(0), (5,))
    g = strata.grad(lambda hi: jnp.sum(random.uniform(k, (5,), minval=0.0, maxval=hi)))(F32(3.0))
    close(g, z.sum(), rtol=1e-5)
    n = np.asarray(random.normal(k, (5,)))

    def loss(mu, s):
        return jnp.sum((mu + s * random.normal(k, (5,))) ** 2)
    gm, gs = strata.grad(loss, (0, 1))(F32(0.5), F32(2.0))
    close(gm, np.sum(2 * (0.5 + 2.0 * n)), rtol=1e-5)
    close(gs, np.sum(2 * (0.5 + 2.0 * n) * n), rtol=1e-5)
    gj = strata.jit(strata.grad(loss, (0, 1)))(F32(0.5), F32(2.0))
    close(gj[0], gm, rtol=1e-6)
    close(gj[1], gs, rtol=1e-6)
    ks = random.split(k, 3)
    gv = strata.vmap(strata.grad(lambda kk, s: jnp.sum(s * random.normal(kk, (4,))), 1),
                     (0, None))(ks, F32(1.5))
    close(gv, [np.asarray(random.normal(ks[i], (4,))).sum() for i in range(3)], rtol=1e-5)


def test_x64_uniform_and_randint(monkeypatch):
    try:
        old = strata.config.read("jax_enable_x64")
        strata.config.update("jax_enable_x64", True)
        restore = lambda: strata.config.update("jax_enable_x64", old)  # noqa: E731
    except AttributeError:
        monkeypatch.setattr(random, "_x64", lambda: True)
        restore = lambda: None  # noqa: E731
    try:
        k = random.PRNGKey(0)
        u = random.uniform(k, (6,))
        assert u.dtype == np.float64
        b64 = np_bits64(np_key(0), (6,))
        same(u, ((b64 >> np.uint64(12)) | np.uint64(0x3FF0000000000000)).view(np.float64) - 1.0)
        r = np.asarray(random.randint(k, (4000,), -2 ** 62, 2 ** 62))
        assert r.dtype == np.int64 and r.min() < -2 ** 61 and r.max() > 2 ** 61
    finally:
        restore()
