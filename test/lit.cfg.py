# lit configuration for Strata's IR tests (test/Dialect, test/Transforms).
import os
import sys

import lit.formats

config.name = "Strata"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.strata_obj_root, "test")
# gtest sources, the install check and fuzz corpora (inputs, not tests) are not lit tests.
config.excludes = ["unit", "install", "corpus", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

# strata-opt from this build first, then FileCheck and not from the LLVM that built it.
config.environment["PATH"] = os.pathsep.join(
    [config.strata_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])

# Execution tests lower to LLVM with mlir-opt and run with mlir-runner, which loads the MLIR
# runner utility libraries (printMemref*) from LLVM's lib directory.
config.substitutions.append(
    ("%mlir_lib_dir", os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")))
# Strata's libraries from this build (libstrata_jit exports strata_rt_gemm for contractions).
config.substitutions.append(("%strata_lib_dir", config.strata_lib_dir))
# In a sanitizer build libstrata_jit is instrumented and mlir-runner is not: the runner gets the
# sanitizer runtime preloaded, without leak checking (LLVM's tools leave their memory to exit).
if getattr(config, "strata_sanitizer_runtime", ""):
    options = ":".join(o for o in (os.environ.get("ASAN_OPTIONS", ""), "detect_leaks=0") if o)
    config.substitutions.append(
        (r"(?<![\w/.-])mlir-runner\b", "env LD_PRELOAD=%s ASAN_OPTIONS=%s mlir-runner" % (
            config.strata_sanitizer_runtime, options)))

# strata-opt-help.mlir generates its CHECK lines from Passes.td (with llvm-tblgen, which needs
# MLIR's .td includes) and Pipelines.cpp.
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%strata_src_root", config.strata_src_root))
config.substitutions.append(
    ("%mlir_include_dir", os.path.join(os.path.dirname(config.llvm_tools_dir), "include")))
