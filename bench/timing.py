"""Timing shared by the Python benchmark scripts (the same rule as bench_util.h's
time_per_call): median seconds per call over `reps` batches of `inner` calls, after a warm-up
batch."""
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
