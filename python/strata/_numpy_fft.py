"""strata.numpy.fft: the 18 names of jax.numpy.fft on lax.fft, with JAX's semantics."""
import operator as _operator

import numpy as _np

import strata.lax as _lax
import strata.numpy as _jnp
from strata._fft import FftType as _FftType

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _fft_norm(s, func_name, norm):
    """The factor `norm` applies on top of lax.fft's own scaling (1/n on the inverses)."""
    if norm == "backward":
        return 1.0
    total = float(_np.prod(s, dtype=_np.float64)) if len(s) else 1.0
    if norm == "ortho":
        return _np.sqrt(total) if func_name.startswith("i") else 1 / _np.sqrt(total)
    if norm == "forward":
        return total if func_name.startswith("i") else 1 / total
    raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')


def _fft_core_nd(arr, fft_type, s):
    """lax.fft over the last len(s) axes; more than 3 axes run as groups of at most 3 (2 + 2
    for 4), the leading group moved behind the others for its own transform."""
    if len(s) <= 3:
        return _lax.fft(arr, fft_type, tuple(s))
    n = 2 if len(s) == 4 else 3
    src = tuple(range(arr.ndim - len(s), arr.ndim - n))
    dst = tuple(range(arr.ndim - len(s) + n, arr.ndim))
    if fft_type in (_FftType.RFFT, _FftType.FFT):
        arr = _lax.fft(arr, fft_type, tuple(s)[-n:])
        arr = _jnp.moveaxis(arr, src, dst)
        arr = _fft_core_nd(arr, _FftType.FFT, s[:-n])
        return _jnp.moveaxis(arr, dst, src)
    arr = _jnp.moveaxis(arr, src, dst)
    arr = _fft_core_nd(arr, _FftType.IFFT, s[:-n])
    arr = _jnp.moveaxis(arr, dst, src)
    return _lax.fft(arr, fft_type, tuple(s)[-n:])


def _fft_core(func_name, fft_type, a, s, axes, norm):
    full_name = f"jax.numpy.fft.{func_name}"
    arr = _jnp.asarray(a)
    if s is not None:
        s = tuple(map(_operator.index, s))
        if any(v < 0 for v in s):
            raise ValueError("Shape should be non-negative.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    orig_axes = axes
    if axes is None:
        axes = range(arr.ndim) if s is None else range(arr.ndim - len(s), arr.ndim)
    axes = tuple(axes)
    if len(axes) != len(set(axes)) or len(set(a % max(arr.ndim, 1) for a in axes)) != len(axes):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
    for ax in axes:
        if not -arr.ndim <= ax < arr.ndim:
            raise ValueError(f"{full_name}: axis {ax} is out of bounds for an array of rank "
                             f"{arr.ndim}")
    # lax.fft transforms the innermost axes: move the requested ones there.
    if orig_axes is not None:
        axes_in = axes
        axes = tuple(range(arr.ndim - len(axes), arr.ndim))
        arr = _jnp.moveaxis(arr, axes_in, axes)
    if s is not None:
        in_s = list(arr.shape)
        for axis, x in zip(axes, s):
            in_s[axis] = x
        if fft_type == _FftType.IRFFT and in_s:
            in_s[-1] = in_s[-1] // 2 + 1
        arr = arr[tuple(slice(0, x) for x in in_s)]  # crop
        pads = [(0, x - y) for x, y in zip(in_s, arr.shape)]
        if any(p[1] for p in pads):
            arr = _jnp.pad(arr, pads)
    else:
        if fft_type == _FftType.IRFFT:
            s = [arr.shape[axis] for axis in axes[:-1]]
            if axes:
                s += [max(0, 2 * (arr.shape[axes[-1]] - 1))]
        else:
            s = [arr.shape[axis] for axis in axes]
    transformed = _fft_core_nd(arr, fft_type, list(s))
    if norm is not None:
        factor = _fft_norm(s, func_name, norm)
        if factor != 1.0:
            transformed = transformed * _jnp.asarray(factor, dtype=transformed.dtype)
    if orig_axes is not None:
        transformed = _jnp.moveaxis(transformed, axes, axes_in)
    return transformed


def _axis_check_1d(func_name, axis):
    if isinstance(axis, (list, tuple)):
        full_name = f"jax.numpy.fft.{func_name}"
        raise ValueError(f"{full_name} does not support multiple axes. Please use {full_name}n. "
                         f"Got axis = {axis!r}.")


def _fft_core_1d(func_name, fft_type, a, n, axis, norm):
    _axis_check_1d(func_name, axis)
    axes = None if axis is None else [axis]
    s = None if n is None else [n]
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def _fft_core_2d(func_name, fft_type, a, s, axes, norm):
    full_name = f"jax.numpy.fft.{func_name}"
    if len(axes) != 2:
        raise ValueError(f"{full_name} only supports 2 axes. Got axes = {axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def fftn(a, s=None, axes=None, norm=None):
    """The n-dimensional DFT over `axes` (all by default), as numpy.fft.fftn."""
    return _fft_core("fftn", _FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    """The n-dimensional inverse DFT, as numpy.fft.ifftn."""
    return _fft_core("ifftn", _FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """The n-dimensional DFT of real input (last axis n // 2 + 1), as numpy.fft.rfftn."""
    return _fft_core("rfftn", _FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """The inverse of rfftn (real output), as numpy.fft.irfftn."""
    return _fft_core("irfftn", _FftType.IRFFT, a, s, axes, norm)


def fft(a, n=None, axis=-1, norm=None):
    """The 1-D DFT along `axis`, cropped or zero-padded to n, as numpy.fft.fft."""
    return _fft_core_1d("fft", _FftType.FFT, a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
    """The 1-D inverse DFT, as numpy.fft.ifft."""
    return _fft_core_1d("ifft", _FftType.IFFT, a, n, axis, norm)


def rfft(a, n=None, axis=-1, norm=None):
    """The 1-D DFT of real input (n // 2 + 1 entries), as numpy.fft.rfft."""
    return _fft_core_1d("rfft", _FftType.RFFT, a, n, axis, norm)


def irfft(a, n=None, axis=-1, norm=None):
    """The inverse of rfft: n real values (default 2 * (m - 1)), as numpy.fft.irfft."""
    return _fft_core_1d("irfft", _FftType.IRFFT, a, n, axis, norm)


def hfft(a, n=None, axis=-1, norm=None):
    """The DFT of a Hermitian-symmetric signal given by its first half (real output), as
    numpy.fft.hfft."""
    conj_a = _jnp.conj(_jnp.asarray(a))
    _axis_check_1d("hfft", axis)
    nn = (conj_a.shape[axis] - 1) * 2 if n is None else n
    out = _fft_core_1d("hfft", _FftType.IRFFT, conj_a, n, axis, norm)
    return out * _jnp.asarray(nn, dtype=out.dtype)


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of hfft (n // 2 + 1 complex entries), as numpy.fft.ihfft."""
    _axis_check_1d("ihfft", axis)
    arr = _jnp.asarray(a)
    nn = arr.shape[axis] if n is None else n
    out = _fft_core_1d("ihfft", _FftType.RFFT, arr, n, axis, norm)
    return _jnp.conj(out) * _jnp.asarray(1 / nn, dtype=out.dtype)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """The 2-D DFT over `axes`, as numpy.fft.fft2."""
    return _fft_core_2d("fft2", _FftType.FFT, a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """The 2-D inverse DFT, as numpy.fft.ifft2."""
    return _fft_core_2d("ifft2", _FftType.IFFT, a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """The 2-D DFT of real input, as numpy.fft.rfft2."""
    return _fft_core_2d("rfft2", _FftType.RFFT, a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """The inverse of rfft2, as numpy.fft.irfft2."""
    return _fft_core_2d("irfft2", _FftType.IRFFT, a, s, axes, norm)


def _default_float():
    return _jnp.result_type(1.0)


def _freq_args(name, n, d, dtype):
    """fftfreq's and rfftfreq's checks: (n as an int, dtype or the default float), with JAX's
    errors for sequences."""
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. Got n = "
                         f"{list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                         f"Got d = {list(d)}.")
    return _operator.index(n), dtype or _default_float()


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an n-point DFT with sample spacing d: [0, 1, ..., -1] / (d n)."""
    n, dtype = _freq_args("fftfreq", n, d, dtype)
    k = _jnp.concatenate([_jnp.arange(0, (n - 1) // 2 + 1, dtype=dtype),
                          _jnp.arange(-(n // 2), 0, dtype=dtype)])
    return k / _jnp.asarray(d * n, dtype=dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of rfft: [0, 1, ..., n // 2] / (d n)."""
    n, dtype = _freq_args("rfftfreq", n, d, dtype)
    k = _jnp.arange(0, n // 2 + 1, dtype=dtype)
    return k / _jnp.asarray(d * n, dtype=dtype)


def fftshift(x, axes=None):
    """Moves the zero frequency to the center (rolls each axis by half its size)."""
    x = _jnp.asarray(x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [dim // 2 for dim in x.shape]
    elif isinstance(axes, int):
        shift = x.shape[axes] // 2
    else:
        shift = [x.shape[ax] // 2 for ax in axes]
    return _jnp.roll(x, shift, axes)


def ifftshift(x, axes=None):
    """The inverse of fftshift."""
    x = _jnp.asarray(x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [-(dim // 2) for dim in x.shape]
    elif isinstance(axes, int):
        shift = -(x.shape[axes] // 2)
    else:
        shift = [-(x.shape[ax] // 2) for ax in axes]
    return _jnp.roll(x, shift, axes)
