"""Arrays too large to exist or to allocate raise MemoryError with a message naming the op, the
array and the bytes, eager and jitted; nested input too deep (or holding itself) raises
numpy's ValueError. Each probe runs in a subprocess, so a regression that crashes the
interpreter is a failing test, not a dead pytest."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PRELUDE = """
import json, sys
import strata, strata.numpy as jnp
from strata import lax, random
def probe():
{body}
try:
    out = probe()
    print(json.dumps({{"ok": repr(out)}}))
except BaseException as e:
    print(json.dumps({{"type": type(e).__name__, "msg": str(e)}}))
"""


def run_probe(body):
    """Runs `body` (the statements of a function returning a value) in a fresh interpreter;
    returns the JSON line it prints: {"ok": repr} or {"type": exception class, "msg": text}."""
    code = PRELUDE.format(body="\n".join("    " + line for line in body.strip().splitlines()))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=ROOT, env=dict(os.environ))
    assert r.returncode == 0, f"probe crashed (rc {r.returncode}): {r.stderr[-2000:]}"
    return json.loads(r.stdout.strip().splitlines()[-1])


TOO_LARGE = [
    ("return jnp.zeros((2**62,))", "[zeros] too large: f32[4611686018427387904] needs 16 EiB"),
    ("return jnp.ones((2**31, 2**31))",
     "[ones] too large: f32[2147483648,2147483648] needs 16 EiB"),
    ("return jnp.eye(2**31)", "[eye] too large: f32[2147483648,2147483648] needs 16 EiB"),
    ("return random.normal(random.PRNGKey(0), (2**62,))",
     "[random.normal] too large: f32[4611686018427387904] needs 16 EiB"),
    ("return lax.broadcasted_iota(jnp.float32, (2**61,), 0)",
     "[iota] too large: f32[2305843009213693952] needs 8 EiB"),
    ("return jnp.full((2**62,), 1.0)", "[full] too large"),
    ("return jnp.empty((2**62,))", "too large: f32[4611686018427387904] needs 16 EiB"),
    ("return jnp.arange(2**62)", "[arange] too large"),
    ("return jnp.zeros((2**32, 2**32))", "overflows int64"),
    ("return jnp.broadcast_to(jnp.ones(()), (2**62,))",
     "too large: f32[4611686018427387904] needs 16 EiB"),
    ("return jnp.zeros((2**47,))",
     "[zeros] out of memory: f32[140737488355328] needs 512 TiB of host memory"),
    ("return strata.jit(lambda x: jnp.broadcast_to(x, (2**62,)))(jnp.ones(()))",
     "[broadcast_in_dim] too large: f32[4611686018427387904] needs 16 EiB"),
    ("return strata.jit(lambda x: jnp.broadcast_to(x, (2**47,)))(jnp.ones(()))",
     "[jit] out of memory: f32[140737488355328] needs 512 TiB of host memory"),
    ("return strata.jit(lambda: jnp.zeros((2**47,)))()", "[jit] out of memory compiling"),
    ("return strata.vmap(lambda x: jnp.broadcast_to(x, (2**62,)))(jnp.ones(3))", "too large"),
]


@pytest.mark.parametrize("body,fragment", TOO_LARGE, ids=[b for b, _ in TOO_LARGE])
def test_too_large_raises_memory_error(body, fragment):
    got = run_probe(body)
    assert got.get("type") == "MemoryError", got
    assert fragment in got["msg"], got


def test_tensordot_axes_out_of_range_has_a_message():
    got = run_probe("return jnp.tensordot(jnp.ones((2, 2)), jnp.ones((2, 2)), 2**31)")
    assert "type" in got and got["msg"], got
    assert "[tensordot]" in got["msg"], got


def test_bad_shapes_are_value_errors():
    got = run_probe("return jnp.zeros((-1,))")
    assert got == {"type": "ValueError", "msg": got["msg"]} and "negative dimension" in got["msg"]
    got = run_probe("return jnp.zeros((2**64,))")
    assert got.get("type") == "ValueError" and "exceeds the largest int64" in got["msg"], got


def test_eval_shape_of_huge_shapes_works():
    got = run_probe("return strata.eval_shape(lambda: jnp.zeros((2**62,))).shape")
    assert got == {"ok": repr((2**62,))}, got
    got = run_probe("return strata.eval_shape(lambda: jnp.eye(2**31)).shape")
    assert got == {"ok": repr((2**31, 2**31))}, got
    got = run_probe(
        "return strata.eval_shape(lambda x: x + 1, strata.ShapeDtypeStruct((2**62,), jnp.float32))"
        ".shape")
    assert got == {"ok": repr((2**62,))}, got


NESTED = {
    "self_reference": "a = []\na.append(a)",
    "self_reference_inner": "a = [[1, 2]]\na[0].append(a)",
    "deep_200000": "a = [1]\nfor _ in range(200000):\n    a = [a]",
    "deep_tuples": "a = (1,)\nfor _ in range(200000):\n    a = (a,)",
    "deep_with_array": "a = [jnp.ones(2)]\nfor _ in range(200000):\n    a = [a]",
    "deep_33": "a = [1]\nfor _ in range(32):\n    a = [a]",
}
CONVERTERS = ["jnp.asarray(a)", "jnp.array(a)", "jnp.add(a, 1)", "jnp.sum(a)", "jnp.sin(a)",
              "lax.add(a, a)"]


def numpy_error(setup):
    ns = {}
    exec(setup.replace("jnp.ones(2)", "np.ones(2)"), {"np": np}, ns)
    with pytest.raises(ValueError) as e:
        np.asarray(ns["a"])
    return str(e.value)


@pytest.mark.parametrize("conv", CONVERTERS)
@pytest.mark.parametrize("name", list(NESTED))
def test_nested_input_raises_as_numpy(name, conv):
    got = run_probe(NESTED[name] + "\nreturn " + conv)
    assert got.get("type") == "ValueError", got
    assert got["msg"] == numpy_error(NESTED[name]) or "maximum number of dimension" in got["msg"]


def test_nesting_numpy_allows_works():
    got = run_probe("a = [1]\nfor _ in range(31):\n    a = [a]\nreturn jnp.asarray(a).shape")
    assert got == {"ok": repr((1,) * 32)}, got
    got = run_probe("a = [jnp.ones(1)]\nfor _ in range(30):\n    a = [a]\n"
                    "return jnp.asarray(a).shape")
    assert got == {"ok": repr((1,) * 32)}, got


def test_ragged_input_raises_as_numpy():
    got = run_probe("return jnp.asarray([[1, 2], [3]])")
    assert got.get("type") == "ValueError", got
    assert "inhomogeneous" in got["msg"], got


@pytest.mark.parametrize("name", ["self_reference", "deep_200000", "deep_tuples"])
def test_nested_jit_argument_is_a_recursion_error(name):
    # jit flattens its arguments as pytrees before converting leaves: Python's recursion limit
    # applies there, as it does to tree_flatten.
    got = run_probe(NESTED[name] + "\nreturn strata.jit(lambda x: x)(a)")
    assert got.get("type") == "RecursionError", got
    got = run_probe(NESTED[name] + "\nreturn strata.tree_util.tree_leaves(a)")
    assert got.get("type") == "RecursionError", got
