"""Collects benchmark records from the C++ benchmark binaries and the Python peers into
bench/results/latest.json, and plots the ratios into bench/results/latest.png."""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_cpp(build, name, flt):
    exe = os.path.join(build, "bench", name)
    run = subprocess.run([exe] + ([flt] if flt else []), check=True, capture_output=True,
                         text=True)
    if run.stderr:
        print(run.stderr, end="", file=sys.stderr)  # skipped benchmarks say why
    recs = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    for r in recs:
        r["command"] = " ".join(["build/bench/" + name] + ([flt] if flt else []))
    return recs


def run_python(build, flt, script="bench_python.py"):
    """The records of a Python benchmark script (bench_python.py: Strata from Python, its peers
    measured in the same run; bench_control_flow.py), with the package of this build tree."""
    if not os.path.isdir(os.path.join(build, "python", "strata")):
        return []
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    cmd = [sys.executable, os.path.join(HERE, script)] + ([flt] if flt else [])
    try:
        run = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    except (subprocess.CalledProcessError, OSError) as e:
        print(script, "failed:", e, getattr(e, "stderr", ""), file=sys.stderr)
        return []
    if run.stderr:
        print(run.stderr, end="", file=sys.stderr)  # skipped benchmarks say why
    recs = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    for r in recs:
        r["command"] = " ".join(["PYTHONPATH=build/python", "python3", "bench/" + script]
                                + ([flt] if flt else []))
    return recs


# Records that pair a Strata time (by its record name, in ms) with a peer's time from a Python
# peer script run in the same scripts/bench run. Each pair becomes a throughput record
# (1 / time, higher is better), so its ratio is Strata's speedup over the peer and the target
# is a speedup: (script, strata record, peer, new record name, peer description, target).
PEER_PAIRS = [
    ("peers_torch.py", "per_example_grad_mlp784_vmap_vs_loop", "torch_per_example_loop",
     "per_example_grad_mlp784_vs_torch_loop", "PyTorch 1.13 eager per-example loop", None),
    ("peers_torch.py", "per_example_grad_mlp784_vmap_vs_loop", "functorch_vmap_grad",
     "per_example_grad_mlp784_vs_functorch", "functorch vmap(grad) (PyTorch 1.13)", None),
    ("peers_torch.py", "jit_per_example_grad_mlp784", "functorch_vmap_grad",
     "jit_per_example_grad_mlp784_vs_functorch", "functorch vmap(grad) (PyTorch 1.13)", 1.0),
    ("peers_torch.py", "mlp_train_step_784_512_512_b128", "torch_mlp_train_step",
     "mlp_train_step_vs_torch", "PyTorch 1.13 eager train step", 1.25),
    ("peers_numpy.py", "jit_chain6_1e7_f32_time", "numpy_chain6_1e7_f32",
     "jit_chain6_vs_numpy", "numpy 1.24, same expression", 3.0),
]


def peer_records(flt, records):
    by_name = {r["name"]: r for r in records}
    extra = []
    for script in sorted({p[0] for p in PEER_PAIRS}):
        pairs = [p for p in PEER_PAIRS if p[0] == script and p[1] in by_name]
        if not pairs:
            continue
        try:
            out = subprocess.run([sys.executable, os.path.join(HERE, script), flt],
                                 check=True, capture_output=True, text=True).stdout
        except (subprocess.CalledProcessError, OSError) as e:
            print(script, "peers unavailable:", e, file=sys.stderr)
            continue
        peers = {}
        for line in out.splitlines():
            if line.startswith("{"):
                d = json.loads(line)
                peers[d["peer"]] = d
        for _, mine, peer, name, desc, target in pairs:
            if peer not in peers:
                continue
            r = by_name[mine]
            rec = {"name": name, "unit": "1/s", "strata": 1e3 / r["strata"], "peer": desc,
                   "peer_value": 1e3 / peers[peer]["value"],
                   "ratio": peers[peer]["value"] / r["strata"], "better": "higher",
                   "peer_threads": peers[peer].get("threads"),
                   "command": r["command"] + " ; python3 bench/" + script}
            if target is not None:
                rec["target"] = target
            extra.append(rec)
    return extra


def blas_in_use():
    try:
        return os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    except OSError:
        return "unknown"


def meets(r):
    """Whether record `r` meets its target: "target_ratio" bounds strata / peer (an upper bound
    when lower is better); "target" is a ratio when higher is better and an absolute value
    (us, ms) when lower is; without either, beating the peer."""
    if "target_ratio" in r:
        return r["ratio"] <= r["target_ratio"] if r["better"] == "lower" else \
            r["ratio"] >= r["target_ratio"]
    if "target" not in r:
        return r["ratio"] >= 1 if r["better"] == "higher" else r["ratio"] <= 1
    if r["better"] == "higher":
        return r["ratio"] >= r["target"]
    return r["strata"] <= r["target"]


def plot(records, path):
    records = [r for r in records if not r.get("curve")]  # curve points have their own plot
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # Speedup over the peer: > 1 means Strata wins, whichever direction is better.
    names = [r["name"] for r in records]
    speed = [r["ratio"] if r["better"] == "higher" else 1.0 / r["ratio"] for r in records]
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(records) + 1.5))
    ax.barh(names, speed, color=["tab:green" if meets(r) else "tab:red" for r in records])
    ax.axvline(1.0, color="black", linewidth=0.8)
    for r, s in zip(records, speed):
        if "target_ratio" in r:
            tr = r["target_ratio"]
            t = tr if r["better"] == "higher" else 1.0 / tr
            ax.plot([t], [r["name"]], "k|", markersize=14)
        elif "target" in r:
            t = r["target"] if r["better"] == "higher" else r["peer_value"] / r["target"]
            ax.plot([t], [r["name"]], "k|", markersize=14)
    ax.set_xlabel("Strata relative to peer (>1: Strata better; | target; green: target met)")
    ax.set_title("Strata benchmarks, " + datetime.date.today().isoformat())
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a jit_vs_eager record finds a jitted workload slower than "
                         "eager")
    ap.add_argument("filter", nargs="?", default="")
    args = ap.parse_args()
    records = []
    for exe in sorted(os.listdir(os.path.join(args.build, "bench"))):
        path = os.path.join(args.build, "bench", exe)
        if exe.startswith("bench_") and os.access(path, os.X_OK) and os.path.isfile(path):
            records += run_cpp(args.build, exe, args.filter)
    records += peer_records(args.filter, records)
    records += run_python(args.build, args.filter)
    records += run_python(args.build, args.filter, "bench_control_flow.py")
    records += run_python(args.build, args.filter, "bench_workloads.py")
    records += run_python(args.build, args.filter, "bench_families.py")
    for r in records:
        print(f'{r["name"]:40s} {r["strata"]:10.4g} {r["unit"]:8s} peer {r["peer_value"]:10.4g}'
              f'  ratio {r["ratio"]:.3f} ({r["better"]} is better)')
    out_dir = os.path.join(HERE, "results")
    os.makedirs(out_dir, exist_ok=True)
    meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
            "machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
            "system_blas": blas_in_use()}
    for r in records:
        r.update(meta)
    latest = os.path.join(out_dir, "latest.json")
    if args.filter and os.path.exists(latest):
        # A filtered run replaces its own records and keeps the others.
        with open(latest) as f:
            old = json.load(f)
        names = {x["name"] for x in records}
        records = [r for r in old if r["name"] not in names] + records
    with open(latest, "w") as f:
        json.dump(records, f, indent=1)
    plot(records, os.path.join(out_dir, "latest.png"))
    print("wrote", os.path.join(out_dir, "latest.json"), "and latest.png")
    missed = [r for r in records if not r.get("curve") and not meets(r)]
    for r in missed:
        print(f'target missed: {r["name"]} ratio {r["ratio"]:.3f}')
    slower = [r for r in missed if r["name"].startswith("jit_vs_eager_")]
    if args.check and slower:
        print("jit slower than eager:", ", ".join(r["name"] for r in slower))
        sys.exit(1)


if __name__ == "__main__":
    main()
