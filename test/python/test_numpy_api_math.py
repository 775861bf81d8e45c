"""strata.numpy elementwise composites, differences and interpolation, polynomials, windows,
bit packing, dtype introspection and the function transformers, against numpy, finite
differences, vmap loops and jit."""

import io

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from test_numpy_api_common import close, check_grad

rng = np.random.default_rng(4)
A = rng.standard_normal((3, 4)).astype(np.float32)
P = (np.abs(A) + 0.5).astype(np.float32)
SPECIAL = np.array([-2.5, -1.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 1e-40, -3e30, np.inf, -np.inf,
                    np.nan], np.float32)


# ---- rounding and clipping -------------------------------------------------------------------

def test_rounding():
    x = SPECIAL
    close(jnp.round(x), np.round(x))
    close(jnp.around(A, 2), np.around(A, 2), rtol=1e-5)
    h = np.array([1000.25, -3.14159], np.float16)
    close(jnp.round(h, 3), np.round(h.astype(np.float32), 3).astype(np.float16))
    assert jnp.round(h, 3).dtype == np.float16
    close(jnp.round(np.array([1234, -1250, 1350]), -2), np.round([1234, -1250, 1350], -2))
    close(jnp.rint(x), np.rint(x))
    close(jnp.fix(x), np.fix(x))
    close(jnp.trunc(x), np.trunc(x))
    assert jnp.round(np.arange(3, dtype=np.int32)).dtype == np.int32
    assert jnp.rint(np.arange(3, dtype=np.int32)).dtype == np.float32


def test_clip_names():
    x = np.arange(6)
    close(jnp.clip(x, 1, 4), np.clip(x, 1, 4))
    close(jnp.clip(x, min=2), np.clip(x, 2, None))
    close(jnp.clip(x, max=3), np.clip(x, None, 3))
    close(jnp.clip(x, a_min=1, a_max=2), np.clip(x, 1, 2))
    close(jnp.clip(a=x, min=np.array([0, 1, 2, 3, 4, 5]), max=3), np.clip(x, np.arange(6), 3))
    close(jnp.clip(A, -0.5, 0.5), np.clip(A, -0.5, 0.5))
    check_grad(lambda v: jnp.clip(v, min=-0.5, max=0.5), lambda v: np.clip(v, -0.5, 0.5), A)
    with pytest.raises(TypeError, match=r"^\[clip\]"):
        jnp.clip(x, min=1, a_min=1)


# ---- remainders and exponents ----------------------------------------------------------------

def test_remainders():
    a = np.array([-7.5, -3.0, 5.25, 7.0], np.float32)
    b = np.array([2.0, -2.5, -2.0, 3.0], np.float32)
    close(jnp.fmod(a, b), np.fmod(a, b))
    close(jnp.mod(a, b), np.mod(a, b))
    q, r = jnp.divmod(a, b)
    qq, rr = np.divmod(a, b)
    close(q, qq)
    close(r, rr)
    ai, bi = np.array([-7, 7, -8, 9]), np.array([2, -3, 3, 0])
    close(jnp.fmod(ai, bi), np.array([-1, 1, -2, 0]))  # fmod by 0 is 0 for integers
    check_grad(lambda v: jnp.fmod(v, 0.7), lambda v: np.fmod(v, 0.7), A)


def test_ldexp_frexp_modf_spacing():
    x = SPECIAL
    m, e = jnp.frexp(x)
    mm, ee = np.frexp(x)
    close(m, mm)
    close(e, ee)
    close(jnp.ldexp(mm, ee), np.ldexp(mm, ee))
    close(jnp.ldexp(np.float32(1.5), np.array([-140, 0, 100])),
          np.ldexp(np.float32(1.5), [-140, 0, 100]).astype(np.float32))
    f, i = jnp.modf(x)
    ff, ii = np.modf(x)
    close(f, ff)
    close(i, ii)
    close(jnp.spacing(x), np.spacing(x))
    # (numpy 1.24's float16 spacing drops the sign of negative inputs; compare positives)
    close(jnp.spacing(np.array([1.0, 1000.0, 3.0], np.float16)),
          np.spacing(np.array([1.0, 1000.0, 3.0], np.float16)))
    close(jnp.spacing(np.float16(-3.0)), -np.spacing(np.float16(3.0)))
    check_grad(lambda v: jnp.ldexp(v, np.array([1, 2, 3, -1])),
               lambda v: np.ldexp(v, [1, 2, 3, -1]), A)
    check_grad(lambda v: jnp.modf(v)[0], lambda v: np.modf(v)[0], A)
    with pytest.raises(TypeError, match=r"^\[ldexp\]"):
        jnp.ldexp(A, A)


# ---- signs and special values ----------------------------------------------------------------

def test_sign_functions():
    x = SPECIAL
    close(jnp.signbit(x), np.signbit(x))
    close(jnp.signbit(np.array([-1, 0, 2])), np.signbit([-1, 0, 2]))
    close(jnp.signbit(x[:9].astype(np.float16)), np.signbit(x[:9].astype(np.float16)))
    close(jnp.copysign(np.array([1.0, 2.0, 3.0]), np.array([-0.0, 1.0, -np.inf])),
          np.copysign([1.0, 2.0, 3.0], [-0.0, 1.0, -np.inf]).astype(np.float32))
    close(jnp.heaviside(x, 0.5), np.heaviside(x, 0.5))
    close(jnp.isposinf(x), np.isposinf(x))
    close(jnp.isneginf(x), np.isneginf(x))
    close(jnp.isinf(x), np.isinf(x))
    close(jnp.isnan(x), np.isnan(x))
    close(jnp.isreal(A), np.isreal(A))
    close(jnp.iscomplex(A), np.iscomplex(A))
    close(jnp.nan_to_num(x), np.nan_to_num(x))
    close(jnp.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0),
          np.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0))
    close(jnp.real(A), A)
    close(jnp.imag(A), np.zeros_like(A))
    close(jnp.conj(A), A)
    close(jnp.conjugate(A), A)
    close(jnp.angle(x[:10]), np.angle(x[:10]).astype(np.float32))
    close(jnp.angle(A, deg=True), np.angle(A, deg=True).astype(np.float32))
    check_grad(lambda v: jnp.copysign(v, -1.0), lambda v: np.copysign(v, -1.0), A)


def test_math_composites():
    close(jnp.sinc(A), np.sinc(A), rtol=1e-5)
    close(jnp.sinc(np.array([0.0, 1.0])), np.sinc([0.0, 1.0]).astype(np.float32), atol=1e-6)
    close(jnp.hypot(A, P), np.hypot(A, P))
    close(jnp.hypot(np.array([3e30, 0.0, np.inf], np.float32), np.array([4e30, 0.0, np.nan],
                                                                      np.float32)),
          np.hypot(np.array([3e30, 0.0, np.inf], np.float32), [4e30, 0.0, np.nan]))
    close(jnp.logaddexp(A, P), np.logaddexp(A, P))
    inf = np.array([np.inf, -np.inf, np.inf, -np.inf, np.nan], np.float32)
    inf2 = np.array([np.inf, -np.inf, -np.inf, 3.0, 1.0], np.float32)
    with np.errstate(invalid="ignore"):
        close(jnp.logaddexp(inf, inf2), np.logaddexp(inf, inf2))
    close(jnp.logaddexp2(A, P), np.logaddexp2(A, P), rtol=1e-5)
    close(jnp.log2(P), np.log2(P))
    close(jnp.log10(P), np.log10(P))
    close(jnp.deg2rad(A), np.deg2rad(A))
    close(jnp.rad2deg(A), np.rad2deg(A), rtol=1e-5)
    close(jnp.radians(A), np.radians(A))
    close(jnp.degrees(A), np.degrees(A), rtol=1e-5)
    close(jnp.fabs(np.array([-2, 3])), np.fabs([-2, 3]).astype(np.float32))
    close(jnp.absolute(A), np.absolute(A))
    close(jnp.positive(A), A)
    close(jnp.float_power(np.array([2, 3]), np.array([-1, 2])),
          np.float_power([2, 3], [-1, 2]).astype(np.float32))
    close(jnp.fmax(SPECIAL, SPECIAL[::-1]), np.fmax(SPECIAL, SPECIAL[::-1]))
    close(jnp.fmin(SPECIAL, SPECIAL[::-1]), np.fmin(SPECIAL, SPECIAL[::-1]))
    for name in ("sinc", "hypot", "logaddexp", "logaddexp2", "log2", "log10", "deg2rad",
                 "rad2deg"):
        jf, nf = getattr(jnp, name), getattr(np, name)
        if name in ("hypot", "logaddexp", "logaddexp2"):
            check_grad(lambda v: jf(v, P), lambda v: nf(v, P), A)
        elif name in ("log2", "log10"):
            check_grad(jf, nf, P)
        else:
            check_grad(jf, nf, A)
    g = strata.grad(jnp.sinc)(np.float32(0.0))
    close(g, 0.0)  # sinc is smooth at 0
    close(strata.vmap(lambda v: jnp.logaddexp(v, 0.0))(A), np.logaddexp(A, 0.0))
    close(strata.jit(jnp.hypot)(A, P), np.hypot(A, P))


def test_integer_functions():
    a = np.array([12, 0, -8, 7, 0, 35, 2 ** 20], np.int32)
    b = np.array([18, 5, 12, 0, 0, -21, 6], np.int32)
    close(jnp.gcd(a, b), np.gcd(a, b))
    close(jnp.lcm(a, b), np.lcm(a, b))
    close(strata.vmap(jnp.gcd)(a.reshape(7, 1), b.reshape(7, 1)), np.gcd(a, b).reshape(7, 1))
    close(jnp.invert(np.array([0, 5, -1])), np.invert([0, 5, -1]))
    close(jnp.bitwise_invert(np.array([True, False])), [False, True])
    s = np.array([-8, 8, -1, -5, 3], np.int32)
    n = np.array([1, 1, 31, 1, 2], np.int32)
    close(jnp.right_shift(s, n), np.right_shift(s, n))
    close(jnp.left_shift(s, n), np.left_shift(s, n))
    close(jnp.bitwise_right_shift(np.array([200], np.uint8), 3), [25])
    close(jnp.bitwise_left_shift(np.array([3]), 4), [48])
    with pytest.raises(TypeError, match=r"^\[gcd\]"):
        jnp.gcd(A, A)


# ---- differences, gradients, interpolation ---------------------------------------------------

def test_diff_family():
    for n in (0, 1, 2, 3):
        close(jnp.diff(A, n), np.diff(A, n))
        close(jnp.diff(A, n, axis=0), np.diff(A, n, axis=0))
    close(jnp.diff(A, prepend=0.0, append=A[:, :1]), np.diff(A, prepend=0.0, append=A[:, :1]))
    close(jnp.diff(np.array([True, False, False])), np.diff([True, False, False]))
    close(jnp.ediff1d(A), np.ediff1d(A))
    close(jnp.ediff1d(A, to_begin=[-1.0, -2.0], to_end=9.0),
          np.ediff1d(A, to_begin=[-1.0, -2.0], to_end=9.0))
    check_grad(lambda v: jnp.diff(v, 2), lambda v: np.diff(v, 2), A)
    y = rng.standard_normal((5, 6)).astype(np.float32)
    close(jnp.gradient(y[0]), np.gradient(y[0]), rtol=1e-5)
    for got, want in zip(jnp.gradient(y), np.gradient(y)):
        close(got, want, rtol=1e-5)
    for got, want in zip(jnp.gradient(y, 2.0, 0.5), np.gradient(y, 2.0, 0.5)):
        close(got, want, rtol=1e-5)
    x = np.cumsum(rng.random(6) + 0.1).astype(np.float32)
    close(jnp.gradient(y, x, axis=1), np.gradient(y, x, axis=1), rtol=1e-4, atol=1e-5)
    check_grad(lambda v: jnp.gradient(v, axis=0), lambda v: np.gradient(v, axis=0), y)
    close(jnp.trapezoid(y), np.trapz(y), rtol=1e-5)
    close(jnp.trapezoid(y, x), np.trapz(y, x), rtol=1e-5)
    close(jnp.trapezoid(y, dx=0.5, axis=0), np.trapz(y, dx=0.5, axis=0), rtol=1e-5)
    p = np.cumsum(rng.standard_normal(20) * 2.5).astype(np.float32)
    close(jnp.unwrap(p), np.unwrap(p), rtol=1e-5, atol=1e-5)
    close(jnp.unwrap(p, period=4.0), np.unwrap(p, period=4.0), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"^\[diff\]"):
        jnp.diff(np.float32(1.0))


def test_interp():
    xp = np.array([0.0, 1.0, 2.5, 4.0, 4.0, 6.0], np.float32)
    fp = np.array([1.0, 3.0, 2.0, 0.0, 5.0, -1.0], np.float32)
    x = np.linspace(-1, 7, 33).astype(np.float32)
    close(jnp.interp(x, xp, fp), np.interp(x, xp, fp), rtol=1e-5)
    close(jnp.interp(x, xp, fp, left=-9.0, right=9.0), np.interp(x, xp, fp, -9.0, 9.0),
          rtol=1e-5)
    xs = np.array([0.5, 1.7, 3.0, 5.5], np.float32)
    close(jnp.interp(x, xs, fp[:4], period=4.0), np.interp(x, xs, fp[:4], period=4.0),
          rtol=1e-5, atol=1e-5)
    close(jnp.interp(x, xp[:1], fp[:1]), np.interp(x, xp[:1], fp[:1]))
    xq = np.array([0.3, 1.2, 3.3, 5.0], np.float32)
    check_grad(lambda v: jnp.interp(xq, xp[:4], v), lambda v: np.interp(xq, xp[:4], v), fp[:4])
    check_grad(lambda v: jnp.interp(v, xp[:4], fp[:4]), lambda v: np.interp(v, xp[:4], fp[:4]),
               xq)
    close(strata.jit(jnp.interp)(x, xp, fp), np.interp(x, xp, fp), rtol=1e-5)
    close(strata.vmap(lambda f: jnp.interp(xq, xp[:4], f))(np.stack([fp[:4], fp[2:]])),
          np.stack([np.interp(xq, xp[:4], fp[:4]), np.interp(xq, xp[:4], fp[2:])]), rtol=1e-5)
    with pytest.raises(ValueError, match=r"^\[interp\]"):
        jnp.interp(x, xp, fp[:3])


# ---- polynomials -----------------------------------------------------------------------------

def test_polynomials():
    p = np.array([2.0, -1.0, 0.5, 3.0], np.float32)
    q = np.array([1.0, 4.0], np.float32)
    close(jnp.polyval(p, A), np.polyval(p, A), rtol=1e-5)
    close(jnp.polyadd(p, q), np.polyadd(p, q))
    close(jnp.polysub(q, p), np.polysub(q, p))
    close(jnp.polymul(p, q), np.polymul(p, q))
    close(jnp.polymul(np.array([0.0, 1.0, 2.0]), q, trim_leading_zeros=True),
          np.polymul([0.0, 1.0, 2.0], q))
    qq, rr = jnp.polydiv(p, q)
    wq, wr = np.polydiv(p, q)
    close(qq, wq, rtol=1e-5)
    close(rr[-len(wr):], wr, rtol=1e-5)
    close(jnp.polydiv(p, q, trim_leading_zeros=True)[1], wr, rtol=1e-5)
    for m in (0, 1, 2, 5):
        close(jnp.polyder(p, m), np.polyder(p, m))
        close(jnp.polyint(p, m), np.polyint(p, m), rtol=1e-5)
    close(jnp.polyint(p, 2, k=[1.0, 2.0]), np.polyint(p, 2, k=[1.0, 2.0]), rtol=1e-5)
    close(jnp.poly(np.array([1.0, -2.0, 3.0])), np.poly([1.0, -2.0, 3.0]))
    # (numpy's polyval computes in x's dtype: give it float64 x)
    check_grad(lambda c: jnp.polyval(c, A), lambda c: np.polyval(c, A.astype(np.float64)), p)
    check_grad(lambda c: jnp.polyval(p, c), lambda c: np.polyval(p, c), A)
    check_grad(lambda c: jnp.polymul(c, q), lambda c: np.polymul(c, q), p)
    long = rng.standard_normal(40).astype(np.float32) * 0.1  # a scan over 40 coefficients
    xs = np.linspace(-1, 1, 7).astype(np.float32)
    close(strata.jit(lambda c, v: jnp.polyval(c, v, unroll=4))(long, xs), np.polyval(long, xs),
          rtol=1e-4, atol=1e-5)
    close(strata.grad(lambda v: jnp.sum(jnp.polyval(long, v)))(xs),
          np.polyval(np.polyder(long), xs), rtol=1e-3, atol=1e-4)
    close(strata.vmap(lambda c: jnp.polyval(c, 2.0))(np.stack([p, p * 2])),
          [np.polyval(p, 2.0), np.polyval(p * 2, 2.0)], rtol=1e-5)


def test_windows_bits():
    for M in (0, 1, 2, 5, 8):
        close(jnp.bartlett(M), np.bartlett(M), atol=1e-6)
        close(jnp.blackman(M), np.blackman(M), atol=1e-6)
        close(jnp.hamming(M), np.hamming(M), atol=1e-6)
        close(jnp.hanning(M), np.hanning(M), atol=1e-6)
    bits = rng.integers(0, 2, (3, 13))
    close(jnp.packbits(bits), np.packbits(bits))
    close(jnp.packbits(bits, axis=1), np.packbits(bits, axis=1))
    close(jnp.packbits(bits, axis=0, bitorder="little"), np.packbits(bits, axis=0,
                                                                     bitorder="little"))
    by = rng.integers(0, 256, (2, 3)).astype(np.uint8)
    close(jnp.unpackbits(by), np.unpackbits(by))
    close(jnp.unpackbits(by, axis=1, bitorder="little"), np.unpackbits(by, axis=1,
                                                                       bitorder="little"))
    close(jnp.unpackbits(by, axis=0, count=5), np.unpackbits(by, axis=0, count=5))
    with pytest.raises(TypeError, match=r"^\[unpackbits\]"):
        jnp.unpackbits(np.array([1, 2]))


# ---- dtype introspection ---------------------------------------------------------------------

def test_finfo_iinfo():
    for dt in (jnp.float16, jnp.float32, jnp.float64):
        fi, nfi = jnp.finfo(dt), np.finfo(np.dtype(dt))
        assert fi.eps == nfi.eps and fi.max == nfi.max and fi.bits == nfi.bits
    assert jnp.finfo(np.ones(2, np.float32)).eps == np.finfo(np.float32).eps
    bf = jnp.finfo(jnp.bfloat16)
    assert bf.bits == 16 and float(bf.eps) == 2.0 ** -7 and float(bf.max) > 3.38e38
    assert jnp.iinfo(jnp.int8).min == -128 and jnp.iinfo(jnp.uint32).max == 2 ** 32 - 1
    assert jnp.iinfo(np.zeros(2, np.int32)).bits == 32
    with pytest.raises(ValueError, match=r"^\[finfo\]"):
        jnp.finfo(jnp.int32)
    with pytest.raises(ValueError, match=r"^\[iinfo\]"):
        jnp.iinfo(jnp.float32)


def test_dtype_predicates():
    assert jnp.issubdtype(jnp.float32, jnp.floating)
    assert jnp.issubdtype(jnp.bfloat16, jnp.floating) and jnp.issubdtype(jnp.bfloat16,
                                                                         jnp.inexact)
    assert not jnp.issubdtype(jnp.bfloat16, jnp.integer)
    assert jnp.issubdtype(jnp.int8, jnp.signedinteger) and jnp.issubdtype(jnp.uint8,
                                                                          jnp.unsignedinteger)
    assert jnp.issubdtype(np.dtype("int32"), jnp.integer)
    assert not jnp.issubdtype(jnp.int32, jnp.floating)
    assert jnp.issubdtype(jnp.float32, jnp.float32) and not jnp.issubdtype(jnp.float32,
                                                                           jnp.float16)
    assert jnp.issubdtype(jnp.bool_, jnp.generic)
    assert jnp.isdtype(jnp.float32, "real floating")
    assert jnp.isdtype(jnp.int8, ("bool", "integral"))
    assert not jnp.isdtype(jnp.uint8, "signed integer")
    assert jnp.isdtype(jnp.bool_, "bool") and jnp.isdtype(jnp.float32, jnp.float32)
    assert jnp.isdtype(jnp.bfloat16, "numeric")
    assert jnp.can_cast(jnp.int8, jnp.float32) and not jnp.can_cast(jnp.float32, jnp.int8)
    assert jnp.can_cast(jnp.float32, jnp.int8, casting="unsafe")
    assert jnp.can_cast(jnp.bfloat16, jnp.float32) and not jnp.can_cast(jnp.float32,
                                                                         jnp.bfloat16)
    assert jnp.dtype("float32") == np.float32 and jnp.dtype(jnp.int8) == np.int8
    assert jnp.iscomplexobj(np.ones(2, np.complex64)) and not jnp.iscomplexobj(A)
    assert jnp.isrealobj(A)
    assert jnp.isscalar(1.0) and jnp.isscalar(np.float32(1)) and jnp.isscalar(jnp.asarray(1))
    assert not jnp.isscalar(A) and not jnp.isscalar([1])
    assert jnp.iterable([1]) and not jnp.iterable(1)
    assert jnp.size(A) == 12 and jnp.size(A, 1) == 4 and jnp.shape(A) == (3, 4)
    assert jnp.ndim([[1, 2]]) == 2 and jnp.shape(3.0) == ()
    assert jnp.floating is np.floating and jnp.integer is np.integer and jnp.number is np.number
    assert jnp.euler_gamma == np.euler_gamma
    assert jnp.complexfloating is np.complexfloating and jnp.character is np.character
    assert jnp.flexible is np.flexible


# ---- function transformers -------------------------------------------------------------------

def test_vectorize():
    f = jnp.vectorize(lambda a, b: a * b + 1.0)
    close(f(A, A[0]), A * A[0] + 1)
    dot = jnp.vectorize(lambda a, b: jnp.sum(a * b), signature="(n),(n)->()")
    close(dot(A, A[0]), A @ A[0], rtol=1e-5)
    close(dot(A[:, None, :], A[None]), np.einsum("ik,jk->ij", A, A), rtol=1e-5)
    outer = jnp.vectorize(lambda a: jnp.outer(a, a), signature="(n)->(n,n)")
    close(outer(A), np.einsum("bi,bj->bij", A, A), rtol=1e-5)
    pw = jnp.vectorize(lambda x, n: x ** n, excluded={1})
    close(pw(A, 2), A ** 2, rtol=1e-5)
    opt = jnp.vectorize(lambda x, y: x if y is None else x + y)
    close(opt(A, None), A)
    kw = jnp.vectorize(lambda x, *, scale: x * scale, excluded={"scale"})
    close(kw(A, scale=3.0), A * 3)
    two = jnp.vectorize(lambda a: (a.sum(), a.max()), signature="(n)->(),()")
    s, m = two(A)
    close(s, A.sum(1), rtol=1e-5)
    close(m, A.max(1))
    g = strata.grad(lambda v: jnp.sum(dot(v, v)))(A)
    close(g, 2 * A, rtol=1e-5)
    close(strata.jit(lambda v: dot(v, v))(A), np.sum(A * A, 1), rtol=1e-5)
    with pytest.raises(ValueError, match=r"^\[vectorize\]"):
        dot(A, A[:, :2])
    with pytest.raises(ValueError, match=r"^\[vectorize\]"):
        jnp.vectorize(lambda a: a, signature="(n->()")(A)


def test_frompyfunc_apply():
    u = jnp.frompyfunc(lambda a, b: jnp.where(a > b, a, b * 2), 2, 1)
    close(u(A, 0.0), np.where(A > 0, A, 0.0))
    assert u.nin == 2 and u.nout == 1
    add = jnp.frompyfunc(lambda a, b: a + b, 2, 1, identity=0)
    for axis in (0, 1, None, (0, 1)):
        close(add.reduce(A, axis=axis), np.add.reduce(A, axis=axis), rtol=1e-5)
    close(add.reduce(A, axis=1, keepdims=True), np.add.reduce(A, axis=1, keepdims=True),
          rtol=1e-5)
    close(add.reduce(A, axis=1, where=A > 0), np.add.reduce(A, axis=1, where=A > 0), rtol=1e-5)
    close(add.reduce(A, axis=0, initial=5.0), np.add.reduce(A, axis=0, initial=5.0), rtol=1e-5)
    close(add.accumulate(A, axis=1), np.add.accumulate(A, axis=1), rtol=1e-5)
    close(add.outer(A[0], A[1, :2]), np.add.outer(A[0], A[1, :2]))
    close(add.at(np.zeros(4, np.float32), np.array([0, 0, 3, -1]), 1.0, inplace=False),
          [2.0, 0.0, 0.0, 2.0])  # repeated indices accumulate, as numpy's add.at
    mx = jnp.ufunc(jnp.maximum, 2, 1, name="maximum")
    close(mx.reduce(A, axis=1), np.maximum.reduce(A, axis=1))
    close(mx.accumulate(A[0]), np.maximum.accumulate(A[0]))
    close(strata.grad(lambda v: jnp.sum(add.accumulate(v)))(A[0]), [4.0, 3.0, 2.0, 1.0])
    close(strata.jit(lambda v: mx.reduce(v, axis=0))(A), A.max(0))
    with pytest.raises(ValueError, match=r"^\[maximum.reduce\]"):
        mx.reduce(np.zeros((0,), np.float32))
    with pytest.raises(ValueError, match=r"^\[<lambda>.at\]"):
        add.at(A, np.array([0]), 1.0)
    close(jnp.apply_along_axis(lambda v: jnp.cumsum(v[::-1]), 1, A),
          np.apply_along_axis(lambda v: v[::-1].cumsum(), 1, A), rtol=1e-5)
    B = rng.standard_normal((2, 3, 4)).astype(np.float32)
    close(jnp.apply_along_axis(lambda v: jnp.sum(v ** 2), 1, B),
          np.apply_along_axis(lambda v: np.sum(v ** 2), 1, B), rtol=1e-5)
    close(jnp.apply_along_axis(lambda v: jnp.stack([v.min(), v.max()]), 0, B),
          np.apply_along_axis(lambda v: np.stack([v.min(), v.max()]), 0, B))
    close(jnp.apply_over_axes(jnp.sum, B, [0, 2]), np.apply_over_axes(np.sum, B, [0, 2]),
          rtol=1e-5)
    close(jnp.fromfunction(lambda i, j: i * 10 + j, (3, 4)),
          np.fromfunction(lambda i, j: i * 10 + j, (3, 4)).astype(np.float32))
    close(jnp.fromfunction(lambda i: i % 2, (5,), dtype=jnp.int32), np.arange(5) % 2)


def test_builtin_ufuncs():
    """jnp.add and friends are ufuncs, as in JAX, with fast method paths."""
    assert isinstance(jnp.add, jnp.ufunc) and jnp.add.identity == 0 and jnp.add.nin == 2
    close(jnp.add(A, 1.0), A + 1)
    close(jnp.add.reduce(A), np.add.reduce(A), rtol=1e-5)
    close(jnp.add.reduce(A, axis=None, keepdims=True), np.add.reduce(A, axis=None,
                                                                     keepdims=True), rtol=1e-5)
    close(jnp.multiply.reduce(A, axis=1, where=A > 0, initial=2.0),
          np.multiply.reduce(A, axis=1, where=A > 0, initial=2.0), rtol=1e-5)
    close(jnp.maximum.reduce(A, axis=1), np.maximum.reduce(A, axis=1))
    close(jnp.minimum.reduce(A, axis=0, initial=-0.5), np.minimum.reduce(A, axis=0,
                                                                         initial=-0.5))
    close(jnp.logical_and.reduce(A > -1, axis=1), np.logical_and.reduce(A > -1, axis=1))
    close(jnp.logical_or.reduce(A > 1), np.logical_or.reduce(A > 1))
    close(jnp.logical_xor.reduce(A > 0, axis=1), np.logical_xor.reduce(A > 0, axis=1))
    ints = np.array([[1, 2, 4], [3, 5, 6]], np.int32)
    close(jnp.bitwise_or.reduce(ints, axis=1), np.bitwise_or.reduce(ints, axis=1))
    close(jnp.bitwise_and.reduce(ints, axis=0), np.bitwise_and.reduce(ints, axis=0))
    close(jnp.bitwise_xor.accumulate(ints[0]), np.bitwise_xor.accumulate(ints[0]))
    close(jnp.logaddexp.reduce(A, axis=1), np.logaddexp.reduce(A, axis=1), rtol=1e-5)
    close(jnp.add.accumulate(A, axis=1), np.add.accumulate(A, axis=1), rtol=1e-5)
    close(jnp.multiply.accumulate(A, axis=0), np.multiply.accumulate(A, axis=0), rtol=1e-5)
    close(jnp.maximum.accumulate(A, axis=1), np.maximum.accumulate(A, axis=1))
    close(jnp.minimum.accumulate(A[0]), np.minimum.accumulate(A[0]))
    close(jnp.subtract.accumulate(A[0]), np.subtract.accumulate(A[0]), rtol=1e-5)
    close(jnp.multiply.outer(A[0], A[1]), np.multiply.outer(A[0], A[1]))
    want = np.zeros(4, np.float32)
    np.add.at(want, [0, 0, 3], [1.0, 2.0, 3.0])
    close(jnp.add.at(np.zeros(4, np.float32), np.array([0, 0, 3]), np.array([1.0, 2.0, 3.0]),
                     inplace=False), want)
    want = np.full(3, 5.0, np.float32)
    np.maximum.at(want, [0, 2, 2], [7.0, 1.0, 9.0])
    close(jnp.maximum.at(np.full(3, 5.0, np.float32), np.array([0, 2, 2]),
                         np.array([7.0, 1.0, 9.0]), inplace=False), want)
    check_grad(lambda v: jnp.add.accumulate(v, axis=1), lambda v: np.add.accumulate(v, axis=1),
               A)
    check_grad(lambda v: jnp.logaddexp.reduce(v, axis=0),
               lambda v: np.logaddexp.reduce(v, axis=0), A)
    close(strata.jit(lambda v: jnp.maximum.reduce(v, axis=0))(A), A.max(0))
    close(strata.vmap(jnp.add.accumulate)(A), np.add.accumulate(A, axis=1), rtol=1e-5)


def test_index_tricks_io():
    close(jnp.r_[1:4, 7, np.array([8, 9])], np.r_[1:4, 7, np.array([8, 9])])
    close(jnp.r_[0:1:5j], np.r_[0:1:5j].astype(np.float32))
    close(jnp.r_["1", A, A], np.r_["1", A, A])
    close(jnp.c_[np.array([1, 2]), np.array([3, 4])], np.c_[np.array([1, 2]), np.array([3, 4])])
    close(jnp.c_[A, A], np.c_[A, A])
    assert jnp.s_[1:3] == np.s_[1:3] and jnp.index_exp[1] == np.index_exp[1]
    buf = io.BytesIO()
    jnp.save(buf, jnp.asarray(A))
    buf.seek(0)
    close(jnp.load(buf), A)
    close(jnp.frombuffer(A.tobytes(), dtype=jnp.float32), A.ravel())
    close(jnp.fromstring("1 2 3", dtype=jnp.int32, sep=" "), [1, 2, 3])
    close(jnp.fromiter(range(4), dtype=jnp.float32), np.arange(4.0))
    assert "1." in jnp.array_str(jnp.ones(2)) and "array" in jnp.array_repr(jnp.ones(2))
    with jnp.printoptions(precision=2):
        assert jnp.get_printoptions()["precision"] == 2
        assert "0.33" in jnp.array_str(jnp.asarray([1 / 3]))
    assert jnp.set_printoptions is np.set_printoptions
    buf = io.BytesIO()
    jnp.savez(buf, a=jnp.asarray(A), b=np.arange(3))
    buf.seek(0)
    z = np.load(buf)
    close(z["a"], A)
    close(z["b"], np.arange(3))
    path, _ = jnp.einsum_path("ij,jk,kl->il", A, A.T, A)
    assert path[0] == "einsum_path"
    with pytest.raises(NotImplementedError, match=r"^\[fromfile\]"):
        jnp.fromfile("x")


def test_power_by_a_python_int_is_integer_pow():
    """x ** n and jnp.power(x, n) with a concrete integer scalar n stage integer_pow (as JAX's
    jnp.power does), with numpy's values and the usual derivative; an array exponent stays
    pow."""
    x = np.linspace(-3, 3, 13, dtype=np.float32)
    for n in (0, 1, 2, 3, -2, np.int32(5)):
        text = str(strata.make_jaxpr(lambda v: v ** n)(x))
        assert "strata.integer_pow" in text and "strata.pow" not in text, text
        with np.errstate(divide="ignore"):
            want = x.astype(np.float64) ** int(n)
        np.testing.assert_allclose(np.asarray(jnp.asarray(x) ** n), want, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(jnp.power(x, n)), want, rtol=1e-6)
    np.testing.assert_allclose(float(strata.grad(lambda v: v ** 3)(2.0)), 12.0)
    assert "strata.pow" in str(strata.make_jaxpr(lambda v, e: v ** e)(x, np.int32(2)))
    # integers keep their exact path
    np.testing.assert_array_equal(np.asarray(jnp.asarray([1, 2, 3]) ** 2), [1, 4, 9])
