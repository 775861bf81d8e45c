"""Convolutions with JAX's signatures: lax.conv_general_dilated and the forms built on it
(conv, conv_with_general_padding, conv_transpose) and the dimension numbers; jnp.convolve and
jnp.correlate (strata/_numpy_shape.py) are built on it too."""
from typing import NamedTuple as _NamedTuple

import numpy as _np

from strata import _core
from strata._lax_ops import _arr, _check_precision, padtype_to_pads

_L = _core.lax


class ConvDimensionNumbers(_NamedTuple):
    """Which dimensions are batch, feature and spatial: lhs_spec = (batch, feature, spatial...),
    rhs_spec = (out feature, in feature, spatial...), out_spec = (batch, feature, spatial...)."""
    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


def conv_general_permutations(dimension_numbers):
    """The permutations of three layout strings such as ('NCHW', 'OIHW', 'NCHW'); spatial
    dimensions are paired by their order in the rhs string."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(charpairs):
        spec = dimension_numbers[i]
        if not spec.count(a) == spec.count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{a}' and '{b}' exactly once, got {spec}.")
        if len(spec) != len(set(spec)):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {spec}.")
    if not (set(lhs_spec) - {"N", "C"} == set(rhs_spec) - {"O", "I"} ==
            set(out_spec) - {"N", "C"}):
        raise TypeError("convolution dimension_numbers elements must each have the same set of "
                        f"spatial characters, got {dimension_numbers}.")

    def perm(spec, pair):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_spec:
            spatial = sorted(spatial, key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)

    return tuple(perm(s, p) for s, p in zip(dimension_numbers, charpairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers):
    """ConvDimensionNumbers from None (NC..., OI..., NC...), a ConvDimensionNumbers, or three
    layout strings."""
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} "
                        f"and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(dimension_numbers) != 3:
        raise TypeError(f"convolution dimension_numbers must be a tuple/list of length 3, got "
                        f"{dimension_numbers}.")
    if not all(isinstance(s, str) for s in dimension_numbers):
        return ConvDimensionNumbers(*(tuple(s) for s in dimension_numbers))
    for s, shape in zip(dimension_numbers, (lhs_shape, rhs_shape, lhs_shape)):
        if len(s) != len(shape):
            raise TypeError(f"convolution dimension_numbers {dimension_numbers} do not match "
                            f"operands of rank {len(lhs_shape)}.")
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def _dilate(k, d):
    return 0 if k == 0 else 1 + d * (k - 1)


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers=None, feature_group_count=1, batch_group_count=1,
                         precision=None, preferred_element_type=None):
    """XLA's general convolution (as jax.lax.conv_general_dilated): padding is 'VALID', 'SAME',
    'SAME_LOWER' or a (low, high) pair per spatial dimension."""
    _check_precision(precision)
    lhs, rhs = _arr(lhs), _arr(rhs)
    dn = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    n = len(lhs.shape) - 2
    lhs_dilation = (1,) * n if lhs_dilation is None else tuple(lhs_dilation)
    rhs_dilation = (1,) * n if rhs_dilation is None else tuple(rhs_dilation)
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            raise ValueError("String padding is not implemented for transposed convolution using "
                             "this op. Please either exactly specify the required padding or use "
                             "conv_transpose.")
        window = [_dilate(rhs.shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dilation)]
        padding = padtype_to_pads([lhs.shape[d] for d in dn.lhs_spec[2:]], window,
                                  window_strides, padding)
    pet = None if preferred_element_type is None else _np.dtype(preferred_element_type)
    return _L._conv_general_dilated(
        lhs, rhs, tuple(window_strides), [tuple(p) for p in padding], lhs_dilation, rhs_dilation,
        tuple(dn.lhs_spec), tuple(dn.rhs_spec), tuple(dn.out_spec), int(feature_group_count),
        int(batch_group_count), pet)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """conv_general_dilated without dilation, in the NC.../OI... layout."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """conv_general_dilated in the NC.../OI... layout."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k, s, padding):
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else int(_np.ceil(pad_len / 2))
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    else:
        raise ValueError("Padding mode must be `SAME` or `VALID`.")
    return pad_a, pad_len - pad_a


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None):
    """The transposed convolution (as jax.lax.conv_transpose): strides dilate the input; with
    transpose_kernel, the gradient of conv_general_dilated with respect to its input."""
    lhs, rhs = _arr(lhs), _arr(rhs)
    ndims = len(lhs.shape)
    if ndims != len(rhs.shape) or ndims < 2:
        raise TypeError(f"[conv_transpose] needs operands of one rank >= 2, got "
                        f"{lhs.type_str()} and {rhs.type_str()}")
    if dimension_numbers is None:
        defaults = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                    5: ("NHWDC", "HWDIO", "NHWDC")}
        if ndims not in defaults:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = defaults[ndims]
    dn = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    k_sdims = [rhs.shape[d] for d in dn.rhs_spec[2:]]
    if isinstance(padding, str) and padding in ("SAME", "VALID"):
        if rhs_dilation is None:
            rhs_dilation = (1,) * (ndims - 2)
        pads = [_conv_transpose_padding(_dilate(k, r), s, padding)
                for k, r, s in zip(k_sdims, rhs_dilation, strides)]
    else:
        pads = padding
    if transpose_kernel:
        rhs = _L.rev(rhs, tuple(dn.rhs_spec[2:]))
        perm = list(range(ndims))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = perm[dn.rhs_spec[1]], perm[dn.rhs_spec[0]]
        rhs = _L.transpose(rhs, tuple(perm))
    return conv_general_dilated(lhs, rhs, (1,) * (ndims - 2), pads, strides, rhs_dilation, dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)
