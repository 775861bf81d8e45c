"""strata.numpy creation and shape manipulation (reshape orders, joins and splits, pad modes,
tile/repeat/roll, triangles and diagonals, products, convolutions, grids, index helpers, take
modes, ranges) against numpy, finite differences, vmap loops and jit."""

import numpy as np
import pytest

import strata
import strata.numpy as jnp
from test_numpy_api_common import close, check_grad, check_vmap

rng = np.random.default_rng(2)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((2, 3, 4)).astype(np.float32)


# ---- reshaping and joining -------------------------------------------------------------------

@pytest.mark.parametrize("order", ["C", "F", "A"])
def test_reshape_ravel_order(order):
    close(jnp.reshape(B, (4, 6), order=order), np.reshape(B, (4, 6), order=order))
    close(jnp.reshape(B, (-1, 2), order=order), np.reshape(B, (-1, 2), order=order))
    close(jnp.ravel(B, order=order if order != "A" else "C"),
          np.ravel(B, order=order if order != "A" else "C"))
    check_grad(lambda v: jnp.reshape(v, (2, 6), order=order),
               lambda v: np.reshape(v, (2, 6), order=order), A)
    with pytest.raises(ValueError, match=r"^\[reshape\]"):
        jnp.reshape(A, (12,), order="K")
    with pytest.raises(TypeError, match=r"^\[reshape\] cannot reshape f32\[3,4\]"):
        jnp.reshape(A, (5, 2))  # JAX: TypeError
    with pytest.raises(ValueError, match=r"^\[reshape\]"):
        jnp.reshape(A, (-1, -1))


def test_concatenate_stack_family():
    close(jnp.concatenate([A, A[:1]], axis=0), np.concatenate([A, A[:1]], axis=0))
    close(jnp.concatenate([A, B[0]], axis=None), np.concatenate([A, B[0]], axis=None))
    r = jnp.concatenate([np.arange(2), np.arange(3)], dtype=jnp.float32)
    assert r.dtype == np.float32
    close(jnp.concatenate([np.arange(2, dtype=np.int32), np.ones(2, np.float32)]),
          np.array([0, 1, 1, 1], np.float32))
    close(jnp.concat([A, A], axis=1), np.concatenate([A, A], axis=1))
    close(jnp.stack([A, A], axis=-1), np.stack([A, A], axis=-1))
    close(jnp.hstack([A[0], A[1]]), np.hstack([A[0], A[1]]))
    close(jnp.vstack([A[0], A]), np.vstack([A[0], A]))
    close(jnp.dstack([A, A]), np.dstack([A, A]))
    close(jnp.column_stack([A[0], A[1]]), np.column_stack([A[0], A[1]]))
    close(jnp.row_stack([A[0], A[1]]), np.vstack([A[0], A[1]]))
    close(jnp.block([[A[:1, :1], A[:1, 1:]], [A[1:, :1], A[1:, 1:]]]), A)
    close(jnp.block([A[0], A[1]]), np.block([A[0], A[1]]))
    for k in range(3):
        assert jnp.unstack(A)[k].shape == (4,)
        close(jnp.unstack(A, axis=1)[k], A[:, k])
    check_grad(lambda v: jnp.concatenate([v, 2 * v], axis=None),
               lambda v: np.concatenate([v, 2 * v], axis=None), A)
    with pytest.raises(ValueError, match=r"^\[concatenate\]"):
        jnp.concatenate([])
    with pytest.raises(TypeError, match=r"^\[concatenate\]"):
        jnp.concatenate([A, A[:, :2]])  # JAX: TypeError
    with pytest.raises(ValueError, match=r"^\[concatenate\]"):
        jnp.concatenate([A, A[0]])


def test_atleast():
    for x in (np.float32(2.0), np.arange(3.0), A, B):
        close(jnp.atleast_1d(x), np.atleast_1d(x))
        close(jnp.atleast_2d(x), np.atleast_2d(x))
        close(jnp.atleast_3d(x), np.atleast_3d(x))
    a, b = jnp.atleast_2d(1.0, np.arange(2))
    assert a.shape == (1, 1) and b.shape == (1, 2)


@pytest.mark.parametrize("ios", [3, [1, 3], [0, 5, 2]])
def test_splits(ios):
    x = np.arange(30.0).reshape(6, 5)
    for got, want in zip(jnp.array_split(x, ios), np.array_split(x, ios)):
        close(got, want)
    for got, want in zip(jnp.array_split(x, 4, axis=1), np.array_split(x, 4, axis=1)):
        close(got, want)
    if ios != 3:
        for got, want in zip(jnp.split(x, ios, axis=1), np.split(x, ios, axis=1)):
            close(got, want)
    for got, want in zip(jnp.hsplit(x, [2]), np.hsplit(x, [2])):
        close(got, want)
    for got, want in zip(jnp.vsplit(x, 2), np.vsplit(x, 2)):
        close(got, want)
    for got, want in zip(jnp.dsplit(B, 2), np.dsplit(B, 2)):
        close(got, want)
    with pytest.raises(ValueError, match=r"^\[split\]"):
        jnp.split(x, 4)


def test_axes_moves():
    close(jnp.moveaxis(B, [0, 1], [-1, -2]), np.moveaxis(B, [0, 1], [-1, -2]))
    close(jnp.moveaxis(B, 0, 2), np.moveaxis(B, 0, 2))
    for ax, st in [(2, 0), (0, 3), (1, 1), (-1, 1)]:
        close(jnp.rollaxis(B, ax, st), np.rollaxis(B, ax, st))
    close(jnp.permute_dims(B, (2, 0, 1)), np.transpose(B, (2, 0, 1)))
    close(jnp.matrix_transpose(B), np.swapaxes(B, -1, -2))
    close(jnp.squeeze(A[None, :, None]), A)
    close(jnp.expand_dims(A, (0, 3)), np.expand_dims(A, (0, 3)))
    with pytest.raises(ValueError, match=r"^\[moveaxis\]"):
        jnp.moveaxis(B, [0, 1], [0])


# ---- pad -------------------------------------------------------------------------------------

PAD_WIDTHS = [1, (2, 1), ((1, 2), (3, 0)), ((3, 7), (9, 2))]


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "linear_ramp",
                                  "maximum", "minimum", "mean", "median", "empty", "wrap"])
@pytest.mark.parametrize("pw", PAD_WIDTHS)
def test_pad_modes(mode, pw):
    if mode == "wrap" and pw == PAD_WIDTHS[-1]:
        # numpy 1.24 wraps pads longer than the axis unevenly; JAX (and Strata) are periodic
        got = jnp.pad(A, pw, mode)
        idx0 = np.mod(np.arange(-3, 3 + 7), 3)
        idx1 = np.mod(np.arange(-9, 4 + 2), 4)
        close(got, A[idx0][:, idx1])
        return
    got = jnp.pad(A, pw, mode)
    if mode == "empty":
        assert got.shape == np.pad(A, pw, mode).shape
        return
    close(got, np.pad(A, pw, mode), rtol=1e-5)
    if mode not in ("median", "maximum", "minimum"):
        check_grad(lambda v: jnp.pad(v, pw, mode), lambda v: np.pad(v, pw, mode), A)


def test_pad_keywords():
    cv = ((1.0, 2.0), (3.0, 4.0))
    close(jnp.pad(A, ((1, 2), (2, 1)), constant_values=cv),
          np.pad(A, ((1, 2), (2, 1)), constant_values=cv))
    close(jnp.pad(A, 2, constant_values=(5, -5)), np.pad(A, 2, constant_values=(5, -5)))
    for mode in ("reflect", "symmetric"):
        close(jnp.pad(A, ((3, 7), (9, 2)), mode, reflect_type="odd"),
              np.pad(A, ((3, 7), (9, 2)), mode, reflect_type="odd"), rtol=1e-5)
    close(jnp.pad(A, 3, "linear_ramp", end_values=((1, 2), (3, 4))),
          np.pad(A, 3, "linear_ramp", end_values=((1, 2), (3, 4))), rtol=1e-5)
    for mode in ("maximum", "minimum", "mean", "median"):
        close(jnp.pad(A, ((2, 3), (1, 4)), mode, stat_length=((1, 2), (3, 2))),
              np.pad(A, ((2, 3), (1, 4)), mode, stat_length=((1, 2), (3, 2))), rtol=1e-5)
    # traced pad values, differentiable
    f = strata.jit(lambda c: jnp.pad(A, 1, constant_values=c))
    close(f(np.array([1.0, 2.0], np.float32)), np.pad(A, 1, constant_values=(1.0, 2.0)))
    g = strata.grad(lambda c: jnp.sum(jnp.pad(A, ((1, 0), (0, 2)), constant_values=c)))(
        np.float32(0.0))
    close(g, (3 + 1) * (4 + 2) - 12)  # one per padded cell
    x = np.arange(10, dtype=np.int32).reshape(2, 5)
    close(jnp.pad(x, 2, "mean"), np.pad(x, 2, "mean"))
    close(jnp.pad(x, 2, "edge"), np.pad(x, 2, "edge"))
    def pad_with(vector, pad_width, iaxis, kwargs):  # numpy's example, returning the vector
        v = kwargs.get("padder", 10)
        vector = vector.at[:pad_width[0]].set(v) if pad_width[0] else vector
        return vector.at[vector.shape[0] - pad_width[1]:].set(v) if pad_width[1] else vector

    def pad_with_np(vector, pad_width, iaxis, kwargs):
        vector[:pad_width[0]] = kwargs.get("padder", 10)
        vector[vector.size - pad_width[1]:] = kwargs.get("padder", 10)
    close(jnp.pad(A, ((1, 2), (0, 3)), pad_with), np.pad(A, ((1, 2), (0, 3)), pad_with_np))
    close(jnp.pad(A, 2, pad_with, padder=-1.0), np.pad(A, 2, pad_with_np, padder=-1.0))
    with pytest.raises(ValueError, match=r"^\[pad\]"):
        jnp.pad(A, 1, "bogus")
    with pytest.raises(ValueError, match=r"^\[pad\]"):
        jnp.pad(A, -1)
    with pytest.raises(ValueError, match=r"^\[pad\]"):
        jnp.pad(A, 1, "edge", constant_values=1)


def test_pad_vmap_jit():
    check_vmap(lambda v: jnp.pad(v, (2, 3), "reflect"), A)
    close(strata.jit(lambda v: jnp.pad(v, 2, "symmetric"))(A), np.pad(A, 2, "symmetric"))


# ---- tile, repeat, roll, rotations -----------------------------------------------------------

def test_tile_repeat():
    for reps in (2, (2, 1), (1, 2, 3), (0, 2)):
        close(jnp.tile(A, reps), np.tile(A, reps))
    close(jnp.tile(np.float32(3.0), 3), np.tile(np.float32(3.0), 3))
    close(jnp.repeat(A, 2), np.repeat(A, 2))
    close(jnp.repeat(A, 3, axis=1), np.repeat(A, 3, axis=1))
    close(jnp.repeat(A, [1, 0, 2], axis=0), np.repeat(A, [1, 0, 2], axis=0))
    close(jnp.repeat(A, np.array([2, 1, 0, 1]), axis=1, total_repeat_length=4),
          np.repeat(A, [2, 1, 0, 1], axis=1))
    # Traced repeats with total_repeat_length (JAX: extra positions repeat the last element).
    f = strata.jit(lambda r: jnp.repeat(np.arange(3), r, total_repeat_length=6))
    close(f(np.array([1, 2, 1])), np.array([0, 1, 1, 2, 2, 2]))
    close(f(np.array([2, 2, 2])), np.repeat(np.arange(3), 2))
    check_grad(lambda v: jnp.tile(v, (2, 2)), lambda v: np.tile(v, (2, 2)), A)
    check_grad(lambda v: jnp.repeat(v, [1, 0, 2], axis=0),
               lambda v: np.repeat(v, [1, 0, 2], axis=0), A)
    with pytest.raises(TypeError, match=r"^\[repeat\]"):
        strata.jit(lambda r: jnp.repeat(np.arange(3), r))(np.array([1, 2, 1]))


def test_roll_rot_flip():
    for shift, axis in [(1, None), (-5, None), (2, 0), ((1, -2), (0, 1)), (7, 1)]:
        close(jnp.roll(A, shift, axis), np.roll(A, shift, axis))
    f = strata.jit(lambda s: jnp.roll(A, s, axis=1))  # a traced shift
    close(f(np.int32(3)), np.roll(A, 3, axis=1))
    for k in range(-2, 5):
        close(jnp.rot90(B, k), np.rot90(B, k))
        close(jnp.rot90(B, k, axes=(2, 0)), np.rot90(B, k, axes=(2, 0)))
    close(jnp.fliplr(A), np.fliplr(A))
    close(jnp.flipud(A), np.flipud(A))
    check_grad(lambda v: jnp.roll(v, 2), lambda v: np.roll(v, 2), A)
    check_grad(lambda v: jnp.rot90(v), lambda v: np.rot90(v), A)
    check_vmap(lambda v: jnp.roll(v, 1, axis=0), B)


# ---- triangles and diagonals -----------------------------------------------------------------

@pytest.mark.parametrize("k", [-2, -1, 0, 1, 3])
def test_triangles_diagonals(k):
    close(jnp.tri(3, 5, k), np.tri(3, 5, k))
    close(jnp.tril(A, k), np.tril(A, k))
    close(jnp.triu(B, k), np.triu(B, k))
    close(jnp.diag(A, k), np.diag(A, k))
    close(jnp.diag(A[0], k), np.diag(A[0], k))
    close(jnp.diagflat(A[:2, :2], k), np.diagflat(A[:2, :2], k))
    close(jnp.diagonal(B, k, 1, 2), np.diagonal(B, k, 1, 2))
    close(jnp.diagonal(B, k, 2, 0), np.diagonal(B, k, 2, 0))
    close(jnp.trace(A, k), np.trace(A, k))
    close(jnp.eye(3, 4, k), np.eye(3, 4, k))
    for got, want in zip(jnp.tril_indices(4, k, 3), np.tril_indices(4, k, 3)):
        close(got, want)
    for got, want in zip(jnp.triu_indices_from(A, k), np.triu_indices_from(A, k)):
        close(got, want)
    for got, want in zip(jnp.tril_indices_from(A, k), np.tril_indices_from(A, k)):
        close(got, want)
    for got, want in zip(jnp.triu_indices(3, k), np.triu_indices(3, k)):
        close(got, want)


def test_diagonal_grads_and_helpers():
    check_grad(lambda v: jnp.tril(v, -1), lambda v: np.tril(v, -1), A)
    check_grad(lambda v: jnp.diag(v, 1), lambda v: np.diag(v, 1), A)
    check_grad(lambda v: jnp.diag(v[0], -1), lambda v: np.diag(v[0], -1), A)
    check_grad(lambda v: jnp.trace(v), lambda v: np.trace(v), A)
    close(jnp.identity(3, dtype=jnp.int32), np.identity(3, dtype=np.int32))
    for got, want in zip(jnp.diag_indices(3, 3), np.diag_indices(3, 3)):
        close(got, want)
    for got, want in zip(jnp.diag_indices_from(np.ones((2, 2))), np.diag_indices(2)):
        close(got, want)
    for got, want in zip(jnp.mask_indices(3, jnp.triu, 1), np.mask_indices(3, np.triu, 1)):
        close(got, want)
    want = A.copy()
    np.fill_diagonal(want, 7.0)
    close(jnp.fill_diagonal(A, 7.0, inplace=False), want)
    tall = np.zeros((7, 3), np.float32)
    want = tall.copy()
    np.fill_diagonal(want, 5.0, wrap=True)
    close(jnp.fill_diagonal(tall, 5.0, wrap=True, inplace=False), want)
    with pytest.raises(ValueError, match=r"^\[fill_diagonal\]"):
        jnp.fill_diagonal(A, 1.0)
    check_vmap(lambda v: jnp.triu(v, 1), B)


# ---- products and convolutions ---------------------------------------------------------------

def test_products():
    close(jnp.tensordot(B, A, axes=([1, 2], [0, 1])), np.tensordot(B, A, ([1, 2], [0, 1])),
          rtol=1e-5)
    close(jnp.tensordot(A, A.T, 1), np.tensordot(A, A.T, 1), rtol=1e-5)
    close(jnp.outer(A[0], A[1]), np.outer(A[0], A[1]))
    close(jnp.inner(B, A), np.inner(B, A), rtol=1e-5)
    close(jnp.vdot(A, A), np.vdot(A, A), rtol=1e-5)
    close(jnp.vecdot(B, A), np.sum(B * A, -1), rtol=1e-5)
    close(jnp.matvec(B, A[0]), B @ A[0], rtol=1e-5)
    close(jnp.vecmat(A[:, :3][0], B), A[0, :3] @ B, rtol=1e-5)
    close(jnp.einsum("ij,kj", A, A, optimize=True), np.einsum("ij,kj", A, A), rtol=1e-5)
    close(jnp.einsum(B, [0, 1, 2], A, [1, 2], [0]), np.einsum(B, [0, 1, 2], A, [1, 2], [0]),
          rtol=1e-5)
    close(jnp.einsum(B, [Ellipsis, 2], A[0], [2]), np.einsum(B, [Ellipsis, 2], A[0], [2]),
          rtol=1e-5)
    assert jnp.einsum("ij,ij->", A, A, preferred_element_type=jnp.float16).dtype == np.float16
    check_grad(lambda v: jnp.einsum(v, [0, 1], A, [2, 1]), lambda v: np.einsum("ij,kj", v, A),
               A)
    close(jnp.kron(A[:2, :3], A), np.kron(A[:2, :3], A), rtol=1e-5)
    close(jnp.kron(A[0], B), np.kron(A[0], B), rtol=1e-5)
    close(jnp.dot(B, A.T), np.dot(B, A.T), rtol=1e-5)
    x3, y3 = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    close(jnp.cross(x3, y3), np.cross(x3, y3), rtol=1e-5)
    close(jnp.cross(x3[:, :2], y3), np.cross(x3[:, :2], y3), rtol=1e-5)
    close(jnp.cross(x3[:, :2], y3[:, :2]), np.cross(x3[:, :2], y3[:, :2]), rtol=1e-5)
    close(jnp.cross(x3.T, y3.T, axisa=0, axisb=0, axisc=0), np.cross(x3.T, y3.T, axisa=0,
                                                                     axisb=0, axisc=0),
          rtol=1e-5)
    check_grad(lambda v: jnp.kron(v, v[:2, :2]), lambda v: np.kron(v, v[:2, :2]), A)
    check_grad(lambda v: jnp.cross(v[:, :3], v[:, 1:]), lambda v: np.cross(v[:, :3], v[:, 1:]),
               A)
    with pytest.raises(TypeError, match=r"^\[tensordot\]"):
        jnp.tensordot(A, A, axes=([1], [1, 0]))
    with pytest.raises(TypeError, match=r"^\[matmul\]"):
        jnp.dot(A, A)  # JAX: TypeError
    close(jnp.matmul(B, A.T), B @ A.T, rtol=1e-5)
    close(jnp.matmul(A[0], A.T), A[0] @ A.T, rtol=1e-5)
    with pytest.raises(ValueError, match=r"^\[cross\]"):
        jnp.cross(A, A)


# numpy's broadcasting rules, where a batch dim only one operand holds (or holds with extent 1)
# is a free dim of that operand's product rather than a broadcast copy: values, and gradients
# of both operands (the one-sided operand's gradient sums over the other's batch), eager and
# under jit.
@pytest.mark.parametrize("sa,sb", [((2, 3, 4), (4, 5)), ((4,), (2, 4, 5)), ((2, 3, 4), (4,)),
                                   ((5, 4), (2, 3, 4, 6)), ((2, 1, 3, 4), (5, 4, 6)),
                                   ((1, 3, 4), (2, 4, 6)), ((2, 1, 3, 4), (1, 2, 4, 1)),
                                   ((3, 1, 4), (3, 4, 1)), ((2, 0, 4), (4, 3))])
def test_matmul_broadcast_layouts(sa, sb):
    a = rng.standard_normal(sa).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    want = np.matmul(a, b)
    close(jnp.matmul(a, b), want, rtol=1e-5, atol=1e-5)
    close(strata.jit(jnp.matmul)(a, b), want, rtol=1e-5, atol=1e-5)
    w = rng.standard_normal(want.shape).astype(np.float32)
    loss = lambda u, v: jnp.sum(jnp.matmul(u, v) * w)  # noqa: E731
    ga, gb = strata.jit(strata.grad(loss, argnums=(0, 1)))(a, b)
    # d/da sum(w * (a @ b)) = w @ b^T and d/db = a^T @ w, summed over what broadcast.
    a2, b2, w2 = (np.asarray(t, np.float64) for t in (a, b, w))
    a2 = a2[None, :] if a.ndim == 1 else a2
    b2 = b2[:, None] if b.ndim == 1 else b2
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    w2 = w2.reshape(batch + (a2.shape[-2], b2.shape[-1]))
    da = np.matmul(w2, np.swapaxes(b2, -1, -2))
    db = np.matmul(np.swapaxes(a2, -1, -2), w2)
    def unbroadcast(g, shape):
        g = g.sum(axis=tuple(range(g.ndim - len(shape)))) if g.ndim > len(shape) else g
        return g.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1),
                     keepdims=True)
    da = unbroadcast(da, a2.shape).reshape(sa)
    db = unbroadcast(db, b2.shape).reshape(sb)
    close(ga, da, rtol=1e-4, atol=1e-4)
    close(gb, db, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("n,m", [(7, 3), (3, 7), (4, 4), (1, 5)])
def test_convolve_correlate(mode, n, m):
    a = rng.standard_normal(n).astype(np.float32)
    v = rng.standard_normal(m).astype(np.float32)
    close(jnp.convolve(a, v, mode), np.convolve(a, v, mode), rtol=1e-5, atol=1e-5)
    close(jnp.correlate(a, v, mode), np.correlate(a, v, mode), rtol=1e-5, atol=1e-5)
    check_grad(lambda x: jnp.convolve(x, v, mode), lambda x: np.convolve(x, v, mode), a)
    check_grad(lambda x: jnp.correlate(a, x, mode), lambda x: np.correlate(a, x, mode), v)


def test_convolve_int_and_errors():
    close(jnp.convolve(np.array([1, 2, 3]), np.array([0, 1])), np.convolve([1, 2, 3], [0, 1]))
    with pytest.raises(ValueError, match=r"^\[convolve\]"):
        jnp.convolve(A, A)
    with pytest.raises(ValueError, match=r"^\[correlate\]"):
        jnp.correlate(A[0], A[0], "bogus")


# ---- grids -----------------------------------------------------------------------------------

def test_grids():
    x, y, z = np.arange(3.0), np.arange(4.0), np.arange(2.0)
    for ind in ("xy", "ij"):
        for sparse in (False, True):
            for got, want in zip(jnp.meshgrid(x, y, z, indexing=ind, sparse=sparse),
                                 np.meshgrid(x, y, z, indexing=ind, sparse=sparse)):
                close(got, want)
    close(jnp.mgrid[0:3, 1:5:2], np.mgrid[0:3, 1:5:2])
    close(jnp.mgrid[0:1:5j], np.mgrid[0:1:5j])
    close(jnp.mgrid[-1:1:3j, 0:2], np.mgrid[-1:1:3j, 0:2].astype(np.float32))
    for got, want in zip(jnp.ogrid[0:3, 0:4], np.ogrid[0:3, 0:4]):
        close(got, want)
    close(jnp.indices((2, 3)), np.indices((2, 3)))
    for got, want in zip(jnp.indices((2, 3), sparse=True), np.indices((2, 3), sparse=True)):
        close(got, want)
    for got, want in zip(jnp.ix_([0, 2], [1, 3, 0]), np.ix_([0, 2], [1, 3, 0])):
        close(got, want)
    close(A[jnp.ix_(np.array([0, 2]), np.array([1, 3]))], A[np.ix_([0, 2], [1, 3])])
    with pytest.raises(ValueError, match=r"^\[meshgrid\]"):
        jnp.meshgrid(x, indexing="bad")


# ---- insertion, deletion, resizing -----------------------------------------------------------

def test_insert_delete_append_resize():
    close(jnp.insert(A, 1, 9.0), np.insert(A, 1, 9.0))
    close(jnp.insert(A, [1, 1, 3], 9.0, axis=1), np.insert(A, [1, 1, 3], 9.0, axis=1))
    close(jnp.insert(A, 2, [7.0, 8.0, 9.0], axis=1), np.insert(A, 2, [7.0, 8.0, 9.0], axis=1))
    close(jnp.insert(A, [0, 4], [[1.0], [2.0], [3.0]], axis=1),
          np.insert(A, [0, 4], [[1.0], [2.0], [3.0]], axis=1))
    close(jnp.insert(A, slice(0, 2), -1.0, axis=0), np.insert(A, slice(0, 2), -1.0, axis=0))
    close(jnp.delete(A, [0, 2], axis=1), np.delete(A, [0, 2], axis=1))
    close(jnp.delete(A, 5), np.delete(A, 5))
    close(jnp.delete(A, slice(1, None, 2), axis=0), np.delete(A, slice(1, None, 2), axis=0))
    close(jnp.delete(A, np.array([True, False, True]), axis=0),
          np.delete(A, np.array([True, False, True]), axis=0))
    f = strata.jit(lambda i: jnp.delete(A, i, axis=1, assume_unique_indices=True))
    close(f(np.array([3, 0])), np.delete(A, [3, 0], axis=1))
    close(f(np.array([-1, 1])), np.delete(A, [-1, 1], axis=1))
    with pytest.raises(TypeError, match=r"^\[delete\]"):
        strata.jit(lambda i: jnp.delete(A, i, axis=1))(np.array([3, 0]))
    close(jnp.append(A, A[:1], axis=0), np.append(A, A[:1], axis=0))
    close(jnp.append(A, 1.0), np.append(A, 1.0))
    close(jnp.resize(A, (5, 5)), np.resize(A, (5, 5)))
    close(jnp.resize(A, 3), np.resize(A, 3))
    z = np.array([0, 0, 1, 2, 0, 3, 0, 0])
    for trim in ("fb", "f", "b"):
        close(jnp.trim_zeros(z, trim), np.trim_zeros(z, trim))
    check_grad(lambda v: jnp.delete(v, [1], axis=1), lambda v: np.delete(v, [1], axis=1), A)
    check_grad(lambda v: jnp.insert(v, [1, 3], 2.0, axis=1),
               lambda v: np.insert(v, [1, 3], 2.0, axis=1), A)
    with pytest.raises(IndexError, match=r"^\[delete\]"):
        jnp.delete(A, [7], axis=0)


# ---- creation --------------------------------------------------------------------------------

def test_creation_like():
    assert jnp.empty((2, 3)).shape == (2, 3)
    assert jnp.empty_like(A, shape=(5,)).shape == (5,)
    close(jnp.full_like(A, 2), np.full_like(A, 2))
    close(jnp.full_like(A, np.arange(4.0)), np.full_like(A, np.arange(4.0)))
    r = jnp.full_like(A, 3, dtype=jnp.int32, shape=(2,))
    assert r.dtype == np.int32 and r.shape == (2,)
    close(jnp.zeros_like(A, shape=(2, 2)), np.zeros((2, 2), np.float32))
    close(jnp.ones_like(A, dtype=jnp.int8, shape=3), np.ones(3, np.int8))
    close(jnp.copy(A), A)
    close(jnp.vander(np.array([1.0, 2.0, 3.0])), np.vander([1.0, 2.0, 3.0]))
    close(jnp.vander(np.array([1.0, 2.0]), 4, increasing=True),
          np.vander([1.0, 2.0], 4, increasing=True))
    for got, want in zip(jnp.broadcast_arrays(A, A[0]), np.broadcast_arrays(A, A[0])):
        close(got, want)
    assert jnp.broadcast_shapes((3, 1), (1, 4), (4,)) == (3, 4)
    close(jnp.broadcast_to(A[0], (2, 4)), np.broadcast_to(A[0], (2, 4)))


def test_ranges():
    close(jnp.linspace(0, 1, 5), np.linspace(0, 1, 5))
    close(jnp.linspace(0, 1, 5, endpoint=False), np.linspace(0, 1, 5, endpoint=False))
    v, s = jnp.linspace(2.0, 3.0, 4, retstep=True)
    vv, ss = np.linspace(2.0, 3.0, 4, retstep=True)
    close(v, vv)
    np.testing.assert_allclose(float(s), ss, rtol=1e-6)
    close(jnp.linspace(np.zeros(2), np.array([1.0, 2.0]), 3), np.linspace(np.zeros(2),
                                                                           [1.0, 2.0], 3))
    close(jnp.linspace(np.zeros(2), np.array([1.0, 2.0]), 3, axis=1),
          np.linspace(np.zeros(2), [1.0, 2.0], 3, axis=1))
    close(jnp.linspace(0, 10, 4, dtype=jnp.int32), np.linspace(0, 10, 4, dtype=np.int32))
    close(jnp.linspace(1, 1, 1), np.linspace(1, 1, 1))
    assert jnp.linspace(0, 1, 0).shape == (0,)
    close(jnp.logspace(0, 2, 3), np.logspace(0, 2, 3), rtol=1e-5)
    close(jnp.logspace(0, 3, 4, base=2.0, endpoint=False),
          np.logspace(0, 3, 4, base=2.0, endpoint=False), rtol=1e-5)
    close(jnp.geomspace(1, 1000, 4), np.geomspace(1, 1000, 4), rtol=1e-5)
    close(jnp.geomspace(-1, -16, 5), np.geomspace(-1, -16, 5), rtol=1e-5)
    close(jnp.geomspace(np.array([1.0, 2.0]), 32.0, 3, axis=1),
          np.geomspace([1.0, 2.0], 32.0, 3, axis=1), rtol=1e-5)
    assert jnp.arange(5).dtype == np.int32 and jnp.arange(5.0).dtype == np.float32
    close(jnp.arange(1, 10, 3), np.arange(1, 10, 3))
    close(jnp.arange(2.0, 3.0, 0.25), np.arange(2.0, 3.0, 0.25))
    close(jnp.arange(5, 0, -2), np.arange(5, 0, -2))
    close(jnp.arange(jnp.asarray(4)), np.arange(4))
    # linspace is differentiable in its end points.
    g = strata.grad(lambda a: jnp.sum(jnp.linspace(a, 2.0, 5) * np.arange(5.0)))(np.float32(0.5))
    np.testing.assert_allclose(float(g), np.sum(np.arange(5.0) * (1 - np.linspace(0, 1, 5))),
                               rtol=1e-5)
    with pytest.raises(ValueError, match=r"^\[linspace\]"):
        jnp.linspace(0, 1, -1)


# ---- indices from masks, where, select -------------------------------------------------------

def test_nonzero_where_argwhere():
    m = A > 0.2
    for got, want in zip(jnp.nonzero(m), np.nonzero(m)):
        close(got, want)
    for got, want in zip(jnp.where(m), np.where(m)):
        close(got, want)
    close(jnp.argwhere(m), np.argwhere(m))
    close(jnp.flatnonzero(m), np.flatnonzero(m))
    close(jnp.where(m, A, -1.0), np.where(m, A, -1.0))
    # size= / fill_value= under jit and vmap
    f = strata.jit(lambda x: jnp.nonzero(x > 0.2, size=6, fill_value=-1))
    got = f(A)
    want = [np.concatenate([w, -np.ones(6 - len(w), int)])[:6] for w in np.nonzero(m)]
    for g, w in zip(got, want):
        close(g, w)
    got = strata.vmap(lambda x: jnp.flatnonzero(x > 0, size=4, fill_value=9))(A)
    want = np.stack([np.concatenate([np.flatnonzero(r > 0), [9] * 4])[:4] for r in A])
    close(got, want)
    close(jnp.argwhere(m, size=2), np.argwhere(m)[:2])
    got = jnp.nonzero(m, size=3, fill_value=(7, 8))
    close(got[0][:len(np.nonzero(m)[0])], np.nonzero(m)[0][:3])
    with pytest.raises(TypeError, match=r"^\[nonzero\]"):
        strata.jit(jnp.nonzero)(A)
    with pytest.raises(ValueError, match=r"^\[where\]"):
        jnp.where(m, A)


def test_select_piecewise_choose_compress():
    x = np.linspace(-2, 2, 9).astype(np.float32)
    conds = [x < -1, x > 1]
    close(jnp.select(conds, [x * 2, x ** 2], 0.5), np.select(conds, [x * 2, x ** 2], 0.5))
    close(jnp.piecewise(x, conds, [lambda v: -v, lambda v: v * 3, 7.0]),
          np.piecewise(x, conds, [lambda v: -v, lambda v: v * 3, 7.0]))
    close(jnp.piecewise(x, [x < 0], [0.0, lambda v: v]),
          np.piecewise(x, [x < 0], [0.0, lambda v: v]))
    idx = np.array([[0, 1, 2, 1], [2, 0, 1, 0], [1, 1, 0, 2]])
    ch = [A, A * 2, A * 3]
    close(jnp.choose(idx, ch), np.choose(idx, ch))
    close(jnp.choose(idx + 3, ch, mode="wrap"), np.choose(idx + 3, ch, mode="wrap"))
    close(jnp.choose(idx * 3, ch, mode="clip"), np.choose(idx * 3, ch, mode="clip"))
    c = np.array([True, False, True])
    close(jnp.compress(c, A, axis=0), np.compress(c, A, axis=0))
    close(jnp.compress([1, 0, 0, 1], A, axis=1), np.compress([1, 0, 0, 1], A, axis=1))
    close(jnp.compress(c, A), np.compress(c, A))
    close(jnp.extract(A > 0, A), np.extract(A > 0, A))
    close(jnp.extract(A > 0, A, size=3, fill_value=-9.0),
          np.concatenate([np.extract(A > 0, A), [-9.0] * 3])[:3])
    want = A.copy()
    np.place(want, A > 0, [10.0, 20.0])
    close(jnp.place(A, A > 0, np.array([10.0, 20.0]), inplace=False), want)
    want = A.copy()
    np.put(want, [0, 5, 11], [1.0, 2.0, 3.0])
    close(jnp.put(A, np.array([0, 5, 11]), np.array([1.0, 2.0, 3.0]), inplace=False), want)
    want = A.copy()
    np.put(want, [3, 15], [1.0, 2.0], mode="wrap")
    close(jnp.put(A, np.array([3, 15]), np.array([1.0, 2.0]), mode="wrap", inplace=False), want)
    check_grad(lambda v: jnp.select([v > 0], [v * v], v), lambda v: np.select([v > 0], [v * v], v),
               A)
    check_grad(lambda v: jnp.piecewise(v, [v > 0], [lambda t: t ** 3, lambda t: -t]),
               lambda v: np.piecewise(v, [v > 0], [lambda t: t ** 3, lambda t: -t]), A)
    with pytest.raises(ValueError, match=r"^\[select\]"):
        jnp.select([x > 0], [x, x])


# ---- take with modes -------------------------------------------------------------------------

def test_take_modes():
    x = np.arange(5.0, dtype=np.float32)
    i = np.array([0, 4, 5, -1, -6, 2])
    close(jnp.take(x, i), np.array([0, 4, np.nan, 4, np.nan, 2], np.float32))  # mode 'fill'
    close(jnp.take(x, i, mode="clip"), np.take(x, i, mode="clip"))
    close(jnp.take(x, i, mode="wrap"), np.take(x, i, mode="wrap"))
    close(jnp.take(x, i, fill_value=-1.0), np.array([0, 4, -1, 4, -1, 2], np.float32))
    xi = np.arange(5, dtype=np.int32)
    close(jnp.take(xi, i), np.array([0, 4, np.iinfo(np.int32).min, 4, np.iinfo(np.int32).min, 2]))
    close(jnp.take(A, np.array([[0, 2], [1, 1]]), axis=1), np.take(A, [[0, 2], [1, 1]], axis=1))
    close(jnp.take(A, np.array([3, 0]), axis=None), np.take(A, [3, 0]))
    ta = np.argsort(A, axis=1)
    close(jnp.take_along_axis(A, ta, axis=1), np.take_along_axis(A, ta, axis=1))
    close(jnp.take_along_axis(A, np.array([[5], [0], [1]]), axis=1),
          np.array([[np.nan], [A[1, 0]], [A[2, 1]]], np.float32))
    close(jnp.take_along_axis(A, np.array([[5], [0], [1]]), axis=1, mode="clip"),
          np.take_along_axis(A, np.array([[3], [0], [1]]), axis=1))
    want = A.copy()
    np.put_along_axis(want, np.array([[0], [3], [1]]), -1.0, axis=1)
    close(jnp.put_along_axis(A, np.array([[0], [3], [1]]), -1.0, axis=1, inplace=False), want)
    check_grad(lambda v: jnp.take(v, np.array([1, 7, 0]), axis=None, mode="clip"),
               lambda v: np.take(v, [1, 7, 0], mode="clip"), A)
    check_grad(lambda v: jnp.take_along_axis(v, ta, axis=1),
               lambda v: np.take_along_axis(v, ta, axis=1), A)
    check_vmap(lambda v: jnp.take(v, np.array([0, 9, -2])), A)
    with pytest.raises(TypeError, match=r"^\[take\]"):
        jnp.take(x, np.array([0.5]))
    with pytest.raises(ValueError, match=r"^\[put_along_axis\]"):
        jnp.put_along_axis(A, ta, 1.0, axis=1)


def test_multi_index():
    mi = (np.array([0, 2, 1]), np.array([3, 0, 1]))
    close(jnp.ravel_multi_index(mi, (3, 4)), np.ravel_multi_index(mi, (3, 4)))
    close(jnp.ravel_multi_index(mi, (3, 4), order="F"), np.ravel_multi_index(mi, (3, 4),
                                                                            order="F"))
    close(jnp.ravel_multi_index((np.array([4, -1]), np.array([5, 0])), (3, 4), mode="wrap"),
          np.ravel_multi_index(([4, -1], [5, 0]), (3, 4), mode="wrap"))
    close(jnp.ravel_multi_index((np.array([4, -1]), np.array([5, 0])), (3, 4), mode="clip"),
          np.ravel_multi_index(([4, -1], [5, 0]), (3, 4), mode="clip"))
    for got, want in zip(jnp.unravel_index(np.array([0, 5, 11, -1]), (3, 4)),
                         np.unravel_index([0, 5, 11, 11], (3, 4))):
        close(got, want)
    f = strata.jit(lambda i: jnp.unravel_index(i, (2, 3, 4)))
    for got, want in zip(f(np.array([7, 23])), np.unravel_index([7, 23], (2, 3, 4))):
        close(got, want)
    with pytest.raises(TypeError, match=r"^\[unravel_index\]"):
        jnp.unravel_index(np.array([1.5]), (3,))
