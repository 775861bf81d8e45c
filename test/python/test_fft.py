"""strata.lax.fft and the 18 names of strata.numpy.fft against numpy.fft: odd, even, unit and
empty sizes, batches, permuted and negative axes, n/s padding and cropping, every norm, more
than 3 axes, dtype promotion and x64; gradients against finite differences through the real
and imaginary parts; jit and vmap against the eager loop; JAX's errors."""

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import lax
from conftest import x64_mode

RNG = np.random.default_rng(0)


def rand(shape, dtype=np.float32):
    if np.issubdtype(dtype, np.complexfloating):
        return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def close(got, want, dtype, tol=None):
    got = np.asarray(got)
    assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    low = np.dtype(dtype) in (np.float32, np.complex64)
    tol = tol or (2e-5 if low else 1e-12)
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * scale)


C64, C128, F32, F64 = np.complex64, np.complex128, np.float32, np.float64


# ---- lax.fft -------------------------------------------------------------------------------

@pytest.mark.parametrize("fft_type", ["fft", "FFT", lax.FftType.FFT])
def test_lax_fft_type_spellings(fft_type):
    x = rand((3, 8), C64)
    close(lax.fft(x, fft_type, (8,)), np.fft.fft(x), C64)


def test_lax_fft_every_type_and_dtype_conversion():
    x = rand((2, 4, 6), F32)
    close(lax.fft(x, "rfft", [4, 6]), np.fft.rfftn(x, axes=(1, 2)), C64)
    close(lax.fft(x, "fft", [6]), np.fft.fft(x), C64)  # f32 -> c64
    y = rand((2, 4, 4), C64)
    close(lax.fft(y, "irfft", [4, 6]), np.fft.irfftn(y, s=(4, 6), axes=(1, 2)), F32)
    close(lax.fft(y, lax.FftType.IFFT, [4, 4]), np.fft.ifftn(y, axes=(1, 2)), C64)
    i = np.arange(8, dtype=np.int32)
    close(lax.fft(i, "rfft", [8]), np.fft.rfft(i), C64)  # int -> f32 -> c64
    assert lax.fft(x, "fft", []).dtype == C64
    assert lax.FftType.RFFT == 2 and lax.FftType.IRFFT.name == "IRFFT"


def test_lax_fft_errors():
    with pytest.raises(ValueError, match="only real valued inputs supported for rfft"):
        lax.fft(rand((4,), C64), "rfft", [4])
    with pytest.raises(ValueError, match=r"\[fft\].*minor dimensions"):
        lax.fft(rand((4,), C64), "fft", [5])
    with pytest.raises(ValueError, match=r"\[fft\].*1 to 3"):
        lax.fft(rand((1, 1, 1, 1), C64), "fft", [1, 1, 1, 1])
    with pytest.raises(ValueError, match="Unknown FFT type"):
        lax.fft(rand((4,), C64), "dct", [4])
    with pytest.raises(ValueError, match="RFFT input must be float32 or float64"):
        lax.fft(rand((4,), np.float16), "rfft", [4])


# ---- jnp.fft against numpy.fft --------------------------------------------------------------

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
NORMS = [None, "backward", "ortho", "forward"]


def in_dtype(name):
    return F32 if name in ("rfft", "ihfft") else C64


def out_dtype(name):
    return F32 if name in ("irfft", "hfft") else C64


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("shape,axis,n", [((8,), -1, None), ((7,), 0, None), ((3, 5), 0, None),
                                          ((4, 6), 1, 9), ((4, 6), -1, 4), ((2, 3, 5), 1, 1),
                                          ((1,), -1, None), ((5, 2), 0, 2)])
def test_one_d_names_match_numpy(name, norm, shape, axis, n):
    if name in ("irfft", "hfft") and n is None and shape[axis] == 1:
        pytest.skip("numpy rejects the 0-point output of a 1-entry half spectrum")
    x = rand(shape, in_dtype(name))
    got = getattr(jnp.fft, name)(x, n=n, axis=axis, norm=norm)
    want = getattr(np.fft, name)(x, n=n, axis=axis, norm=norm)
    close(got, want, out_dtype(name))


ND = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]


@pytest.mark.parametrize("name", ND)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("shape,s,axes", [((4, 6), None, None), ((3, 5), (4, 7), None),
                                          ((2, 3, 5), None, (0, 2)), ((2, 3, 5), (6, 2), (2, 0)),
                                          ((3, 4, 5), None, (-1, -3)), ((2, 5, 4), (3,), None)])
def test_nd_names_match_numpy(name, norm, shape, s, axes):
    two = name.endswith("2")
    if two and (axes is None and s is not None and len(s) != 2):
        pytest.skip("the 2-D names take two axes")
    kw = {"s": s, "norm": norm}
    if axes is not None:
        kw["axes"] = axes
    if two and axes is not None and len(axes) != 2:
        pytest.skip("the 2-D names take two axes")
    x = rand(shape, F32 if name.startswith("rfft") else C64)
    got = getattr(jnp.fft, name)(x, **kw)
    want = getattr(np.fft, name)(x, **kw)
    close(got, want, F32 if name.startswith("irfft") else C64)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("rank", [4, 5])
def test_more_than_three_axes(name, rank):
    shape = (2, 3, 4, 5, 2)[:rank]
    x = rand((2,) + shape, F64 if name.startswith("rfft") else C128)
    axes = tuple(range(1, rank + 1))
    with x64_mode():
        got = getattr(jnp.fft, name)(x, axes=axes)
        want = getattr(np.fft, name)(x, axes=axes)
        close(got, want, F64 if name.startswith("irfft") else C128)


def test_default_axes_and_promotion():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    close(jnp.fft.fftn(x), np.fft.fftn(x), C64)
    close(jnp.fft.rfft(x), np.fft.rfft(x), C64)
    close(jnp.fft.fft(x.astype(F32)), np.fft.fft(x), C64)
    close(jnp.fft.irfft(x.astype(F32)), np.fft.irfft(x), F32)  # real input of irfft: c64
    assert jnp.fft.fft(jnp.ones(4, jnp.bfloat16)).dtype == C64
    with x64_mode():
        close(jnp.fft.fft(x), np.fft.fft(x), C128)
        close(jnp.fft.rfft(x.astype(F64)), np.fft.rfft(x), C128)
        c = rand((5,), C128)
        close(jnp.fft.irfft(c), np.fft.irfft(c), F64)


def test_x64_precision_and_empty_batches():
    with x64_mode():
        x = rand((3, 17), C128)
        close(jnp.fft.fft(x), np.fft.fft(x), C128)
        close(jnp.fft.irfft(x, n=31), np.fft.irfft(x, n=31), F64)
        r = rand((4, 9), F64)
        close(jnp.fft.rfft2(r), np.fft.rfft2(r), C128)
    e = np.zeros((0, 4), C64)
    assert jnp.fft.fft(e).shape == (0, 4)
    assert jnp.fft.rfft(np.zeros((0, 6), F32)).shape == (0, 4)
    close(jnp.fft.fft(np.ones((2, 3), C64), n=5), np.fft.fft(np.ones((2, 3)), n=5), C64)


def test_fftfreq_rfftfreq():
    for n in (1, 2, 7, 8):
        for d in (1.0, 0.25):
            close(jnp.fft.fftfreq(n, d), np.fft.fftfreq(n, d).astype(F32), F32, 1e-6)
            close(jnp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d).astype(F32), F32, 1e-6)
    assert jnp.fft.fftfreq(4, dtype=jnp.float16).dtype == np.float16
    with x64_mode():
        close(jnp.fft.fftfreq(9, 0.1), np.fft.fftfreq(9, 0.1), F64)
    with pytest.raises(ValueError, match="only takes an int"):
        jnp.fft.fftfreq([3])
    with pytest.raises(ValueError, match="only takes a single value"):
        jnp.fft.rfftfreq(3, [0.1])


def test_fftshift_ifftshift():
    for shape in ((7,), (8,), (3, 4), (2, 5, 3)):
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        close(jnp.fft.fftshift(x), np.fft.fftshift(x), F32)
        close(jnp.fft.ifftshift(x), np.fft.ifftshift(x), F32)
        close(jnp.fft.fftshift(x, axes=0), np.fft.fftshift(x, axes=0), F32)
        close(jnp.fft.ifftshift(x, axes=(-1,)), np.fft.ifftshift(x, axes=(-1,)), F32)


def test_jnp_fft_errors():
    x = rand((4, 4), C64)
    with pytest.raises(ValueError, match="does not support repeated axes"):
        jnp.fft.fftn(x, axes=(0, 0))
    with pytest.raises(ValueError, match="Shape and axes have different lengths"):
        jnp.fft.fftn(x, s=(2,), axes=(0, 1))
    with pytest.raises(ValueError, match="Shape should be non-negative"):
        jnp.fft.fftn(x, s=(-1, 2))
    with pytest.raises(ValueError, match="only supports 2 axes"):
        jnp.fft.fft2(x, axes=(0,))
    with pytest.raises(ValueError, match="does not support multiple axes"):
        jnp.fft.fft(x, axis=(0, 1))
    with pytest.raises(ValueError, match="Invalid norm value"):
        jnp.fft.fft(x, norm="none")


# ---- Transformations ------------------------------------------------------------------------

def fd_grad(f, x, eps):
    """Central differences of a real scalar f at x, along the real (and imaginary) parts; the
    result follows JAX's convention for complex inputs: df/dre - i df/dim."""
    x = np.asarray(x)
    g = np.zeros(x.shape, np.complex128 if np.iscomplexobj(x) else np.float64)
    for idx in np.ndindex(x.shape):
        for part in ((1,) if not np.iscomplexobj(x) else (1, 1j)):
            e = np.zeros(x.shape, x.dtype)
            e[idx] = part * eps
            d = (float(f(x + e)) - float(f(x - e))) / (2 * eps)
            g[idx] += d if part == 1 else -1j * d
    return g


LOSSES = {
    "fft": lambda x: jnp.sum(jnp.real(jnp.fft.fft(x) * jnp.cos(jnp.arange(x.shape[-1]))) ** 2),
    "ifft2": lambda x: jnp.sum(jnp.abs(jnp.fft.ifft2(x, norm="ortho")) ** 3),
    "rfft": lambda x: jnp.sum(jnp.imag(jnp.fft.rfft(x, n=7)) * jnp.arange(4.0)),
    "irfft": lambda x: jnp.sum(jnp.sin(jnp.fft.irfft(x, n=8))),
    "irfft_odd": lambda x: jnp.sum(jnp.fft.irfft(x, n=5) ** 2 * jnp.arange(5.0)),
    "rfftn": lambda x: jnp.sum(jnp.abs(jnp.fft.rfftn(x)) ** 2),
    "irfftn": lambda x: jnp.sum(jnp.cos(jnp.fft.irfftn(x, s=(3, 6)))),
    "hfft": lambda x: jnp.sum(jnp.fft.hfft(x, norm="forward") ** 2),
    "ihfft": lambda x: jnp.sum(jnp.real(jnp.fft.ihfft(x)) * jnp.imag(jnp.fft.ihfft(x))),
}
GRAD_INPUTS = {"fft": (3, 6), "ifft2": (4, 5), "rfft": (2, 7), "irfft": (2, 5),
               "irfft_odd": (3,), "rfftn": (3, 5), "irfftn": (3, 4), "hfft": (4,),
               "ihfft": (6,)}
REAL_IN = {"rfft", "rfftn", "ihfft"}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_grad_against_finite_differences(name):
    with x64_mode():
        x = rand(GRAD_INPUTS[name], F64 if name in REAL_IN else C128)
        f = LOSSES[name]
        got = np.asarray(strata.grad(f)(x))
        want = fd_grad(lambda v: f(v), x, 1e-6)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_vmap_against_a_loop_and_jvp():
    x = rand((3, 4, 6), C64)
    f = lambda v: jnp.fft.fft2(v, axes=(0, 1))
    for axis in (0, 1, 2):
        got = strata.vmap(f, in_axes=axis)(x)
        want = np.stack([np.fft.fft2(np.take(x, i, axis), axes=(0, 1))
                         for i in range(x.shape[axis])])
        close(got, want, C64)
    r = rand((5, 8), F32)
    close(strata.vmap(jnp.fft.rfft)(r), np.fft.rfft(r), C64)
    t = rand((5, 8), F32)
    y, dy = strata.jvp(jnp.fft.rfft, (r,), (t,))
    close(dy, np.fft.rfft(t), C64)


def test_jit_matches_eager():
    x = rand((4, 6), C64)
    f = strata.jit(lambda v: jnp.fft.ifft(jnp.fft.fft(v) * 2.0))
    close(f(x), 2 * x, C64)
