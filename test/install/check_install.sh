#!/usr/bin/env bash
# Installs the build tree into a scratch prefix and builds and runs a downstream project
# against it with find_package(Strata).
# Usage: check_install.sh BUILD_DIR SOURCE_DIR [CXX_FLAGS]  (flags: e.g. the sanitizers')
set -euo pipefail
build="$1"; src="$2"; flags="${3:-}"
scratch="$build/install-check"
rm -rf "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$src/test/install/downstream" -B "$scratch/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" -DCMAKE_CXX_FLAGS="$flags" >/dev/null
ninja -C "$scratch/build" >/dev/null
"$scratch/build/downstream"
