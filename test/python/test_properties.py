"""Property-based tests (python3-hypothesis) of reductions and indexing against numpy, plus
jvp's has_aux and the escaped-tracer errors (they name the transform)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import strata
import strata.numpy as jnp

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def array_and_axis(draw, dtypes=("float32", "int32")):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=3)))
    dtype = draw(st.sampled_from(dtypes))
    seed = draw(st.integers(0, 2 ** 16))
    a = np.random.default_rng(seed).integers(-5, 6, size=shape).astype(dtype)
    if not shape:
        axis = None
    else:
        axis = draw(st.one_of(
            st.none(), st.integers(-len(shape), len(shape) - 1),
            st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape),
                     unique=True).map(tuple)))
    return a, axis


@SETTINGS
@given(array_and_axis(), st.sampled_from(["sum", "prod", "max", "min", "mean"]), st.booleans())
def test_reductions_against_numpy(a_axis, name, keepdims):
    a, axis = a_axis
    got = getattr(jnp, name)(jnp.asarray(a), axis=axis, keepdims=keepdims)
    want = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    assert got.shape == want.shape
    if name == "mean":
        assert got.dtype == np.float32  # JAX: mean of int32 is float32 (numpy: float64)
    elif name in ("sum", "prod"):
        assert got.dtype == a.dtype  # JAX keeps int32 where numpy widens to int64
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


@SETTINGS
@given(array_and_axis(dtypes=("bool",)), st.sampled_from(["all", "any"]), st.booleans())
def test_boolean_reductions_against_numpy(a_axis, name, keepdims):
    a, axis = a_axis
    a = a > 0
    got = getattr(jnp, name)(jnp.asarray(a), axis=axis, keepdims=keepdims)
    np.testing.assert_array_equal(np.asarray(got),
                                  getattr(np, name)(a, axis=axis, keepdims=keepdims))


@SETTINGS
@given(array_and_axis(dtypes=("float32",)), st.sampled_from(["argmax", "argmin"]))
def test_arg_reductions_against_numpy(a_axis, name):
    a, axis = a_axis
    if isinstance(axis, tuple):
        axis = axis[0]
    got = getattr(jnp, name)(jnp.asarray(a), axis=axis)
    np.testing.assert_array_equal(np.asarray(got), getattr(np, name)(a, axis=axis))


@st.composite
def basic_index(draw):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    parts, dim = [], 0
    ellipsis_used = False
    for _ in range(draw(st.integers(0, len(shape) + 1))):
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "array"]))
        if kind == "none":
            parts.append(None)
        elif kind == "ellipsis":
            if not ellipsis_used:
                parts.append(Ellipsis)
                ellipsis_used = True
        elif dim < len(shape):
            n = shape[dim]
            if kind == "int":
                parts.append(draw(st.integers(-n, n - 1)))
            elif kind == "slice":
                parts.append(slice(draw(st.one_of(st.none(), st.integers(-n - 1, n + 1))),
                                   draw(st.one_of(st.none(), st.integers(-n - 1, n + 1))),
                                   draw(st.sampled_from([None, 1, 2, -1, -2]))))
            else:
                parts.append(np.array(draw(st.lists(st.integers(-n, n - 1), min_size=1,
                                                    max_size=4)), dtype=np.int32))
            dim += 1
    return shape, tuple(parts)


@SETTINGS
@given(basic_index())
def test_indexing_against_numpy(shape_index):
    shape, index = shape_index
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    try:
        want = a[index]
    except IndexError:
        # An index numpy rejects (the generator may aim an integer past an Ellipsis at a short
        # axis): Strata must reject it too, with the same exception type.
        with pytest.raises(IndexError):
            jnp.asarray(a)[index]
        return
    got = jnp.asarray(a)[index]
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(0, 2 ** 16))
def test_boolean_mask_against_numpy(shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    mask = a > 0
    np.testing.assert_array_equal(np.asarray(jnp.asarray(a)[jnp.asarray(mask)]), a[mask])


def test_jvp_has_aux():
    def f(x):
        y = jnp.sin(x) * 2
        return y, {"mean": jnp.mean(x), "tag": [x.shape[0]]}
    x = np.linspace(0, 1, 4).astype(np.float32)
    v = np.ones(4, np.float32)
    out, tan, aux = strata.jvp(f, (x,), (v,), has_aux=True)
    np.testing.assert_allclose(np.asarray(out), 2 * np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tan), 2 * np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(float(aux["mean"]), x.mean(), rtol=1e-6)
    assert aux["tag"] == [4]
    # Composes: aux passes through an outer grad untouched by differentiation.
    g = strata.grad(lambda x: jnp.sum(strata.jvp(f, (x,), (v,), has_aux=True)[1]))(x)
    np.testing.assert_allclose(np.asarray(g), -2 * np.sin(x), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="has_aux"):
        strata.jvp(jnp.sin, (x,), (v,), has_aux=True)


@pytest.mark.parametrize("transform", ["grad", "jit", "vmap", "jvp"])
def test_escaped_tracer_names_its_transform(transform):
    box = []

    def f(x):
        box.append(x)
        return jnp.sum(x * x)
    x = jnp.ones((2, 3))
    if transform == "grad":
        strata.grad(f)(x)
    elif transform == "jit":
        strata.jit(f)(x)
    elif transform == "vmap":
        strata.vmap(f)(x)
    else:
        strata.jvp(f, (x,), (x,))
    with pytest.raises(TypeError, match=f"traced by the {transform} transform.*escaped tracer"):
        box[0] + 1
    with pytest.raises(TypeError):
        float(box[0].sum())
