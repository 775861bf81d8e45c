"""strata.Array from Python: attributes, operators with broadcasting and weak types, indexing,
numpy interop and error types, against numpy."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import strata
import strata.numpy as jnp
from conftest import x64_mode


def test_attributes():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = jnp.asarray(a)
    assert isinstance(x, strata.Array)
    assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6
    assert x.dtype == np.float32
    assert x.T.shape == (3, 2)
    np.testing.assert_array_equal(np.asarray(x.T), a.T)
    assert x.astype(jnp.int32).dtype == np.int32
    with x64_mode(True):
        assert x.astype("float64").dtype == np.float64
    assert len(x) == 2


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint32", "uint64", "float16", "float32", "float64"])
def test_numpy_round_trip(dtype):
    a = (np.arange(12) % 5).reshape(3, 4).astype(dtype)
    with x64_mode(True):  # 64-bit data stay 64-bit only in 64-bit mode
        x = jnp.asarray(a)
    assert x.dtype == np.dtype(dtype)
    b = np.asarray(x)
    assert b.dtype == a.dtype
    np.testing.assert_array_equal(b, a)


def test_asarray_is_zero_copy_and_read_only():
    x = jnp.ones((3, 4))
    a = np.asarray(x)
    b = np.asarray(x)
    assert np.shares_memory(a, b)  # both view the Array's buffer
    assert not a.flags.writeable


def test_asarray_copies_in():
    a = np.ones(3, dtype=np.float32)
    x = jnp.asarray(a)
    a[0] = 5
    assert np.asarray(x)[0] == 1


def test_bfloat16():
    x = jnp.asarray([1.0, 2.5, -3.0], dtype=jnp.bfloat16)
    assert x.dtype == jnp.bfloat16 and x.dtype == "bfloat16"
    assert x.itemsize == 2
    np.testing.assert_array_equal(np.asarray(x), np.array([1.0, 2.5, -3.0], np.float32))
    assert (x * 2.0).dtype == jnp.bfloat16


def test_weak_types():
    h = jnp.ones(3, dtype=jnp.float16)
    assert (h * 2.0).dtype == np.float16
    assert (2 * h).dtype == np.float16
    i = jnp.arange(3)
    assert i.dtype == np.int32 and (i * 2).dtype == np.int32
    assert (i + 1.5).dtype == np.float32
    with x64_mode(True):
        d = jnp.asarray(np.ones(2, np.float64))
        np.testing.assert_array_equal(np.asarray(d * 0.1), np.ones(2) * 0.1)  # exact in f64
    assert jnp.asarray(2.0).weak_type and jnp.array(2.0).weak_type  # both weak in JAX


def test_list_default_types():
    assert jnp.asarray([1.0, 2.0]).dtype == np.float32
    assert jnp.asarray([1, 2]).dtype == np.int32
    assert jnp.asarray([True]).dtype == np.bool_


_shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(_shapes, _shapes, st.sampled_from(["+", "-", "*", "/", "<", "==", "max"]))
def test_broadcasting_against_numpy(s1, s2, op):
    rng = np.random.default_rng(0)
    # Make the shapes broadcast-compatible by replacing clashing dims with 1.
    n = max(len(s1), len(s2))
    a1 = [1] * (n - len(s1)) + s1
    a2 = [1] * (n - len(s2)) + s2
    s2 = [d2 if d1 == d2 or d1 == 1 else 1 for d1, d2 in zip(a1, a2)][n - len(s2):]
    a = np.asarray(rng.standard_normal(s1), dtype=np.float32)
    b = np.asarray(rng.standard_normal(s2) + 3, dtype=np.float32)
    fns = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
           "/": lambda x, y: x / y, "<": lambda x, y: x < y, "==": lambda x, y: x == y,
           "max": None}
    if op == "max":
        got, want = jnp.maximum(jnp.asarray(a), jnp.asarray(b)), np.maximum(a, b)
    else:
        got, want = fns[op](jnp.asarray(a), jnp.asarray(b)), fns[op](a, b)
    want = np.asarray(want)
    assert got.shape == want.shape and np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.sampled_from(["bool", "int8", "uint8", "int32", "int64", "float16", "float32",
                        "float64"]),
       st.sampled_from(["bool", "int8", "uint8", "int32", "int64", "float16", "float32",
                        "float64"]))
def test_promotion_matches_jax_lattice_where_numpy_agrees(d1, d2):
    # numpy and JAX (64-bit mode) agree on these pairs except for int/float mixes (JAX keeps the
    # float's width): compare the rest.
    with x64_mode(True):
        t = jnp.promote_types(d1, d2)
        ints = {"int8", "uint8", "int32", "int64"}
        floats = {"float16", "float32", "float64"}
        if (d1 in ints and d2 in floats) or (d2 in ints and d1 in floats):
            assert t == np.dtype(d1 if d1 in floats else d2)
        else:
            assert t == np.promote_types(d1, d2)
        x = jnp.ones(2, dtype=d1) + jnp.ones(2, dtype=d2)
        assert x.dtype == t


def test_unary_operators_and_comparisons():
    a = np.array([-2.0, 0.5, 3.0], np.float32)
    x = jnp.asarray(a)
    np.testing.assert_array_equal(np.asarray(-x), -a)
    np.testing.assert_array_equal(np.asarray(abs(x)), np.abs(a))
    np.testing.assert_array_equal(np.asarray(x ** 2), a ** 2)
    np.testing.assert_array_equal(np.asarray(x // 2), a // 2)
    np.testing.assert_array_equal(np.asarray(x % 2), a % 2)
    np.testing.assert_array_equal(np.asarray(1 - x), 1 - a)
    np.testing.assert_array_equal(np.asarray(x >= 0.5), a >= 0.5)
    np.testing.assert_array_equal(np.asarray(x != 3), a != 3)
    m = jnp.asarray(np.array([True, False, True]))
    np.testing.assert_array_equal(np.asarray(~m), [False, True, False])
    np.testing.assert_array_equal(np.asarray(m & (x > 0)), [False, False, True])


@pytest.mark.parametrize("index", [
    1, -1, (0, 2), slice(1, None), slice(None, None, -1), (slice(None), 1),
    (None, 0), (Ellipsis, 1), (1, Ellipsis, None), (slice(0, 3, 2), slice(None, None, -2)),
    np.array([2, 0, 1]), (np.array([0, 1]), np.array([3, 2])), ([0, 0], slice(1, 3)),
    (slice(None), np.array([[0, 1], [2, 3]])),
])
def test_indexing_against_numpy(index):
    a = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    got = jnp.asarray(a)[index]
    want = a[index]
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


def test_boolean_mask_indexing():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = jnp.asarray(a)
    np.testing.assert_array_equal(np.asarray(x[x > 4]), a[a > 4])
    rows = np.array([True, False, True])
    np.testing.assert_array_equal(np.asarray(x[rows]), a[rows])


def test_at_updates():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = jnp.asarray(a)
    b = a.copy()
    b[0, 1] = 10
    np.testing.assert_array_equal(np.asarray(x.at[0, 1].set(10.0)), b)
    b = a.copy()
    b[:, 0] += 1
    np.testing.assert_array_equal(np.asarray(x.at[:, 0].add(1.0)), b)
    b = a.copy()
    b[1] *= 3
    np.testing.assert_array_equal(np.asarray(x.at[1].multiply(3.0)), b)
    np.testing.assert_array_equal(np.asarray(x.at[1].get()), a[1])
    np.testing.assert_array_equal(np.asarray(x), a)  # the original is unchanged


def test_repr():
    assert repr(jnp.asarray([1.0, 2.0])) == "Array([1., 2.])"
    assert repr(jnp.asarray(np.array([1, 2], np.int8))) == "Array([1, 2], dtype=int8)"
    with x64_mode(True):
        assert repr(jnp.asarray(np.array([1, 2], np.int64))) == "Array([1, 2], dtype=int64)"
    assert "weak_type=True" in repr(jnp.asarray(2.0))


def test_scalars_and_item():
    x = jnp.asarray(3.5)
    assert float(x) == 3.5 and x.item() == 3.5
    assert int(jnp.asarray(7)) == 7
    assert [0, 1, 2][jnp.asarray(1)] == 1  # __index__
    assert bool(jnp.asarray(True))
    with pytest.raises(ValueError):
        bool(jnp.ones(2))


def test_error_types():
    x = jnp.ones((2, 3))
    with pytest.raises(TypeError, match=r"\[reshape\]"):
        x.reshape(4)
    with pytest.raises(IndexError, match="out of bounds"):
        x[5]
    with pytest.raises(TypeError, match="no dtype datetime64"):
        x.astype(np.dtype("datetime64"))
    with pytest.raises(TypeError):
        jnp.asarray(object())
    with pytest.raises(ValueError):
        x + jnp.ones((4,))
    with pytest.raises(IndexError):
        x[1.5]


AT_CASES = [np.array([1, 1, 3, 1]), (np.array([0, 0, 1]), np.array([2, 2, 0])), 1,
            (slice(None), np.array([0, 0]))]


@pytest.mark.parametrize("idx", AT_CASES)
@pytest.mark.parametrize("jit", [False, True])
def test_at_repeated_indices_against_numpy_ufunc_at(idx, jit):
    a = np.arange(1, 13, dtype=np.float32).reshape(3, 4) if isinstance(idx, tuple) \
        else np.arange(1, 5, dtype=np.float32)
    n = np.zeros(a.shape)[idx].shape
    v = np.random.default_rng(0).uniform(-3, 3, n).astype(np.float32)
    for meth, ufunc in (("add", np.add), ("multiply", np.multiply), ("min", np.minimum),
                        ("max", np.maximum), ("divide", np.divide)):
        def f(x, v):
            return getattr(x.at[idx], meth)(v)
        want = a.copy()
        ufunc.at(want, idx, v)
        got = strata.jit(f)(a, v) if jit else f(jnp.asarray(a), v)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, err_msg=meth)
    got = strata.jit(lambda x, v: x.at[idx].set(v))(a, v) if jit else jnp.asarray(a).at[idx].set(v)
    want = a.copy()
    want[idx] = v  # numpy: the last of repeated indices wins, as in Strata
    np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(a).at[idx].get()), a[idx])


def test_at_traced_index_and_gradients():
    from conftest import numerical_grad
    a = np.arange(1.0, 5.0)
    idx = np.array([[1, 1, 3], [0, 2, 2]])
    v = np.array([2.0, -3.0, 5.0])
    # the index is traced under vmap: the one-hot path
    got = strata.vmap(lambda i: jnp.asarray(a).at[i].multiply(v))(idx)
    for row, i in zip(np.asarray(got), idx):
        want = a.copy()
        np.multiply.at(want, i, v)
        np.testing.assert_allclose(row, want)
    got = strata.vmap(lambda i: jnp.asarray(a).at[i].max(v))(idx)
    for row, i in zip(np.asarray(got), idx):
        want = a.copy()
        np.maximum.at(want, i, v)
        np.testing.assert_allclose(row, want)

    def f_np(v, i=idx[0]):
        out = a.copy()
        np.multiply.at(out, i, v)
        return np.sum(out ** 2)
    g = strata.grad(lambda v: jnp.sum(jnp.asarray(a).at[idx[0]].multiply(v) ** 2))(v)
    np.testing.assert_allclose(np.asarray(g), numerical_grad(f_np, v), rtol=1e-6)


@pytest.mark.parametrize("name", ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64", "float16", "float32", "float64"])
def test_dtype_names_are_callable_and_usable_as_dtypes(name):
    with x64_mode(True):  # the 64-bit names are 64-bit only in 64-bit mode
        _check_dtype_name(name)


def _check_dtype_name(name):
    t = getattr(jnp, name)
    want = np.dtype(getattr(np, name))
    x = t(2.5) if name != "bool_" else t(1)
    assert isinstance(x, strata.Array) and x.shape == () and x.dtype == want
    assert not x.weak_type  # jnp.float32(2.5) is strongly typed, as in JAX
    assert x.item() == want.type(2.5 if name != "bool_" else 1).item()
    a = np.array([0.5, 1.5, -2.0])
    if name.startswith("uint"):
        a = np.abs(a)
    np.testing.assert_array_equal(np.asarray(t(a)), a.astype(want))
    np.testing.assert_array_equal(np.asarray(t(jnp.asarray(a))), a.astype(want))
    # as a dtype argument and in comparisons, both ways
    assert jnp.zeros(2, t).dtype == want and jnp.asarray([1], dtype=t).dtype == want
    assert jnp.ones(2).astype(t).dtype == want and np.dtype(t) == want
    assert jnp.zeros(2, t).dtype == t and t == want and t == want.name and t != "complex64"
    assert {want: 1}[t] == 1
    assert jnp.result_type(t, t) == want


def test_dtype_callable_under_jit_and_in_promotion():
    f = strata.jit(lambda a: jnp.float16(a) * 2)
    y = f(3.0)
    assert y.dtype == np.float16 and float(y) == 6.0
    assert jnp.float32(2.5) * np.float64(1) is not None
    assert jnp.result_type(jnp.int8, jnp.float16) == np.float16
    assert jnp.result_type(jnp.float16, jnp.bfloat16) == np.float32
    assert jnp.bfloat16(1.5).dtype == jnp.bfloat16
    assert np.finfo(jnp.float32).eps == np.finfo(np.float32).eps


def test_numpy_float64_scalar_is_a_typed_float64():
    # np.float64 subclasses Python's float; it must not become a weak float like a literal.
    x = jnp.asarray(np.float64(1.3))
    assert x.dtype == np.float32 and not x.weak_type  # canonicalized, as in JAX
    with x64_mode(True):
        x = jnp.asarray(np.float64(1.3))
        assert x.dtype == np.float64 and not x.weak_type
        assert float(x) == 1.3
    assert jnp.asarray(1.3).weak_type


def test_at_updates_drop_out_of_bounds_indices_as_jax():
    import strata.numpy as jnp
    x = jnp.zeros(5)
    np.testing.assert_array_equal(np.asarray(x.at[np.array([4, 5])].set(np.array([1.0, 2.0]))),
                                  [0, 0, 0, 0, 1])
    np.testing.assert_array_equal(np.asarray(x.at[np.array([-1, -6, 7])].add(1.0)),
                                  [0, 0, 0, 0, 1])
    np.testing.assert_array_equal(np.asarray(x.at[9].set(3.0)), np.zeros(5))
    m = jnp.ones((2, 3))
    out = np.asarray(m.at[1, np.array([0, 3])].multiply(5.0))
    np.testing.assert_array_equal(out, [[1, 1, 1], [5, 1, 1]])
    out = np.asarray(m.at[..., np.array([2, 3])].max(4.0))
    np.testing.assert_array_equal(out, [[1, 1, 4], [1, 1, 4]])
    out = np.asarray(m.at[np.array([True, False]), 1:].min(-1.0))
    np.testing.assert_array_equal(out, [[1, -1, -1], [1, 1, 1]])
    np.testing.assert_array_equal(np.asarray(m.at[:, None, 5].set(0.0)), np.ones((2, 3)))
