"""DLPack in both directions against numpy (np.from_dlpack, ndarray.__dlpack__) and PyTorch
(torch.from_dlpack, torch.utils.dlpack): values, dtypes, strided sources, zero-copy export (by
pointer), lifetimes, and the errors."""

import gc

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from conftest import x64_mode

torch = pytest.importorskip("torch")
from torch.utils import dlpack as tdl  # noqa: E402

# numpy 1.24 and PyTorch 1.13 have no DLPack bool (kDLBool came with DLPack 0.8).
DTYPES = ["int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"]
NUMPY_ONLY = ["uint16", "uint32", "uint64"]  # PyTorch 1.13 has no unsigned types past uint8


@pytest.fixture(autouse=True)
def _x64():
    """The 64-bit dtypes here stay 64-bit (jnp.asarray of numpy data) only in 64-bit mode."""
    with x64_mode(True):
        yield


def ptr(x):
    return np.asarray(x).__array_interface__["data"][0]


def sample(dtype, shape=(3, 4)):
    return (np.arange(np.prod(shape)) % 7 + 1).reshape(shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES + NUMPY_ONLY)
def test_to_numpy_zero_copy(dtype):
    x = jnp.asarray(sample(dtype))
    a = np.from_dlpack(x)
    assert a.dtype == np.dtype(dtype) and a.shape == (3, 4)
    np.testing.assert_array_equal(a, sample(dtype))
    assert a.__array_interface__["data"][0] == ptr(x)  # shares the buffer


@pytest.mark.parametrize("dtype", DTYPES + NUMPY_ONLY)
def test_from_numpy(dtype):
    a = sample(dtype, (2, 3, 2))
    x = jnp.from_dlpack(a)
    assert isinstance(x, strata.Array) and x.dtype == np.dtype(dtype) and x.shape == a.shape
    np.testing.assert_array_equal(np.asarray(x), a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_to_torch_zero_copy(dtype):
    x = jnp.asarray(sample(dtype))
    t = torch.from_dlpack(x)
    assert t.data_ptr() == ptr(x)
    np.testing.assert_array_equal(t.numpy(), sample(dtype))
    t2 = tdl.from_dlpack(strata.dlpack.to_dlpack(x))  # the legacy capsule path
    assert t2.data_ptr() == ptr(x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_from_torch(dtype):
    t = torch.from_numpy(sample(dtype, (4, 2)))
    for src in (t, tdl.to_dlpack(t)):  # an object with __dlpack__, or a capsule
        x = strata.from_dlpack(src)
        assert x.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(np.asarray(x), sample(dtype, (4, 2)))


def test_bfloat16_with_torch():
    t = torch.tensor([1.5, -2.0, 3.25], dtype=torch.bfloat16)
    x = strata.from_dlpack(t)
    assert x.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(x), [1.5, -2.0, 3.25])
    back = torch.from_dlpack(x * 2)
    assert back.dtype == torch.bfloat16
    assert back.float().tolist() == [3.0, -4.0, 6.5]


def test_bool_round_trip_within_strata():
    x = jnp.array([True, False, True])
    y = strata.from_dlpack(x)
    assert y.dtype == np.dtype(bool) and np.asarray(y).tolist() == [True, False, True]


def test_strided_sources_are_gathered():
    t = torch.arange(24.0).reshape(2, 3, 4)
    for view in (t.transpose(0, 2), t[:, 1:, ::2], t[1], t.expand(2, 2, 3, 4)[:, 0]):
        np.testing.assert_array_equal(np.asarray(strata.from_dlpack(view)), view.numpy())
    a = np.arange(30, dtype=np.float32).reshape(5, 6)
    for view in (a.T, a[::2, 1::3], a[1:4, 2:3]):
        np.testing.assert_array_equal(np.asarray(jnp.from_dlpack(view)), view)


def test_scalar_and_empty():
    for x in (jnp.array(2.5, dtype=jnp.float32), jnp.zeros((0, 3))):
        np.testing.assert_array_equal(np.from_dlpack(x), np.asarray(x))
        np.testing.assert_array_equal(torch.from_dlpack(x).numpy(), np.asarray(x))
        assert strata.from_dlpack(torch.from_dlpack(x)).shape == x.shape
    assert strata.from_dlpack(torch.tensor(3.0)).shape == ()


def test_export_keeps_the_buffer_alive():
    x = jnp.arange(1000.0) * 2
    p = ptr(x)
    t = torch.from_dlpack(x)
    a = np.from_dlpack(x)
    del x
    gc.collect()
    assert t.data_ptr() == p
    assert float(t.sum()) == 999000.0 and float(a.sum()) == 999000.0


def test_unconsumed_capsule_releases_its_buffer():
    gc.collect()
    before = strata.memory_stats()["live_buffers"]
    x = jnp.arange(100.0) + 1
    cap = x.__dlpack__()
    del x
    gc.collect()
    assert strata.memory_stats()["live_buffers"] == before + 1  # the capsule holds it
    del cap
    gc.collect()
    assert strata.memory_stats()["live_buffers"] == before


def test_import_copies_once_and_is_independent():
    t = torch.ones(4)
    x = strata.from_dlpack(t)
    t.add_(1)  # the strata array owns its copy
    np.testing.assert_array_equal(np.asarray(x), np.ones(4))


def test_capsule_is_consumed_once():
    cap = tdl.to_dlpack(torch.ones(3))
    strata.from_dlpack(cap)
    with pytest.raises(ValueError, match="already consumed"):
        strata.from_dlpack(cap)


def test_traced_value_cannot_be_exported():
    def f(x):
        x.__dlpack__()
        return x
    with pytest.raises(TypeError, match="ConcretizationTypeError.*__dlpack__"):
        strata.jit(f)(jnp.ones(2))


def test_errors():
    class OnGpu:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            raise AssertionError("not reached")
    with pytest.raises(ValueError, match="device type 2"):
        strata.from_dlpack(OnGpu())
    with pytest.raises(TypeError, match="from_dlpack"):
        strata.from_dlpack([1, 2])
    with pytest.raises(ValueError, match="stream"):
        jnp.ones(2).__dlpack__(stream=5)
    assert jnp.ones(2).__dlpack_device__() == (1, 0)


def test_dlpack_arrays_feed_transforms():
    w = strata.from_dlpack(torch.linspace(-1, 1, 5))
    g = strata.grad(lambda w: jnp.sum(jnp.sin(w) ** 2))(w)
    np.testing.assert_allclose(torch.from_dlpack(g).numpy(),
                               np.sin(2 * np.linspace(-1, 1, 5)), rtol=1e-5, atol=1e-6)
