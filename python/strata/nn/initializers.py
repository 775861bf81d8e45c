"""strata.nn.initializers: parameter initializers with jax.nn.initializers' names; each maker
returns init(key, shape, dtype) as JAX's do (the Keras/Sonnet definitions)."""

import math as _math

import numpy as _np

from strata import numpy as _jnp
from strata import random as _random
from strata.random import _canon


class Initializer:
    """The protocol of an initializer: init(key, shape, dtype=float) -> Array."""

    def __call__(self, key, shape, dtype=float):
        raise NotImplementedError


def _shape(shape):
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(s) for s in shape)


def zeros(key, shape, dtype=float):
    """An array of zeros (the key is unused)."""
    return _jnp.zeros(_shape(shape), _canon(dtype, float))


def ones(key, shape, dtype=float):
    """An array of ones (the key is unused)."""
    return _jnp.ones(_shape(shape), _canon(dtype, float))


def constant(value, dtype=float):
    """An initializer filling arrays with `value`."""
    def init(key, shape, dtype=dtype):
        return _jnp.full(_shape(shape), value, _canon(dtype, float))
    return init


def uniform(scale=1e-2, dtype=float):
    """An initializer of values uniform in [0, scale)."""
    def init(key, shape, dtype=dtype):
        d = _canon(dtype, float)
        return _random.uniform(key, _shape(shape), d) * _jnp.asarray(scale).astype(d)
    return init


def normal(stddev=1e-2, dtype=float):
    """An initializer of normal values with standard deviation `stddev`."""
    def init(key, shape, dtype=dtype):
        d = _canon(dtype, float)
        return _random.normal(key, _shape(shape), d) * _jnp.asarray(stddev).astype(d)
    return init


def truncated_normal(stddev=1e-2, dtype=float, lower=-2.0, upper=2.0):
    """An initializer of normal values truncated to [lower, upper] then scaled by `stddev`."""
    def init(key, shape, dtype=dtype):
        d = _canon(dtype, float)
        return _random.truncated_normal(key, lower, upper, _shape(shape), d) * \
            _jnp.asarray(stddev).astype(d)
    return init


def _size(shape, axes):
    if isinstance(axes, int):
        return shape[axes]
    return _math.prod(shape[i] for i in axes)


def _compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    """(fan_in, fan_out) of a weight shape: the in/out axis sizes times the receptive field
    (every axis that is not in, out or batch)."""
    if len(shape) <= 1:
        raise ValueError(f"[variance_scaling] Can't compute input and output sizes of a "
                         f"{len(shape)}-dimensional weights tensor. Must be at least 2D.")
    in_size, out_size = _size(shape, in_axis), _size(shape, out_axis)
    batch_size = _size(shape, batch_axis)
    receptive = _math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive, out_size * receptive


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=float):
    """An initializer of variance scale / fan (fan_in, fan_out or their mean), drawn from a
    truncated normal, a normal or a uniform distribution."""
    if mode not in ("fan_in", "fan_out", "fan_avg"):
        raise ValueError(f"[variance_scaling] invalid mode for variance scaling initializer: "
                         f"{mode}")
    if distribution not in ("truncated_normal", "normal", "uniform"):
        raise ValueError(f"[variance_scaling] invalid distribution for variance scaling "
                         f"initializer: {distribution}")

    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        d = _canon(dtype, float)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        denominator = {"fan_in": fan_in, "fan_out": fan_out,
                       "fan_avg": (fan_in + fan_out) / 2}[mode]
        variance = _jnp.asarray(_np.float64(scale / denominator)).astype(d)
        if distribution == "truncated_normal":
            # .8796... is the standard deviation of a standard normal truncated to (-2, 2).
            stddev = _jnp.sqrt(variance) / _jnp.asarray(.87962566103423978).astype(d)
            return _random.truncated_normal(key, -2, 2, shape, d) * stddev
        if distribution == "normal":
            return _random.normal(key, shape, d) * _jnp.sqrt(variance)
        return _random.uniform(key, shape, d, -1) * _jnp.sqrt(3 * variance)
    return init


def glorot_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=float):
    """variance_scaling(1.0, 'fan_avg', 'uniform'), also called xavier_uniform."""
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis, dtype)


def glorot_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=float):
    """variance_scaling(1.0, 'fan_avg', 'truncated_normal'), also called xavier_normal."""
    return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis,
                            dtype)


def lecun_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=float):
    """variance_scaling(1.0, 'fan_in', 'uniform')."""
    return variance_scaling(1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def lecun_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=float):
    """variance_scaling(1.0, 'fan_in', 'truncated_normal')."""
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis,
                            dtype)


def he_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=float):
    """variance_scaling(2.0, 'fan_in', 'uniform'), also called kaiming_uniform."""
    return variance_scaling(2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def he_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=float):
    """variance_scaling(2.0, 'fan_in', 'truncated_normal'), also called kaiming_normal."""
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis,
                            dtype)


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def orthogonal(scale=1.0, column_axis=-1, dtype=float):
    """An initializer of (semi-)orthogonal matrices: orthonormal rows or columns, whichever
    are fewer, the other axes flattened into rows."""
    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        d = _canon(dtype, float)
        if len(shape) < 2:
            raise ValueError("[orthogonal] orthogonal initializer requires at least a 2D shape")
        n_rows, n_cols = _math.prod(shape) // shape[column_axis], shape[column_axis]
        matrix_shape = (n_cols, n_rows) if n_rows < n_cols else (n_rows, n_cols)
        a = _random.normal(key, matrix_shape, d)
        q = _random._qr_positive(a)
        if n_rows < n_cols:
            q = q.T
        rest = tuple(s for i, s in enumerate(shape) if i != column_axis % len(shape))
        q = _jnp.reshape(q, rest + (shape[column_axis],))
        q = _jnp.moveaxis(q, -1, column_axis)
        return _jnp.asarray(scale).astype(d) * q
    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=float):
    """An initializer for 3-5D convolution kernels: zero except an orthogonal matrix at the
    spatial centre (Xiao et al., 2018)."""
    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        d = _canon(dtype, float)
        if len(shape) not in (3, 4, 5):
            raise ValueError("[delta_orthogonal] Delta orthogonal initializer requires a 3D, 4D "
                             "or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("[delta_orthogonal] `fan_in` must be less or equal than "
                             "`fan_out`. ")
        ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=d)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        w = _jnp.zeros(shape, d)
        return w.at[centre].set(ortho)
    return init


__all__ = [
    "constant", "Initializer", "delta_orthogonal", "glorot_normal", "glorot_uniform",
    "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
    "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
    "variance_scaling", "xavier_normal", "xavier_uniform", "zeros"]
