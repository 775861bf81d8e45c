"""strata.devices() and device_put: the host always, GPUs when the CUDA runtime finds one."""
import numpy as np
import pytest

import strata
import strata.numpy as jnp

HAS_GPU = any(n.startswith("cuda") for n in strata._core.devices())


def test_devices_are_the_default_backends():
    # As JAX: devices() lists the default backend's devices (the GPUs when there are any).
    assert strata.devices("cpu") == ["cpu:0"]
    assert strata._core.devices()[0] == "cpu:0"
    if HAS_GPU:
        assert all(str(d).startswith("cuda:") and d.platform == "gpu" for d in strata.devices())


@pytest.mark.skipif(HAS_GPU, reason="this machine has a GPU")
def test_without_a_gpu_the_reason_is_given():
    assert strata.devices() == ["cpu:0"]
    assert strata._core.gpu_unavailable_reason() != ""
    with pytest.raises(ValueError, match=r"cuda:0.*not available"):
        strata.device_put(np.ones(3, np.float32), "cuda:0")
    with pytest.raises(ValueError, match="not a device name"):
        strata.device_put(np.ones(3), "tpu:0")


def test_device_put_on_the_host_keeps_values():
    tree = {"a": np.arange(6.0).reshape(2, 3), "b": [np.int32(4)]}
    out = strata.device_put(tree, "cpu")
    assert out["a"].device == "cpu:0"
    np.testing.assert_array_equal(np.asarray(out["a"]), tree["a"])
    assert int(out["b"][0]) == 4


@pytest.mark.skipif(not HAS_GPU, reason="no GPU")
def test_jit_and_eager_run_on_the_gpu():
    x = np.random.default_rng(0).standard_normal((128, 256)).astype(np.float32)
    d = strata.device_put(x, "cuda:0")
    assert d.device == "cuda:0"

    @strata.jit
    def f(v):
        return jnp.tanh(v) @ v.T

    y = f(d)
    assert y.device == "cuda:0"
    np.testing.assert_allclose(np.asarray(y), np.tanh(x) @ x.T, rtol=1e-4, atol=1e-3)
    e = jnp.exp(d) + 1.0
    assert e.device == "cuda:0"
    np.testing.assert_allclose(np.asarray(e), np.exp(x) + 1.0, rtol=1e-5)
