"""PyTorch 1.13 peers for the CPU benchmarks, measured in the same scripts/bench run.
Prints one JSON line per measurement: {"peer": name, "value": milliseconds}."""
import json
import os
import sys

# torch.set_num_threads does not reach Debian's BLIS (PyTorch's gemm): it reads its thread
# count from the environment when it loads, so the peer's BLAS gets Strata's threads here.
os.environ.setdefault("BLIS_NUM_THREADS", os.environ.get("STRATA_NUM_THREADS",
                                                         str(os.cpu_count())))
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import time_per_call  # noqa: E402 (this folder's shared timing)


# The peer gets its best thread count: 1 or as many as Strata uses (all cores by default).
THREAD_CHOICES = sorted({1, int(os.environ.get("STRATA_NUM_THREADS", os.cpu_count()))})


def median_time(fn, reps=5, inner=1):
    return time_per_call(fn, inner, reps)


def per_example_grads():
    torch.manual_seed(0)
    w1 = (torch.randn(784, 256) * 0.05).requires_grad_()
    b1 = torch.zeros(256, requires_grad=True)
    w2 = (torch.randn(256, 10) * 0.05).requires_grad_()
    b2 = torch.zeros(10, requires_grad=True)
    x = torch.randn(128, 784)
    y = torch.randint(0, 10, (128,))
    params = [w1, b1, w2, b2]

    def loss(w1, b1, w2, b2, x, y):
        h = torch.relu(x @ w1 + b1)
        logits = h @ w2 + b2
        return torch.nn.functional.cross_entropy(logits.unsqueeze(0), y.unsqueeze(0),
                                                 reduction="sum")

    def loop():
        for i in range(128):
            torch.autograd.grad(loss(*params, x[i], y[i]), params)

    out = {"torch_per_example_loop": median_time(loop) * 1e3}
    try:
        from functorch import grad, vmap
        vg = vmap(grad(loss, argnums=(0, 1, 2, 3)), in_dims=(None, None, None, None, 0, 0))
        ps = [p.detach() for p in params]
        out["functorch_vmap_grad"] = median_time(lambda: vg(*ps, x, y)) * 1e3
    except Exception as e:  # functorch missing or failing: report, do not crash the run
        print("functorch peer failed:", e, file=sys.stderr)
    return out


def mlp_train_step():
    """One SGD step of a 784-512-512-10 MLP at batch 128 (forward, backward, update)."""
    torch.manual_seed(0)
    sizes = [784, 512, 512, 10]
    ps = []
    for i in range(3):
        ps.append((torch.randn(sizes[i], sizes[i + 1]) / sizes[i] ** 0.5).requires_grad_())
        ps.append(torch.zeros(sizes[i + 1], requires_grad=True))
    x = torch.randn(128, 784)
    y = torch.randint(0, 10, (128,))

    def step():
        h = x
        for i in range(0, 6, 2):
            h = h @ ps[i] + ps[i + 1]
            if i < 4:
                h = torch.relu(h)
        loss = torch.nn.functional.cross_entropy(h, y)
        gs = torch.autograd.grad(loss, ps)
        with torch.no_grad():
            return loss, [p - 0.01 * g for p, g in zip(ps, gs)]

    return {"torch_mlp_train_step": median_time(step, reps=7, inner=5) * 1e3}


def best_over_threads(fn):
    best = {}
    for n in THREAD_CHOICES:
        torch.set_num_threads(n)
        for k, v in fn().items():
            if k not in best or v < best[k][0]:
                best[k] = (v, n)
    for k, (v, n) in best.items():
        print(json.dumps({"peer": k, "value": v, "threads": n}))


if __name__ == "__main__":
    flt = sys.argv[1] if len(sys.argv) > 1 else ""
    # The filter is a substring of the Strata record names the peers pair with.
    if flt in "per_example_grad_mlp784_vmap_vs_loop" or flt in "jit_per_example_grad_mlp784":
        best_over_threads(per_example_grads)
    if flt in "mlp_train_step_784_512_512_b128":
        best_over_threads(mlp_train_step)
