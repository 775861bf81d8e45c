#!/usr/bin/env bash
# Lowers programs with strata-lower-to-nvvm for each chip, extracts the PTX from the gpu.binary
# and assembles it with ptxas for that chip: an exact check of the generated code on machines
# with no GPU. The programs are the cases of test/Transforms/strata-lower-to-nvvm*.mlir, or with
# --table, every `*-strata.mlir` that `strata_jit_tests` dumps for the primitive test table
# (JitPrimitive.MatchesEager, STRATA_DUMP_IR). Fails on any error except the known gaps listed
# in test/gpu/known_gaps.txt (programs whose ops are named there); exits 77 (ctest
# SKIP_RETURN_CODE) when ptxas is absent.
# Usage: ptxas_check.sh <strata-opt> <source dir> [--table <strata_jit_tests>] [ptxas]
set -euo pipefail

strata_opt=$1
src=$2
shift 2
table=""
if [[ "${1:-}" == "--table" ]]; then
  table=$2
  shift 2
fi
ptxas=${1:-}
if [[ -z "$ptxas" ]]; then
  ptxas=$(command -v ptxas || true)
  [[ -z "$ptxas" && -x /usr/local/cuda/bin/ptxas ]] && ptxas=/usr/local/cuda/bin/ptxas
fi
if [[ -z "$ptxas" || ! -x "$ptxas" ]]; then
  echo "SKIP: ptxas not found (CUDA toolkit absent); PTX not assembled"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ -n "$table" ]]; then
  # Every primitive of the test table, as jit stages it.
  STRATA_DUMP_IR="$work/dump" "$table" --gtest_filter='All/JitPrimitive.MatchesEager/*' >/dev/null
  for f in "$work"/dump/*-strata.mlir; do cp "$f" "$work/case_$(basename "$f")"; done
else
  # One file per `// -----` case of each test/Transforms/strata-lower-to-nvvm*.mlir.
  for file in "$src"/test/Transforms/strata-lower-to-nvvm*.mlir; do
    awk -v dir="$work" -v stem="$(basename "$file" .mlir)" \
      'BEGIN { n = 0; f = dir "/case_" stem "_0.mlir" }
      /^\/\/ -----/ { n++; f = dir "/case_" stem "_" n ".mlir"; next }
      { print > f }' "$file"
  done
fi

# Known gaps: programs using these ops are expected to fail (reported, not counted).
gaps=$({ grep -v '^#' "$src/test/gpu/known_gaps.txt" || true; } | tr -s ' \n' ' ')
is_gap() {
  for op in $gaps; do grep -q "strata\.$op " "$1" && return 0; done
  return 1
}

cases=("$work"/case*.mlir)
failures=0
kernels=0
expected=0
nokernel=0
for chip in sm_90 sm_120; do
  for mlir in "${cases[@]}"; do
    name=$(basename "$mlir" .mlir)
    out=$work/$name.$chip.out.mlir
    if ! "$strata_opt" "$mlir" "--strata-lower-to-nvvm=chip=$chip" -o "$out" 2>"$out.err"; then
      if is_gap "$mlir"; then
        expected=$((expected + 1))
        continue
      fi
      echo "FAIL: $name ($chip): strata-opt failed"; cat "$out.err"; failures=$((failures + 1))
      continue
    fi
    # A program may need no kernel at all (a forward, data movement that stays a memref.copy
    # for the runtime, a dot_general that is one cuBLAS call): counted, not failed.
    if ! grep -q "gpu.binary" "$out"; then
      nokernel=$((nokernel + 1))
      continue
    fi
    # The PTX is the string of each #gpu.object in the gpu.binary ops; MLIR escapes
    # non-printable bytes, quotes and backslashes as \XX (two hex digits).
    if ! python3 - "$out" "$work/$name.$chip" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
objs = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', text)
objs = [re.sub(r'\\([0-9A-Fa-f]{2})', lambda m: chr(int(m.group(1), 16)), o) for o in objs]
if not objs or not all('.entry' in o for o in objs):
    sys.exit("no PTX kernel in the gpu.binary")
for i, o in enumerate(objs):
    open(f"{sys.argv[2]}.{i}.ptx", "w").write(o)
PY
    then
      echo "FAIL: $name ($chip): no PTX found"; failures=$((failures + 1)); continue
    fi
    for ptx in "$work/$name.$chip".*.ptx; do
      if "$ptxas" "-arch=$chip" "$ptx" -o "${ptx%.ptx}.cubin" 2>"$ptx.err"; then
        kernels=$((kernels + 1))
      else
        echo "FAIL: $name ($chip): ptxas rejected $(basename "$ptx")"; cat "$ptx.err"
        failures=$((failures + 1))
      fi
    done
  done
done

echo "ptxas ($ptxas): ${#cases[@]} programs x 2 chips, $kernels gpu.modules assembled," \
  "$failures failures, $expected known gaps (test/gpu/known_gaps.txt), $nokernel without" \
  "kernels (copies, forwards and gemm calls left to the runtime)"
[[ $failures -eq 0 ]]
