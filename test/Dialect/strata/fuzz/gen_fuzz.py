#!/usr/bin/python3
"""Bounded mutation fuzzing of strata-opt's parser, verifier and folders.

Runs every kept regression (regressions/*.mlir, inputs that once crashed strata-opt), the corpus
seeds (corpus/*.mlir), then a fixed number of mutants of the corpus. Case K's mutations come from
its own generator seeded by (seed, K), so any case is reproduced with --case K whatever ran
before it. Diagnostics and a non-zero exit are fine; a crash (signal, exit code >= 128, a stack
dump, an LLVM ERROR, an assertion or a sanitizer report) or a hang past the per-case timeout fails
the test, and the offending input is written to the output directory, its flags on its first line
in the form regressions/ keeps them: copy it there so it runs every time.

Usage: gen_fuzz.py --strata-opt PATH [--seed N] [--cases N] [--time S] [--case-timeout S]
                   [--out DIR] [--case K]
STRATA_FUZZ_LONG=1 raises the bound to --long-cases cases and --long-time seconds.
Standard library only (Debian's /usr/bin/python3).
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

CRASH_MARKERS = ("Stack dump", "LLVM ERROR", "Assertion", "PLEASE submit a bug report",
                 "UNREACHABLE", "AddressSanitizer", "runtime error:")

# Values that stress integer parsing, shape arithmetic and attribute ranges.
INTERESTING_NUMBERS = ["0", "1", "-1", "2", "16", "17", "255", "2147483647", "-2147483648",
                       "4294967296", "9223372036854775807", "-9223372036854775808",
                       "18446744073709551616", "99999999999999999999999", "1.5", "-0.0",
                       "0x7FC00000", "1e308", "nan"]
INTERESTING_TYPES = ["f32", "f64", "f16", "bf16", "i1", "i8", "i32", "i64", "ui8", "ui32",
                     "si32", "i7", "index", "complex<f32>", "f8E4M3FN", "none", "tensor<2xf32>",
                     "memref<2xf32>", "vector<4xf32>", "!llvm.ptr"]
INTERESTING_SHAPES = ["tensor<9223372036854775807x2xf32>", "tensor<4294967296x4294967296xf32>",
                      "tensor<?x3xf32>", "tensor<*xf32>", "tensor<0x3xf32>", "tensor<f32>",
                      "tensor<" + "1x" * 64 + "f32>", "tensor<" + "2x" * 40 + "f32>",
                      "tensor<-1x3xf32>", "tensor<3x2xf32>", "tensor<2x3xi32>"]
INTERESTING_ARRAYS = ["[]", "[0]", "[1, 0]", "[0, 0]", "[-1]", "[9223372036854775807]",
                      "[-9223372036854775808, 1]", "[0, 1, 2, 3, 4, 5, 6, 7]", "[2, 1, 0]"]
# Generic-form ops with missing, extra or wrongly typed attributes and operands.
GENERIC_SNIPPETS = [
    '%g = "strata.transpose"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>',
    '%g = "strata.transpose"(%x) {permutation = "abc"} : (tensor<2x3xf32>) -> tensor<3x2xf32>',
    '%g = "strata.reduce_sum"(%x) {axes = [0 : i64]} : (tensor<2x3xf32>) -> tensor<3xf32>',
    '%g = "strata.add"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>',
    '%g = "strata.add"(%x, %x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>',
    '%g:2 = "strata.neg"(%x) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)',
    '"strata.neg"(%x) : (tensor<2x3xf32>) -> ()',
    '%g = "strata.iota"() {dimension = 0 : i64} : () -> tensor<9223372036854775807x9223372036854775807xi32>',
    '%g = "strata.iota"() {dimension = 0 : i1} : () -> tensor<3xi1>',
    '%g = "strata.gather"(%x, %x) {offset_dims = array<i64>, collapsed_slice_dims = array<i64>, start_index_map = array<i64>, slice_sizes = array<i64>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2xf32>',
    '%g = "strata.dot_general"(%x, %x) {lhs_batching_dimensions = array<i64: 5>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>',
    '%g = "strata.sort"() {dimension = 0 : i64, num_keys = 1 : i64} : () -> ()',
    '%g = "strata.concatenate"() {dimension = 0 : i64} : () -> tensor<0xf32>',
    '%g = "strata.threefry2x32"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>',
    '%g = "strata.checkpoint_name"(%x) {name = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>',
    '%g = "strata.convert_element_type"(%x) : (tensor<2x3xf32>) -> tensor<2x3xcomplex<f32>>',
    '%g = "strata.reshape"(%x) : (tensor<2x3xf32>) -> tensor<9223372036854775807x2xf32>',
    '%g = "strata.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<?x3xf32>',
    '%g = "strata.bogus"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>',
    '%c = arith.constant dense<1.0> : tensor<9223372036854775807x2xf32>',
    '%c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>\n  %g = strata.neg %c : (tensor<2xf32>) -> tensor<2xf32>',
]
# Extra driver flags; -canonicalize runs the folders on whatever still verifies.
FLAG_SETS = [[], ["-canonicalize"], ["-canonicalize", "-cse"], ["--mlir-print-op-generic"],
             ["-split-input-file", "-canonicalize"], ["-emit-bytecode"]]


def tokens_of(text, rng, pattern_chars):
    """A random span of `text` made of characters in `pattern_chars` (a number, a word)."""
    if not text:
        return None
    for _ in range(20):
        i = rng.randrange(len(text))
        if text[i] in pattern_chars:
            j = i
            while j > 0 and text[j - 1] in pattern_chars:
                j -= 1
            k = i
            while k < len(text) and text[k] in pattern_chars:
                k += 1
            return j, k
    return None


def replace_token(text, rng, chars, choices):
    span = tokens_of(text, rng, chars)
    if span is None:
        return text
    j, k = span
    return text[:j] + rng.choice(choices) + text[k:]


def replace_between(text, rng, opener, closer, choices):
    """Replaces one `opener ... closer` span (a tensor type, an array) with a choice."""
    starts = [i for i in range(len(text)) if text.startswith(opener, i)]
    if not starts:
        return text
    i = rng.choice(starts)
    k = text.find(closer, i)
    if k < 0:
        return text
    return text[:i] + rng.choice(choices) + text[k + len(closer):]


def mutate(text, corpus, rng):
    """One to four random mutations of `text`."""
    digits = "0123456789"
    word = "abcdefghijklmnopqrstuvwxyz0123456789_"
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(13)
        if kind == 0 and text:  # truncate
            text = text[:rng.randrange(len(text))]
        elif kind == 1 and text:  # flip bytes
            b = bytearray(text.encode("utf-8", "replace"))
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            text = b.decode("utf-8", "replace")
        elif kind == 2:  # insert random bytes
            i = rng.randrange(len(text) + 1)
            junk = "".join(chr(rng.randrange(1, 256)) for _ in range(rng.randint(1, 16)))
            text = text[:i] + junk + text[i:]
        elif kind == 3:
            text = replace_token(text, rng, digits + "-", INTERESTING_NUMBERS)
        elif kind == 4:
            text = replace_token(text, rng, word, INTERESTING_TYPES)
        elif kind == 5:
            text = replace_between(text, rng, "tensor<", ">", INTERESTING_SHAPES)
        elif kind == 6:
            text = replace_between(text, rng, "[", "]", INTERESTING_ARRAYS)
        elif kind == 7 or kind == 8:  # splice a line from another file, or a generic op
            lines = text.split("\n")
            if kind == 7:
                other = rng.choice(corpus).split("\n")
                snippet = rng.choice(other)
            else:
                snippet = "  " + rng.choice(GENERIC_SNIPPETS)
            lines.insert(rng.randrange(len(lines) + 1), snippet)
            text = "\n".join(lines)
        elif kind == 9:  # delete or duplicate lines
            lines = text.split("\n")
            if lines:
                i = rng.randrange(len(lines))
                if rng.random() < 0.5:
                    del lines[i]
                else:
                    lines.insert(i, lines[i])
            text = "\n".join(lines)
        elif kind == 10:  # swap two ops' names
            text = replace_token(text, rng, word + ".", ["strata." + n for n in (
                "add", "neg", "reshape", "transpose", "broadcast_in_dim", "reduce_sum", "iota",
                "gather", "scatter", "dot_general", "sort", "slice", "pad", "concatenate",
                "convert_element_type", "threefry2x32", "argmax", "cumsum", "select")])
        elif kind == 11:  # deep nesting and long runs
            text = text.replace("tensor<", "tensor<" + "1x" * rng.choice([8, 64, 300]), 1)
        else:  # repeat a chunk
            if text:
                i = rng.randrange(len(text))
                k = min(len(text), i + rng.randint(1, 64))
                text = text[:k] + text[i:k] * rng.randint(2, 50) + text[k:]
    return text


def run_case(strata_opt, text, flags, timeout):
    """Runs strata-opt on `text`; returns None when fine, else why it failed."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False, encoding="utf-8",
                                     errors="replace") as f:
        f.write(text)
        path = f.name
    try:
        proc = subprocess.run([strata_opt, path, "-o", os.devnull] + flags,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang (over %gs)" % timeout
    finally:
        os.unlink(path)
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode < 0 or proc.returncode >= 128:
        return "exit code %d\n%s" % (proc.returncode, err[-2000:])
    for marker in CRASH_MARKERS:
        if marker in err:
            return "'%s' in stderr (exit code %d)\n%s" % (marker, proc.returncode, err[-2000:])
    return None


FLAGS_PREFIX = "// FLAGS:"
DEFAULT_FLAGS = ["-split-input-file", "-canonicalize"]


def flags_of(text):
    """The strata-opt flags a regression names on its first line (`// FLAGS: ...`)."""
    first = text.split("\n", 1)[0]
    if first.startswith(FLAGS_PREFIX):
        return first[len(FLAGS_PREFIX):].split()
    return list(DEFAULT_FLAGS)


def read_folder(path):
    """(name, text) of every .mlir file of `path`, sorted by name; none if it is absent."""
    if not os.path.isdir(path):
        return []
    names = sorted(n for n in os.listdir(path) if n.endswith(".mlir"))
    return [(n, open(os.path.join(path, n), encoding="utf-8", errors="replace").read())
            for n in names]


def mutant(seed, case, names, corpus):
    """Case `case`'s input and flags: a mutant of one corpus file, from its own generator."""
    rng = random.Random("%d:%d" % (seed, case))
    i = rng.randrange(len(corpus))
    return names[i], mutate(corpus[i], corpus, rng), rng.choice(FLAG_SETS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strata-opt", required=True)
    parser.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
    parser.add_argument("--regressions", default=os.path.join(HERE, "regressions"))
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--cases", type=int, default=200, help="mutants in the default run")
    parser.add_argument("--time", type=float, default=60.0,
                        help="stop making mutants after this many seconds")
    parser.add_argument("--long-cases", type=int, default=100000)
    parser.add_argument("--long-time", type=float, default=600.0)
    parser.add_argument("--case", type=int, default=None, help="run only mutant number K")
    parser.add_argument("--case-timeout", type=float, default=5.0)
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "strata-fuzz"))
    args = parser.parse_args()
    if os.environ.get("STRATA_FUZZ_LONG", "") not in ("", "0"):
        args.cases, args.time = args.long_cases, args.long_time

    seeds = read_folder(args.corpus)
    if not seeds:
        print("no corpus files in " + args.corpus)
        return 1
    names = [n for n, _ in seeds]
    corpus = [t for _, t in seeds]
    regressions = read_folder(args.regressions)
    failures = []
    counts = {"regression": 0, "seed": 0, "mutant": 0}

    def check(text, flags, kind, label):
        counts[kind] += 1
        why = run_case(args.strata_opt, text, flags, args.case_timeout)
        if why is not None:
            os.makedirs(args.out, exist_ok=True)
            path = os.path.join(args.out, "crash-%d.mlir" % len(failures))
            with open(path, "w", encoding="utf-8", errors="replace") as f:
                if not text.startswith(FLAGS_PREFIX):
                    f.write("%s %s\n" % (FLAGS_PREFIX, " ".join(flags)))
                f.write(text)
            failures.append("%s %s (flags %s): %s" % (label, path, " ".join(flags), why))

    if args.case is not None:
        name, text, flags = mutant(args.seed, args.case, names, corpus)
        check(text, flags, "mutant", "mutant %d of %s" % (args.case, name))
    else:
        for name, text in regressions:
            check(text, flags_of(text), "regression", "regression " + name)
        for name, text in seeds:
            check(text, DEFAULT_FLAGS, "seed", "seed " + name)
        deadline = time.monotonic() + args.time
        for case in range(args.cases):
            if time.monotonic() > deadline:
                break
            name, text, flags = mutant(args.seed, case, names, corpus)
            check(text, flags, "mutant", "mutant %d of %s" % (case, name))

    print("strata-opt fuzz: seed %d, %d regressions, %d seeds, %d mutants, %d failures" % (
        args.seed, counts["regression"], counts["seed"], counts["mutant"], len(failures)))
    for failure in failures[:20]:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
