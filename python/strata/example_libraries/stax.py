"""Neural-network layers as (init_fun, apply_fun) pairs, with jax.example_libraries.stax's names
and conventions: init_fun(rng, input_shape) -> (output_shape, params) and
apply_fun(params, inputs, **kwargs) -> outputs; combinators (serial, parallel, FanOut, ...) build
networks from layers; convolutions and pooling (MaxPool, SumPool, AvgPool) on lax's primitives."""

import functools
import operator

import strata.numpy as jnp
from strata import eval_shape, lax, nn, random, ShapeDtypeStruct
from strata.nn import initializers

__all__ = [
    "Dense", "GeneralConv", "Conv", "Conv1D", "GeneralConvTranspose", "ConvTranspose",
    "Conv1DTranspose", "Dropout", "Flatten", "Identity", "BatchNorm", "elementwise", "serial", "parallel",
    "FanOut", "FanInSum", "FanInConcat", "shape_dependent", "Tanh", "Relu", "Exp", "LogSoftmax",
    "Softmax", "Softplus", "Sigmoid", "Elu", "LeakyRelu", "Selu", "Gelu", "glorot", "randn",
    "logsoftmax", "softmax", "relu", "sigmoid", "elu", "leaky_relu", "selu", "gelu", "standardize",
    "one_hot", "MaxPool", "SumPool", "AvgPool",
]

# The activations stax re-exports from jax.nn.
logsoftmax = nn.log_softmax
softmax = nn.softmax
relu, sigmoid, elu, leaky_relu, selu, gelu = nn.relu, nn.sigmoid, nn.elu, nn.leaky_relu, \
    nn.selu, nn.gelu
standardize, one_hot = nn.standardize, nn.one_hot
glorot = initializers.glorot_normal
randn = initializers.normal


def Dense(out_dim, W_init=initializers.glorot_normal(), b_init=initializers.normal()):
    """A fully connected layer: inputs @ W + b over the last axis."""
    def init_fun(rng, input_shape):
        output_shape = input_shape[:-1] + (out_dim,)
        k1, k2 = random.split(rng)
        W, b = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
        return output_shape, (W, b)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b
    return init_fun, apply_fun


def _kernel_shape(dimension_numbers, out_chan, filter_shape, input_shape):
    lhs_spec, rhs_spec, _ = dimension_numbers
    it = iter(filter_shape)
    return tuple(out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I"
                 else next(it) for c in rhs_spec)


def _conv_layer(conv, dimension_numbers, out_chan, filter_shape, strides, padding, W_init,
                b_init):
    _, rhs_spec, out_spec = dimension_numbers
    strides = strides or (1,) * len(filter_shape)
    W_init = W_init or initializers.glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return conv(inputs, W, strides, padding) + b

    def init_fun(rng, input_shape):
        kernel_shape = _kernel_shape(dimension_numbers, out_chan, filter_shape, input_shape)
        out = eval_shape(lambda x, w: conv(x, w, strides, padding),
                         ShapeDtypeStruct(tuple(input_shape), jnp.float32),
                         ShapeDtypeStruct(kernel_shape, jnp.float32))
        bias_shape = tuple(out_chan if c == "C" else 1 for c in out_spec)
        k1, k2 = random.split(rng)
        return tuple(out.shape), (W_init(k1, kernel_shape), b_init(k2, bias_shape))
    return init_fun, apply_fun


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
                W_init=None, b_init=initializers.normal(1e-6)):
    """A convolution layer with the layouts of dimension_numbers (three strings such as
    ('NHWC', 'HWIO', 'NHWC')) plus a bias per output channel."""
    one = (1,) * len(filter_shape)

    def conv(x, w, strides, padding):
        return lax.conv_general_dilated(x, w, strides, padding, one, one,
                                        dimension_numbers=dimension_numbers)
    return _conv_layer(conv, dimension_numbers, out_chan, filter_shape, strides, padding,
                       W_init, b_init)


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))
Conv1D = functools.partial(GeneralConv, ("NHC", "HIO", "NHC"))


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,
                         padding="VALID", W_init=None, b_init=initializers.normal(1e-6)):
    """A transposed-convolution layer (lax.conv_transpose) plus a bias per output channel."""
    def conv(x, w, strides, padding):
        return lax.conv_transpose(x, w, strides, padding, dimension_numbers=dimension_numbers)
    return _conv_layer(conv, dimension_numbers, out_chan, filter_shape, strides, padding,
                       W_init, b_init)


ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))
Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True,
              beta_init=initializers.zeros, gamma_init=initializers.ones):
    """Normalizes over `axis` with the batch's statistics, then scales and shifts per feature."""
    _beta_init = lambda rng, shape: beta_init(rng, shape) if center else ()
    _gamma_init = lambda rng, shape: gamma_init(rng, shape) if scale else ()
    axis = (axis,) if isinstance(axis, int) else tuple(axis)

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta, gamma = _beta_init(k1, shape), _gamma_init(k2, shape)
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        ed = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = nn.standardize(x, axis, epsilon=epsilon)
        if center and scale:
            return gamma[ed] * z + beta[ed]
        if center:
            return z + beta[ed]
        if scale:
            return gamma[ed] * z
        return z
    return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
    """A layer applying fun elementwise (no parameters)."""
    init_fun = lambda rng, input_shape: (input_shape, ())
    apply_fun = lambda params, inputs, **kwargs: fun(inputs, **fun_kwargs)
    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(nn.relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(nn.log_softmax, axis=-1)
Softmax = elementwise(nn.softmax, axis=-1)
Softplus = elementwise(nn.softplus)
Sigmoid = elementwise(nn.sigmoid)
Elu = elementwise(nn.elu)
LeakyRelu = elementwise(nn.leaky_relu)
Selu = elementwise(nn.selu)
Gelu = elementwise(nn.gelu)


def Flatten():
    """Flattens every axis but the first (the batch)."""
    init = lambda rng, input_shape: ((input_shape[0],
                                      functools.reduce(operator.mul, input_shape[1:], 1)), ())
    apply_fun = lambda params, inputs, **kwargs: jnp.reshape(inputs, (inputs.shape[0], -1))
    return init, apply_fun


Flatten = Flatten()


def Identity():
    """The identity layer."""
    init_fun = lambda rng, input_shape: (input_shape, ())
    apply_fun = lambda params, inputs, **kwargs: inputs
    return init_fun, apply_fun


Identity = Identity()


def FanOut(num):
    """Copies its input num times (a tuple of outputs)."""
    init_fun = lambda rng, input_shape: ([input_shape] * num, ())
    apply_fun = lambda params, inputs, **kwargs: [inputs] * num
    return init_fun, apply_fun


def FanInSum():
    """Sums its tuple of inputs."""
    init_fun = lambda rng, input_shape: (input_shape[0], ())
    apply_fun = lambda params, inputs, **kwargs: sum(inputs[1:], inputs[0])
    return init_fun, apply_fun


FanInSum = FanInSum()


def FanInConcat(axis=-1):
    """Concatenates its tuple of inputs along axis."""
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        concat_size = sum(shape[ax] for shape in input_shape)
        out_shape = input_shape[0][:ax] + (concat_size,) + input_shape[0][ax + 1:]
        return out_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)
    return init_fun, apply_fun


def Dropout(rate, mode="train"):
    """Keeps each input with probability `rate` (scaled by 1/rate) when mode is 'train'; the
    apply function needs rng= then, as stax's."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng", None)
        if rng is None:
            raise ValueError("[Dropout] apply_fun needs an rng= key in train mode, e.g. "
                             "apply_fun(params, inputs, rng=key)")
        if mode == "train":
            keep = random.bernoulli(rng, rate, inputs.shape)
            return jnp.where(keep, inputs / rate, 0)
        return inputs
    return init_fun, apply_fun


def serial(*layers):
    """Layers applied one after the other; rng= is split among them."""
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        for fun, param, r in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=r, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    """Layers applied to the matching elements of a tuple of inputs."""
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, nlayers)
        return zip(*[init(r, shape) for init, r, shape in zip(init_funs, rngs, input_shape)])

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer whose construction depends on its input shape: make_layer(input_shape) -> layer."""
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun


# ---- Pooling layers (on lax.reduce_window's primitives) ----------------------------------------

def _pool_axes(spec, ndim):
    """The batch and feature axes of a pooled input: NHWC-style by default, else spec's N and C."""
    if spec is None:
        return 0, ndim - 1
    return spec.index("N"), spec.index("C")


def _pooling_layer(reducer, init_val, rescaler=None):
    def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
        """A pooling layer over the spatial axes: window_shape and strides (default ones) per
        spatial axis, padding 'VALID', 'SAME' or (low, high) pairs, spec such as 'NHWC'."""
        window_shape = tuple(window_shape)
        strides = tuple(strides) if strides else (1,) * len(window_shape)
        rescale = rescaler(window_shape, strides, padding) if rescaler else None
        # Unit windows over the batch and feature axes.
        win, st = window_shape, strides
        for i in sorted(_pool_axes(spec, len(window_shape) + 2)):
            win = win[:i] + (1,) + win[i:]
            st = st[:i] + (1,) + st[i:]

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, win, st, padding) \
                if isinstance(padding, str) else padding
            return lax.reduce_window_shape_tuple(input_shape, win, st, pads), ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, win, st, padding)
            return rescale(out, inputs, spec) if rescale else out
        return init_fun, apply_fun
    return PoolingLayer


def _normalize_by_window_size(window_shape, strides, padding):
    """AvgPool's rescaling: each output divided by the number of input elements (not padding)
    its window covers."""
    def rescale(outputs, inputs, spec):
        axes = _pool_axes(spec, inputs.ndim)
        spatial = tuple(n for i, n in enumerate(inputs.shape) if i not in axes)
        counts = lax.reduce_window(jnp.ones(spatial, inputs.dtype), 0.0, lax.add, window_shape,
                                   strides, padding)
        for i in sorted(axes):
            counts = jnp.expand_dims(counts, i)
        return outputs / counts
    return rescale


MaxPool = _pooling_layer(lax.max, -jnp.inf)
SumPool = _pooling_layer(lax.add, 0.0)
AvgPool = _pooling_layer(lax.add, 0.0, _normalize_by_window_size)
