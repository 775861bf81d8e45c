"""The workloads of bench/bench_workloads.py and bench/bench_families.py at small sizes: each runs
jitted and eagerly and the two agree, so the benchmarks cannot rot and the jit computes what eager
does on them."""
import os
import sys

import pytest

os.environ["STRATA_BENCH_SMOKE"] = "1"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))

import bench_families  # noqa: E402
import bench_workloads  # noqa: E402

BENCHES = bench_workloads.BENCHES + bench_families.BENCHES


@pytest.mark.parametrize("name,fn", BENCHES, ids=[n for n, _ in BENCHES])
def test_workload_jit_matches_eager(name, fn, capsys):
    fn()
    assert capsys.readouterr().out == ""  # smoke runs check, they do not record
