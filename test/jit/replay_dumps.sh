#!/usr/bin/env bash
# STRATA_DUMP_IR writes every stage of a real compilation (the digits example's train step),
# and strata-opt replays each one: it parses and verifies every .mlir stage, and the staged
# strata IR lowers again through strata-lower-to-cpu.
# Usage: replay_dumps.sh <train_digits> <strata-opt> <digits.csv.gz> <work dir>
# Exits with 77 (ctest's SKIP_RETURN_CODE for this test) when the digits data is missing.
set -euo pipefail
example=$1 opt=$2 data=$3 work=$4
if [[ ! -f "$data" ]]; then
  echo "skipped: no digits data at $data (scikit-learn's datasets, python3-sklearn)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work/ir"
zcat "$data" > "$work/digits.csv"
STRATA_DUMP_IR="$work/ir" "$example" "$work/digits.csv" 1 > "$work/out.txt"
n=0
for f in "$work"/ir/*.mlir; do
  "$opt" "$f" -o /dev/null
  n=$((n + 1))
done
for f in "$work"/ir/*-strata.mlir; do
  "$opt" --strata-lower-to-cpu "$f" -o /dev/null
done
[[ $n -ge 10 ]] || { echo "expected the stages of two functions, got $n files"; exit 1; }
echo "replayed $n stages"
