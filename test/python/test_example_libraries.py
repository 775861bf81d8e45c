"""strata.example_libraries: the optimizers against their update rules written in numpy, the
schedules against their formulas, and stax layers' shapes, values and combinators."""

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from strata import random
from strata.example_libraries import optimizers, stax

rng = np.random.default_rng(9)
P = {"w": rng.standard_normal((3, 2)).astype(np.float32), "b": np.zeros(2, np.float32)}


def grads_at(step):
    r = np.random.default_rng(step)
    return {k: r.standard_normal(v.shape).astype(np.float32) for k, v in P.items()}


def numpy_adam(x, gs, lr, b1=0.9, b2=0.999, eps=1e-8):
    m = np.zeros_like(x)
    v = np.zeros_like(x)
    for i, g in enumerate(gs):
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g * g + b2 * v
        mhat, vhat = m / (1 - b1 ** (i + 1)), v / (1 - b2 ** (i + 1))
        x = x - lr * mhat / (np.sqrt(vhat) + eps)
    return x


def numpy_momentum(x, gs, lr, mass, nesterov=False):
    vel = np.zeros_like(x)
    for g in gs:
        vel = mass * vel + g
        x = x - lr * (mass * vel + g if nesterov else vel)
    return x


def numpy_rmsprop(x, gs, lr, gamma=0.9, eps=1e-8):
    avg = np.zeros_like(x)
    for g in gs:
        avg = avg * gamma + g * g * (1 - gamma)
        x = x - lr * g / np.sqrt(avg + eps)
    return x


def numpy_adagrad(x, gs, lr, momentum=0.9):
    gsq, m = np.zeros_like(x), np.zeros_like(x)
    for g in gs:
        gsq = gsq + g * g
        m = (1 - momentum) * g / np.sqrt(gsq) + momentum * m
        x = x - lr * m
    return x


CASES = [
    ("sgd", lambda: optimizers.sgd(0.1), lambda x, gs: x - 0.1 * sum(gs)),
    ("momentum", lambda: optimizers.momentum(0.1, 0.9), lambda x, gs: numpy_momentum(x, gs, 0.1, 0.9)),
    ("nesterov", lambda: optimizers.nesterov(0.1, 0.9),
     lambda x, gs: numpy_momentum(x, gs, 0.1, 0.9, True)),
    ("adam", lambda: optimizers.adam(0.01), lambda x, gs: numpy_adam(x, gs, 0.01)),
    ("rmsprop", lambda: optimizers.rmsprop(0.01), lambda x, gs: numpy_rmsprop(x, gs, 0.01)),
    ("adagrad", lambda: optimizers.adagrad(0.1), lambda x, gs: numpy_adagrad(x, gs, 0.1)),
]


@pytest.mark.parametrize("name,make,ref", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("jit", [False, True])
def test_optimizer_matches_numpy_rule(name, make, ref, jit):
    init, update, get_params = make()
    step = strata.jit(update) if jit else update
    state = init(P)
    for i in range(4):
        state = step(i, grads_at(i), state)
    out = get_params(state)
    for k in P:
        want = ref(P[k].astype(np.float64), [grads_at(i)[k].astype(np.float64) for i in range(4)])
        np.testing.assert_allclose(np.asarray(out[k]), want, rtol=1e-4, atol=1e-5)
    if jit:
        assert step.stats()["misses"] == 1


def test_other_optimizers_descend_a_quadratic():
    for make in (lambda: optimizers.adamax(0.1), lambda: optimizers.sm3(0.1),
                 lambda: optimizers.rmsprop_momentum(0.01)):
        init, update, get_params = make()
        state = init(jnp.asarray([3.0, -2.0]))
        loss = lambda x: jnp.sum(x * x)
        start = float(loss(get_params(state)))
        for i in range(50):
            state = update(i, strata.grad(loss)(get_params(state)), state)
        assert float(loss(get_params(state))) < 0.5 * start


def test_state_is_a_pytree_and_packs():
    init, update, get_params = optimizers.adam(0.01)
    state = init(P)
    leaves = strata.tree_util.tree_leaves(state)
    assert len(leaves) == 6  # (x, m, v) for each of two parameters
    again = optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(state))
    assert strata.tree_util.tree_structure(again) == strata.tree_util.tree_structure(state)
    with pytest.raises(TypeError, match="gradient tree"):
        update(0, {"w": P["w"]}, state)


def test_schedules():
    assert optimizers.constant(0.5)(10) == 0.5
    np.testing.assert_allclose(float(optimizers.exponential_decay(1.0, 10, 0.5)(20)), 0.25)
    np.testing.assert_allclose(float(optimizers.inverse_time_decay(1.0, 10, 1.0)(10)), 0.5)
    np.testing.assert_allclose(
        float(optimizers.inverse_time_decay(1.0, 10, 1.0, staircase=True)(15)), 0.5)
    pd = optimizers.polynomial_decay(1.0, 10, 0.1, power=2.0)
    np.testing.assert_allclose([float(pd(i)) for i in (0, 5, 10, 20)],
                               [1.0, 0.1 + 0.9 * 0.25, 0.1, 0.1], rtol=1e-6)
    pc = optimizers.piecewise_constant([5, 10], [1.0, 0.5, 0.1])
    assert [float(pc(i)) for i in (0, 5, 6, 11)] == [1.0, 1.0, 0.5, pytest.approx(0.1)]
    with pytest.raises(ValueError):
        optimizers.piecewise_constant([5], [1.0])


def test_l2_norm_and_clip_grads():
    g = {"a": jnp.asarray([3.0]), "b": jnp.asarray([4.0])}
    assert float(optimizers.l2_norm(g)) == 5.0
    c = optimizers.clip_grads(g, 1.0)
    np.testing.assert_allclose([float(c["a"][0]), float(c["b"][0])], [0.6, 0.8], rtol=1e-6)
    same = optimizers.clip_grads(g, 10.0)
    assert float(same["a"][0]) == 3.0


def test_stax_dense_serial_shapes_and_values():
    init, apply = stax.serial(stax.Dense(5), stax.Relu, stax.Dense(3), stax.LogSoftmax)
    out_shape, params = init(random.key(0), (-1, 4))
    assert out_shape == (-1, 3)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    (w1, b1), _, (w2, b2), _ = [tuple(np.asarray(a) for a in p) if p else p for p in params]
    h = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    want = h - np.log(np.exp(h).sum(-1, keepdims=True))
    np.testing.assert_allclose(np.asarray(apply(params, x)), want, rtol=1e-5, atol=1e-6)


def test_stax_fan_parallel_concat_flatten_identity():
    init, apply = stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(3), stax.Identity),
                              stax.FanInConcat())
    shape, params = init(random.key(1), (2, 4))
    x = jnp.asarray(rng.standard_normal((2, 4)).astype(np.float32))
    y = apply(params, x)
    assert shape == (2, 7) and y.shape == (2, 7)
    np.testing.assert_allclose(np.asarray(y[:, 3:]), np.asarray(x))
    init2, apply2 = stax.serial(stax.FanOut(3), stax.FanInSum)
    _, p2 = init2(random.key(2), (2, 4))
    np.testing.assert_allclose(np.asarray(apply2(p2, x)), 3 * np.asarray(x), rtol=1e-6)
    fshape, _ = stax.Flatten[0](random.key(0), (2, 3, 4))
    assert fshape == (2, 12) and stax.Flatten[1]((), jnp.zeros((2, 3, 4))).shape == (2, 12)


def test_stax_batchnorm_and_dropout():
    init, apply = stax.BatchNorm(axis=(0,))
    _, (beta, gamma) = init(random.key(0), (8, 3))
    x = rng.standard_normal((8, 3)).astype(np.float32) * 3 + 1
    want = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
    np.testing.assert_allclose(np.asarray(apply((beta, gamma), x)), want, rtol=1e-4, atol=1e-5)
    d_init, d_apply = stax.Dropout(0.5)
    y = np.asarray(d_apply((), jnp.ones((1000,)), rng=random.key(3)))
    assert set(np.unique(y)) <= {0.0, 2.0} and 0.4 < (y > 0).mean() < 0.6
    with pytest.raises(ValueError, match="rng"):
        d_apply((), jnp.ones(3))
    assert np.array_equal(np.asarray(stax.Dropout(0.5, mode="test")[1]((), jnp.ones(3),
                                                                      rng=random.key(0))),
                          np.ones(3))
