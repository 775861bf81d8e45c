// Registrations of the LLVM backends the static device bundle leaves out: MLIR's
// InitializeAllTargets and ROCDL serializer name every backend, but Strata compiles only for the
// host (X86) and NVPTX (cmake/StrataStaticBundle.cmake). These do nothing, so the other
// backends are simply absent from LLVM's target registry.
#define STRATA_NO_BACKEND(T)                                                                       \
  extern "C" void LLVMInitialize##T##Target() {}                                                   \
  extern "C" void LLVMInitialize##T##TargetInfo() {}                                               \
  extern "C" void LLVMInitialize##T##TargetMC() {}                                                 \
  extern "C" void LLVMInitialize##T##AsmPrinter() {}                                               \
  extern "C" void LLVMInitialize##T##AsmParser() {}                                                \
  extern "C" void LLVMInitialize##T##Disassembler() {}                                             \
  extern "C" void LLVMInitialize##T##TargetMCA() {}

STRATA_NO_BACKEND(AArch64)
STRATA_NO_BACKEND(AMDGPU)
STRATA_NO_BACKEND(ARM)
STRATA_NO_BACKEND(AVR)
STRATA_NO_BACKEND(BPF)
STRATA_NO_BACKEND(Hexagon)
STRATA_NO_BACKEND(Lanai)
STRATA_NO_BACKEND(LoongArch)
STRATA_NO_BACKEND(M68k)
STRATA_NO_BACKEND(MSP430)
STRATA_NO_BACKEND(Mips)
STRATA_NO_BACKEND(PowerPC)
STRATA_NO_BACKEND(RISCV)
STRATA_NO_BACKEND(Sparc)
STRATA_NO_BACKEND(SystemZ)
STRATA_NO_BACKEND(VE)
STRATA_NO_BACKEND(WebAssembly)
STRATA_NO_BACKEND(XCore)
STRATA_NO_BACKEND(Xtensa)
STRATA_NO_BACKEND(SPIRV)
