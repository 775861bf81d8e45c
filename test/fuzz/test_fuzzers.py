"""The fuzzers themselves catch what they are for: a crash, a hang and a kept regression fail
their runs, and a clean run passes (ctest fuzz_selftest, with strata on PYTHONPATH)."""

import json
import os
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROBE = os.path.join(HERE, "api_probe.py")
GEN_FUZZ = os.path.join(ROOT, "test", "Dialect", "strata", "fuzz", "gen_fuzz.py")


def probe(*args):
    return subprocess.run([sys.executable, PROBE, *args], capture_output=True, text=True,
                          timeout=120)


def test_probe_reports_a_crash_with_its_call(tmp_path):
    r = probe("--source", "import os; os.abort()", "--out", str(tmp_path))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "1 crashes" in r.stdout and "SIGABRT" in r.stdout
    kept = json.load(open(tmp_path / "new-regressions.json"))
    assert kept[0]["source"] == "import os; os.abort()"


def test_probe_reports_a_hang(tmp_path):
    r = probe("--source", "import time; time.sleep(30)", "--call-timeout", "1", "--out",
              str(tmp_path))
    assert r.returncode == 1 and "1 hangs" in r.stdout, r.stdout + r.stderr


def test_probe_passes_exceptions_and_results(tmp_path):
    for source in ("jnp.sum(jnp.ones(3), axis=5)", "_force(jnp.ones(3) + 1)"):
        r = probe("--source", source, "--out", str(tmp_path))
        assert r.returncode == 0, r.stdout + r.stderr


def test_probe_sample_is_the_same_every_run(tmp_path):
    a = probe("--calls", "40", "--seed", "7", "--verbose", "--out", str(tmp_path))
    b = probe("--calls", "40", "--seed", "7", "--verbose", "--out", str(tmp_path))
    strip = lambda out: [l for l in out.splitlines() if not l.startswith("api probe:")]
    assert a.returncode == 0 and strip(a.stdout) == strip(b.stdout)


def fake_opt(tmp_path, body):
    path = tmp_path / "fake-strata-opt"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def gen_fuzz(opt, tmp_path, *args):
    return subprocess.run([sys.executable, GEN_FUZZ, "--strata-opt", opt, "--cases", "3",
                           "--out", str(tmp_path / "out"), *args], capture_output=True,
                          text=True, timeout=120)


def test_dialect_fuzz_flags_a_crash_and_keeps_its_flags(tmp_path):
    r = gen_fuzz(fake_opt(tmp_path, "kill -SEGV $$"), tmp_path)
    assert r.returncode == 1 and "failures" in r.stdout, r.stdout + r.stderr
    first = open(tmp_path / "out" / "crash-0.mlir").readline()
    assert first.startswith("// FLAGS:")


def test_dialect_fuzz_runs_the_regressions_first(tmp_path):
    regressions = tmp_path / "regressions"
    regressions.mkdir()
    (regressions / "boom.mlir").write_text("// FLAGS: -canonicalize\nBOOM\n")
    # Crashes on the kept input only: the corpus and the mutants pass.
    opt = fake_opt(tmp_path, 'grep -q BOOM "$1" && kill -SEGV $$; exit 0')
    r = gen_fuzz(opt, tmp_path, "--regressions", str(regressions))
    assert r.returncode == 1 and "regression boom.mlir" in r.stdout, r.stdout + r.stderr
    clean = gen_fuzz(opt, tmp_path)
    assert clean.returncode == 0 and "0 failures" in clean.stdout, clean.stdout
