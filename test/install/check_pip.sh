#!/usr/bin/env bash
# pip install . from the checkout (Debian's pip, no build isolation, no index) into a fresh
# virtual environment that sees Debian's numpy, then, in a clean environment outside the tree,
# imports the installed package and jits a function with it.
# Usage: check_pip.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1"; src="$2"
venv="$build/pip-check"
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
STRATA_BUILD_DIR="$build" "$venv/bin/pip" install -q --no-build-isolation --no-index "$src"
cd "$venv"
# A sanitizer build's module needs the runtime preloaded (STRATA_PYTHON_PRELOAD, from ctest).
san=(${STRATA_PYTHON_PRELOAD:+LD_PRELOAD="$STRATA_PYTHON_PRELOAD" ASAN_OPTIONS=detect_leaks=0})
env -i PATH=/usr/bin:/bin HOME="$venv" "${san[@]}" "$venv/bin/python" -c '
import strata, strata.numpy as jnp
assert "/pip-check/" in strata.__file__, strata.__file__
print("pip jit_sum=%d" % int(strata.jit(lambda x: jnp.sum(x))(jnp.arange(1, 11))))'
