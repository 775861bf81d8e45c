# STRATA_STATIC_BUNDLE: Strata's libraries static, linked against MLIR/LLVM's static component
# archives instead of libMLIR.so/libLLVM.so, so that tools/device-check's strata-device-check
# carries its compiler with it to a machine without MLIR/LLVM (docs/gpu.md).
#
# MLIR's exported targets name the LLVM dylib as their dependency, so they cannot be used here:
# the link line is every MLIR archive and the LLVM archives of the two backends Strata uses (the
# host's X86 and NVPTX) plus the target-independent ones. lld takes archives in any order and
# pulls only the members something references; --gc-sections drops the rest.
set(STRATA_LIB_TYPE STATIC)

find_program(STRATA_LLD NAMES ld.lld-22 ld.lld REQUIRED)
add_compile_options(-ffunction-sections -fdata-sections)

file(GLOB _strata_mlir_archives ${LLVM_LIBRARY_DIR}/libMLIR*.a)
# Test dialects, the C API and the Python bindings are never linked into Strata.
list(FILTER _strata_mlir_archives EXCLUDE REGEX "/libMLIR(Test|CAPI|Python)[^/]*\\.a$")
list(FILTER _strata_mlir_archives EXCLUDE REGEX "/libMLIR[^/]*TestPasses\\.a$")
# Shared-library twin of MLIRExecutionEngine (same symbols).
list(FILTER _strata_mlir_archives EXCLUDE REGEX "/libMLIRExecutionEngineShared\\.a$")

file(GLOB _strata_llvm_archives ${LLVM_LIBRARY_DIR}/libLLVM*.a)
# Other backends and tools: registrations that name them resolve to
# tools/device-check/bundle_stubs.cpp.
set(_strata_other_targets AArch64 AMDGPU ARM AVR BPF Hexagon Lanai LoongArch M68k MSP430 Mips
    PowerPC RISCV Sparc SystemZ VE WebAssembly XCore Xtensa SPIRV BOLT Exegesis)
list(JOIN _strata_other_targets "|" _strata_other_re)
list(FILTER _strata_llvm_archives EXCLUDE REGEX "/libLLVM(${_strata_other_re})[^/]*\\.a$")

# LLVM's compression support: zlib static; zstd has no static library here, so libzstd.so.1
# travels in the bundle.
find_library(STRATA_ZLIB_STATIC libz.a REQUIRED)
find_library(STRATA_ZSTD NAMES zstd libzstd.so.1 REQUIRED)
set(STRATA_MLIR_LINK ${_strata_mlir_archives} ${_strata_llvm_archives} ${STRATA_ZLIB_STATIC}
    ${STRATA_ZSTD} Threads::Threads ${CMAKE_DL_LIBS} m)
# The JIT's runtime: libomp stays shared (only libomp.so is packaged; it is shipped in the
# bundle), and memrefCopy comes from tools/device-check/bundle_runtime.cpp (Debian's
# libmlir_c_runner_utils.so needs libMLIR.so).
set(STRATA_JIT_RUNTIME_LIBS StrataBundleRuntime ${LLVM_LIBRARY_DIR}/libomp.so)
message(STATUS "Strata: static bundle: ${STRATA_LLD}, "
               "MLIR/LLVM archives from ${LLVM_LIBRARY_DIR}")
