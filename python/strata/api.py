"""Transforms over Python callables and pytrees (grad, vjp, jvp, vmap, jit, ...). Each flattens
its arguments with strata.tree_util and dispatches into the C++ flat core (strata._core), so the
trace stack is the C++ one: no second implementation lives here."""

import contextlib
import functools
import inspect
import logging
import threading
import types

import numpy as _np

from strata import _core
from strata import numpy as jnp
from strata._config import config
from strata import tree_util as _tree_util
from strata.tree_util import tree_flatten, tree_unflatten, tree_map, tree_leaves, _prefix_leaves

__all__ = [
    "grad", "value_and_grad", "vjp", "jvp", "linearize", "vmap", "jacfwd", "jacrev", "jacobian",
    "hessian", "jit", "checkpoint", "remat", "checkpoint_policies", "eval_shape", "make_ir",
    "make_jaxpr", "custom_jvp", "custom_vjp", "custom_gradient", "stop_gradient",
    "ShapeDtypeStruct", "ShapedArray", "typeof", "linear_transpose", "named_scope",
    "ensure_compile_time_eval", "disable_jit", "named_call", "clear_caches",
]

_logger = logging.getLogger("strata")


# ---- Options JAX programs set (strata.config) ---------------------------------------------------

def _set_float_checks(_value):
    v = config._values
    _core.set_debug_nans(bool(v.get("jax_debug_nans", False)), bool(v.get("jax_debug_infs", False)))


def _one_of(name, allowed):
    def check(value):
        if value not in allowed:
            raise ValueError(f"[config] {name} must be one of {allowed}, got {value!r}")
    return check


config.define("jax_debug_nans", False, "Raise FloatingPointError at the first primitive that "
              "produces a NaN (eagerly; a jitted call that returns one is re-run op by op).",
              _set_float_checks)
config.define("jax_debug_infs", False, "As jax_debug_nans, for infinities.", _set_float_checks)
config.define("jax_disable_jit", False, "strata.jit runs its function eagerly (disable_jit()).")
config.define("jax_log_compiles", False, "Log a line (logger 'strata', WARNING) per compilation.")
config.define("jax_default_matmul_precision", None, "Accepted; Strata's matmuls always run at "
              "the inputs' full precision.",
              _one_of("jax_default_matmul_precision",
                      (None, "default", "high", "highest", "bfloat16", "tensorfloat32",
                       "float32", "bfloat16_3x", "fastest")))
config.define("jax_numpy_rank_promotion", "allow", "Accepted ('allow', 'warn', 'raise'); "
              "broadcasting always promotes ranks.",
              _one_of("jax_numpy_rank_promotion", ("allow", "warn", "raise")))
config.define("jax_platforms", None, "Comma-separated platforms to use ('cpu', 'cuda'/'gpu'): "
              "filters strata.devices() and the default backend.")
config.define("jax_platform_name", None, "As jax_platforms, one platform (deprecated in JAX).")
config.define("jax_traceback_filtering", "auto", "Accepted; tracebacks are never filtered.",
              _one_of("jax_traceback_filtering",
                      ("auto", "off", "tracebackhide", "remove_frames", "quiet_remove_frames")))


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

def _is_complex(x):
    return _np.dtype(_core.asarray(x).dtype).kind == "c"


def _check_holomorphic(op, what, leaves):
    """JAX's check of holomorphic=True: every input (or output) leaf is complex."""
    for x in leaves:
        if not _is_complex(x):
            raise TypeError(f"[{op}] {op} with holomorphic=True requires {what} with complex "
                            f"dtype, but got {_np.dtype(_core.asarray(x).dtype).name}")


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False):
    """fun and its gradient with respect to the arguments in argnums (pytrees of float or
    complex arrays); fun must return a real scalar (with has_aux: (scalar, aux)). For a complex
    input the gradient is JAX's: the conjugate of the Wirtinger derivative df/dz-bar, times 2.
    holomorphic=True takes complex inputs to a complex scalar and gives f'(z)."""
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
        if holomorphic:
            _check_holomorphic("grad", "inputs", flat)
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
            if holomorphic:
                if out.ndim != 0:
                    raise TypeError(f"[grad] the function must return a scalar, got "
                                    f"{out.type_str()}")
                _check_holomorphic("grad", "outputs", [out])
            else:
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


def grad(fun, argnums=0, has_aux=False, holomorphic=False):
    """The gradient of a scalar function (jax.grad)."""
    vg = value_and_grad(fun, argnums, has_aux, holomorphic)

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

class _AxisEnv(threading.local):
    """The named axes of the vmaps being traced, innermost last: (axis_name, size) pairs, for the
    collectives (lax.psum, lax.axis_index, ...) that name them."""

    def __init__(self):
        self.frames = []


_axis_env = _AxisEnv()


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None):
    """fun mapped over axis in_axes of its arguments (a tree prefix of them; None: not
    batched), outputs stacked at out_axes (None: the output is unbatched, one copy is kept).
    Keyword arguments are mapped over axis 0; axis_size gives the size when nothing is mapped."""
    if axis_size is not None and (not isinstance(axis_size, int) or axis_size < 0):
        raise TypeError(f"[vmap] axis_size must be a non-negative int or None, got {axis_size!r}")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if not (in_axes is None or isinstance(in_axes, (int, tuple))):
        raise TypeError("[vmap] in_axes must be an int, None, or a tuple of entries corresponding "
                        f"to the positional arguments passed to the function, got {in_axes!r}")

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        if in_axes is None or isinstance(in_axes, int):
            axes = (in_axes,) * len(args)
        else:
            axes = tuple(in_axes)
            if len(axes) != len(args):
                raise ValueError(f"[vmap] in_axes has {len(axes)} entries for {len(args)} "
                                 "arguments")
        all_args = args + ((kwargs,) if kwargs else ())
        all_axes = axes + ((0,) if kwargs else ())
        flat, tree = tree_flatten(all_args)
        leaf_axes = list(_prefix_leaves(all_axes, all_args, "[vmap] in_axes"))
        arg_of_leaf = [i for i, a in enumerate(all_args) for _ in tree_leaves(a)]
        flat = [_core.asarray(x) for x in flat]
        mapped = [ax is not None for ax in leaf_axes]
        sizes = {int(x.shape[ax]) for x, ax in zip(flat, leaf_axes)
                 if ax is not None and -x.ndim <= ax < x.ndim}  # the core reports bad axes
        if axis_size is not None and sizes and sizes != {axis_size}:
            raise ValueError(f"[vmap] axis_size={axis_size} but the mapped arguments have sizes "
                             f"{sorted(sizes)}")
        n_real = len(flat)
        if not any(mapped):
            if axis_size is None:
                raise ValueError("[vmap] vmap must have at least one non-None value in in_axes "
                                 "(or give axis_size)")
            # Nothing is mapped: one placeholder of the right size carries the batch.
            flat.append(jnp.zeros((axis_size,), jnp.float32))
            leaf_axes.append(0)
            arg_of_leaf.append(len(all_args))
        size = axis_size if axis_size is not None else (min(sizes) if sizes else None)
        box = {}

        def f(xs):
            pos, kw = tree_unflatten(tree, xs[:n_real]), {}
            if kwargs:
                pos, kw = pos[:-1], pos[-1]
            leaves, box["out"] = tree_flatten(fun(*pos, **kw))
            return leaves

        _axis_env.frames.append((axis_name, size, spmd_axis_name))
        try:
            outs = _core.vmap_flat(f, flat, leaf_axes, [], arg_of_leaf)
        finally:
            _axis_env.frames.pop()
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
        if leaf.dtype.kind not in "fcV":  # V: ml_dtypes' bfloat16
            raise TypeError(f"[{name}] differentiates only floating or complex inputs, got "
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


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Jacobian of fun by forward mode (vmap of jvp over a basis of the inputs): for each
    output leaf, a pytree like the argument(s) in argnums whose leaves have shape
    out.shape + in.shape. argnums is an int or a tuple; inputs and outputs may be pytrees.
    Complex inputs need holomorphic=True (then df/dz of complex outputs), as in JAX."""
    def jac(*args):
        f, dyn, single = _jac_setup(fun, argnums, args, has_aux, "jacfwd")
        x_leaves, x_tree = tree_flatten(dyn)
        if holomorphic:
            _check_holomorphic("jacfwd", "inputs", x_leaves)
        elif any(_is_complex(x) for x in x_leaves):
            raise TypeError("[jacfwd] jacfwd requires real-valued inputs (input dtype that is "
                            "a sub-dtype of np.floating); for holomorphic differentiation, "
                            "pass holomorphic=True")
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


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False):
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
        if holomorphic:
            _check_holomorphic("jacrev", "outputs", y_leaves)
        elif any(_is_complex(v) for v in y_leaves):
            raise TypeError("[jacrev] jacrev requires real-valued outputs (output dtype that "
                            "is a sub-dtype of np.floating); for holomorphic differentiation, "
                            "pass holomorphic=True")
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


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Hessian of a scalar fun, as jacfwd(jacrev(fun)) (nested per argument for a tuple
    argnums or pytree inputs, as in JAX)."""
    return jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic), argnums,
                  has_aux=has_aux, holomorphic=holomorphic)


# ---- Shapes, rematerialization, custom rules ---------------------------------------------------

def _canonical_dtype(dtype):
    return _np.dtype(dtype) if dtype is not None else None


class ShapeDtypeStruct:
    """A shape and dtype without data (eval_shape's inputs and outputs, jit(...).lower's
    arguments)."""
    __slots__ = ("shape", "dtype", "weak_type", "sharding")

    def __init__(self, shape, dtype, sharding=None, weak_type=False):
        self.shape, self.dtype = tuple(int(d) for d in shape), _canonical_dtype(dtype)
        self.weak_type, self.sharding = bool(weak_type), sharding

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(_np.prod(self.shape, dtype=_np.int64)))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype}{weak})"

    def __eq__(self, other):
        return isinstance(other, ShapeDtypeStruct) and (self.shape, self.dtype, self.weak_type) \
            == (other.shape, other.dtype, other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
          "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
          "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "bool"}


class ShapedArray:
    """The abstract value of an array (jax.core.ShapedArray): shape, dtype and weak type, as
    typeof() and make_jaxpr(...).in_avals give them."""
    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype, weak_type=False):
        self.shape, self.dtype = tuple(int(d) for d in shape), _np.dtype(dtype)
        self.weak_type = bool(weak_type)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(_np.prod(self.shape, dtype=_np.int64)))

    def update(self, shape=None, dtype=None, weak_type=None):
        """A copy with the given fields replaced."""
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type)

    def str_short(self, short_dtypes=False):
        """'float32[2,3]' (with short_dtypes: 'f32[2,3]')."""
        name = self.dtype.name
        dims = ",".join(map(str, self.shape))
        return f"{_SHORT.get(name, name) if short_dtypes else name}[{dims}]"

    def __str__(self):
        return self.str_short()

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    def __eq__(self, other):
        return isinstance(other, ShapedArray) and (self.shape, self.dtype, self.weak_type) == \
            (other.shape, other.dtype, other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


def _aval(x):
    if isinstance(x, (_core.Array, ShapeDtypeStruct, ShapedArray)):
        return (tuple(x.shape), x.dtype, bool(getattr(x, "weak_type", False)))
    if hasattr(x, "shape"):  # numpy data: canonicalized silently, as jnp.asarray would
        return (tuple(x.shape), _core.canonicalize_dtype(x.dtype), False)
    a = jnp.asarray(x)
    return (a.shape, a.dtype, a.weak_type)


def typeof(x):
    """The abstract value (a ShapedArray: shape, dtype, weak_type) of an array, a tracer, a
    ShapeDtypeStruct or a Python/numpy scalar or array (as strata.numpy.asarray makes it)."""
    if isinstance(x, (tuple, list, dict)):
        raise TypeError(f"[typeof] takes an array or scalar, got a {type(x).__name__}")
    return ShapedArray(*_aval(x))


def eval_shape(fun, *args, **kwargs):
    """The shapes and dtypes of fun's outputs (ShapeDtypeStructs), computing nothing; arguments
    may be arrays or ShapeDtypeStructs (pytrees of them)."""
    flat, tree = tree_flatten((args, kwargs))
    box = {}

    def f(xs):
        a, k = tree_unflatten(tree, xs)
        leaves, box["out"] = tree_flatten(fun(*a, **k))
        return leaves
    outs = _core.eval_shape_flat(f, [_aval(x) for x in flat])
    return tree_unflatten(box["out"], [ShapeDtypeStruct(s, d, weak_type=w) for s, d, w in outs])


# ---- checkpoint and its policies ----------------------------------------------------------------

class Primitive:
    """What a callable checkpoint policy receives as `prim`: the primitive's name (one object per
    name, so `prim is other` works)."""
    __slots__ = ("name",)
    _interned = {}

    def __new__(cls, name):
        p = cls._interned.get(name)
        if p is None:
            p = object.__new__(cls)
            p.name = name
            cls._interned[name] = p
        return p

    def __repr__(self):
        return self.name


def _policy_params(name, params):
    """A primitive's parameters as JAX names them, where they differ (dot_general's
    dimension_numbers)."""
    if name == "dot_general" and "lhs_batch" in params:
        params = dict(params)
        params["dimension_numbers"] = ((params["lhs_contracting"], params["rhs_contracting"]),
                                       (params["lhs_batch"], params["rhs_batch"]))
    return params


def everything_saveable(*_, **__):
    """Save every intermediate value: nothing is recomputed."""
    return True


def nothing_saveable(*_, **__):
    """Save nothing: the whole function is recomputed (checkpoint's default)."""
    return False


def dots_saveable(prim, *_, **__):
    """Save the outputs of matrix multiplications (dot_general), recompute the rest."""
    return prim.name == "dot_general"


def dots_with_no_batch_dims_saveable(prim, *_, **params):
    """Save the outputs of dot_generals that have no batch dimensions."""
    if prim.name != "dot_general":
        return False
    (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
    return not lhs_b and not rhs_b


def save_anything_except_these_names(*names_not_to_save):
    """A policy saving every value except those tagged (lax.checkpoint_name) with these names."""
    names = frozenset(names_not_to_save)

    def policy(prim, *_, **params):
        return params["name"] not in names if prim.name == "checkpoint_name" else True
    return policy


def save_any_names_but_these(*names_not_to_save):
    """A policy saving only tagged values, except those with these names."""
    names = frozenset(names_not_to_save)

    def policy(prim, *_, **params):
        return prim.name == "checkpoint_name" and params["name"] not in names
    return policy


def save_only_these_names(*names_which_can_be_saved):
    """A policy saving only the values tagged with these names."""
    names = list(dict.fromkeys(names_which_can_be_saved))

    def policy(prim, *_, **params):
        return prim.name == "checkpoint_name" and params["name"] in names
    policy._strata_names = names  # run by the core without calling back into Python
    return policy


def save_from_both_policies(policy_1, policy_2):
    """A policy saving what either policy saves."""
    def policy(prim, *args, **params):
        return policy_1(prim, *args, **params) or policy_2(prim, *args, **params)
    return policy


def _offload_unsupported(name):
    def make(*_, **__):
        raise NotImplementedError(f"[checkpoint_policies] {name}: Strata has no host offloading")
    make.__name__ = name
    make.__doc__ = "Not supported: Strata has no host offloading (raises NotImplementedError)."
    return make


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=_offload_unsupported("save_and_offload_only_these_names"),
    offload_dot_with_no_batch_dims=_offload_unsupported("offload_dot_with_no_batch_dims"),
)


def _core_policy(policy):
    """policy as checkpoint_flat takes it: None, 'dots', 'everything', a list of names, or a
    callback(name, input avals, params) -> bool."""
    if policy is None or policy is nothing_saveable:
        return None
    if policy is everything_saveable:
        return "everything"
    if policy is dots_saveable:
        return "dots"  # JAX's also saves convolutions; Strata lowers them to dot_general
    if hasattr(policy, "_strata_names"):
        return list(policy._strata_names)
    if isinstance(policy, (str, list, tuple)):
        return list(policy) if isinstance(policy, tuple) else policy  # Strata's own spellings
    if not callable(policy):
        raise TypeError(f"[checkpoint] policy must be callable (jax.checkpoint_policies.*), got "
                        f"{type(policy).__name__}")

    def callback(name, avals, params):
        return bool(policy(Primitive(name), *[ShapedArray(*a) for a in avals],
                           **_policy_params(name, params)))
    return callback


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """fun, rematerialized under grad: only its inputs and what `policy` saves (a
    strata.checkpoint_policies policy, or policy(prim, *avals, **params) -> bool) are kept;
    the rest is recomputed. prevent_cse is accepted (Strata never merges the recomputation)."""
    nums = _argnums_tuple(static_argnums)
    core_policy = _core_policy(policy)

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        for n in nums:
            if not -len(args) <= n < len(args):
                raise ValueError(f"[checkpoint] static_argnums {static_argnums} out of range for "
                                 f"{len(args)} positional arguments")
        static = {n % len(args) for n in nums}
        dyn = (tuple(a for i, a in enumerate(args) if i not in static), kwargs)
        flat, tree = tree_flatten(dyn)
        box = {}

        def f(xs):
            d_args, d_kwargs = tree_unflatten(tree, xs)
            it = iter(d_args)
            full = [args[i] if i in static else next(it) for i in range(len(args))]
            leaves, box["out"] = tree_flatten(fun(*full, **d_kwargs))
            return leaves
        outs = _core.checkpoint_flat(f, core_policy)(flat)
        return tree_unflatten(box["out"], outs)
    return wrapped


remat = checkpoint


# ---- custom derivative rules --------------------------------------------------------------------

def _resolve_kwargs(fun, args, kwargs):
    """args with kwargs placed by fun's signature (JAX's custom rules take positional inputs)."""
    if not kwargs:
        return tuple(args)
    try:
        ba = inspect.signature(fun).bind(*args, **kwargs)
    except (TypeError, ValueError) as e:
        raise TypeError(f"[custom_jvp/custom_vjp] cannot place the keyword arguments "
                        f"{sorted(kwargs)}: {e}") from None
    ba.apply_defaults()
    if ba.kwargs:
        raise TypeError("[custom_jvp/custom_vjp] keyword-only arguments are not supported: "
                        f"{sorted(ba.kwargs)}")
    return tuple(ba.args)


def _nondiff_split(nondiff_argnums, args, what):
    """(positions of the nondiff arguments, the differentiable arguments as a tuple)."""
    nd = []
    for n in nondiff_argnums:
        if not -len(args) <= n < len(args):
            raise ValueError(f"[{what}] nondiff_argnums {tuple(nondiff_argnums)} out of range for "
                             f"{len(args)} arguments")
        nd.append(n % len(args))
    return sorted(set(nd)), tuple(a for i, a in enumerate(args) if i not in set(nd))


def _merge(nd, nondiff, diff, n):
    """The full argument list from the nondiff (at positions nd) and the other arguments."""
    it_nd, it_d = iter(nondiff), iter(diff)
    return [next(it_nd) if i in nd else next(it_d) for i in range(n)]


def _add_tangents(a, b):
    return b if a is None else a if b is None else a + b


class custom_jvp:
    """jax.custom_jvp: @custom_jvp def f(...), then @f.defjvp def rule(primals, tangents)
    returning (primal_out, tangent_out), or f.defjvps(one rule per argument). With
    nondiff_argnums those arguments are passed first to the rule, undifferentiated. The rule
    must be linear in the tangents (grad transposes it)."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun, self.jvp_rule = fun, None
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.symbolic_zeros = False

    def defjvp(self, jvp, symbolic_zeros=False):
        """Sets the rule jvp(*nondiff_args, primals, tangents) -> (primal_out, tangent_out).
        symbolic_zeros is accepted: zero tangents always arrive as arrays of zeros."""
        self.jvp_rule, self.symbolic_zeros = jvp, symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """One rule per argument, jvp_i(g_i, primal_out, *primals) -> its tangent contribution
        (None: the output does not depend on that argument); the contributions are summed."""
        if self.nondiff_argnums:
            raise TypeError("[custom_jvp] defjvps cannot be used with nondiff_argnums")

        def rule(primals, tangents):
            if len(jvps) != len(primals):
                raise TypeError(f"[custom_jvp] defjvps got {len(jvps)} rules for a function "
                                f"of {len(primals)} arguments")
            ans = self(*primals)
            total = None
            for t, j in zip(tangents, jvps):
                if j is not None:
                    total = tree_map(_add_tangents, total, j(t, ans, *primals)) \
                        if total is not None else j(t, ans, *primals)
            return ans, total if total is not None else tree_map(jnp.zeros_like, ans)
        self.defjvp(rule)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        if self.jvp_rule is None:
            raise AttributeError(f"[custom_jvp] no JVP defined for {self.__name__}: call defjvp")
        args = _resolve_kwargs(self.fun, args, kwargs)
        nd, diff = _nondiff_split(self.nondiff_argnums, args, "custom_jvp")
        nondiff = [args[i] for i in nd]
        n = len(args)
        flat, tree = tree_flatten(diff)
        box = {}

        def f(xs):
            leaves, box["out"] = tree_flatten(self.fun(*_merge(nd, nondiff, tree_unflatten(
                tree, xs), n)))
            return leaves

        def rule(ps, ts):
            res = self.jvp_rule(*nondiff, tree_unflatten(tree, ps), tree_unflatten(tree, ts))
            if not (isinstance(res, (tuple, list)) and len(res) == 2):
                raise TypeError("[custom_jvp] the rule must return a pair (primal_out, "
                                f"tangent_out), got {type(res).__name__}")
            out, tout = res
            out_tree = tree_flatten(out)[1]
            box["out"] = out_tree
            t_leaves, t_tree = tree_flatten(tout)
            if t_tree != out_tree:
                raise TypeError("[custom_jvp] the rule must produce primal and tangent outputs "
                                f"with equal structures, got {out_tree!r} and {t_tree!r}")
            return t_leaves
        outs = _core.custom_jvp_flat(f, rule)(flat)
        return tree_unflatten(box["out"], outs)


class CustomVJPPrimal:
    """What fwd receives per argument with defvjp(..., symbolic_zeros=True): the value and
    whether it is perturbed (always True in Strata)."""
    __slots__ = ("value", "perturbed")

    def __init__(self, value, perturbed=True):
        self.value, self.perturbed = value, perturbed

    def __repr__(self):
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


class custom_vjp:
    """jax.custom_vjp: @custom_vjp def f(...), then f.defvjp(fwd, bwd) with fwd(*args) ->
    (out, residuals) and bwd(*nondiff_args, residuals, out_cotangent) -> a tuple with one
    cotangent (or None for zeros) per differentiable argument."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun, self.fwd, self.bwd = fun, None, None
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.symbolic_zeros = False

    def defvjp(self, fwd, bwd, symbolic_zeros=False):
        """Sets the rules; with symbolic_zeros fwd gets CustomVJPPrimal(value, perturbed) per
        argument leaf (cotangents still arrive as arrays, zeros included)."""
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise AttributeError(f"[custom_vjp] no VJP defined for {self.__name__}: call defvjp")
        args = _resolve_kwargs(self.fun, args, kwargs)
        nd, diff = _nondiff_split(self.nondiff_argnums, args, "custom_vjp")
        nondiff = [args[i] for i in nd]
        n = len(args)
        flat, tree = tree_flatten(diff)
        box = {}

        def f(xs):
            leaves, box["out"] = tree_flatten(self.fun(*_merge(nd, nondiff, tree_unflatten(
                tree, xs), n)))
            return leaves

        def fwd(xs):
            d = tree_unflatten(tree, xs)
            if self.symbolic_zeros:
                d = tree_map(CustomVJPPrimal, d)
            res = self.fwd(*_merge(nd, nondiff, d, n))
            if not (isinstance(res, (tuple, list)) and len(res) == 2):
                raise TypeError("[custom_vjp] fwd must return a pair (output, residuals), got "
                                f"{type(res).__name__}")
            out, r = res
            ol, box["out"] = tree_flatten(out)
            rl, box["res"] = tree_flatten(r)
            return ol + rl

        def bwd(res, cts):
            g = self.bwd(*nondiff, tree_unflatten(box["res"], res),
                         tree_unflatten(box["out"], cts))
            if not isinstance(g, tuple):
                raise TypeError("[custom_vjp] bwd must return a tuple with one cotangent per "
                                f"differentiable argument, got {type(g).__name__}")
            if len(g) != len(diff):
                raise TypeError(f"[custom_vjp] bwd returned {len(g)} cotangents for "
                                f"{len(diff)} differentiable arguments")
            leaves = []
            for gi, xi in zip(g, diff):
                x_leaves, x_tree = tree_flatten(xi)
                if gi is None:
                    leaves += [jnp.zeros_like(x) for x in x_leaves]
                    continue
                g_leaves, g_tree = tree_flatten(gi)
                if g_tree != x_tree:
                    raise TypeError(f"[custom_vjp] bwd's cotangent structure {g_tree!r} "
                                    f"differs from its argument's {x_tree!r}")
                leaves += g_leaves
            return leaves

        n_out = len(_core.eval_shape_flat(f, [_aval(x) for x in flat]))
        outs = _core.custom_vjp_flat(f, fwd, n_out, bwd)(flat)
        return tree_unflatten(box["out"], outs)


def custom_gradient(fun):
    """jax.custom_gradient: fun(*args) returns (out, vjp_fn) with vjp_fn(out_cotangent) -> a
    tuple of argument cotangents (a single one for one argument); the result is fun's output,
    differentiated by vjp_fn."""
    @functools.wraps(fun)
    def wrapped(*args):
        box = {}

        def primal(*a):
            return fun(*a)[0]

        def fwd(*a):
            out, box["vjp"] = fun(*a)
            return out, None

        def bwd(_, g):
            cts = box["vjp"](g)
            if not isinstance(cts, tuple):
                cts = (cts,)
            return cts
        f = custom_vjp(primal)
        f.defvjp(fwd, bwd)
        return f(*args)
    return wrapped


def stop_gradient(x):
    """x unchanged, each leaf treated as a constant by every derivative transform."""
    return tree_map(_core.lax.stop_gradient, x)


# ---- jit --------------------------------------------------------------------------------------

_core._jit_setup(_tree_util._registry, tree_flatten, config)


def _static_key(v, where):
    """v as a cache key part: compared by type, hash and == (as JAX's static arguments); an
    unhashable value raises ValueError naming the argument."""
    try:
        hash(v)
    except TypeError as e:
        raise ValueError(
            f"[jit] static argument {where} of type {type(v).__module__}.{type(v).__qualname__} "
            f"is not hashable ({e}); static arguments are compared by hash and ==, so pass a "
            "hashable value (a tuple instead of a list or array)") from None
    return (type(v), v)


def _resolve_static(fun, static_argnums, static_argnames):
    """(static positions, static names) with each completed from the other through fun's
    signature, as JAX does: a parameter named in one may be passed either way."""
    nums = () if static_argnums is None else _argnums_tuple(static_argnums)
    names = () if static_argnames is None else \
        ((static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames))
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return nums, names
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    has_varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    n = len(positional)
    named = set(names)
    for i in nums:
        if -n <= i < n and positional[i].kind == positional[i].POSITIONAL_OR_KEYWORD:
            named.add(positional[i].name)
    by_name = {p.name: k for k, p in enumerate(positional)}
    pos = set(nums)
    for name in names:
        if name in by_name:
            pos.add(by_name[name])
    if not has_varargs:  # negative positions are relative to the signature
        pos = {i + n if i < 0 else i for i in pos}
    return tuple(sorted(pos)), tuple(sorted(named))


def _specs_as_arrays(tree):
    """tree with its ShapeDtypeStruct leaves as zero arrays of that type (lowering needs values;
    they are only traced)."""
    def leaf(x):
        if not isinstance(x, ShapeDtypeStruct):
            return x
        if x.weak_type:  # a Python scalar's zero, broadcast: weak, of the default dtype
            z = jnp.broadcast_to(_core.asarray(False if x.dtype == _np.bool_ else
                                               0.0 if x.dtype.kind in "fcV" else 0), x.shape)
            if z.dtype == x.dtype:
                return z
        return jnp.zeros(x.shape, x.dtype)
    return tree_map(leaf, tree, is_leaf=lambda x: isinstance(x, ShapeDtypeStruct))


def _signature(leaves):
    return [(tuple(a.shape), _np.dtype(a.dtype)) for a in map(_core.asarray, leaves)]


class Lowered:
    """The staged and lowered texts of one jitted call; as_text(stage) with stage one of
    strata, optimized, linalg, bufferized, llvm, llvm-ir. compile() gives the callable."""

    def __init__(self, lowered, jitted=None, key=None, signature=None):
        self._lowered = lowered
        self._jitted, self._key, self._signature = jitted, key, signature

    def as_text(self, stage="strata"):
        """The text of one stage (default: the staged strata dialect)."""
        return self._lowered.as_text(stage)

    def stages(self):
        """The names of the stages as_text knows."""
        return self._lowered.stages()

    @property
    def in_avals(self):
        """The ShapedArrays of the dynamic argument leaves."""
        return [ShapedArray(s, d) for s, d in self._signature]

    def compile(self, compiler_options=None):
        """A Compiled: callable with arguments of the lowered types (the executable is built
        by the first call and kept in the jit cache)."""
        if self._jitted is None:
            raise ValueError("[jit] this Lowered was not made by jit(...).lower")
        return Compiled(self)


class Compiled:
    """jit(f).lower(*args).compile(): f for arguments of exactly the lowered shapes, dtypes,
    structure and static values; anything else raises TypeError."""

    def __init__(self, lowered):
        self._lowered = lowered

    def as_text(self, stage=None):
        """The text of the last compilation stage (or of `stage`)."""
        return self._lowered.as_text(stage or self._lowered.stages()[-1])

    @property
    def in_avals(self):
        return self._lowered.in_avals

    def __call__(self, *args, **kwargs):
        low = self._lowered
        p = low._jitted._prepare(args, kwargs)
        sig = _signature(p.leaves)
        if p.key != low._key or sig != low._signature:
            got = ", ".join(f"{d.name}{list(s)}" for s, d in sig)
            want = ", ".join(f"{d.name}{list(s)}" for s, d in low._signature)
            raise TypeError("[jit] the arguments' types differ from those this computation was "
                            f"compiled for: got ({got}), compiled for ({want})"
                            + ("" if p.key == low._key else " (structure or static arguments "
                               "differ)"))
        return low._jitted._call_prepared(p)


class Traced:
    """jit(f).trace(*args): the staged function (jaxpr) and its lowering."""

    def __init__(self, jitted, args, kwargs):
        self._jitted, self._args, self._kwargs = jitted, args, kwargs

    @property
    def jaxpr(self):
        """The staged program (make_jaxpr's result for these arguments)."""
        j = self._jitted
        return make_jaxpr(j._fun, static_argnums=j._static_argnums)(*self._args, **self._kwargs)

    def lower(self):
        """As jit(f).lower(*args)."""
        return self._jitted.lower(*self._args, **self._kwargs)


class _Jitted(_core.JitCall):
    """strata.jit's wrapper. Calls go straight to the C++ base, which flattens the arguments,
    keys the cache and rebuilds the outputs for pytrees of tuples, lists, str-keyed dicts and
    None over array-likes, and calls _call_general for everything else (other pytree nodes,
    unhashable static values, disable_jit, log_compiles)."""

    def __init__(self, fun, static_argnums, static_argnames, donate_argnums=None,
                 donate_argnames=None):
        self._static_argnums, self._static_argnames = _resolve_static(
            fun, static_argnums, static_argnames)
        super().__init__(getattr(fun, "__name__", "jit_fn"), list(self._static_argnums),
                         list(self._static_argnames))
        functools.update_wrapper(self, fun)
        self._fun = fun
        # Buffers are never reused in place, so donation is accepted and has no effect.
        self._donate_argnums = () if donate_argnums is None else _argnums_tuple(donate_argnums)
        self._donate_argnames = donate_argnames
        # (input structure, static values[, config options]) -> the key the C++ cache knows
        # the entry by; the dict compares static values by hash and == and keeps them alive.
        # The fast path's entries are (structure text, statics), the general path's
        # (PyTreeDef, statics, options): they never compare equal.
        self._keys = {}

    def _prepare(self, args, kwargs):
        """The JitPrepared of a call (its trace, dynamic leaves and cache key)."""
        p = self._prepare_fast(args, kwargs)
        return p if p is not None else self._prepare_general(args, kwargs)

    def _prepare_general(self, args, kwargs):
        nargs = len(args)
        # Positions past the call's positional arguments are skipped (as JAX): such a
        # parameter is passed by keyword (static through its name) or takes its default.
        static_pos = {n + nargs if n < 0 else n for n in self._static_argnums}
        static_pos = {i for i in static_pos if 0 <= i < nargs}
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos)
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self._static_argnames}
        statics = tuple((i, _static_key(args[i], i)) for i in sorted(static_pos))
        statics += tuple((k, _static_key(kwargs[k], repr(k))) for k in sorted(kwargs)
                         if k in self._static_argnames)
        leaves, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        key = str(self._keys.setdefault((in_tree, statics, config.trace_key()),
                                        len(self._keys)))
        fun = self._fun

        def trace(xs):
            d_args, d_kwargs = tree_unflatten(in_tree, xs)
            it = iter(d_args)
            full = [args[i] if i in static_pos else next(it) for i in range(nargs)]
            kw = dict(kwargs)
            kw.update(d_kwargs)
            out_leaves, out_tree = tree_flatten(fun(*full, **kw))
            return out_leaves, out_tree
        return _core.JitPrepared(trace, leaves, key)

    def _call_general(self, *args, **kwargs):
        if config.jax_disable_jit:
            return self._fun(*args, **kwargs)
        return self._call_prepared(self._prepare(args, kwargs))

    def _call_prepared(self, prepared):
        """The compiled call (jax_debug_nans/infs are checked by the core), logged under
        jax_log_compiles."""
        log = config.jax_log_compiles
        misses = self.stats()["misses"] if log else 0
        out = self._run(prepared)
        if log and self.stats()["misses"] > misses:
            _logger.warning("Finished compiling %s for arguments %s", self.__name__,
                            [str(typeof(x)) for x in prepared.leaves])
        return out

    def lower(self, *args, **kwargs):
        """Stages and lowers for these arguments (arrays or ShapeDtypeStructs) without
        running."""
        args, kwargs = _specs_as_arrays((args, kwargs))
        p = self._prepare(args, kwargs)
        return Lowered(self._lower(p), self, p.key, _signature(p.leaves))

    def trace(self, *args, **kwargs):
        """A Traced (its .jaxpr and .lower()) for these arguments."""
        return Traced(self, args, kwargs)

    def eval_shape(self, *args, **kwargs):
        """The outputs' ShapeDtypeStructs, computing nothing."""
        return eval_shape(self, *args, **kwargs)


def jit(fun=None, *, static_argnums=None, static_argnames=None, donate_argnums=None,
        donate_argnames=None, inline=False, keep_unused=False, device=None, backend=None):
    """fun compiled through MLIR once per signature (shapes, dtypes, weak types, the pytree
    structure and the static arguments, compared by hash and == as in JAX); usable as @jit or
    @jit(static_argnums=...). donate_argnums/donate_argnames, inline, keep_unused, device and
    backend are checked and advisory (see _check_jit_hints)."""
    _check_jit_hints(donate_argnums, donate_argnames, inline, keep_unused, device, backend)

    def make(f):
        return _Jitted(f, static_argnums, static_argnames, donate_argnums, donate_argnames)
    return make if fun is None else make(fun)


def make_ir(fun, static_argnums=None, static_argnames=None):
    """Like jax.make_jaxpr: make_ir(f)(*args) is the staged `strata` dialect text."""
    jitted = jit(fun, static_argnums=static_argnums, static_argnames=static_argnames)
    return lambda *args, **kwargs: jitted.lower(*args, **kwargs).as_text("strata")


def _check_jit_hints(donate_argnums=None, donate_argnames=None, inline=False, keep_unused=False,
                     device=None, backend=None):
    """Checks jit's accepted-but-advisory options (donation, inlining, placement): Strata never
    reuses a donated buffer, always keeps unused arguments, and runs where the arguments live."""
    for name, v in (("donate_argnums", donate_argnums), ("donate_argnames", donate_argnames)):
        if v is not None and not isinstance(v, (int, str, tuple, list)):
            raise TypeError(f"[jit] {name} must be an int/str or a sequence of them, got "
                            f"{type(v).__name__}")
    if device is not None and backend is not None:
        raise ValueError("[jit] can't specify both a device and a backend for jit")
    if backend is not None and backend not in ("cpu", "gpu", "cuda"):
        raise RuntimeError(f"[jit] unknown backend {backend!r} (Strata has 'cpu' and 'gpu')")


# ---- Staged programs, scopes, eager switches ----------------------------------------------------

class Jaxpr:
    """make_jaxpr's result: str() is the staged `strata` dialect text of the function;
    in_avals / out_avals are the ShapedArrays of its dynamic inputs and its outputs."""

    def __init__(self, text, in_avals, out_shapes):
        self._text, self.in_avals, self._out_shapes = text, in_avals, out_shapes
        self.consts = []

    @property
    def out_avals(self):
        return [ShapedArray(o.shape, o.dtype, o.weak_type) for o in tree_leaves(self._out_shapes)]

    @property
    def jaxpr(self):
        return self

    def pretty_print(self, **_):
        return self._text

    def __str__(self):
        return self._text

    def __repr__(self):
        return self._text


def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False, abstracted_axes=None):
    """make_jaxpr(f)(*args): f staged for these arguments (arrays or ShapeDtypeStructs) as a
    Jaxpr whose str() is the `strata` dialect text; with return_shape, also the outputs'
    ShapeDtypeStructs. axis_env and abstracted_axes are not supported (must be None)."""
    if axis_env is not None or abstracted_axes is not None:
        raise NotImplementedError("[make_jaxpr] axis_env and abstracted_axes are not supported")
    nums = _argnums_tuple(static_argnums)
    jitted = jit(fun, static_argnums=nums)

    @functools.wraps(fun)
    def make(*args, **kwargs):
        static = {n % len(args) for n in nums} if args else set()
        low = jitted.lower(*args, **kwargs)
        dyn = [a for i, a in enumerate(args) if i not in static]

        def f(*d):
            it = iter(d)
            return fun(*[args[i] if i in static else next(it) for i in range(len(args))],
                       **kwargs)
        out = eval_shape(f, *dyn)
        in_avals = [typeof(x) if not isinstance(x, ShapeDtypeStruct) else
                    ShapedArray(x.shape, x.dtype, x.weak_type) for x in tree_leaves(
                        (dyn, kwargs), is_leaf=lambda x: isinstance(x, ShapeDtypeStruct))]
        j = Jaxpr(low.as_text("strata"), in_avals, out)
        return (j, out) if return_shape else j
    return make


class _NameStack(threading.local):
    def __init__(self):
        self.names = []


_name_stack = _NameStack()


@contextlib.contextmanager
def named_scope(name):
    """A context naming the ops traced inside it (JAX puts the name in the staged program's
    locations; Strata keeps the nesting, strata.api.current_name_scope(), but no locations)."""
    if not isinstance(name, str):
        raise TypeError(f"[named_scope] name must be a string, got {type(name).__name__}")
    _name_stack.names.append(name)
    try:
        yield
    finally:
        _name_stack.names.pop()


def current_name_scope():
    """The '/'-joined names of the enclosing named_scopes ('' outside any)."""
    return "/".join(_name_stack.names)


@contextlib.contextmanager
def ensure_compile_time_eval():
    """A context in which ops whose inputs are all concrete run eagerly, even while jit (or a
    control-flow body) traces: their results are concrete, usable in Python control flow."""
    with _core.compile_time_eval():
        yield


@contextlib.contextmanager
def disable_jit(disable=True):
    """A context in which strata.jit runs its function eagerly, op by op (jax_disable_jit)."""
    old = config.jax_disable_jit
    config.update("jax_disable_jit", bool(disable))
    try:
        yield
    finally:
        config.update("jax_disable_jit", old)


jacobian = jacrev


def _option_context(option, doc):
    """The context manager for one config option, as jax's config states (`with
    strata.debug_nans(True): ...`): sets the option and restores it on exit."""
    @contextlib.contextmanager
    def context(new_val=True):
        old = getattr(config, option)
        config.update(option, new_val)
        try:
            yield
        finally:
            config.update(option, old)
    context.__name__ = option[4:]
    context.__doc__ = doc
    return context


# The options usable as contexts (JAX exports its config states under these names).
_OPTION_CONTEXTS = {
    "enable_x64": "jax_enable_x64", "debug_nans": "jax_debug_nans",
    "debug_infs": "jax_debug_infs", "log_compiles": "jax_log_compiles",
    "default_matmul_precision": "jax_default_matmul_precision",
    "numpy_rank_promotion": "jax_numpy_rank_promotion",
    "threefry_partitionable": "jax_threefry_partitionable",
}


def option_contexts():
    """{name: context manager} for the options that exist (some modules define theirs at
    import, so strata/__init__ builds these after importing everything)."""
    return {name: _option_context(opt, f"A context with {opt} set (default True); restores it "
                                  "on exit.")
            for name, opt in _OPTION_CONTEXTS.items() if opt in config.values()}


def named_call(fun, *, name=None):
    """fun with its body under named_scope(name or fun.__name__) (jax.named_call)."""
    scope = name or getattr(fun, "__name__", "named_call")

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        with named_scope(scope):
            return fun(*args, **kwargs)
    return wrapped


def clear_caches():
    """Drops every compiled executable of every jitted function (jax.clear_caches)."""
    _core.clear_jit_cache()




def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of the linear function fun at arguments shaped like primals (arrays or
    ShapeDtypeStructs): transpose(out_cotangent) -> a tuple with one cotangent per argument."""
    if reduce_axes:
        raise NotImplementedError("[linear_transpose] reduce_axes is not supported")
    in_leaves, in_tree = tree_flatten(primals, is_leaf=lambda x: isinstance(x, ShapeDtypeStruct))
    avals = [_aval(x) for x in in_leaves]
    for s, d, _ in avals:
        if _np.dtype(d).kind not in "fV":
            raise TypeError(f"[linear_transpose] differentiates only floating inputs, got "
                            f"{_np.dtype(d).name}{list(s)}")
    zeros = tree_unflatten(in_tree, [jnp.zeros(s, d) for s, d, _ in avals])
    out, pb = vjp(fun, *zeros)
    out_leaves, out_tree = tree_flatten(out)
    out_avals = [(tuple(o.shape), _np.dtype(o.dtype)) for o in out_leaves]

    def transposed(out_cotangent):
        ct_leaves, ct_tree = tree_flatten(out_cotangent)
        if ct_tree != out_tree:
            raise TypeError(f"[linear_transpose] cotangent structure {ct_tree!r} differs from "
                            f"the output's {out_tree!r}")
        for c, (s, d) in zip(ct_leaves, out_avals):
            c = _core.asarray(c)
            if tuple(c.shape) != s or (_np.dtype(c.dtype) != d and not c.weak_type):
                raise TypeError(f"[linear_transpose] cotangent {_np.dtype(c.dtype).name}"
                                f"{list(c.shape)} does not match the output "
                                f"{d.name}{list(s)}")
        return tuple(pb(tree_unflatten(ct_tree, [jnp.asarray(c, d) for c, (_, d) in
                                                 zip(ct_leaves, out_avals)])))
    return transposed
