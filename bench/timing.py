"""What the Python benchmark scripts share: the timing rule of bench_util.h's time_per_call
(median seconds per call over `reps` batches of `inner` calls, after a warm-up batch), the JSON
record of bench_util.h's record(), and the filtered run of a script's benchmarks."""
import json
import sys
import time


def time_per_call(fn, inner=1, reps=7):
    for _ in range(inner):
        fn()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        t.append((time.perf_counter() - t0) / inner)
    return sorted(t)[len(t) // 2]


def record(name, unit, strata_value, peer, peer_value, better, **extra):
    """One JSON line: Strata's value beside its peer's, with their ratio."""
    rec = {"name": name, "unit": unit, "strata": strata_value, "peer": peer,
           "peer_value": peer_value, "ratio": strata_value / peer_value, "better": better}
    rec.update(extra)
    print(json.dumps(rec), flush=True)


def run_benches(benches):
    """Runs each (name, fn) of `benches` whose name contains the first command-line argument."""
    flt = sys.argv[1] if len(sys.argv) > 1 else ""
    for name, fn in benches:
        if not flt or flt in name:
            fn()
