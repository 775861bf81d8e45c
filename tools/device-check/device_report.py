#!/usr/bin/env python3
"""The reports of scripts/device-check (standard library only; runs on the GPU machine too).

  device_report.py merge OUT           OUT/{check,bench,peers}.jsonl -> OUT/device-results.jsonl
  device_report.py summary OUT         the issue's targets from device-results.jsonl (prints a
                                       table, writes OUT/summary.json)
  device_report.py record DIR RESULTS  DIR (a fetched OUT) -> RESULTS/gpu-<date>-<device>.json,
                                       and RESULTS/gpu.md rebuilt from every gpu-*.json there
"""
import glob
import json
import os
import re
import sys

SOURCES = (("check.jsonl", "check"), ("bench.jsonl", "strata"), ("peers.jsonl", "peers"))


def read_jsonl(path):
    recs = []
    if not os.path.exists(path):
        return recs
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    recs.append(json.loads(line))
                except ValueError:
                    pass
    return recs


def merge(out):
    with open(os.path.join(out, "device-results.jsonl"), "w") as f:
        for name, source in SOURCES:
            for rec in read_jsonl(os.path.join(out, name)):
                rec["source"] = source
                f.write(json.dumps(rec) + "\n")


def environment(out):
    env = {}
    path = os.path.join(out, "environment.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                key, sep, value = line.partition(": ")
                if sep and key in ("date", "mode", "bundle commit"):
                    env[key.replace(" ", "_")] = value.strip()
    return env


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def summarize(out):
    recs = read_jsonl(os.path.join(out, "device-results.jsonl"))
    strata = {r["name"]: r for r in recs if r.get("source") == "strata" and "value" in r}
    peers = [r for r in recs if r.get("source") == "peers" and "value" in r]
    errors = [r for r in recs if "error" in r]
    checks = [r for r in recs if r.get("source") == "check" and "check" in r]
    device = next((r.get("device") for r in recs if r.get("source") == "strata"), "?")

    def peer(name, prefix):
        for r in peers:
            if r["name"] == name and r.get("framework", "").startswith(prefix):
                return r
        return None

    targets, comparisons = [], []

    def target(what, value, unit, peer_name, peer_value, ratio, goal, ok):
        targets.append({"target": what, "value": value, "unit": unit, "peer": peer_name,
                        "peer_value": peer_value, "ratio": ratio, "goal": goal,
                        "status": "n/a" if ok is None else ("met" if ok else "MISSED")})

    for name, r in sorted(strata.items()):
        if name.startswith("jit_chain6"):
            target("fused elementwise (6 ops) vs device copy bandwidth", r["value"], r["unit"],
                   r.get("peer"), r.get("peer_value"), r.get("ratio"), "ratio >= 0.85",
                   r.get("ratio") is not None and r["ratio"] >= 0.85)
        elif name.startswith("jit_dot_general_"):
            target(f"jitted dot_general {name.split('_')[3]} vs the library called directly",
                   r["value"], r["unit"], r.get("peer"), r.get("peer_value"), r.get("ratio"),
                   "ratio >= 0.95", r.get("ratio") is not None and r["ratio"] >= 0.95)
        elif name.startswith("transformer_block_first_call_"):
            target(f"transformer step first call ({name.rsplit('_', 1)[1]}), compile "
                   f"{fmt(r.get('compile_s'))} s", r["value"], "s", None, None, None,
                   "<= 2 s", r["value"] <= 2.0)
        elif name.startswith("transformer_block_step_"):
            j = peer(name, "jax")
            ratio = r["value"] / j["value"] if j else None
            target(f"transformer step ({name.rsplit('_', 1)[1]}) vs JAX", r["value"], "ms",
                   j["framework"] if j else "JAX (missing)", j["value"] if j else None, ratio,
                   "ratio <= 1.0", None if j is None else ratio <= 1.0)
        # Every framework's number for the same measurement, for the table.
        for p in peers:
            if p["name"] == name:
                comparisons.append({"name": name, "strata": r["value"], "unit": r["unit"],
                                    "peer": p.get("framework"), "peer_value": p["value"],
                                    "ratio": r["value"] / p["value"] if p["value"] else None})
    # PyTorch's own copy and matmul, next to strata::cuda's.
    for p in peers:
        if p["name"].startswith(("device_copy_bandwidth", "matmul_")):
            comparisons.append({"name": p["name"], "strata": None, "unit": p["unit"],
                                "peer": p.get("framework"), "peer_value": p["value"],
                                "ratio": None})

    summary = {"device": device, **environment(out), "targets": targets,
               "comparisons": comparisons, "checks": checks, "errors": errors}
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)

    print(f"== device check on {device} ({summary.get('mode', '?')}, {summary.get('date', '?')})")
    print(f"{'target':62} {'strata':>10} {'peer':>10} {'ratio':>7}  goal            status")
    for t in targets:
        print(f"{t['target'][:62]:62} {fmt(t['value']):>10} {fmt(t['peer_value']):>10} "
              f"{fmt(t['ratio']):>7}  {t['goal']:15} {t['status']}")
    if comparisons:
        print(f"{'measurement':48} {'peer':34} {'strata':>9} {'peer':>9} {'ratio':>7}")
        for c in comparisons:
            print(f"{c['name'][:48]:48} {str(c['peer'])[:34]:34} {fmt(c['strata']):>9} "
                  f"{fmt(c['peer_value']):>9} {fmt(c['ratio']):>7}  {c['unit']}")
    bad = [c for c in checks if not c.get("ok")]
    print(f"checks: {len(checks) - len(bad)}/{len(checks)} ok" +
          "".join(f"\n  FAILED {c['check']}: {c.get('detail', '')}" for c in bad))
    for e in errors:
        print(f"error in {e.get('name')} ({e.get('framework', e.get('source'))}): "
              f"{e.get('error', '')[:300]}")
    return summary


def slug(text):
    text = text.lower().replace("nvidia", "").split(",")[0]
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-") or "device"


def record(src, results):
    summary_path = os.path.join(src, "summary.json")
    if not os.path.exists(summary_path):
        summarize(src)
    with open(summary_path) as f:
        summary = json.load(f)
    summary["records"] = read_jsonl(os.path.join(src, "device-results.jsonl"))
    env_path = os.path.join(src, "environment.txt")
    if os.path.exists(env_path):
        with open(env_path) as f:
            summary["environment"] = f.read()
    date = summary.get("date", "unknown")[:10]
    name = f"gpu-{date}-{slug(summary.get('device', 'device'))}"
    if summary.get("mode") == "cpu":
        name += "-cpu-degraded"
    os.makedirs(results, exist_ok=True)
    path = os.path.join(results, name + ".json")
    with open(path, "w") as f:
        json.dump(summary, f, indent=1)
    write_markdown(results)
    print(f"wrote {path} and {os.path.join(results, 'gpu.md')}")


def write_markdown(results):
    runs = []
    for path in glob.glob(os.path.join(results, "gpu-*.json")):
        with open(path) as f:
            runs.append((os.path.basename(path), json.load(f)))
    runs.sort(key=lambda r: r[1].get("date", ""), reverse=True)
    lines = ["# GPU device check results",
             "",
             "Written by `scripts/device-check record` from the runs of `scripts/device-check "
             "run` on a lent GPU machine (docs/gpu.md); newest first. Ratios are Strata over "
             "the peer (for times, lower is better).", ""]
    for fname, s in runs:
        lines += [f"## {s.get('date', '?')}: {s.get('device', '?')} ({s.get('mode', '?')})", "",
                  f"Commit {s.get('bundle_commit', '?')}; raw records in `{fname}`.", "",
                  "| target | Strata | peer | peer value | ratio | goal | status |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for t in s.get("targets", []):
            lines.append(f"| {t['target']} | {fmt(t['value'])} {t['unit']} | {t['peer'] or '-'} "
                         f"| {fmt(t['peer_value'])} | {fmt(t['ratio'])} | {t['goal']} "
                         f"| {t['status']} |")
        if s.get("comparisons"):
            lines += ["", "| measurement | peer | Strata | peer value | ratio | unit |",
                      "| --- | --- | --- | --- | --- | --- |"]
            for c in s["comparisons"]:
                lines.append(f"| {c['name']} | {c['peer']} | {fmt(c['strata'])} "
                             f"| {fmt(c['peer_value'])} | {fmt(c['ratio'])} | {c['unit']} |")
        checks = s.get("checks", [])
        ok = sum(1 for c in checks if c.get("ok"))
        lines += ["", f"Checks: {ok}/{len(checks)} ok. Errors: {len(s.get('errors', []))}.", ""]
    with open(os.path.join(results, "gpu.md"), "w") as f:
        f.write("\n".join(lines))


def main(argv):
    if len(argv) >= 2 and argv[0] == "merge":
        merge(argv[1])
    elif len(argv) >= 2 and argv[0] == "summary":
        summarize(argv[1])
    elif len(argv) >= 3 and argv[0] == "record":
        record(argv[1], argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
