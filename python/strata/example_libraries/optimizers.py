"""Optimizers as (init_fun, update_fun, get_params) triples over pytrees of arrays, with
jax.example_libraries.optimizers' names: sgd, momentum, nesterov, adagrad, rmsprop,
rmsprop_momentum, adam, adamax, sm3, the schedules and the gradient utilities.

An optimizer written with @optimizer works on one array; the decorator lifts it to pytrees of
parameters. Its state (OptimizerState) is itself a pytree, so it can be passed through jit."""

import functools
from collections import namedtuple

import strata.numpy as jnp
from strata import tree_util

__all__ = [
    "OptimizerState", "Optimizer", "optimizer", "sgd", "momentum", "nesterov", "adagrad",
    "rmsprop", "rmsprop_momentum", "adam", "adamax", "sm3", "constant", "exponential_decay",
    "inverse_time_decay", "polynomial_decay", "piecewise_constant", "make_schedule", "l2_norm",
    "clip_grads", "unpack_optimizer_state", "pack_optimizer_state",
]

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
"""The state of every parameter leaf (packed_state, a list of per-leaf state pytrees) with the
structures that rebuild the parameter tree (tree_def) and each leaf's state (subtree_defs)."""

tree_util.register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], aux[0], aux[1]))

Optimizer = namedtuple("Optimizer", ["init_fn", "update_fn", "params_fn"])


def optimizer(opt_maker):
    """Lifts an optimizer over single arrays, opt_maker(*args) -> (init(x), update(i, g, state),
    get_params(state)), to one over pytrees of parameters."""
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            x0_flat, tree = tree_util.tree_flatten(x0_tree)
            states = [init(x0) for x0 in x0_flat]
            flat_states, subtrees = zip(*map(tree_util.tree_flatten, states)) if states else ((), ())
            return OptimizerState(list(flat_states), tree, tuple(subtrees))

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            packed, tree, subtrees = opt_state
            grad_flat, tree2 = tree_util.tree_flatten(grad_tree)
            if tree2 != tree:
                raise TypeError("[optimizers] the gradient tree does not match the parameter "
                                f"tree: {tree2} vs {tree}")
            states = [tree_util.tree_unflatten(s, p) for s, p in zip(subtrees, packed)]
            new = [update(i, g, s) for g, s in zip(grad_flat, states)]
            new_packed = [tree_util.tree_leaves(s) for s in new]
            return OptimizerState(new_packed, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            packed, tree, subtrees = opt_state
            states = [tree_util.tree_unflatten(s, p) for s, p in zip(subtrees, packed)]
            return tree_util.tree_unflatten(tree, [get_params(s) for s in states])

        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


# ---- Schedules ----------------------------------------------------------------------------------

def constant(step_size):
    """The schedule i -> step_size."""
    return lambda i: step_size


def exponential_decay(step_size, decay_steps, decay_rate):
    """i -> step_size * decay_rate ** (i / decay_steps)."""
    return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    """i -> step_size / (1 + decay_rate * i / decay_steps), the ratio floored with staircase."""
    if staircase:
        return lambda i: step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
    return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    """From step_size to final_step_size over decay_steps steps along (1 - t) ** power."""
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries, values):
    """values[k] for boundaries[k-1] <= i < boundaries[k] (len(values) == len(boundaries) + 1)."""
    boundaries = jnp.array(boundaries)
    values = jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("[piecewise_constant] boundaries and values must be sequences")
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError("[piecewise_constant] boundaries must be one shorter than values")
    return lambda i: values[jnp.sum(i > boundaries)]


def make_schedule(scalar_or_schedule):
    """A schedule from a callable (kept) or a number (constant)."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(f"[make_schedule] expected a number or a callable, got "
                    f"{type(scalar_or_schedule).__name__}")


# ---- Optimizers ---------------------------------------------------------------------------------

@optimizer
def sgd(step_size):
    """Stochastic gradient descent."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0

    def update(i, g, x):
        return x - step_size(i) * g

    return init, update, lambda x: x


@optimizer
def momentum(step_size, mass):
    """Gradient descent with momentum (heavy ball)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity

    return init, update, lambda state: state[0]


@optimizer
def nesterov(step_size, mass):
    """Nesterov's accelerated gradient."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g), velocity

    return init, update, lambda state: state[0]


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad (Duchi et al. 2011) with momentum on the scaled gradient."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        g_sq_inv_sqrt = jnp.where(g_sq > 0, 1.0 / jnp.sqrt(g_sq), 0.0)
        m = (1.0 - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        return x - step_size(i) * m, g_sq, m

    return init, update, lambda state: state[0]


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp (Tieleman and Hinton 2012)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad

    return init, update, lambda state: state[0]


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp with momentum on the scaled step."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    return init, update, lambda state: state[0]


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma and Ba 2014) with bias-corrected moments."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        t = jnp.asarray(i, x.dtype) + 1
        mhat = m / (1 - b1 ** t)
        vhat = v / (1 - b2 ** t)
        return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v

    return init, update, lambda state: state[0]


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """AdaMax, Adam's infinity-norm variant."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        t = jnp.asarray(i, x.dtype) + 1
        return x - (step_size(i) / (1 - b1 ** t)) * m / (u + eps), m, u

    return init, update, lambda state: state[0]


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3 (Anil et al. 2019): one accumulator per axis of each parameter."""
    step_size = make_schedule(step_size)

    def splice(seq, i, x):
        lst = list(seq)
        lst[i:i + 1] = x
        return lst

    def broadcast_into(ndim, x, axis):
        idx = splice([None] * ndim, axis, [slice(None)])
        return x[tuple(idx)]

    def init(x0):
        x_shape = x0.shape
        x0 = jnp.atleast_1d(x0) if x0.ndim == 0 else x0
        vs = [jnp.zeros(sz, dtype=x0.dtype) for sz in x0.shape]
        return x0, jnp.zeros_like(x0), vs, x_shape

    def update(i, g, state):
        x, m, vs, x_shape = state
        g = jnp.reshape(g, x.shape)
        vs = [broadcast_into(g.ndim, v, k) for k, v in enumerate(vs)]
        accum = functools.reduce(jnp.minimum, vs) + jnp.square(g)
        accum_inv_sqrt = jnp.where(accum > 0, 1.0 / jnp.sqrt(accum), 0)
        m = (1.0 - momentum) * (g * accum_inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        axes = list(range(accum.ndim))
        vs = [jnp.max(accum, axis=tuple(a for a in axes if a != k)) for k in axes]
        return x, m, vs, x_shape

    def get_params(state):
        x, _, _, x_shape = state
        return jnp.reshape(x, x_shape)

    return init, update, get_params


# ---- Utilities ----------------------------------------------------------------------------------

def l2_norm(tree):
    """The l2 norm of all the leaves of tree together."""
    leaves = tree_util.tree_leaves(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
    """grad_tree scaled down so that its l2 norm is at most max_norm."""
    norm = l2_norm(grad_tree)
    normalize = lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm))
    return tree_util.tree_map(normalize, grad_tree)


JoinPoint = namedtuple("JoinPoint", ["subtree"])
"""Marks where a leaf's state subtree joins the parameter tree in an unpacked state."""


def unpack_optimizer_state(opt_state):
    """opt_state as one pytree (the parameter tree with each leaf's state in a JoinPoint), e.g.
    to save it."""
    packed, tree, subtrees = opt_state
    states = [JoinPoint(tree_util.tree_unflatten(s, p)) for s, p in zip(subtrees, packed)]
    return tree_util.tree_unflatten(tree, states)


def pack_optimizer_state(marked_pytree):
    """The inverse of unpack_optimizer_state."""
    sentinels, tree = tree_util.tree_flatten(
        marked_pytree, is_leaf=lambda x: isinstance(x, JoinPoint))
    if not all(isinstance(s, JoinPoint) for s in sentinels):
        raise TypeError("[pack_optimizer_state] expected a tree of JoinPoints")
    subtrees = [s.subtree for s in sentinels]
    flat, subdefs = zip(*map(tree_util.tree_flatten, subtrees)) if subtrees else ((), ())
    return OptimizerState(list(flat), tree, tuple(subdefs))
