#!/usr/bin/python3
"""Bad-argument probe of strata's public Python API: no input may crash or hang the interpreter.

Enumerates every public callable of `strata`, `strata.numpy`, `strata.lax`, `strata.nn` and
`strata.random` by introspection and calls each with adversarial but fair arguments (wrong
dtypes and ranks, negative and huge sizes, None, strings, nested lists, NaN/inf, empty arrays,
bool, complex, out-of-range and non-integer axes, mismatched shapes, keyword typos), drawn from a
seeded generator so every call is reproducible. The calls run in a worker subprocess; a Python
exception or a result is fine, a worker killed by a signal (or exiting by itself) is a crash and a
call past the per-call timeout is a hang, each reported with the call's source.

Every call that ever crashed or hung is kept in regressions.json next to this file and is run
first, every time. expected_classes.json lists the bug classes whose fix another change owns
(sizes that overflow, deeply nested input): a regression whose "owner" is such a class, or a new
crash whose call uses a value of that class, is reported as XFAIL and does not fail the run.
Delete the class from expected_classes.json once its fix is in; its regressions then must pass.

Usage:
  api_probe.py [--seed N] [--calls N] [--time S] [--call-timeout S] [--out DIR]
  STRATA_FUZZ_LONG=1 api_probe.py        # the full sweep: every function, --per-function calls
  api_probe.py --source 'jnp.sum(jnp.ones(3), axis=5)'   # runs one call as the probe does
Standard library only in this process; the worker imports strata (PYTHONPATH) and numpy.
"""

import argparse
import inspect
import json
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = ["strata", "strata.numpy", "strata.lax", "strata.nn", "strata.random"]

# Names run by the worker before any call: the modules the call sources refer to and the helpers
# that build values an expression cannot (a self-referencing list, a deep list).
PRELUDE = """
import math
import numpy as np
import strata
import strata.numpy as jnp
import strata.lax as lax
import strata.nn as nn
import strata.random as random

def _selfref():
    a = []
    a.append(a)
    return a

def _deep(n):
    a = 1.0
    for _ in range(n):
        a = [a]
    return a

def _force(r):
    # Materializes array results (a crash may wait for the values to be read).
    for leaf in strata.tree_util.tree_leaves(r):
        if isinstance(leaf, strata.Array):
            np.asarray(leaf)
"""

# The value pool: (source expression, category, class). A class names the owner of a known bug
# family (expected_classes.json); None for ordinary values.
VALUES = [
    # arrays
    ("jnp.ones((2, 3))", "array", None),
    ("jnp.zeros((0,))", "array", None),
    ("jnp.zeros((0, 3))", "array", None),
    ("jnp.arange(5)", "array", None),
    ("jnp.arange(6.0).reshape(2, 3)", "array", None),
    ("jnp.array(3.0)", "array", None),
    ("jnp.ones((1,))", "array", None),
    ("jnp.ones((3, 3))", "array", None),
    ("jnp.ones((3, 2))", "array", None),
    ("jnp.ones((2, 3, 4), jnp.int32)", "array", None),
    ("jnp.ones((1, 1, 1, 1))", "array", None),
    ("jnp.array([True, False, True])", "array", None),
    ("jnp.array([1 + 2j, -3j])", "array", None),
    ("jnp.array([math.nan, math.inf, -math.inf, 0.0])", "array", None),
    ("jnp.ones((2, 2), jnp.float16)", "array", None),
    ("jnp.ones((2, 2), jnp.bfloat16)", "array", None),
    ("jnp.array([0, 255, 7], jnp.uint8)", "array", None),
    ("jnp.array([-2147483648, 2147483647], jnp.int32)", "array", None),
    ("np.ones((3, 3))", "array", None),
    ("np.array([1, 2, 3], np.int64)", "array", None),
    ("np.array(['a', 'b'])", "array", None),
    ("np.array([object()], dtype=object)", "array", None),
    ("np.zeros((2, 0, 3), np.float32)", "array", None),
    ("random.PRNGKey(0)", "key", None),
    ("random.key(1)", "key", None),
    ("random.split(random.PRNGKey(0), 3)", "key", None),
    # python scalars
    ("0", "scalar", None),
    ("1", "scalar", None),
    ("-1", "scalar", None),
    ("2", "scalar", None),
    ("3", "scalar", None),
    ("1.5", "scalar", None),
    ("-0.0", "scalar", None),
    ("math.nan", "scalar", None),
    ("math.inf", "scalar", None),
    ("-math.inf", "scalar", None),
    ("True", "scalar", None),
    ("False", "scalar", None),
    ("(1 + 2j)", "scalar", None),
    ("2**31", "scalar", None),
    ("2**63", "scalar", None),
    ("-2**63 - 1", "scalar", None),
    ("10**400", "scalar", None),
    ("np.float32(2.5)", "scalar", None),
    ("np.int8(-7)", "scalar", None),
    # shapes and sizes
    ("()", "shape", None),
    ("(0,)", "shape", None),
    ("(2, 3)", "shape", None),
    ("(3,)", "shape", None),
    ("(-1,)", "shape", None),
    ("(-2, 3)", "shape", None),
    ("(1.5,)", "shape", None),
    ("('a',)", "shape", None),
    ("[2, 3]", "shape", None),
    ("(2, None)", "shape", None),
    ("(1,) * 40", "shape", None),
    ("-5", "shape", None),
    ("2**62", "shape", "sizes"),
    ("(2**62,)", "shape", "sizes"),
    ("(2**31, 2**31)", "shape", "sizes"),
    ("(2**40,)", "shape", "sizes"),
    ("(2**63,)", "shape", "sizes"),
    # axes
    ("5", "axis", None),
    ("-5", "axis", None),
    ("1.5", "axis", None),
    ("(0, 0)", "axis", None),
    ("(0, 1)", "axis", None),
    ("'0'", "axis", None),
    ("[0]", "axis", None),
    ("2**62", "axis", None),
    # dtypes
    ("jnp.float32", "dtype", None),
    ("jnp.int8", "dtype", None),
    ("jnp.complex64", "dtype", None),
    ("jnp.bool_", "dtype", None),
    ("'float64'", "dtype", None),
    ("'uint32'", "dtype", None),
    ("'bogus'", "dtype", None),
    ("np.dtype('O')", "dtype", None),
    ("np.dtype('U3')", "dtype", None),
    ("object", "dtype", None),
    ("str", "dtype", None),
    ("int", "dtype", None),
    # callables
    ("(lambda x: x)", "func", None),
    ("(lambda x: x * 2)", "func", None),
    ("(lambda x: jnp.sum(x))", "func", None),
    ("(lambda x, y: x + y)", "func", None),
    ("(lambda *a: 0)", "func", None),
    ("(lambda: None)", "func", None),
    ("(lambda x: 's')", "func", None),
    ("(lambda c, x: (c, x))", "func", None),
    ("(lambda x: (x, x))", "func", None),
    ("(lambda x: x < 3)", "func", None),
    ("jnp.sin", "func", None),
    ("print", "func", None),
    # nested and odd containers
    ("[]", "nested", None),
    ("[[]]", "nested", None),
    ("[1, [2]]", "nested", None),
    ("[[1, 2], [3]]", "nested", None),
    ("[[1, 2], [3, 4]]", "nested", None),
    ("[1.0, 'a']", "nested", None),
    ("[None]", "nested", None),
    ("(jnp.ones(2), jnp.ones(3))", "nested", None),
    ("{'a': jnp.ones(2)}", "nested", None),
    ("[jnp.ones(2), [jnp.zeros(1)]]", "nested", None),
    ("_selfref()", "nested", "nested"),
    ("_deep(200000)", "nested", "nested"),
    # anything else
    ("None", "misc", None),
    ("'abc'", "misc", None),
    ("''", "misc", None),
    ("b'x'", "misc", None),
    ("object()", "misc", None),
    ("{}", "misc", None),
    ("slice(None, None, -1)", "misc", None),
    ("Ellipsis", "misc", None),
    ("set([1])", "misc", None),
    ("range(3)", "misc", None),
]
BY_CATEGORY = {}
for _entry in VALUES:
    BY_CATEGORY.setdefault(_entry[1], []).append(_entry)

# Parameter names that suggest a category; a call follows the hint most of the time, so calls
# reach past the first type check, and ignores it otherwise.
HINTS = [
    (("fun", "f", "fn", "func", "body_fun", "cond_fun", "body", "true_fun", "false_fun",
      "branches", "callback", "computation", "jvp", "fwd", "bwd", "comparator"), "func"),
    (("shape", "shapes", "new_sizes", "sizes", "dimensions", "newshape", "size", "sample_shape",
      "out_shape", "batch_shape", "num", "length", "n", "m", "N", "M", "k", "num_samples"),
     "shape"),
    (("axis", "axes", "axis1", "axis2", "dimension", "source", "destination", "start_dim",
      "in_axes", "out_axes", "argnums", "permutation", "dim"), "axis"),
    (("dtype", "new_dtype", "preferred_element_type", "ftype", "like"), "dtype"),
    (("key", "rng", "seed"), "key"),
]
HINT_OF = {name: cat for names, cat in HINTS for name in names}
KEYWORD_TYPOS = ["axsi", "dtpye", "shpae", "kepdims", "foo", "x_", "__class__"]
# Public callables left out: they take no input worth probing. Functions that change
# process-wide state (config context managers, clear_caches) stay in: one call leaves the
# worker as any user could, and a crash is still reproduced alone by --source.
SKIP = {
    "strata.print_environment_info",  # prints only
}


def public_functions():
    """(module name, function name, signature or None) of every public callable, sorted."""
    import importlib
    found = []
    for modname in MODULES:
        mod = importlib.import_module(modname)
        for name in sorted(dir(mod)):
            if name.startswith("_"):
                continue
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or not callable(obj):
                continue
            qual = modname + "." + name
            if qual in SKIP:
                continue
            try:
                sig = inspect.signature(obj)
            except (TypeError, ValueError):
                sig = signature_from_doc(name, getattr(obj, "__doc__", None))
            found.append((modname, name, sig))
    return found


def signature_from_doc(name, doc):
    """The signature pybind11 writes on a builtin's first doc line (`f(x: handle, axis: handle
    = None) -> T`), as parameters without annotations; None when there is none."""
    if not doc or not doc.startswith(name + "("):
        return None
    text = doc.split("\n", 1)[0][len(name) + 1:]
    params, depth, current = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            params.append(current)
            current = ""
        else:
            current += ch
    params.append(current)
    out = []
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    for text in (p.strip() for p in params):
        if not text:
            continue
        if text == "*":
            kind = inspect.Parameter.KEYWORD_ONLY
            continue
        pname = text.split(":", 1)[0].split("=", 1)[0].strip()
        if not pname.isidentifier():
            return None
        default = None if "=" in text else inspect.Parameter.empty
        out.append(inspect.Parameter(pname, kind, default=default))
    try:
        return inspect.Signature(out)
    except ValueError:
        return None


def pick_value(rng, category):
    """A value of `category` most of the time, any value otherwise."""
    roll = rng.random()
    if category is not None and roll < 0.7:
        return rng.choice(BY_CATEGORY[category])
    if category is None and roll < 0.55:  # most unnamed operands are arrays
        return rng.choice(BY_CATEGORY["array"])
    if category is None and roll < 0.7:
        return rng.choice(BY_CATEGORY["scalar"])
    return rng.choice(VALUES)


# Plausible values, one per category: a call made of these and one adversarial value gets past
# the first type check and reaches the code behind it.
SANE = {
    "array": ["jnp.ones((2, 3))", "jnp.arange(6.0).reshape(2, 3)", "jnp.ones((3, 3))",
              "jnp.arange(4)"],
    "scalar": ["2", "1.5"],
    "shape": ["(2, 3)", "(3,)", "4"],
    "axis": ["0", "-1", "1"],
    "dtype": ["jnp.float32", "jnp.int32"],
    "func": ["(lambda x: x * 2)", "(lambda x: jnp.sum(x))", "(lambda c, x: (c, x))"],
    "key": ["random.PRNGKey(0)", "random.key(0)"],
}


def make_call(seed, modname, name, sig, index):
    """The `index`-th call of one function: (python source, set of value classes used). Odd
    calls are wholly random; even ones are plausible but for one adversarial argument."""
    if index % 2 == 0 and sig is not None:
        return make_one_bad_call(seed, modname, name, sig, index)
    return make_random_call(seed, modname, name, sig, index)


def make_one_bad_call(seed, modname, name, sig, index):
    """Plausible values for the required parameters, one replaced by an adversarial value, or
    an adversarial (or misspelt) keyword added."""
    rng = random.Random("%d:%s.%s:%d" % (seed, modname, name, index))
    positional = [p for p in sig.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    optional = [p for p in sig.parameters.values()
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is not p.empty]
    required = [p for p in positional if p.default is p.empty]
    args = [rng.choice(SANE[HINT_OF.get(p.name, "array")]) for p in required]
    kwargs = []
    classes = set()
    src, _, cls = pick_value(rng, None)
    roll = rng.random()
    if args and (roll < 0.5 or not optional):
        i = rng.randrange(len(args))
        src, _, cls = pick_value(rng, HINT_OF.get(required[i].name))
        args[i] = src
    elif optional and roll < 0.9:
        p = rng.choice(optional)
        src, _, cls = pick_value(rng, HINT_OF.get(p.name))
        kwargs.append((p.name, src))
    else:
        kwargs.append((rng.choice(KEYWORD_TYPOS), src))
    if cls:
        classes.add(cls)
    call = "%s.%s(%s)" % (modname, name, ", ".join(args + ["%s=%s" % kv for kv in kwargs]))
    lines = ["_r = " + call]
    if rng.random() < 0.6:
        lines.append("if callable(_r) and not isinstance(_r, type): _r = _r(%s)"
                     % rng.choice(SANE["array"]))
    lines.append("_force(_r)")
    return "\n".join(lines), classes


def make_random_call(seed, modname, name, sig, index):
    """Arguments of random count and kind, and random keywords."""
    rng = random.Random("%d:%s.%s:%d" % (seed, modname, name, index))
    classes = set()
    positional, keywords, has_varargs = [], [], False
    if sig is not None:
        for p in sig.parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                positional.append(p)
            elif p.kind == p.KEYWORD_ONLY:
                keywords.append(p)
            elif p.kind == p.VAR_POSITIONAL:
                has_varargs = True
        required = sum(1 for p in positional if p.default is p.empty)
        most = len(positional) + (2 if has_varargs else 0)
        nargs = rng.choice([required] * 3 + [rng.randint(0, max(most, required)),
                                             max(0, required - 1), required + 1])
    else:
        nargs = rng.randint(0, 3)
    args = []
    for i in range(nargs):
        pname = positional[i].name if i < len(positional) else None
        src, _, cls = pick_value(rng, HINT_OF.get(pname))
        args.append(src)
        if cls:
            classes.add(cls)
    kwargs = []
    optional = [p for p in positional[nargs:]] + keywords
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
        roll = rng.random()
        if optional and roll < 0.75:
            pname = rng.choice(optional).name
        elif optional and roll < 0.9:  # a typo of a real keyword
            real = rng.choice(optional).name
            pname = real[:-1] if len(real) > 1 else real + "_"
        else:
            pname = rng.choice(KEYWORD_TYPOS)
        if any(k == pname for k, _ in kwargs):
            continue
        src, _, cls = pick_value(rng, HINT_OF.get(pname))
        kwargs.append((pname, src))
        if cls:
            classes.add(cls)
    call = "%s.%s(%s)" % (modname, name, ", ".join(args + ["%s=%s" % kv for kv in kwargs]))
    # Transforms and constructors of functions: call what they return, with one or two values.
    lines = ["_r = " + call]
    if rng.random() < 0.6:
        then = []
        for _ in range(rng.choice([1, 1, 2])):
            src, _, cls = pick_value(rng, "array")
            then.append(src)
            if cls:
                classes.add(cls)
        lines.append("if callable(_r) and not isinstance(_r, type): _r = _r(%s)" % ", ".join(then))
    lines.append("_force(_r)")
    return "\n".join(lines), classes


# ---- the worker ---------------------------------------------------------------------------------

def worker_main():
    """Runs call sources read from stdin (one JSON string a line); answers each on the reply
    pipe (STRATA_PROBE_FD), since the calls' own output goes to a closed stdout."""
    reply = os.fdopen(int(os.environ["STRATA_PROBE_FD"]), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # calls that print must not reach the protocol or the log
    import warnings
    warnings.simplefilter("ignore")
    ns = {}
    exec(PRELUDE, ns)
    base = dict(ns)
    reply.write("ready\n")
    for line in sys.stdin:
        source = json.loads(line)
        env = dict(base)
        try:
            exec(compile(source, "<probe call>", "exec"), env)
            outcome = "ok"
        except (KeyboardInterrupt, SystemExit) as e:
            outcome = "exception " + type(e).__name__
        except BaseException as e:  # noqa: B902 - any exception is a fine answer
            message = " ".join(str(e).split())[:160]
            outcome = "exception %s %s" % (type(e).__name__, message)
        reply.write(outcome + "\n")
    return 0


class Worker:
    """One worker process; `run` returns ('ok'|'exception T'|'crash'|'hang', detail)."""

    def __init__(self, args, scratch):
        self.args = args
        self.scratch = scratch  # the worker's working folder: calls such as jnp.save write files
        self.proc = None

    def start(self):
        self.log = tempfile.TemporaryFile()
        r, w = os.pipe()
        env = dict(os.environ)
        env.setdefault("OMP_NUM_THREADS", "1")
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        env["STRATA_PROBE_MEMORY_LIMIT"] = str(self.args.memory_limit)
        env["STRATA_PROBE_FD"] = str(w)
        # The worker runs in the scratch folder: a relative PYTHONPATH must not move with it.
        env["PYTHONPATH"] = os.pathsep.join(
            os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     stderr=self.log, pass_fds=(w,), env=env,
                                     cwd=self.scratch)
        os.close(w)
        self.reply = os.fdopen(r, "r")
        self.fd = r
        # A worker that cannot import strata is a broken setup, not a crash of some call.
        ready, _, _ = select.select([self.fd], [], [], 120)
        if not ready or self.reply.readline() != "ready\n":
            detail = self.stderr_since(0)
            self.stop()
            raise SystemExit("api probe: the worker did not start\n" + detail)

    def stop(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.reply.close()
            self.log.close()
            self.proc = None

    def stderr_since(self, offset):
        self.log.seek(offset)
        return self.log.read().decode("utf-8", "replace")[-3000:]

    def run(self, source, timeout):
        if self.proc is None:
            self.start()
        offset = self.log.seek(0, os.SEEK_END)
        try:
            self.proc.stdin.write((json.dumps(source) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            line = self.reply.readline()
            if line:
                return line.strip(), None
            code = self.proc.wait()
            detail = self.stderr_since(offset)
            self.stop()
            if code < 0:
                return "crash", "signal %s\n%s" % (signal.Signals(-code).name, detail)
            return "crash", "worker exited with %d\n%s" % (code, detail)
        self.stop()
        return "hang", "no answer in %gs" % timeout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--calls", type=int, default=1000,
                        help="calls sampled over all functions (the default run)")
    parser.add_argument("--per-function", type=int, default=25,
                        help="calls of every function in the full sweep (STRATA_FUZZ_LONG=1)")
    parser.add_argument("--time", type=float, default=None,
                        help="stop sampling after this many seconds (regressions always run)")
    parser.add_argument("--call-timeout", type=float, default=20.0)
    parser.add_argument("--memory-limit", type=int, default=6 << 30,
                        help="address-space limit of the worker in bytes (0: none; ASan: none)")
    parser.add_argument("--source", help="run only this call source")
    parser.add_argument("--verbose", action="store_true", help="print every exception")
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "strata-api-probe"))
    args = parser.parse_args()
    if args.worker:
        limit = int(os.environ.get("STRATA_PROBE_MEMORY_LIMIT", "0"))
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # crashes are expected; no cores
        if limit and "asan" not in os.environ.get("LD_PRELOAD", ""):
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        return worker_main()

    expected = load_json("expected_classes.json", {})
    regressions = load_json("regressions.json", [])
    long_run = os.environ.get("STRATA_FUZZ_LONG", "") not in ("", "0")

    if args.source:
        jobs = [("source", args.source, set())]
    else:
        jobs = [("regression %d" % i, r["source"], {r["owner"]} if r.get("owner") else set())
                for i, r in enumerate(regressions)]
        functions = public_functions()
        if long_run:
            calls = [(f, i) for f in functions for i in range(args.per_function)]
        else:
            rng = random.Random(args.seed)
            calls = [(rng.choice(functions), rng.randrange(args.per_function))
                     for _ in range(args.calls)]
        for (modname, name, sig), i in calls:
            source, classes = make_call(args.seed, modname, name, sig, i)
            jobs.append(("%s.%s #%d" % (modname, name, i), source, classes))

    scratch = tempfile.TemporaryDirectory(prefix="strata-api-probe-")
    worker = Worker(args, scratch.name)
    counts = {"ok": 0, "exception": 0, "crash": 0, "hang": 0, "xfail": 0}
    exceptions = {}
    failures, xfails, xpasses = [], [], []
    start = time.monotonic()
    tried = 0
    n_regressions = 0 if args.source else len(regressions)
    try:
        for index, (label, source, classes) in enumerate(jobs):
            if (args.time is not None and index >= n_regressions
                    and time.monotonic() - start > args.time):
                break
            tried += 1
            outcome, detail = worker.run(source, args.call_timeout)
            owners = sorted(c for c in classes if c in expected)
            kind = outcome.split()[0]
            if kind in ("crash", "hang"):
                if owners:
                    counts["xfail"] += 1
                    xfails.append("%s (%s; class %s, owned by %s): %s" % (
                        label, kind, ", ".join(owners), "; ".join(expected[c] for c in owners),
                        json.dumps(source)))
                    continue
                counts[kind] += 1
                # The worker is fresh now: whether the call fails alone or only after others.
                again, _ = worker.run(source, args.call_timeout)
                alone = "fails alone too" if again in ("crash", "hang") else (
                    "passes alone (an earlier call of this worker is involved)")
                failures.append((label, kind, source, "%s\n%s" % (alone, detail)))
                continue
            counts[kind] += 1
            if kind == "exception":
                name = outcome.split()[1]
                exceptions[name] = exceptions.get(name, 0) + 1
                if args.verbose:
                    print("%s: %s" % (label, outcome[len("exception "):]))
            if label.startswith("regression") and owners:
                xpasses.append(label)
    finally:
        worker.stop()
        scratch.cleanup()

    elapsed = time.monotonic() - start
    print("api probe: %d calls (%d regressions), seed %d%s, %.1fs: %d results, %d exceptions, "
          "%d crashes, %d hangs, %d expected failures" % (
              tried, n_regressions, args.seed, ", full sweep" if long_run else "", elapsed,
              counts["ok"], counts["exception"], counts["crash"], counts["hang"],
              counts["xfail"]))
    print("exceptions by class: " + ", ".join(
        "%s %d" % kv for kv in sorted(exceptions.items(), key=lambda kv: -kv[1])))
    for line in xfails:
        print("XFAIL: " + line)
    for label in xpasses:
        print("XPASS: %s no longer crashes; its class can leave expected_classes.json" % label)
    if failures:
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, "new-regressions.json")
        with open(path, "w") as f:
            json.dump([{"source": s, "found": "%s: %s" % (label, kind)}
                       for label, kind, s, _ in failures], f, indent=1)
        for label, kind, source, detail in failures[:20]:
            print("FAIL (%s): %s\n--- source:\n%s\n--- detail:\n%s" % (kind, label, source,
                                                                     detail))
        print("the failing calls are in %s: add them to test/fuzz/regressions.json" % path)
        return 1
    return 0


def load_json(name, default):
    path = os.path.join(HERE, name)
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return json.load(f)


if __name__ == "__main__":
    sys.exit(main())
