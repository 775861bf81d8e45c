"""Transforms over Python callables and pytrees (grad, vjp, jvp, vmap, jit, ...). Each flattens
its arguments with strata.tree_util and dispatches into the C++ flat core (strata._core), so the
trace stack is the C++ one: no second implementation lives here."""

import functools

from strata import _core
from strata import numpy as jnp
from strata.tree_util import tree_flatten, tree_unflatten, tree_map, tree_leaves, _prefix_leaves

__all__ = [
    "grad", "value_and_grad", "vjp", "jvp", "linearize", "vmap", "jacfwd", "jacrev", "hessian",
    "jit", "checkpoint", "remat", "eval_shape", "make_ir", "custom_jvp", "custom_vjp",
    "stop_gradient", "ShapeDtypeStruct",
]


def _argnums_tuple(argnums):
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


def _flat_fn(fun, in_tree, box):
    """fun over the leaves of in_tree (its positional arguments) as f(list) -> list; the
    output structure lands in box['out']."""
    def f(xs):
        out = fun(*tree_unflatten(in_tree, xs))
        leaves, box["out"] = tree_flatten(out)
        return leaves
    return f


# ---- Reverse mode ----------------------------------------------------------------------------

def value_and_grad(fun, argnums=0, has_aux=False):
    """fun and its gradient with respect to the arguments in argnums (pytrees of float arrays);
    fun must return a float scalar (with has_aux: (scalar, aux))."""
    nums = _argnums_tuple(argnums)

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        for n in nums:
            if n >= len(args):
                raise TypeError(f"[grad] argnums {argnums} but the function was called with "
                                f"{len(args)} positional arguments")
        diff = tuple(args[n] for n in nums)
        flat, tree = tree_flatten(diff)
        flat = [_core.asarray(x) for x in flat]
        arg_of_leaf = [n for n, d in zip(nums, diff) for _ in tree_leaves(d)]
        _core.check_grad_inputs(flat, "grad", arg_of_leaf)
        box = {}

        def f(xs):
            d = tree_unflatten(tree, xs)
            full = list(args)
            for n, v in zip(nums, d):
                full[n] = v
            out = fun(*full, **kwargs)
            aux_leaves = []
            if has_aux:
                out, aux = out
                aux_leaves, box["aux"] = tree_flatten(aux)
            out = _core.asarray(out)
            _core.check_grad_output(out, "grad")
            return [out] + aux_leaves

        outs, pullback = _core.vjp_flat(f, flat, "grad", False)
        cts = [jnp.ones_like(outs[0])] + [jnp.zeros_like(a) for a in outs[1:]]
        g = tree_unflatten(tree, pullback(cts))
        g = g[0] if isinstance(argnums, int) else g
        if has_aux:
            return (outs[0], tree_unflatten(box["aux"], outs[1:])), g
        return outs[0], g
    return wrapped


def grad(fun, argnums=0, has_aux=False):
    """The gradient of a scalar function (jax.grad)."""
    vg = value_and_grad(fun, argnums, has_aux)

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        if has_aux:
            (_, aux), g = vg(*args, **kwargs)
            return g, aux
        return vg(*args, **kwargs)[1]
    return wrapped


def vjp(fun, *primals, has_aux=False):
    """(fun(*primals), pullback[, aux]); pullback(output cotangent) -> a tuple with one
    cotangent per primal."""
    flat, in_tree = tree_flatten(primals)
    box = {}

    def f(xs):
        out = fun(*tree_unflatten(in_tree, xs))
        aux_leaves = []
        if has_aux:
            out, aux = out
            aux_leaves, box["aux"] = tree_flatten(aux)
        leaves, box["out"] = tree_flatten(out)
        box["n"] = len(leaves)
        return leaves + aux_leaves

    outs, pb = _core.vjp_flat(f, flat, "vjp")
    n, out_tree = box["n"], box["out"]
    aux_outs = outs[n:]

    def pullback(ct):
        ct_leaves, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree:
            raise TypeError(f"[vjp] the cotangent's structure {ct_tree!r} differs from the "
                            f"output's {out_tree!r}")
        return tree_unflatten(in_tree, pb(ct_leaves + [jnp.zeros_like(a) for a in aux_outs]))

    out = tree_unflatten(out_tree, outs[:n])
    if has_aux:
        return out, pullback, tree_unflatten(box["aux"], aux_outs)
    return out, pullback


# ---- Forward mode ----------------------------------------------------------------------------

def jvp(fun, primals, tangents, has_aux=False):
    """(fun(*primals), the directional derivative along tangents), shaped like fun's output;
    with has_aux fun returns (out, aux) and jvp returns (out, tangent_out, aux)."""
    p, in_tree = tree_flatten(tuple(primals))
    t, t_tree = tree_flatten(tuple(tangents))
    if t_tree != in_tree:
        raise TypeError(f"[jvp] tangents' structure {t_tree!r} differs from the primals' "
                        f"{in_tree!r}")
    box = {}
    if not has_aux:
        po, to = _core.jvp_flat(_flat_fn(fun, in_tree, box), p, t)
        return tree_unflatten(box["out"], po), tree_unflatten(box["out"], to)

    def f(xs):
        res = fun(*tree_unflatten(in_tree, xs))
        if not (isinstance(res, tuple) and len(res) == 2):
            raise TypeError("[jvp] with has_aux=True the function must return a pair "
                            f"(output, aux), got {type(res).__name__}")
        out, aux = res
        leaves, box["out"] = tree_flatten(out)
        aux_leaves, box["aux"] = tree_flatten(aux)
        box["n"] = len(leaves)
        return leaves + aux_leaves
    po, to = _core.jvp_flat(f, p, t)
    n = box["n"]
    return (tree_unflatten(box["out"], po[:n]), tree_unflatten(box["out"], to[:n]),
            tree_unflatten(box["aux"], po[n:]))


def linearize(fun, *primals):
    """(fun(*primals), f_jvp) where f_jvp(*tangents) is the jvp at primals."""
    out = fun(*primals)
    return out, lambda *tangents: jvp(fun, primals, tangents)[1]


# ---- Batching --------------------------------------------------------------------------------

def vmap(fun, in_axes=0, out_axes=0):
    """fun mapped over axis in_axes of its arguments (a tree prefix of them; None: not
    batched), outputs stacked at out_axes (None: the output is unbatched, one copy is kept)."""
    @functools.wraps(fun)
    def wrapped(*args):
        if in_axes is None or isinstance(in_axes, int):
            axes = (in_axes,) * len(args)
        else:
            axes = tuple(in_axes)
            if len(axes) != len(args):
                raise ValueError(f"[vmap] in_axes has {len(axes)} entries for {len(args)} "
                                 "arguments")
        flat, tree = tree_flatten(args)
        leaf_axes = _prefix_leaves(axes, args, "[vmap] in_axes")
        arg_of_leaf = [i for i, a in enumerate(args) for _ in tree_leaves(a)]
        box = {}
        outs = _core.vmap_flat(_flat_fn(fun, tree, box), flat, leaf_axes, [], arg_of_leaf)
        out = tree_unflatten(box["out"], outs)
        oaxes = _prefix_leaves(out_axes, out, "[vmap] out_axes")
        outs = [o[0] if ax is None else (o if ax == 0 else jnp.moveaxis(o, 0, ax))
                for o, ax in zip(outs, oaxes)]
        return tree_unflatten(box["out"], outs)
    return wrapped


def _jac_setup(fun, argnums, args, has_aux, name):
    """(f of the differentiated arguments only, those arguments as one pytree `dyn`); dyn is the
    argument itself for an int argnums and a tuple of them for a tuple argnums."""
    nums = _argnums_tuple(argnums)
    for n in nums:
        if n >= len(args):
            raise TypeError(f"[{name}] argnums {argnums} but the function was called with "
                            f"{len(args)} positional arguments")
    dyn = tuple(tree_map(jnp.asarray, args[n]) for n in nums)

    def f(*d):
        full = list(args)
        for n, v in zip(nums, d):
            full[n] = v
        return fun(*full)
    for leaf in tree_leaves(dyn):
        if leaf.dtype.kind not in "fV":  # V: ml_dtypes' bfloat16
            raise TypeError(f"[{name}] differentiates only floating inputs, got "
                            f"{leaf.dtype}{list(leaf.shape)} (argnums={argnums})")
    return f, dyn, isinstance(argnums, int)


def _std_basis(leaves):
    """One basis pytree over all of leaves: for leaf k, an array of shape (N,) + leaf.shape whose
    rows are the unit vectors of its entries (N = the leaves' total size)."""
    sizes = [int(x.size) for x in leaves]
    total, off, out = sum(sizes), 0, []
    for x, s in zip(leaves, sizes):
        rows = jnp.eye(total, s, k=-off, dtype=x.dtype) if s else jnp.zeros((total, 0), x.dtype)
        out.append(jnp.reshape(rows, (total,) + tuple(x.shape)))
        off += s
    return out, sizes


def _split_rows(a, sizes):
    """a (N, ...) split along axis 0 into pieces of the given sizes."""
    out, off = [], 0
    for s in sizes:
        out.append(a[off:off + s])
        off += s
    return out


def jacfwd(fun, argnums=0, has_aux=False):
    """The Jacobian of fun by forward mode (vmap of jvp over a basis of the inputs): for each
    output leaf, a pytree like the argument(s) in argnums whose leaves have shape
    out.shape + in.shape. argnums is an int or a tuple; inputs and outputs may be pytrees."""
    def jac(*args):
        f, dyn, single = _jac_setup(fun, argnums, args, has_aux, "jacfwd")
        x_leaves, x_tree = tree_flatten(dyn)
        basis, sizes = _std_basis(x_leaves)

        def push(*t_leaves):
            return jvp(f, dyn, tree_unflatten(x_tree, list(t_leaves)), has_aux=has_aux)[1]
        cols = vmap(push)(*basis)  # each output leaf: (N,) + out.shape
        if has_aux:
            aux = f(*dyn)[1]

        def per_out(c):
            pieces = []
            for piece, x in zip(_split_rows(c, sizes), x_leaves):
                piece = jnp.moveaxis(piece, 0, -1) if piece.ndim > 1 else piece
                pieces.append(jnp.reshape(piece, tuple(c.shape[1:]) + tuple(x.shape)))
            t = tree_unflatten(x_tree, pieces)
            return t[0] if single else t
        j = tree_map(per_out, cols)
        return (j, aux) if has_aux else j
    return jac


def jacrev(fun, argnums=0, has_aux=False):
    """The Jacobian of fun by reverse mode (vmap of the vjp's pullback over a basis of the
    outputs): for each output leaf, a pytree like the argument(s) in argnums whose leaves have
    shape out.shape + in.shape. argnums is an int or a tuple; inputs and outputs may be
    pytrees."""
    def jac(*args):
        f, dyn, single = _jac_setup(fun, argnums, args, has_aux, "jacrev")
        res = vjp(f, *dyn, has_aux=has_aux)
        y, pb = res[0], res[1]
        y_leaves, y_tree = tree_flatten(y)
        y_leaves = [jnp.asarray(v) for v in y_leaves]
        basis, sizes = _std_basis(y_leaves)
        rows = vmap(lambda *cts: pb(tree_unflatten(y_tree, list(cts))))(*basis)
        x_leaves, x_tree = tree_flatten(dyn)
        r_leaves = tree_leaves(rows)  # per input leaf: (M,) + in.shape
        per_in = [_split_rows(r, sizes) for r in r_leaves]
        outs = []
        for k, yk in enumerate(y_leaves):
            pieces = [jnp.reshape(p[k], tuple(yk.shape) + tuple(x.shape))
                      for p, x in zip(per_in, x_leaves)]
            t = tree_unflatten(x_tree, pieces)
            outs.append(t[0] if single else t)
        j = tree_unflatten(y_tree, outs)
        return (j, res[2]) if has_aux else j
    return jac


def hessian(fun, argnums=0, has_aux=False):
    """The Hessian of a scalar fun, as jacfwd(jacrev(fun)) (nested per argument for a tuple
    argnums or pytree inputs, as in JAX)."""
    return jacfwd(jacrev(fun, argnums, has_aux=has_aux), argnums, has_aux=has_aux)


# ---- Shapes, rematerialization, custom rules ---------------------------------------------------

class ShapeDtypeStruct:
    """A shape and dtype without data (eval_shape's inputs and outputs)."""
    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype, weak_type=False):
        self.shape, self.dtype, self.weak_type = tuple(shape), dtype, weak_type

    def __repr__(self):
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype})"

    def __eq__(self, other):
        return isinstance(other, ShapeDtypeStruct) and (self.shape, str(self.dtype)) == \
            (other.shape, str(other.dtype))

    def __hash__(self):
        return hash((self.shape, str(self.dtype)))


def _aval(x):
    if isinstance(x, (_core.Array, ShapeDtypeStruct)):
        return (tuple(x.shape), x.dtype, bool(getattr(x, "weak_type", False)))
    if hasattr(x, "shape"):  # numpy data: canonicalized silently, as jnp.asarray would
        return (tuple(x.shape), _core.canonicalize_dtype(x.dtype), False)
    a = jnp.asarray(x)
    return (a.shape, a.dtype, a.weak_type)


def eval_shape(fun, *args):
    """The shapes and dtypes of fun's outputs (ShapeDtypeStructs), computing nothing."""
    flat, tree = tree_flatten(args)
    box = {}
    outs = _core.eval_shape_flat(_flat_fn(fun, tree, box), [_aval(x) for x in flat])
    return tree_unflatten(box["out"], [ShapeDtypeStruct(s, d, w) for s, d, w in outs])


def checkpoint(fun, policy=None):
    """fun, rematerialized under grad: only its inputs (and with policy 'dots' the matmul
    outputs, or with a list of names the values tagged by lax.checkpoint_name) are kept."""
    @functools.wraps(fun)
    def wrapped(*args):
        flat, tree = tree_flatten(args)
        box = {}
        outs = _core.checkpoint_flat(_flat_fn(fun, tree, box), policy)(flat)
        return tree_unflatten(box["out"], outs)
    return wrapped


remat = checkpoint


class custom_jvp:
    """jax.custom_jvp: @custom_jvp def f(...), then @f.defjvp def rule(primals, tangents)
    returning (primal_out, tangent_out). The rule must be linear in the tangents (grad
    transposes it)."""

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun, self.jvp_rule = fun, None

    def defjvp(self, rule):
        self.jvp_rule = rule
        return rule

    def __call__(self, *args):
        if self.jvp_rule is None:
            raise TypeError(f"[custom_jvp] {self.fun.__name__} has no rule: call defjvp")
        flat, tree = tree_flatten(args)
        box = {}

        def rule(ps, ts):
            out, tout = self.jvp_rule(tree_unflatten(tree, ps), tree_unflatten(tree, ts))
            box["out"] = tree_flatten(out)[1]
            return tree_leaves(tout)
        outs = _core.custom_jvp_flat(_flat_fn(self.fun, tree, box), rule)(flat)
        return tree_unflatten(box["out"], outs)


class custom_vjp:
    """jax.custom_vjp: @custom_vjp def f(...), then f.defvjp(fwd, bwd) with fwd(*args) ->
    (out, residuals) and bwd(residuals, out_cotangent) -> a tuple of argument cotangents."""

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun, self.fwd, self.bwd = fun, None, None

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args):
        if self.fwd is None:
            raise TypeError(f"[custom_vjp] {self.fun.__name__} has no rule: call defvjp")
        flat, tree = tree_flatten(args)
        box = {}
        f = _flat_fn(self.fun, tree, box)

        def fwd(xs):
            out, res = self.fwd(*tree_unflatten(tree, xs))
            ol, box["out"] = tree_flatten(out)
            rl, box["res"] = tree_flatten(res)
            return ol + rl

        def bwd(res, cts):
            g = self.bwd(tree_unflatten(box["res"], res), tree_unflatten(box["out"], cts))
            if not isinstance(g, tuple):
                raise TypeError("[custom_vjp] bwd must return a tuple with one cotangent per "
                                f"argument, got {type(g).__name__}")
            return tree_leaves(g)

        n = len(_core.eval_shape_flat(f, [_aval(x) for x in flat]))
        outs = _core.custom_vjp_flat(f, fwd, n, bwd)(flat)
        return tree_unflatten(box["out"], outs)


def stop_gradient(x):
    """x unchanged, each leaf treated as a constant by every derivative transform."""
    return tree_map(_core.lax.stop_gradient, x)


# ---- jit --------------------------------------------------------------------------------------

def _static_repr(v):
    return f"{type(v).__module__}.{type(v).__qualname__}:{v!r}"


class Lowered:
    """The staged and lowered texts of one jitted call; as_text(stage) with stage one of
    strata, optimized, linalg, bufferized, llvm, llvm-ir."""

    def __init__(self, lowered):
        self._lowered = lowered

    def as_text(self, stage="strata"):
        return self._lowered.as_text(stage)

    def stages(self):
        return self._lowered.stages()


class _Jitted:
    def __init__(self, fun, static_argnums, static_argnames):
        functools.update_wrapper(self, fun)
        self._fun = fun
        self._static_argnums = _argnums_tuple(static_argnums or ())
        self._static_argnames = (static_argnames,) if isinstance(static_argnames, str) \
            else tuple(static_argnames or ())
        self._jit = _core.JitFunction(getattr(fun, "__name__", "jit_fn"))

    def _prepare(self, args, kwargs):
        nargs = len(args)
        static_pos = {n % nargs if nargs else n for n in self._static_argnums}
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos)
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self._static_argnames}
        statics = [(i, _static_repr(args[i])) for i in sorted(static_pos) if i < nargs]
        statics += [(k, _static_repr(kwargs[k])) for k in sorted(kwargs)
                    if k in self._static_argnames]
        leaves, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        key = repr((in_tree, statics))
        fun = self._fun

        def trace(xs):
            d_args, d_kwargs = tree_unflatten(in_tree, xs)
            it = iter(d_args)
            full = [args[i] if i in static_pos else next(it) for i in range(nargs)]
            kw = dict(kwargs)
            kw.update(d_kwargs)
            out_leaves, out_tree = tree_flatten(fun(*full, **kw))
            return out_leaves, out_tree
        return trace, leaves, key

    def __call__(self, *args, **kwargs):
        trace, leaves, key = self._prepare(args, kwargs)
        outs, out_tree = self._jit.call(trace, leaves, key)
        return tree_unflatten(out_tree, outs)

    def lower(self, *args, **kwargs):
        """Stages and lowers for these arguments without running."""
        trace, leaves, key = self._prepare(args, kwargs)
        return Lowered(self._jit.lower(trace, leaves, key))

    def stats(self):
        """Cache counters: hits, misses, inline_calls, compile_seconds, entries, evictions."""
        return self._jit.stats()

    def explain(self):
        """Why the last call missed the cache ('' when it hit)."""
        return self._jit.explain()


def jit(fun=None, *, static_argnums=None, static_argnames=None):
    """fun compiled through MLIR once per signature (shapes, dtypes, weak types, the pytree
    structure and the static arguments' values); usable as @jit or @jit(static_argnums=...)."""
    if fun is None:
        return lambda f: _Jitted(f, static_argnums, static_argnames)
    return _Jitted(fun, static_argnums, static_argnames)


def make_ir(fun, static_argnums=None, static_argnames=None):
    """Like jax.make_jaxpr: make_ir(f)(*args) is the staged `strata` dialect text."""
    jitted = jit(fun, static_argnums=static_argnums, static_argnames=static_argnames)
    return lambda *args, **kwargs: jitted.lower(*args, **kwargs).as_text("strata")
