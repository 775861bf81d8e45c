"""The persistent compilation cache (STRATA_CACHE_DIR) across processes: a corrupt, foreign or
non-regular entry is discarded with one warning and recompiled to the right values; two
processes writing the same entry at once leave one valid entry."""
import os
import subprocess
import sys

import numpy as np
import pytest

# Each child prints its results; STRATA_TIMING says whether it compiled ("codegen") or loaded.
PROGRAM = (
    "import sys, numpy as np, strata, strata.numpy as jnp\n"
    "fn = {'plus': lambda x: x + 1.0, 'twice': lambda x: x * 2.0,\n"
    "      'scale': lambda x: x * 3.8125 + 0.5}[sys.argv[1]]\n"
    "x = np.array([0.5, -1.0, 2.0, 7.25, -3.5], np.float32)\n"
    "print('RESULT', ' '.join(repr(float(v)) for v in np.asarray(strata.jit(fn)(x))))\n")
X = np.array([0.5, -1.0, 2.0, 7.25, -3.5], np.float32)
EXPECTED = {"plus": X + np.float32(1), "twice": X * np.float32(2),
            "scale": X * np.float32(3.8125) + np.float32(0.5)}


def start(cache, name):
    env = dict(os.environ, STRATA_CACHE_DIR=str(cache), STRATA_TIMING="1")
    return subprocess.Popen([sys.executable, "-c", PROGRAM, name], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc, name):
    """The child's stderr, after checking it exited cleanly and printed the right values."""
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    line = [l for l in out.splitlines() if l.startswith("RESULT")]
    assert line, out
    got = np.array([float(v) for v in line[0].split()[1:]], np.float32)
    np.testing.assert_array_equal(got, EXPECTED[name])
    return err


def run(cache, name):
    return finish(start(cache, name), name)


def entries(cache):
    return sorted(p for p in cache.iterdir())


def populate(tmp_path, name="plus"):
    cache = tmp_path / "cache"
    err = run(cache, name)
    assert "codegen" in err, err
    (entry,) = entries(cache)
    return cache, entry


def corrupt_truncate(entry):
    entry.write_bytes(entry.read_bytes()[:100])


def corrupt_empty(entry):
    entry.write_bytes(b"")


def corrupt_random(entry):
    entry.write_bytes(np.random.default_rng(3).bytes(entry.stat().st_size))


def corrupt_elf_header(entry):
    entry.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(57))


def corrupt_flip(entry):
    data = bytearray(entry.read_bytes())
    data[len(data) * 3 // 4] ^= 0x01
    entry.write_bytes(bytes(data))


def corrupt_fifo(entry):
    entry.unlink()
    os.mkfifo(entry)


def corrupt_directory(entry):
    entry.unlink()
    entry.mkdir()


@pytest.mark.parametrize("corrupt", [corrupt_truncate, corrupt_empty, corrupt_random,
                                     corrupt_elf_header, corrupt_flip, corrupt_fifo,
                                     corrupt_directory])
def test_corrupt_entry_is_recompiled(tmp_path, corrupt):
    cache, entry = populate(tmp_path)
    corrupt(entry)
    err = run(cache, "plus")
    assert err.count("[jit] discarding corrupt cache entry " + str(entry)) == 1, err
    assert "codegen" in err, err  # compiled again
    assert entry.is_file() and not entry.is_symlink()
    err = run(cache, "plus")  # the rewritten entry is valid: loaded, no warning
    assert "codegen" not in err and "discarding" not in err, err


def test_another_functions_entry_under_the_key(tmp_path):
    """x*2's object code stored under x+1's key: the second run computes x+1."""
    cache, plus = populate(tmp_path, "plus")
    run(cache, "twice")
    (twice,) = [p for p in entries(cache) if p != plus]
    plus.write_bytes(twice.read_bytes())
    err = run(cache, "plus")
    assert "another key" in err, err
    err = run(cache, "twice")
    assert "codegen" not in err and "discarding" not in err, err


def test_patched_constant_is_not_loaded(tmp_path):
    cache, entry = populate(tmp_path, "scale")
    data = entry.read_bytes()
    pattern = np.float32(3.8125).tobytes()
    assert pattern in data
    entry.write_bytes(data.replace(pattern, np.float32(100.0).tobytes()))
    err = run(cache, "scale")
    assert "checksum" in err, err


def test_two_processes_write_the_same_entry(tmp_path):
    cache = tmp_path / "cache"
    procs = [start(cache, "plus") for _ in range(2)]
    for p in procs:
        err = finish(p, "plus")
        assert "discarding" not in err, err
    (entry,) = entries(cache)  # one entry, no temporary left behind
    err = run(cache, "plus")
    assert "codegen" not in err and "discarding" not in err, err


def test_unwritable_cache_dir_still_computes(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    err = run(blocker / "cache", "plus")
    assert err.count("[jit] cannot write cache entry") == 1, err


def test_cache_directory_is_private(tmp_path):
    cache = tmp_path / "new" / "cache"
    run(cache, "plus")
    assert cache.stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700
