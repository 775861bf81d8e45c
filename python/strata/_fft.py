"""strata.lax.fft and FftType: the fft primitive with JAX's argument handling."""
import enum as _enum

from strata import _core

__all__ = ["FftType", "fft"]


class FftType(_enum.IntEnum):
    """The transform lax.fft computes (JAX's values)."""
    FFT = 0    # complex to complex, forward
    IFFT = 1   # complex to complex, inverse (scaled by 1/n)
    RFFT = 2   # real to complex: the last axis has n // 2 + 1 entries
    IRFFT = 3  # complex to real, inverse (scaled by 1/n)


def _fft_type(fft_type):
    if isinstance(fft_type, FftType):
        return fft_type
    if isinstance(fft_type, str):
        try:
            return FftType[fft_type.upper()]
        except KeyError:
            pass
    raise ValueError(f"Unknown FFT type {fft_type!r}; expected an FftType or one of 'fft', "
                     "'ifft', 'rfft', 'irfft'")


def _inexact(dtype):
    """dtype, or the default float type (with x64: float64) of an integer or bool dtype."""
    from strata import numpy as jnp
    if jnp.issubdtype(dtype, jnp.inexact):
        return dtype
    return jnp.result_type(dtype, 1.0)


def _complex(dtype):
    """The complex dtype lax.fft computes in for an operand of `dtype` (c128 from f64)."""
    from strata import numpy as jnp
    wide = str(_inexact(dtype)) in ("float64", "complex128")
    return jnp.complex128 if wide else jnp.complex64


def fft(x, fft_type, fft_lengths):
    """The FFT over the trailing len(fft_lengths) axes (1 to 3) of x, as jax.lax.fft.

    fft_type is an FftType or one of 'fft', 'ifft', 'rfft', 'irfft'. RFFT takes real values
    (integers become the default float type); the others compute in complex (integers and
    float32 become complex64, float64 complex128). No lengths: x converted, untransformed.
    """
    from strata import lax
    typ = _fft_type(fft_type)
    x = _core.asarray(x)
    if typ == FftType.RFFT:
        from strata import numpy as jnp
        if jnp.issubdtype(x.dtype, jnp.complexfloating):
            raise ValueError("only real valued inputs supported for rfft")
        x = lax.convert_element_type(x, _inexact(x.dtype))
    else:
        x = lax.convert_element_type(x, _complex(x.dtype))
    fft_lengths = tuple(int(n) for n in fft_lengths)
    if len(fft_lengths) == 0:
        return x
    return _core.lax.fft(x, typ.name, list(fft_lengths))
