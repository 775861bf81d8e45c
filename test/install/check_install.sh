#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then, in a clean environment (no
# LD_LIBRARY_PATH, no build tree on any path): builds and runs a downstream C++ project against
# it with find_package(Strata), runs the installed strata-opt, and imports the installed Python
# package and jits a function with it.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR [CXX_FLAGS]  (flags: e.g. the sanitizers')
set -euo pipefail
build="$1"; src="$2"; flags="${3:-}"
scratch="$build/install-check"
rm -rf "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
clean=(env -i PATH=/usr/bin:/bin HOME="$scratch")
# A sanitizer build names its compiler (STRATA_DOWNSTREAM_CXX): the runtimes must match.
"${clean[@]}" cmake -S "$src/test/install/downstream" -B "$scratch/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" -DCMAKE_CXX_FLAGS="$flags" \
  ${STRATA_DOWNSTREAM_CXX:+-DCMAKE_CXX_COMPILER="$STRATA_DOWNSTREAM_CXX"} >/dev/null
"${clean[@]}" ninja -C "$scratch/build" >/dev/null
"${clean[@]}" "$scratch/build/downstream"
echo 'func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> { %y = strata.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32> }' | "${clean[@]}" "$scratch/prefix/bin/strata-opt" | grep -q strata.exp
echo "strata-opt ok"
site=$(cd "$scratch/prefix" && ls -d lib/python3*/dist-packages 2>/dev/null || true)
if [[ -n "$site" ]]; then
  cd "$scratch"
  # A sanitizer build's module needs the runtime preloaded (STRATA_PYTHON_PRELOAD, from ctest).
  san=(${STRATA_PYTHON_PRELOAD:+LD_PRELOAD="$STRATA_PYTHON_PRELOAD" ASAN_OPTIONS=detect_leaks=0})
  "${clean[@]}" "${san[@]}" PYTHONPATH="$scratch/prefix/$site" /usr/bin/python3 -c '
import strata, strata.numpy as jnp
assert "/prefix/" in strata.__file__, strata.__file__
print("python jit_sum=%d" % int(strata.jit(lambda x: jnp.sum(x))(jnp.arange(1, 11))))'
fi
