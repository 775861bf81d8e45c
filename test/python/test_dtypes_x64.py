"""JAX's dtype semantics: 64-bit mode (jax_enable_x64, off by default) and canonicalization at
the input boundary, the promotion table (written out from JAX's documentation, not from
Strata), weak types of Python scalars and of full/zeros_like, OverflowError for Python ints,
and the int16/uint16/uint64 dtypes through eager ops, jit, vmap and grad."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import strata
import strata.lax
import strata.numpy as jnp
from conftest import x64_mode

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(params=[False, True], ids=["x64_off", "x64_on"])
def x64(request):
    with x64_mode(request.param):
        yield request.param


def f(name):
    return np.dtype(name)


# ---- The switch -------------------------------------------------------------------------------

def test_x64_is_off_by_default_and_restored():
    assert strata.config.jax_enable_x64 is False
    with x64_mode(True):
        assert strata.config.read("jax_enable_x64") is True
        assert jnp.zeros(2).dtype == np.float64
    assert strata.config.jax_enable_x64 is False
    assert jnp.zeros(2).dtype == np.float32


@pytest.mark.parametrize("var", ["STRATA_ENABLE_X64", "JAX_ENABLE_X64"])
def test_environment_switches_x64_on(var):
    env = dict(os.environ)
    env.pop("STRATA_ENABLE_X64", None)
    env.pop("JAX_ENABLE_X64", None)
    env[var] = "1"
    code = ("import numpy as np, strata, strata.numpy as jnp; "
            "print(strata.config.jax_enable_x64, jnp.zeros(2).dtype, "
            "jnp.asarray(np.ones(2)).dtype, jnp.arange(3).dtype, jnp.asarray(2.5).dtype)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "float64", "float64", "int64", "float64"]


def test_environment_off_value():
    env = dict(os.environ, STRATA_ENABLE_X64="0")
    env.pop("JAX_ENABLE_X64", None)
    out = subprocess.run([sys.executable, "-c", "import strata, strata.numpy as jnp; "
                          "print(strata.config.jax_enable_x64, jnp.zeros(2).dtype)"],
                         env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "float32"]


def test_canonicalize_dtype():
    from strata import _core
    assert _core.canonicalize_dtype(np.float64) == np.float32
    assert _core.canonicalize_dtype("int64") == np.int32
    assert _core.canonicalize_dtype(np.uint64) == np.uint32
    assert _core.canonicalize_dtype(np.int16) == np.int16
    with x64_mode(True):
        assert _core.canonicalize_dtype(np.float64) == np.float64
        assert _core.canonicalize_dtype(np.uint64) == np.uint64


# ---- Canonicalization at the input boundary ---------------------------------------------------

NUMPY_INPUTS = [(np.float64, "float32"), (np.int64, "int32"), (np.uint64, "uint32"),
                (np.float32, "float32"), (np.int16, "int16"), (np.uint16, "uint16"),
                (np.int8, "int8"), (np.float16, "float16")]


@pytest.mark.parametrize("np_type,off", NUMPY_INPUTS)
def test_numpy_inputs_canonicalize(np_type, off, x64):
    data = np.array([1, 2, 3]).astype(np_type)
    want = np.dtype(np_type) if x64 else np.dtype(off)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy data convert silently, as in JAX
        for conv in (jnp.asarray, jnp.array, strata.device_put):
            x = conv(data)
            assert x.dtype == want and not x.weak_type, conv
            np.testing.assert_array_equal(np.asarray(x), data.astype(want))
        s = jnp.asarray(np_type(7))  # numpy scalars too
        assert s.dtype == want and not s.weak_type


def test_numpy_float64_values_round_to_float32():
    x = jnp.asarray(np.array([0.1, 1e-50, 1 / 3]))
    assert x.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(x), np.array([0.1, 1e-50, 1 / 3], np.float32))


@pytest.mark.parametrize("make", [
    lambda: jnp.float64(1.5),
    lambda: jnp.zeros(2, jnp.float64),
    lambda: jnp.ones((2,), dtype=np.float64),
    lambda: jnp.asarray([1, 2], dtype=np.int64),
    lambda: jnp.array(3, dtype="int64"),
    lambda: jnp.arange(3, dtype=jnp.int64),
    lambda: jnp.asarray(np.ones(2, np.float32)).astype(np.float64),
    lambda: jnp.uint64(3),
])
def test_explicit_64bit_requests_warn_and_truncate(make):
    with pytest.warns(UserWarning, match="Explicitly requested dtype .*64 is not available"):
        x = make()
    assert x.dtype in (np.float32, np.int32, np.uint32)
    assert np.dtype(x.dtype).itemsize == 4


def test_explicit_64bit_requests_with_x64_on():
    with x64_mode(True), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert jnp.float64(1.5).dtype == np.float64
        assert jnp.zeros(2, jnp.float64).dtype == np.float64
        assert jnp.asarray([1, 2], dtype=np.int64).dtype == np.int64
        assert jnp.uint64(3).dtype == np.uint64
        assert jnp.asarray(np.ones(2, np.float32)).astype(np.float64).dtype == np.float64


def test_lists_of_numpy_scalars_keep_their_dtype(x64):
    assert jnp.asarray([np.int8(1), np.int8(2)]).dtype == np.int8
    assert jnp.asarray([np.uint32(1), np.uint32(5)]).dtype == np.uint32
    assert jnp.asarray([np.float16(1.5)]).dtype == np.float16
    assert jnp.asarray([np.float64(1.5)]).dtype == (np.float64 if x64 else np.float32)
    assert jnp.asarray([[1, 2], [3, 4]]).dtype == (np.int64 if x64 else np.int32)


def test_python_types_as_dtypes(x64):
    assert jnp.zeros(2, dtype=float).dtype == (np.float64 if x64 else np.float32)
    assert jnp.zeros(2, dtype=int).dtype == (np.int64 if x64 else np.int32)
    assert jnp.zeros(2, dtype=bool).dtype == np.bool_
    assert jnp.asarray([1.5, 2]).dtype == (np.float64 if x64 else np.float32)
    assert jnp.asarray([1, 2]).dtype == (np.int64 if x64 else np.int32)
    assert jnp.arange(3).dtype == (np.int64 if x64 else np.int32)
    assert jnp.arange(3.0).dtype == (np.float64 if x64 else np.float32)
    assert jnp.linspace(0, 1, 3).dtype == (np.float64 if x64 else np.float32)
    assert jnp.eye(2).dtype == (np.float64 if x64 else np.float32)


def test_jit_and_grad_arguments_canonicalize(x64):
    want = np.float64 if x64 else np.float32
    seen = []

    def fn(x):
        seen.append(x.dtype)
        return jnp.sum(x * x)

    data = np.array([1.0, 2.0, 3.0])  # numpy float64
    y = strata.jit(fn)(data)
    assert seen[-1] == want and y.dtype == want
    g = strata.grad(fn)(data)
    assert seen[-1] == want and g.dtype == want
    np.testing.assert_allclose(np.asarray(g), 2 * data, rtol=1e-6)
    v = strata.vmap(fn)(data.reshape(3, 1))
    assert v.dtype == want
    i = strata.jit(lambda a: a + 1)(np.arange(3))  # numpy int64
    assert i.dtype == (np.int64 if x64 else np.int32)


def test_jit_retraces_when_x64_changes():
    # The trace depends on the mode (jnp.zeros' default dtype), so the cache key includes it.
    f = strata.jit(lambda x: x + jnp.zeros(2))
    a = np.ones(2, np.float32)
    assert f(a).dtype == np.float32
    with x64_mode(True):
        assert f(a).dtype == np.float64
    assert f(a).dtype == np.float32


def test_traced_full_and_like_are_weak():
    h = jnp.zeros(2, jnp.float16)
    seen = []

    def g(x):
        y = jnp.full((2,), 3.0)
        seen.append((y.weak_type, jnp.zeros_like(x).weak_type))
        return x + y

    assert strata.jit(g)(h).dtype == np.float16
    assert seen == [(True, False)]
    out = strata.vmap(lambda x: x + jnp.full_like(x, 2))(jnp.ones((3, 2), jnp.int16))
    assert out.dtype == np.int16
    np.testing.assert_array_equal(np.asarray(out), np.full((3, 2), 3))


def test_x64_on_keeps_float64_precision():
    with x64_mode(True):
        x = jnp.asarray(np.array([1.0 + 1e-12]))
        assert x.dtype == np.float64
        assert float((x - 1.0)[0]) == pytest.approx(1e-12, rel=1e-3)
        g = strata.grad(lambda v: jnp.sum(jnp.sin(v)))(np.array([0.3]))
        assert g.dtype == np.float64
        np.testing.assert_allclose(np.asarray(g), np.cos([0.3]), rtol=1e-14)


# ---- Promotion, against JAX's documented table ------------------------------------------------
# JAX docs (type_promotion.rst), 64-bit mode on; "f*" is the weak float (jnp.promote_types
# returns float64 for it, result_type the default float, weakly typed).
# Columns: b1 u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64.
T = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
     "bfloat16", "float16", "float32", "float64"]
JAX_TABLE = """
b1   u8   u16  u32  u64  i8   i16  i32  i64  bf16 f16  f32  f64
u8   u8   u16  u32  u64  i16  i16  i32  i64  bf16 f16  f32  f64
u16  u16  u16  u32  u64  i32  i32  i32  i64  bf16 f16  f32  f64
u32  u32  u32  u32  u64  i64  i64  i64  i64  bf16 f16  f32  f64
u64  u64  u64  u64  u64  f*   f*   f*   f*   bf16 f16  f32  f64
i8   i16  i32  i64  f*   i8   i16  i32  i64  bf16 f16  f32  f64
i16  i16  i32  i64  f*   i16  i16  i32  i64  bf16 f16  f32  f64
i32  i32  i32  i64  f*   i32  i32  i32  i64  bf16 f16  f32  f64
i64  i64  i64  i64  f*   i64  i64  i64  i64  bf16 f16  f32  f64
bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 f32  f32  f64
f16  f16  f16  f16  f16  f16  f16  f16  f16  f32  f16  f32  f64
f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f64
f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64
"""
SHORT = {"b1": "bool", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
         "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "bf16": "bfloat16",
         "f16": "float16", "f32": "float32", "f64": "float64", "f*": "f*"}
TABLE = [[SHORT[c] for c in row.split()] for row in JAX_TABLE.strip().splitlines()]


def expected_join(a, b, x64):
    """JAX's lattice result; with x64 off JAX replaces the edge u32 -> i64 with u32 -> i32."""
    want = TABLE[T.index(a)][T.index(b)]
    if not x64 and want == "int64" and "int64" not in (a, b):
        return "int32"
    return want


def dt(name):
    return jnp.bfloat16 if name == "bfloat16" else np.dtype(name)


@pytest.mark.parametrize("a", T)
def test_promote_types_table(a, x64):
    for b in T:
        want = expected_join(a, b, x64)
        got = jnp.promote_types(dt(a), dt(b))
        assert got == (np.float64 if want == "f*" else dt(want)), (a, b, got)


def test_promote_types_with_python_types(x64):
    # JAX's docstring: Python types are weak and do not widen; a weak result is numpy's int64
    # or float64 (promote_types does not canonicalize).
    assert jnp.promote_types("uint8", int) == np.uint8
    assert jnp.promote_types("float16", float) == np.float16
    assert jnp.promote_types(jnp.bfloat16, int) == jnp.bfloat16
    assert jnp.promote_types(int, float) == np.float64
    assert jnp.promote_types(int, int) == np.int64
    assert jnp.promote_types(bool, int) == np.int64
    assert jnp.promote_types("int8", float) == np.float64


def _array(name):
    return jnp.zeros((2,), dt(name))


@pytest.mark.parametrize("a", T)
def test_result_type_of_arrays(a, x64):
    # With x64 off 64-bit arrays cannot be made from Python, so only the 32-bit types join.
    types = T if x64 else [t for t in T if t not in ("int64", "uint64", "float64")]
    if a not in types:  # with x64 off, asking for a 64-bit array gives the 32-bit one
        with pytest.warns(UserWarning, match="truncated"):
            assert _array(a).dtype == np.dtype(a.replace("64", "32"))
        return
    for b in types:
        want = expected_join(a, b, x64)
        z = _array(a) + _array(b)
        if want == "f*":
            assert z.dtype == (np.float64 if x64 else np.float32) and z.weak_type, (a, b)
        else:
            assert z.dtype == dt(want) and not z.weak_type, (a, b, z.dtype)
        assert jnp.result_type(_array(a), _array(b)) == z.dtype


def test_uint32_int32_follows_x64():
    u, i = jnp.arange(3, dtype=jnp.uint32), jnp.arange(3, dtype=jnp.int32)
    assert (u + i).dtype == np.int32
    with x64_mode(True):
        assert (u + i).dtype == np.int64
        np.testing.assert_array_equal(np.asarray(u + i), [0, 2, 4])


def test_weak_scalar_promotion(x64):
    fdef = np.float64 if x64 else np.float32
    for name in ["uint8", "int8", "int16", "uint16", "int32", "uint32", "bfloat16", "float16",
                 "float32"]:
        x = _array(name)
        assert (x + 1).dtype == dt(name) and not (x + 1).weak_type, name
        if name.startswith(("int", "uint")):
            y = x * 2.5  # JAX: integer array * Python float is the default float, weak
            assert y.dtype == fdef and y.weak_type, name
        else:
            assert (x * 2.5).dtype == dt(name), name
    assert jnp.result_type(jnp.int8, int) == np.int8
    assert jnp.result_type(jnp.float16, float) == np.float16
    assert jnp.result_type(int, float) == fdef
    assert (jnp.asarray(2) + jnp.asarray(2.5)).weak_type


# ---- Weak types -------------------------------------------------------------------------------

def test_python_scalars_are_weak(x64):
    fdef, idef = (np.float64, np.int64) if x64 else (np.float32, np.int32)
    for make in (jnp.asarray, jnp.array):
        a = make(3.5)
        assert a.dtype == fdef and a.weak_type
        b = make(3)
        assert b.dtype == idef and b.weak_type
        c = make(True)
        assert c.dtype == np.bool_ and not c.weak_type
        d = make(3.5, dtype=jnp.float32)
        assert d.dtype == np.float32 and not d.weak_type
    assert not jnp.float32(3.5).weak_type
    assert not jnp.asarray(np.float32(3.5)).weak_type
    assert not jnp.asarray([1.0, 2.0]).weak_type
    # A weak array keeps a narrower array's type.
    assert (jnp.zeros(2, jnp.float16) + jnp.array(3.5)).dtype == np.float16


def test_full_and_like_weak_types(x64):
    fdef, idef = (np.float64, np.int64) if x64 else (np.float32, np.int32)
    cases = [
        (jnp.full((2,), 3.0), fdef, True, [3.0, 3.0]),
        (jnp.full((2,), 3), idef, True, [3, 3]),
        (jnp.full((2,), 3.0, dtype=jnp.float32), np.float32, False, [3.0, 3.0]),
        (jnp.full((2,), jnp.float16(1.5)), np.float16, False, [1.5, 1.5]),
        (jnp.zeros_like(1.0), fdef, True, 0.0),
        (jnp.ones_like(2), idef, True, 1),
        (jnp.ones_like(2, dtype=jnp.float32), np.float32, False, 1.0),
        (jnp.zeros_like(jnp.arange(3)), idef, False, [0, 0, 0]),
        (jnp.full_like(jnp.arange(3, dtype=jnp.int32), 2.7), np.int32, False, [2, 2, 2]),
        (jnp.full_like(1.0, 2), fdef, True, 2.0),
        (jnp.full_like(jnp.zeros(2, jnp.float16), 3, dtype=jnp.int16), np.int16, False, [3, 3]),
    ]
    for i, (x, dtype, weak, values) in enumerate(cases):
        assert x.dtype == dtype and x.weak_type == weak, i
        np.testing.assert_array_equal(np.asarray(x), values)
    # A weak full takes the other operand's type.
    assert (jnp.zeros(2, jnp.bfloat16) + jnp.full((2,), 3.0)).dtype == jnp.bfloat16


# ---- Python int overflow ----------------------------------------------------------------------

@pytest.mark.parametrize("make,value,dtype", [
    (lambda: jnp.array(2 ** 31), 2 ** 31, "int32"),
    (lambda: jnp.asarray(-2 ** 31 - 1), -2 ** 31 - 1, "int32"),
    (lambda: jnp.arange(3, dtype=jnp.int32) + 2 ** 31, 2 ** 31, "int32"),
    (lambda: jnp.int8(300), 300, "int8"),
    (lambda: jnp.uint8(-1), -1, "uint8"),
    (lambda: jnp.int16(2 ** 15), 2 ** 15, "int16"),
    (lambda: jnp.array(70000, dtype=jnp.uint16), 70000, "uint16"),
    (lambda: jnp.array([1, 2 ** 31]), 2 ** 31, "int32"),
    (lambda: jnp.full((2,), 2 ** 40), 2 ** 40, "int32"),
    (lambda: jnp.asarray([[1], [2 ** 70]]), 2 ** 70, "int32"),
])
def test_python_int_overflow(make, value, dtype):
    with pytest.raises(OverflowError, match=f"Python int {value} too large to convert to "
                                            f"{dtype}"):
        make()


def test_python_int_range_with_x64():
    with x64_mode(True):
        x = jnp.array(2 ** 31)
        assert x.dtype == np.int64 and x.weak_type and int(x) == 2 ** 31
        np.testing.assert_array_equal(np.asarray(jnp.arange(3) + 2 ** 40), 2 ** 40 + np.arange(3))
        with pytest.raises(OverflowError, match="Python int 9223372036854775808 too large to "
                                                "convert to int64"):
            jnp.asarray(2 ** 63)
        u = jnp.uint64(2 ** 64 - 1)
        assert u.dtype == np.uint64 and int(u) == 2 ** 64 - 1
        with pytest.raises(OverflowError, match="uint64"):
            jnp.uint64(2 ** 64)


def test_python_int_edges_fit():
    assert int(jnp.array(2 ** 31 - 1)) == 2 ** 31 - 1
    assert int(jnp.array(-2 ** 31)) == -2 ** 31
    assert int(jnp.uint32(2 ** 32 - 1)) == 2 ** 32 - 1
    assert int(jnp.int8(-128)) == -128
    assert int(jnp.uint16(65535)) == 65535


# ---- int16, uint16, uint64 end to end ---------------------------------------------------------

NEW = ["int16", "uint16", "uint64"]


def sample(name):
    info = np.iinfo(name)
    return np.array([0, 1, 7, info.max // 3, info.max], dtype=name)


@pytest.mark.parametrize("name", NEW)
def test_new_dtypes_eager(name):
    with x64_mode(True):  # uint64 exists only with 64-bit mode, as in JAX
        a = sample(name)
        b = np.array([3, 2, 1, 5, 1], dtype=name)
        x, y = jnp.asarray(a), jnp.asarray(b)
        assert x.dtype == np.dtype(name) and x.itemsize == np.dtype(name).itemsize
        for op, ref in [(jnp.add, np.add), (jnp.multiply, np.multiply),
                        (jnp.subtract, np.subtract), (jnp.maximum, np.maximum),
                        (jnp.minimum, np.minimum), (jnp.floor_divide, np.floor_divide),
                        (jnp.bitwise_and, np.bitwise_and), (jnp.bitwise_xor, np.bitwise_xor)]:
            with np.errstate(over="ignore"):
                want = ref(a, b)
            got = op(x, y)
            assert got.dtype == np.dtype(name), op
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=str(op))
        np.testing.assert_array_equal(np.asarray(x < y), a < b)
        np.testing.assert_array_equal(np.asarray(jnp.max(x)), a.max())
        np.testing.assert_array_equal(np.asarray(x[1:3]), a[1:3])
        np.testing.assert_array_equal(np.asarray(strata.lax.sort(y)), np.sort(b))
        np.testing.assert_array_equal(np.asarray(x.reshape(5, 1).T), a.reshape(5, 1).T)
        np.testing.assert_allclose(np.asarray(x.astype(jnp.float64)), a.astype(np.float64))
        assert int(x[4]) == int(a[4])
        assert x.tolist() == a.tolist()
        assert jnp.sum(x).dtype == np.dtype(np.uint64 if name[0] == "u" else np.int64)


@pytest.mark.parametrize("name", ["int16", "uint16"])
def test_new_16bit_dtypes_with_x64_off(name):
    a = sample(name)
    x = jnp.asarray(a)
    assert x.dtype == np.dtype(name)
    assert (x + 1).dtype == np.dtype(name)
    np.testing.assert_array_equal(np.asarray(x + 1), (a + 1).astype(name))
    s = jnp.sum(x)
    assert s.dtype == (np.int32 if name == "int16" else np.uint32)
    assert int(s) == int(a.astype(np.int64).sum()) % (2 ** 32 if name == "uint16" else 2 ** 64)
    assert (x * 1.5).dtype == np.float32
    assert getattr(jnp, name).dtype == np.dtype(name)
    assert jnp.promote_types(jnp.uint8, jnp.int8) == np.int16


@pytest.mark.parametrize("name", NEW)
def test_new_dtypes_jit_vmap_grad(name):
    with x64_mode(True):
        a = sample(name)
        x = jnp.asarray(a)

        def fn(v):  # the sample values are >= 0, so a logical shift is numpy's >>
            return v * 2 + strata.lax.shift_right_logical(v, jnp.ones_like(v))

        want = np.asarray(fn(x))
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(want, (a * 2 + (a >> 1)).astype(name))
        got = strata.jit(fn)(x)
        assert got.dtype == np.dtype(name)
        np.testing.assert_array_equal(np.asarray(got), want)  # jit against eager
        m = x.reshape(5, 1) + jnp.zeros((5, 3), name)
        vm = strata.vmap(fn)(m)
        np.testing.assert_array_equal(np.asarray(vm), np.stack([np.asarray(fn(r)) for r in m]))
        # grad through a conversion: d/dw sum(w * x) = x (as float).
        w = jnp.ones(5, jnp.float64)
        g = strata.grad(lambda w_, v: jnp.sum(w_ * v.astype(jnp.float64)))(w, x)
        np.testing.assert_allclose(np.asarray(g), a.astype(np.float64))
        gj = strata.jit(strata.grad(lambda w_, v: jnp.sum(jnp.sin(w_ * v.astype(jnp.float64)))))(
            w, jnp.asarray(np.array([1, 2, 3, 4, 5], name)))
        np.testing.assert_allclose(np.asarray(gj), np.cos(np.arange(1, 6)) * np.arange(1, 6),
                                   rtol=1e-12)


@pytest.mark.parametrize("name", NEW)
def test_new_dtypes_numpy_and_dlpack_round_trip(name):
    with x64_mode(True):
        a = sample(name)
        x = jnp.asarray(a)
        back = np.asarray(x)
        assert back.dtype == np.dtype(name)
        np.testing.assert_array_equal(back, a)
        d = np.from_dlpack(x)
        assert d.dtype == np.dtype(name)
        np.testing.assert_array_equal(d, a)
        y = jnp.from_dlpack(a)
        assert y.dtype == np.dtype(name)
        np.testing.assert_array_equal(np.asarray(y), a)


@pytest.mark.parametrize("name", NEW)
def test_new_dtypes_randint_range(name):
    with x64_mode(True):
        lo, hi = (5, 2 ** 40) if name == "uint64" else (3, 1000)
        r = strata.random.randint(strata.random.PRNGKey(0), (2000,), lo, hi,
                                  dtype=getattr(jnp, name))
        a = np.asarray(r)
        assert r.dtype == np.dtype(name)
        assert a.min() >= lo and a.max() < hi
        # roughly uniform: each quarter of the range gets a fair share of 2000 draws
        counts = np.histogram(a.astype(np.float64), bins=4, range=(lo, hi))[0]
        assert counts.min() > 400, counts


def test_numpy_dtype_aliases_as_jax():
    assert jnp.bool is jnp.bool_ and jnp.single is jnp.float32
    assert np.dtype(jnp.double) == np.float64 and np.dtype(jnp.int_) == np.int64
    assert np.dtype(jnp.uint) == np.uint64 and np.dtype(jnp.float_) == np.float64
    assert jnp.bool(1).dtype == np.bool_
    with x64_mode(False), pytest.warns(UserWarning):
        assert jnp.double(1.5).dtype == np.float32  # canonicalized, as jnp.float64
    with x64_mode(True):
        assert jnp.double(1.5).dtype == np.float64 and jnp.int_(3).dtype == np.int64
