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
    out = subprocess.run([exe] + ([flt] if flt else []), check=True, capture_output=True,
                         text=True).stdout
    recs = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    for r in recs:
        r["command"] = " ".join(["build/bench/" + name] + ([flt] if flt else []))
    return recs


# Records that pair a Strata measurement (by its record name) with a PyTorch peer.
TORCH_PAIRS = [
    ("per_example_grad_mlp784_vmap_vs_loop", "torch_per_example_loop",
     "per_example_grad_mlp784_vs_torch_loop", "PyTorch 1.13 eager per-example loop"),
    ("per_example_grad_mlp784_vmap_vs_loop", "functorch_vmap_grad",
     "per_example_grad_mlp784_vs_functorch", "functorch vmap(grad) (PyTorch 1.13)"),
]


def torch_records(flt, records):
    try:
        out = subprocess.run([sys.executable, os.path.join(HERE, "peers_torch.py"), flt],
                             check=True, capture_output=True, text=True).stdout
    except (subprocess.CalledProcessError, OSError) as e:
        print("PyTorch peers unavailable:", e, file=sys.stderr)
        return []
    peers = {}
    for line in out.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            peers[d["peer"]] = d
    by_name = {r["name"]: r for r in records}
    extra = []
    for mine, peer, name, desc in TORCH_PAIRS:
        if mine in by_name and peer in peers:
            r = by_name[mine]
            extra.append({"name": name, "unit": r["unit"], "strata": r["strata"], "peer": desc,
                          "peer_value": peers[peer]["value"],
                          "ratio": r["strata"] / peers[peer]["value"],
                          "better": r["better"], "torch_threads": peers[peer].get("threads"),
                          "command": r["command"] + " ; python3 bench/peers_torch.py"})
    return extra


def blas_in_use():
    try:
        return os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    except OSError:
        return "unknown"


def plot(records, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # Speedup over the peer: > 1 means Strata wins, whichever direction is better.
    names = [r["name"] for r in records]
    speed = [r["ratio"] if r["better"] == "higher" else 1.0 / r["ratio"] for r in records]
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(records) + 1.5))
    def meets(r, s):  # the target when there is one, else beating the peer
        if "target" not in r:
            return s >= 1
        if r["better"] == "higher":
            return r["ratio"] >= r["target"]
        return r["strata"] <= r["target"]
    ax.barh(names, speed, color=["tab:green" if meets(r, s) else "tab:red"
                                 for r, s in zip(records, speed)])
    ax.axvline(1.0, color="black", linewidth=0.8)
    for r, s in zip(records, speed):
        if "target" in r:
            t = r["target"] if r["better"] == "higher" else r["peer_value"] / r["target"]
            ax.plot([t], [r["name"]], "k|", markersize=14)
    ax.set_xlabel("Strata relative to peer (>1: Strata better; | target; green: target met)")
    ax.set_title("Strata benchmarks, " + datetime.date.today().isoformat())
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("filter", nargs="?", default="")
    args = ap.parse_args()
    records = []
    for exe in sorted(os.listdir(os.path.join(args.build, "bench"))):
        path = os.path.join(args.build, "bench", exe)
        if exe.startswith("bench_") and os.access(path, os.X_OK) and os.path.isfile(path):
            records += run_cpp(args.build, exe, args.filter)
    records += torch_records(args.filter, records)
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


if __name__ == "__main__":
    main()
