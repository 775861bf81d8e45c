#!/usr/bin/env bash
# Lowers every program of test/Transforms/strata-lower-to-nvvm.mlir with strata-lower-to-nvvm
# for each chip, extracts the PTX from the gpu.binary and assembles it with ptxas for that chip:
# an exact check of the generated code on machines with no GPU. Fails on any error; exits 77
# (ctest SKIP_RETURN_CODE) when ptxas is absent.
# Usage: ptxas_check.sh <strata-opt> <source dir> [ptxas]
set -euo pipefail

strata_opt=$1
src=$2
ptxas=${3:-}
if [[ -z "$ptxas" ]]; then
  ptxas=$(command -v ptxas || true)
  [[ -z "$ptxas" && -x /usr/local/cuda/bin/ptxas ]] && ptxas=/usr/local/cuda/bin/ptxas
fi
if [[ -z "$ptxas" || ! -x "$ptxas" ]]; then
  echo "SKIP: ptxas not found (CUDA toolkit absent); PTX not assembled"
  exit 77
fi

input=$src/test/Transforms/strata-lower-to-nvvm.mlir
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One file per `// -----` case.
awk -v dir="$work" 'BEGIN { n = 0; f = dir "/case0.mlir" }
  /^\/\/ -----/ { n++; f = dir "/case" n ".mlir"; next }
  { print > f }' "$input"

cases=("$work"/case*.mlir)
failures=0
kernels=0
for chip in sm_90 sm_120; do
  for mlir in "${cases[@]}"; do
    name=$(basename "$mlir" .mlir)
    out=$work/$name.$chip.out.mlir
    if ! "$strata_opt" "$mlir" "--strata-lower-to-nvvm=chip=$chip" -o "$out" 2>"$out.err"; then
      echo "FAIL: $name ($chip): strata-opt failed"; cat "$out.err"; failures=$((failures + 1))
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

echo "ptxas ($ptxas): $kernels gpu.modules assembled, $failures failures"
[[ $failures -eq 0 ]]
