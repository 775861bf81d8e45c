// The steps every executable's compile shares: running named pass stages with errors that name
// the failing pass, translating to LLVM IR, compiling for the host, the persistent cache lookup,
// and loading object code into an ORC JIT with the runtime's symbols.
#include "jit/Compile.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>

#include <dlfcn.h>

#include "jit/DiskCache.h"
#include "jit/Timing.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "transforms/Pipelines.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/SystemLibraries.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Transforms/Utils/SplitModule.h"
#include <omp.h>
#include <thread>

#include "strata/error.h"
#include "strata/internal/thread_pool.h"

namespace strata::rt {

namespace {

std::string print(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, mlir::OpPrintingFlags().enableDebugInfo(false));
  return text;
}

/// Remembers the pass that failed, for the error message.
struct FailedPassRecorder : mlir::PassInstrumentation {
  std::string *failed;
  explicit FailedPassRecorder(std::string *f) : failed(f) {}
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *) override {
    if (failed->empty())
      *failed = pass->getArgument().str();
  }
};

} // namespace

namespace {

/// A builder for the host's target machine (CPU name and features detected at run time).
llvm::orc::JITTargetMachineBuilder host_jtmb() {
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    throw Error("[jit] cannot detect the host CPU: " + llvm::toString(jtmb.takeError()),
                ErrorKind::Internal);
  jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  return std::move(*jtmb);
}

/// The host's target machine (CPU name and features detected at run time).
std::unique_ptr<llvm::TargetMachine> host_target_machine(llvm::orc::JITTargetMachineBuilder &b) {
  auto tm = b.createTargetMachine();
  if (!tm)
    throw Error("[jit] no LLVM target for the host: " + llvm::toString(tm.takeError()),
                ErrorKind::Internal);
  return std::move(*tm);
}

/// LLVM's default O2 pipeline for `tm`, with libmvec as the vector library when it loads.
void optimize(llvm::Module &m, llvm::TargetMachine &tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder pb(&tm, tuning);
  // Registered before the defaults, so this library info is the one the passes get.
  llvm::TargetLibraryInfoImpl tlii(m.getTargetTriple(), detail::vector_math_library().empty()
                                                            ? llvm::VectorLibrary::NoLibrary
                                                            : llvm::VectorLibrary::LIBMVEC);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  mpm.run(m, mam);
}

/// The functions strata-outline-kernels made whose buffer arguments share no allocation (its
/// "strata-noalias-buffers" attribute): the aligned pointer of each memref descriptor
/// (allocated, aligned, offset, sizes, strides; the second of each pair of pointers, since no
/// other argument is a pointer) becomes noalias.
void mark_noalias_buffers(llvm::Module &m) {
  for (llvm::Function &f : m) {
    if (!f.hasFnAttribute("strata-noalias-buffers"))
      continue;
    f.removeFnAttr("strata-noalias-buffers");
    unsigned pointers = 0;
    for (llvm::Argument &arg : f.args())
      if (arg.getType()->isPointerTy() && pointers++ % 2 == 1)
        arg.addAttr(llvm::Attribute::NoAlias);
  }
}

/// The magic that starts a bundle of object files (an ELF object starts with "\x7fELF").
constexpr llvm::StringLiteral kBundleMagic = "strata-objects\n";

/// How many parts to compile `m` in, on as many threads: 1 below kSplitInstructions (one part
/// compiles in well under a second there, and a split loses LLVM's view across functions),
/// else up to Strata's threads, as many as the largest function leaves room for (a part cannot be
/// smaller than it: a deep MLP's main holds most of its code, and split it compiled slower).
unsigned split_parts(const llvm::Module &m) {
  constexpr size_t kSplitInstructions = 8000;
  size_t instructions = 0, largest = 0, functions = 0;
  for (const llvm::Function &f : m)
    if (!f.isDeclaration()) {
      instructions += f.getInstructionCount();
      largest = std::max<size_t>(largest, f.getInstructionCount());
      ++functions;
    }
  unsigned cores = static_cast<unsigned>(std::max(1, num_threads())); // STRATA_NUM_THREADS
  if (instructions < kSplitInstructions || functions < 2 || cores < 2)
    return 1;
  size_t part = std::max(largest, kSplitInstructions / 2);
  return static_cast<unsigned>(std::min<size_t>({cores, functions, instructions / part}));
}

/// Optimizes and compiles `m` in `parts` partitions (llvm::SplitModule, functions dealt round
/// robin), each in a context of its own on a thread of its own; the objects come back as one
/// bundle (kBundleMagic, the count and the sizes as 8-byte integers, then the objects) that
/// load_object takes apart.
std::unique_ptr<llvm::MemoryBuffer> compile_parts(llvm::Module &m, unsigned parts) {
  std::vector<llvm::SmallVector<char, 0>> bitcode;
  llvm::SplitModule(
      m, parts,
      [&](std::unique_ptr<llvm::Module> part) {
        llvm::raw_svector_ostream os(bitcode.emplace_back());
        llvm::WriteBitcodeToFile(*part, os);
      },
      /*PreserveLocals=*/false, /*RoundRobin=*/true);
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects(bitcode.size());
  std::vector<std::string> errors(bitcode.size());
  auto compile = [&](size_t i) {
    try {
      llvm::LLVMContext ctx;
      auto part = llvm::parseBitcodeFile(
          llvm::MemoryBufferRef(llvm::StringRef(bitcode[i].data(), bitcode[i].size()), "part"),
          ctx);
      if (!part) {
        errors[i] = llvm::toString(part.takeError());
        return;
      }
      auto jtmb = host_jtmb();
      std::unique_ptr<llvm::TargetMachine> tm = host_target_machine(jtmb);
      optimize(**part, *tm);
      auto compiled = llvm::orc::SimpleCompiler(*tm)(**part);
      if (!compiled)
        errors[i] = llvm::toString(compiled.takeError());
      else
        objects[i] = std::move(*compiled);
    } catch (const std::exception &e) {
      errors[i] = e.what();
    }
  };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < bitcode.size(); ++i)
    threads.emplace_back(compile, i);
  compile(0);
  for (std::thread &t : threads)
    t.join();
  std::string bundle(kBundleMagic);
  auto put = [&](uint64_t v) { bundle.append(reinterpret_cast<const char *>(&v), sizeof v); };
  put(objects.size());
  for (size_t i = 0; i < objects.size(); ++i) {
    if (!errors[i].empty())
      throw Error("[jit] LLVM code generation failed: " + errors[i], ErrorKind::Internal);
    put(objects[i]->getBufferSize());
  }
  for (const auto &o : objects)
    bundle += o->getBuffer();
  return llvm::MemoryBuffer::getMemBufferCopy(bundle, "strata-objects");
}

/// The objects of `buffer`: a bundle of compile_parts taken apart, or the one object it is.
/// Throws on a bundle whose sizes do not add up (a truncated or corrupt cache entry).
std::vector<std::unique_ptr<llvm::MemoryBuffer>>
unbundle(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> out;
  llvm::StringRef data = buffer->getBuffer();
  if (!data.starts_with(kBundleMagic)) {
    out.push_back(std::move(buffer));
    return out;
  }
  auto bad = [] { return Error("[jit] cannot load compiled code: a corrupt object bundle"); };
  size_t at = kBundleMagic.size();
  auto get = [&] {
    if (data.size() < at + sizeof(uint64_t))
      throw bad();
    uint64_t v;
    std::memcpy(&v, data.data() + at, sizeof v);
    at += sizeof v;
    return v;
  };
  uint64_t count = get();
  if (count > data.size())
    throw bad();
  std::vector<uint64_t> sizes;
  for (uint64_t i = 0; i < count; ++i)
    sizes.push_back(get());
  for (uint64_t size : sizes) {
    if (size > data.size() - at)
      throw bad();
    out.push_back(llvm::MemoryBuffer::getMemBufferCopy(data.substr(at, size), "strata-object"));
    at += size;
  }
  return out;
}

/// `void strata_entry(void **args)`: calls `_mlir_ciface_main(*args[0], *args[1], ...)`, so
/// the runtime calls every compiled function the same way whatever its arity.
void add_packed_entry(llvm::Module &m) {
  llvm::Function *target = m.getFunction("_mlir_ciface_main");
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptr = llvm::PointerType::get(ctx, 0);
  auto *fn =
      llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
                             llvm::GlobalValue::ExternalLinkage, "strata_entry", m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::SmallVector<llvm::Value *> args;
  for (unsigned i = 0; i < target->arg_size(); ++i) {
    llvm::Value *slot = b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, fn->getArg(0), i));
    args.push_back(b.CreateLoad(target->getArg(i)->getType(), slot));
  }
  b.CreateCall(target, args);
  b.CreateRetVoid();
}

/// `void strata_init()` / `void strata_fini()`: call the module's global constructors and
/// destructors (the GPU host code loads and unloads its kernels' modules in them) in priority
/// order, and drop llvm.global_ctors/dtors. ORC runs initializers only for IR it compiles
/// itself, not for object code (which the persistent cache holds), so the runtime calls these.
void add_init_fini(llvm::Module &m) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *fn_type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false);
  for (auto [list, name] : {std::pair{"llvm.global_ctors", "strata_init"},
                            std::pair{"llvm.global_dtors", "strata_fini"}}) {
    std::vector<std::pair<uint64_t, llvm::Function *>> calls;
    if (llvm::GlobalVariable *g = m.getGlobalVariable(list)) {
      if (auto *array = llvm::dyn_cast<llvm::ConstantArray>(g->getInitializer()))
        for (llvm::Value *op : array->operands()) {
          auto *entry = llvm::cast<llvm::ConstantStruct>(op);
          auto *priority = llvm::cast<llvm::ConstantInt>(entry->getOperand(0));
          if (auto *f = llvm::dyn_cast<llvm::Function>(entry->getOperand(1)))
            calls.emplace_back(priority->getZExtValue(), f);
        }
      g->eraseFromParent();
    }
    // By priority; equal priorities keep their order (the list's order, by the index).
    std::vector<size_t> order(calls.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::pair(calls[a].first, a) < std::pair(calls[b].first, b);
    });
    auto *fn = llvm::Function::Create(fn_type, llvm::GlobalValue::ExternalLinkage, name, m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    for (size_t i : order)
      b.CreateCall(calls[i].second);
    b.CreateRetVoid();
  }
}

} // namespace

namespace detail {

const std::string &vector_math_library() {
  static const std::string path = [] {
    const char *name = "libmvec.so.1";
    void *handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    return handle ? std::string(name) : std::string();
  }();
  return path;
}

bool run_stages(mlir::ModuleOp module, const std::vector<mlir::strata::PipelineStage> &list,
                const std::string &name, StageTexts *stages, const std::string &stop_after) {
  mlir::MLIRContext &ctx = *module.getContext();
  std::string diagnostics, failed_pass;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &diag) {
    std::string loc;
    llvm::raw_string_ostream los(loc);
    diag.getLocation().print(los);
    diagnostics += loc + ": " + diag.str() + "\n";
    return mlir::success();
  });
  bool pass_timing = timing_level() >= 2;
  for (const auto &[stage, build] : list) {
    PhaseTimer timer(stage);
    mlir::PassManager pm(&ctx);
    pm.addInstrumentation(std::make_unique<FailedPassRecorder>(&failed_pass));
    // STRATA_TIMING=passes: MLIR's per-pass table of the stage, on stderr when pm goes.
    if (pass_timing)
      pm.enableTiming();
    build(pm);
    if (mlir::failed(pm.run(module)))
      throw Error(strata::detail::cat("[jit] compiling ", name, " failed in stage '", stage,
                                      "' (pass ", failed_pass.empty() ? "?" : failed_pass, "):\n",
                                      diagnostics,
                                      "IR before the stage is what STRATA_DUMP_IR writes"),
                  ErrorKind::Internal);
    if (stages)
      stages->emplace_back(stage, print(module));
    if (stop_after == stage)
      return true;
  }
  return false;
}

std::unique_ptr<llvm::MemoryBuffer> compile_object(mlir::ModuleOp module, const std::string &name,
                                                   StageTexts *stages,
                                                   const std::string &stop_after) {
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(module.getContext(), [&](mlir::Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return mlir::success();
  });
  llvm::LLVMContext llvm_ctx;
  std::optional<PhaseTimer> timer(std::in_place, "translate");
  std::unique_ptr<llvm::Module> ir = mlir::translateModuleToLLVMIR(module, llvm_ctx, name);
  if (!ir)
    throw Error(
        strata::detail::cat("[jit] translating ", name, " to LLVM IR failed:\n", diagnostics),
        ErrorKind::Internal);
  add_packed_entry(*ir);
  add_init_fini(*ir);
  mark_noalias_buffers(*ir);
  if (stages) {
    std::string text;
    llvm::raw_string_ostream os(text);
    ir->print(os, nullptr);
    stages->emplace_back("llvm-ir", text);
  }
  if (stop_after == "llvm-ir")
    return nullptr;
  timer.reset();
  timer.emplace("llvm-opt");
  auto jtmb = host_jtmb();
  std::unique_ptr<llvm::TargetMachine> tm = host_target_machine(jtmb);
  mlir::ExecutionEngine::setupTargetTripleAndDataLayout(ir.get(), tm.get());
  // On AVX-512 hosts, loops vectorize to 512-bit registers: LLVM's tuning for Intel cores
  // prefers 256 bits, which halves the throughput of the transcendental polynomials that make
  // elementwise chains compute-bound.
  if (tm->getMCSubtargetInfo()->checkFeatures("+avx512f"))
    for (llvm::Function &f : *ir)
      if (!f.isDeclaration())
        f.addFnAttr("prefer-vector-width", "512");
  if (unsigned parts = split_parts(*ir); parts > 1) {
    timer.reset();
    timer.emplace("llvm-opt+codegen (" + std::to_string(parts) + " threads)");
    return compile_parts(*ir, parts);
  }
  optimize(*ir, *tm);
  timer.reset();
  timer.emplace("codegen");
  auto compiled = llvm::orc::SimpleCompiler(*tm)(*ir);
  if (!compiled)
    throw Error("[jit] LLVM code generation failed: " + llvm::toString(compiled.takeError()),
                ErrorKind::Internal);
  return std::move(*compiled);
}

std::unique_ptr<llvm::MemoryBuffer>
compile_or_load(mlir::ModuleOp module, const std::vector<mlir::strata::PipelineStage> &list,
                const std::string &target, const std::string &name, StageTexts *stages,
                const std::string &stop_after) {
  // The staged text is printed only for a reader (stages) or the persistent cache's key.
  bool cached = stop_after.empty() && disk_cache_enabled();
  std::optional<PhaseTimer> timer;
  if (stages || cached)
    timer.emplace("print");
  std::string staged_text = stages || cached ? print(module) : "";
  if (stages)
    stages->emplace_back("strata", staged_text);
  if (stop_after == "strata")
    return nullptr;
  // The key: the target, the pipeline that lowers the IR, and the IR itself (DiskCache.h).
  std::string cache_path, key;
  if (cached) {
    key = target + "\n";
    for (const auto &[stage, build] : list) {
      mlir::PassManager pm(module.getContext());
      build(pm);
      llvm::raw_string_ostream os(key);
      os << stage << "=";
      pm.printAsTextualPipeline(os);
      os << "\n";
    }
    key += staged_text;
    cache_path = disk_cache_path(key);
  }
  timer.reset();
  if (std::unique_ptr<llvm::MemoryBuffer> object = read_disk_cache(cache_path, key))
    return object;
  if (run_stages(module, list, name, stages, stop_after))
    return nullptr;
  std::unique_ptr<llvm::MemoryBuffer> object = compile_object(module, name, stages, stop_after);
  if (object)
    write_disk_cache(cache_path, key, *object);
  return object;
}

std::unique_ptr<llvm::orc::LLJIT>
load_object(std::unique_ptr<llvm::MemoryBuffer> object,
            const std::vector<std::pair<std::string, void *>> &runtime_symbols) {
  PhaseTimer timer("load");
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(host_jtmb()).create();
  if (!jit)
    throw Error("[jit] cannot create the LLVM JIT: " + llvm::toString(jit.takeError()),
                ErrorKind::Internal);
  llvm::orc::JITDylib &lib = (*jit)->getMainJITDylib();
  // The process's symbols (libm, malloc/free), then the runtime functions the lowering calls.
  char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  lib.addGenerator(
      llvm::cantFail(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix)));
  // libomp (parallel loops call __kmpc_*) by its own path: when Python loaded libstrata_jit,
  // its dependencies are not in the process's global namespace.
  static const std::string libomp = [] {
    Dl_info info;
    void *fn = reinterpret_cast<void *>(&kmp_set_blocktime);
    return dladdr(fn, &info) && info.dli_fname ? std::string(info.dli_fname) : std::string();
  }();
  if (!libomp.empty()) {
    if (auto gen = llvm::orc::DynamicLibrarySearchGenerator::Load(libomp.c_str(), prefix))
      lib.addGenerator(std::move(*gen));
    else
      llvm::consumeError(gen.takeError());
  }
  // libmvec's vector math functions (optimize's vector library) by name, as for libomp.
  if (!detail::vector_math_library().empty()) {
    if (auto gen = llvm::orc::DynamicLibrarySearchGenerator::Load(
            detail::vector_math_library().c_str(), prefix))
      lib.addGenerator(std::move(*gen));
    else
      llvm::consumeError(gen.takeError());
  }
  llvm::orc::SymbolMap symbols;
  for (const auto &[symbol, address] : runtime_symbols)
    symbols[(*jit)->mangleAndIntern(symbol)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                                llvm::JITSymbolFlags::Exported};
  llvm::cantFail(lib.define(llvm::orc::absoluteSymbols(std::move(symbols))));
  for (std::unique_ptr<llvm::MemoryBuffer> &part : unbundle(std::move(object)))
    if (llvm::Error e = (*jit)->addObjectFile(std::move(part)))
      throw Error("[jit] cannot load compiled code: " + llvm::toString(std::move(e)),
                  ErrorKind::Internal);
  return std::move(*jit);
}

void (*lookup_entry(llvm::orc::LLJIT &jit))(void **) {
  // ORC links the object on the first lookup.
  PhaseTimer timer("link");
  auto entry = jit.lookup("strata_entry");
  if (!entry)
    throw Error("[jit] compiled code has no entry point: " + llvm::toString(entry.takeError()),
                ErrorKind::Internal);
  return entry->toPtr<void (*)(void **)>();
}

void (*lookup_void_fn(llvm::orc::LLJIT &jit, const char *name))() {
  auto fn = jit.lookup(name);
  if (!fn)
    throw Error(std::string("[jit] compiled code has no ") + name + ": " +
                    llvm::toString(fn.takeError()),
                ErrorKind::Internal);
  return fn->toPtr<void (*)()>();
}

} // namespace detail

} // namespace strata::rt
