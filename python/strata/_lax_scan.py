"""strata.lax's scans and implicit solves in Python over the core: associative_scan (the
parallel-prefix algorithm over pytrees), the cumulative reductions with JAX's signatures
(cumlogsumexp among them), custom_root and custom_linear_solve with implicit derivatives."""

from strata import _core
from strata._lax_ops import (_arr, _axis, _kind, _tstr, concatenate, expand_dims, reshape,
                             rev, slice_in_dim)

_L = _core.lax


def associative_scan(fn, elems, reverse=False, axis=0):
    """All prefix combinations fn(...fn(fn(e0, e1), e2)..., ek) along `axis` of every leaf of
    the pytree elems, for an associative fn on pytrees of arrays (applied elementwise over the
    other dimensions); reverse combines from the end. Log depth (the odd/even parallel
    prefix)."""
    from strata.tree_util import tree_flatten, tree_unflatten
    leaves, tree = tree_flatten(elems)
    xs = [_arr(x) for x in leaves]
    if not xs:
        return elems
    ax = _axis(axis, xs[0].ndim, "associative_scan")
    n = xs[0].shape[ax]
    for x in xs:
        if x.ndim != xs[0].ndim or x.shape[ax] != n:
            raise ValueError(f"[associative_scan] every input must have the same size along "
                             f"axis {axis}, got {', '.join(_tstr(x) for x in xs)}")
    if reverse:
        xs = [rev(x, [ax]) for x in xs]

    def combine(a, b):
        out, t = tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))
        if t != tree:
            raise TypeError(f"[associative_scan] fn must return the structure of elems "
                            f"{tree!r}, got {t!r}")
        out = [_arr(o) for o in out]
        for o, x in zip(out, a):
            if o.shape[ax] != x.shape[ax]:
                raise TypeError(f"[associative_scan] fn must keep the size of axis {axis}: "
                                f"{_tstr(x)} became {_tstr(o)}")
        return out

    def length(x):
        return x.shape[ax]

    def interleave(even, odd):
        m = length(odd)
        if length(even) > m:
            odd = concatenate([odd, slice_in_dim(even, m, m + 1, axis=ax)], ax)
        both = concatenate([expand_dims(even, (ax + 1,)), expand_dims(odd, (ax + 1,))], ax + 1)
        shape = tuple(even.shape)
        out = reshape(both, shape[:ax] + (2 * length(even),) + shape[ax + 1:])
        return slice_in_dim(out, 0, length(even) + m, axis=ax)

    def scan(xs):
        k = length(xs[0])
        if k < 2:
            return xs
        pairs = combine([slice_in_dim(x, 0, k - 1, 2, ax) for x in xs],
                        [slice_in_dim(x, 1, k, 2, ax) for x in xs])
        odd = scan(pairs)  # the results at positions 1, 3, 5, ...
        first = [slice_in_dim(x, 0, 1, axis=ax) for x in xs]
        if k > 2:
            rest = [slice_in_dim(x, 2, k, 2, ax) for x in xs]
            prev = odd if k % 2 else [slice_in_dim(o, 0, length(o) - 1, axis=ax) for o in odd]
            even = [concatenate([f, e], ax) for f, e in zip(first, combine(prev, rest))]
        else:
            even = first
        return [interleave(e, o) for e, o in zip(even, odd)]
    out = scan(xs)
    if reverse:
        out = [rev(o, [ax]) for o in out]
    return tree_unflatten(tree, out)


def _cumulative(name, prim, doc):
    def op(operand, axis=0, reverse=False):
        x = _arr(operand)
        return prim(x, _axis(axis, x.ndim, name), bool(reverse))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


cumsum = _cumulative("cumsum", _L.cumsum, "Running sums along `axis` (from the end when "
                     "reverse).")
cumprod = _cumulative("cumprod", _L.cumprod, "Running products along `axis` (from the end when "
                      "reverse).")
cummax = _cumulative("cummax", _L.cummax, "Running maxima along `axis` (from the end when "
                     "reverse).")
cummin = _cumulative("cummin", _L.cummin, "Running minima along `axis` (from the end when "
                     "reverse).")


def _logaddexp(a, b):
    """log(exp(a) + exp(b)) without overflow; infinities and NaN as the math gives them, and
    finite derivatives where the result is finite."""
    m = _L.max(a, b)
    lo = _L.min(a, b)
    ok = _L.is_finite(m)
    zero = _L.broadcast_in_dim(_core.asarray(0, m.dtype), tuple(m.shape), ())
    ms, ls = _L.select(ok, m, zero), _L.select(ok, lo, zero)
    return _L.select(ok, _L.add(ms, _L.log1p(_L.exp(_L.sub(ls, ms)))), m)


def cumlogsumexp(operand, axis=0, reverse=False):
    """Running log-sum-exp along `axis` (from the end when reverse), computed stably."""
    x = _arr(operand)
    if _kind(x.dtype) != "f":
        raise TypeError(f"[cumlogsumexp] needs a floating-point operand, got {_tstr(x)}")
    return associative_scan(_logaddexp, x, reverse=reverse, axis=_axis(axis, x.ndim,
                                                                         "cumlogsumexp"))


def _tmap(f, *trees):
    from strata.tree_util import tree_map
    return tree_map(f, *trees)


def _refined(sol, newton_step, stages=2):
    """sol's value with the derivatives of the implicit solution: each stage is one Newton
    step x + newton_step(x) from the previous stage, whose derivative in x vanishes at the
    root, so stage k has correct derivatives up to order 2^k - 1 (sol itself is a constant).
    Only the derivative of each step is kept (y - stop_gradient(y) is zero in value)."""
    from strata.lax import stop_gradient
    x = sol
    for _ in range(stages):
        y = _tmap(lambda u, d: _L.add(u, _arr(d)), x, newton_step(x))
        x = _tmap(lambda s0, v, vs: _L.add(s0, _L.sub(v, vs)), sol, y, stop_gradient(y))
    return x


def _linear_correction(lin_solve, residual):
    """lin_solve(residual) in derivative, for a solve linear in its right-hand side and a
    residual zero in value: computed as lin_solve(ones + residual) - lin_solve(ones), so an
    iterative solver is never handed a zero right-hand side (it would stop before its first
    step, with a zero derivative), and the solve's own dependence on the parameters cancels
    between the two terms."""
    def ones(v):
        v = _arr(v)
        return _L.broadcast_in_dim(_core.asarray(1, v.dtype), tuple(v.shape), ())
    base = _tmap(ones, residual)
    shifted = lin_solve(_tmap(lambda o, r: _L.add(o, _arr(r)), base, residual))
    return _tmap(lambda u, v: _L.sub(_arr(u), _arr(v)), shifted, lin_solve(base))


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """solve(f, initial_guess), a root of f, differentiated implicitly: derivatives with respect
    to the values f closes over are -tangent_solve(J, df) with J the Jacobian-vector product of
    f at the root (solve's iterations are never differentiated; derivatives up to third order
    come from two Newton steps through tangent_solve). has_aux: solve returns (root, aux)."""
    from strata.api import jvp
    from strata.lax import stop_gradient
    guess = _tmap(_arr, initial_guess)
    out = solve(f, stop_gradient(guess))
    sol, aux = out if has_aux else (out, None)
    sol = stop_gradient(_tmap(_arr, sol))

    def newton_step(x):
        # -J(x)^-1 f(x) through tangent_solve with J(x) v = jvp(f, x, v).
        def g(v):
            return jvp(f, (x,), (v,))[1]
        return _tmap(_L.neg, _linear_correction(lambda y: tangent_solve(g, y), f(x)))
    root = _refined(sol, newton_step)
    return (root, stop_gradient(aux)) if has_aux else root


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False,
                        has_aux=False):
    """x = solve(matvec, b) for the linear map matvec, differentiated implicitly:
    dx = solve(matvec, db - dmatvec(x)) for the derivatives of b and of the values matvec
    closes over, through further solves (differentiated) of right-hand sides carrying the
    residual's derivative (two refinement steps: derivatives up to third order). has_aux:
    solve returns (x, aux)."""
    from strata.lax import stop_gradient
    bb = _tmap(_arr, b)

    def run(rhs):
        out = solve(matvec, rhs)
        return out if has_aux else (out, None)
    x, aux = run(stop_gradient(bb))
    x = stop_gradient(_tmap(_arr, x))
    def newton_step(y):
        # solve(matvec, b - matvec(y)): zero in value at the solution, carrying db - dA y.
        residual = _tmap(lambda u, v: _L.sub(u, _arr(v)), bb, matvec(y))
        return _linear_correction(lambda r: run(r)[0], residual)
    out = _refined(x, newton_step)
    return (out, stop_gradient(aux)) if has_aux else out
