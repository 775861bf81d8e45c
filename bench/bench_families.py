"""Benchmarks of the primitive families (convolution, pooling, linear algebra, FFT), each beside
its peer in the same run, as JSON records in the format of bench/bench_util.h's record():
conv2d forward+backward against PyTorch 1.13 with the same threads, conv2d + bias + relu
forward (the epilogue folded into the convolution) against PyTorch, pooling forward+backward
against PyTorch, cholesky / solve / svd / eigh / eig against numpy's LAPACK (512x512 f64 (eig
256) and a batch of 64 32x32), rfft and fft2 against numpy.fft, a complex64 matmul against
numpy. Every workload is also run eagerly (its
`jit_vs_eager_*` record), and with STRATA_BENCH_SMOKE=1 each runs once at small sizes with its
jitted result checked against the eager one (test/python/test_bench_workloads.py).

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_families.py [filter]
"""
import numpy as np

from bench_workloads import SMOKE, jit_and_eager, size, torch_or_none  # noqa: E402
import strata  # noqa: E402
import strata.numpy as jnp  # noqa: E402
from strata import lax  # noqa: E402
from timing import run_benches, time_per_call  # noqa: E402


def bench_conv2d():
    """conv2d 3x3, 64->64 channels on 32x32 images, batch 32, f32, NCHW: the loss's value and
    the gradients of both operands (forward + backward), jitted."""
    n, c, hw = size(32, 2), size(64, 4), size(32, 8)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, c, hw, hw), dtype=np.float32)
    w = (rng.standard_normal((c, c, 3, 3), dtype=np.float32) * 0.05).astype(np.float32)

    def loss(x, w):
        y = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return jnp.sum(y * y)

    fwd_bwd = strata.value_and_grad(loss, argnums=(0, 1))
    torch = torch_or_none()
    peer = None
    if torch is not None:
        tx = torch.tensor(x, requires_grad=True)
        tw = torch.tensor(w, requires_grad=True)

        def step():
            tx.grad = tw.grad = None
            y = torch.nn.functional.conv2d(tx, tw, padding=1)
            (y * y).sum().backward()
        peer = time_per_call(step, 1, 5) * 1e3
    jit_and_eager("conv2d_3x3_64x64_b32_fwd_bwd", fwd_bwd, (x, w), peer,
                  "PyTorch 1.13 conv2d forward+backward (same threads, same run)",
                  "value and both gradients", target_ratio=1.0)

    b = rng.standard_normal((c,), dtype=np.float32)

    def layer(x, w, b):
        y = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return jnp.maximum(y + b[None, :, None, None], 0.0)

    peer = None
    if torch is not None:
        tx, tw, tb = torch.tensor(x), torch.tensor(w), torch.tensor(b)

        def fwd():
            with torch.no_grad():
                torch.relu(torch.nn.functional.conv2d(tx, tw, tb, padding=1))
        peer = time_per_call(fwd, 1, 5) * 1e3
    jit_and_eager("conv2d_3x3_64x64_b32_bias_relu_fwd", layer, (x, w, b), peer,
                  "PyTorch 1.13 conv2d(bias) + relu forward (same threads, same run)",
                  "bias and relu folded into the convolution under jit")


def bench_pooling():
    """Max pool 2x2 stride 2 and average pool 3x3 stride 1 (SAME) of (32, 64, 32, 32) f32,
    forward + backward, jitted."""
    shape = (size(32, 2), size(64, 3), size(32, 8), size(32, 8))
    x = np.random.default_rng(1).standard_normal(shape, dtype=np.float32)

    def max_loss(x):
        y = lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        return jnp.sum(y * y)

    def avg_loss(x):
        y = lax.reduce_window(x, 0.0, lax.add, (1, 1, 3, 3), (1, 1, 1, 1), "SAME") / 9.0
        return jnp.sum(y * y)

    torch = torch_or_none()
    for name, fn, tfn in (
            ("maxpool2x2", max_loss,
             lambda t: torch.nn.functional.max_pool2d(t, 2, 2)),
            ("avgpool3x3", avg_loss,
             lambda t: torch.nn.functional.avg_pool2d(t, 3, 1, 1, count_include_pad=True))):
        peer = None
        if torch is not None:
            tx = torch.tensor(x, requires_grad=True)

            def step():
                tx.grad = None
                y = tfn(tx)
                (y * y).sum().backward()
            peer = time_per_call(step, 1, 5) * 1e3
        jit_and_eager(f"{name}_32x64x32x32_fwd_bwd", strata.value_and_grad(fn), (x,), peer,
                      "PyTorch 1.13 pooling forward+backward (same threads, same run)",
                      "value and gradient")


def spd(rng, batch, n):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def bench_linalg():
    """cholesky, solve, svd and eigh of a 512x512 f64 matrix and of a batch of 64 32x32 ones,
    against numpy's LAPACK (OpenBLAS on Debian) in the same run."""
    prev = strata.config.read("jax_enable_x64")
    strata.config.update("jax_enable_x64", True)
    try:
        rng = np.random.default_rng(2)
        for label, batch, n in (("512", (), size(512, 8)), ("64x32", (size(64, 3),), size(32, 4))):
            a = spd(rng, batch, n)
            b = rng.standard_normal(batch + (n, 1))
            cases = (
                ("cholesky", lambda a, b: jnp.linalg.cholesky(a), lambda: np.linalg.cholesky(a)),
                ("solve", lambda a, b: jnp.linalg.solve(a, b), lambda: np.linalg.solve(a, b)),
                ("svd", lambda a, b: jnp.linalg.svd(a), lambda: np.linalg.svd(a)),
                ("eigh", lambda a, b: jnp.linalg.eigh(a), lambda: np.linalg.eigh(a)),
            )
            for name, fn, peer_fn in cases:
                peer = None if SMOKE else time_per_call(peer_fn, 1, 5) * 1e3
                jit_and_eager(f"{name}_{label}_f64", fn, (a, b), peer,
                              "numpy 1.24 linalg (its LAPACK, same run)", "f64",
                              target_ratio=1.2)
        n = size(256, 8)
        for label, a in (("256", rng.standard_normal((n, n))),
                         ("64x32", rng.standard_normal((size(64, 3), size(32, 4), size(32, 4))))):
            peer = None if SMOKE else time_per_call(lambda: np.linalg.eigvals(a), 1, 5) * 1e3
            jit_and_eager(f"eigvals_{label}_f64", jnp.linalg.eigvals, (a,), peer,
                          "numpy 1.24 linalg.eigvals (LAPACK geev, same run)", "f64 -> c128")
    finally:
        strata.config.update("jax_enable_x64", bool(prev))


def bench_complex():
    """A 512x512 complex64 matmul against numpy (both on OpenBLAS's cgemm)."""
    rng = np.random.default_rng(4)
    m = size(512, 8)
    a, b = ((rng.standard_normal((m, m)) + 1j * rng.standard_normal((m, m))).astype(np.complex64)
            for _ in range(2))
    peer = None if SMOKE else time_per_call(lambda: a @ b, 1, 5) * 1e3
    jit_and_eager("matmul_512_c64", jnp.matmul, (a, b), peer, "numpy 1.24 matmul (same run)",
                  "complex64", target_ratio=1.2)


def bench_fft():
    """rfft of 2^20 f32 and fft2 of a 1024x1024 complex64 array, against numpy.fft."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(size(1 << 20, 64), dtype=np.float32)
    m = size(1024, 8)
    z = (rng.standard_normal((m, m)) + 1j * rng.standard_normal((m, m))).astype(np.complex64)
    for name, fn, arg, peer_fn in (
            ("rfft_2p20_f32", jnp.fft.rfft, x, lambda: np.fft.rfft(x)),
            ("fft2_1024x1024_c64", jnp.fft.fft2, z, lambda: np.fft.fft2(z))):
        np.testing.assert_allclose(np.asarray(fn(jnp.asarray(arg))), peer_fn(), rtol=2e-4,
                                   atol=2e-3, err_msg=name)
        peer = None if SMOKE else time_per_call(peer_fn, 1, 7) * 1e3
        jit_and_eager(name, fn, (arg,), peer, "numpy 1.24 numpy.fft (pocketfft, same run)", "",
                      target_ratio=1.2)


BENCHES = [("conv2d", bench_conv2d),
           ("pooling", bench_pooling),
           ("linalg", bench_linalg),
           ("fft", bench_fft),
           ("complex", bench_complex)]


if __name__ == "__main__":
    run_benches(BENCHES)
