// The CPU backend: strata-lower-to-cpu, LLVM's ORC JIT for the host CPU, and the calling
// convention of compiled functions (memref descriptors, outputs allocated by the runtime).
#include "runtime/CpuBackend.h"
#include "runtime/HostCallback.h"
#include "runtime/LlvmCompile.h"

#include <cstring>

#include "dialects/strata/StrataOps.h"
#include "transforms/GpuHost.h"
#include "transforms/LowerToCpu.h"
#include "transforms/LowerToNvvm.h"
#include "transforms/Passes.h"

#include <array>
#include <numeric>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <dlfcn.h>
#include <unistd.h>

#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "blas_impl.h"
#include "buffer_impl.h"
#include <omp.h>
#include "strata/device.h"
#include "strata/error.h"

namespace strata::rt {

std::recursive_mutex &context_mutex() {
  static std::recursive_mutex mu;
  return mu;
}

mlir::MLIRContext &jit_context() {
  static mlir::MLIRContext *ctx = [] {
    mlir::registerAllPasses();
    mlir::strata::registerStrataPasses();
    mlir::strata::registerStrataPipelines();
    mlir::strata::registerStrataCpuPipeline();
    mlir::strata::registerStrataNvvmPipeline();
    mlir::strata::registerStrataGpuHostPipeline();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    mlir::DialectRegistry registry;
    registry.insert<mlir::strata::StrataDialect>();
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    // Every dialect's translation: the CPU path needs builtin, LLVM and OpenMP; the GPU path's
    // gpu-module-to-binary and gpu.binary/launch_func translation need GPU and NVVM.
    mlir::registerAllToLLVMIRTranslations(registry);
    // Parallel loops run on libomp's team; its workers sleep as soon as a loop ends instead of
    // spinning for 200 ms, which would take the cores from BLIS's threads and libstrata's pool.
    kmp_set_blocktime(0);
    auto *c = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    c->loadDialect<mlir::strata::StrataDialect>();
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

namespace {

/// strata-linalg-to-blas's call: c (+)= a * b with strides in elements (see blas_impl.h).
extern "C" void strata_rt_gemm(int64_t bits, int64_t batch, int64_t m, int64_t n, int64_t k,
                               int64_t a, int64_t a_off, int64_t a_bs, int64_t a_rs, int64_t a_cs,
                               int64_t b, int64_t b_off, int64_t b_bs, int64_t b_rs, int64_t b_cs,
                               int64_t c, int64_t c_off, int64_t c_bs, int64_t c_rs,
                               int64_t c_cs, int64_t accumulate) {
  int64_t size = bits / 8;
  auto at = [size](int64_t p, int64_t off) {
    return reinterpret_cast<void *>(p + off * size);
  };
  strided_gemm(bits == 32 ? DType::Float32 : DType::Float64, batch, m, n, k,
               GemmArg{at(a, a_off), a_bs, a_rs, a_cs}, GemmArg{at(b, b_off), b_bs, b_rs, b_cs},
               GemmArg{at(c, c_off), c_bs, c_rs, c_cs}, accumulate != 0);
}

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

/// A memref descriptor as the C interface takes it: {allocated, aligned, offset, sizes[r],
/// strides[r]}, all 8-byte words.
void detail::fill_descriptor(int64_t *d, void *data, const Shape &shape) {
  std::memcpy(d, &data, sizeof(void *));
  std::memcpy(d + 1, &data, sizeof(void *));
  d[2] = 0;
  size_t r = shape.size();
  int64_t stride = 1;
  for (size_t i = r; i-- > 0;) {
    d[3 + i] = shape[i];
    d[3 + r + i] = stride;
    stride *= shape[i];
  }
}

CpuExecutable::~CpuExecutable() = default;

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

/// What, besides the IR, decides the machine code: the compiler and the host CPU.
const std::string &compiler_fingerprint() {
  static const std::string f = [] {
    std::string s = "strata-0.1 llvm-" LLVM_VERSION_STRING " cpu=" +
                    llvm::sys::getHostCPUName().str() + " features=";
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      s += (feature.second ? "+" : "-") + feature.first().str() + ",";
    for (const auto &[stage, text] : mlir::strata::cpuLoweringStages())
      s += " " + stage + "=" + text;
    return s;
  }();
  return f;
}

/// The persistent cache's directory (STRATA_CACHE_DIR), or "" when it is off.
std::string disk_cache_dir() {
  const char *dir = std::getenv("STRATA_CACHE_DIR");
  return dir ? dir : "";
}

/// The file in the persistent cache `dir` for staged IR `ir`.
std::string disk_cache_path(const std::string &dir, const std::string &ir) {
  llvm::SHA256 h;
  h.update(compiler_fingerprint());
  h.update(ir);
  std::array<uint8_t, 32> digest = h.final();
  return dir + "/" + llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), 16), true) +
         ".o";
}

/// `void strata_entry(void **args)`: calls `_mlir_ciface_main(*args[0], *args[1], ...)`, so
/// the runtime calls every compiled function the same way whatever its arity.
void add_packed_entry(llvm::Module &m) {
  llvm::Function *target = m.getFunction("_mlir_ciface_main");
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptr = llvm::PointerType::get(ctx, 0);
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
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

std::atomic<int64_t> g_disk_hits{0}, g_disk_writes{0};

} // namespace

DiskCacheStats disk_cache_stats() { return {g_disk_hits.load(), g_disk_writes.load()}; }

namespace detail {

bool run_stages(mlir::ModuleOp module, const std::vector<std::pair<std::string, std::string>> &list,
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
  for (const auto &[stage, text] : list) {
    mlir::PassManager pm(&ctx);
    pm.addInstrumentation(std::make_unique<FailedPassRecorder>(&failed_pass));
    if (mlir::failed(mlir::parsePassPipeline(text, pm)))
      throw Error(strata::detail::cat("[jit] the '", stage, "' stage's pipeline does not parse: ",
                                      text, "\n", diagnostics),
                  ErrorKind::Internal);
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
  std::unique_ptr<llvm::Module> ir = mlir::translateModuleToLLVMIR(module, llvm_ctx, name);
  if (!ir)
    throw Error(strata::detail::cat("[jit] translating ", name, " to LLVM IR failed:\n",
                                    diagnostics),
                ErrorKind::Internal);
  add_packed_entry(*ir);
  add_init_fini(*ir);
  if (stages) {
    std::string text;
    llvm::raw_string_ostream os(text);
    ir->print(os, nullptr);
    stages->emplace_back("llvm-ir", text);
  }
  if (stop_after == "llvm-ir")
    return nullptr;
  auto jtmb = host_jtmb();
  std::unique_ptr<llvm::TargetMachine> tm = host_target_machine(jtmb);
  mlir::ExecutionEngine::setupTargetTripleAndDataLayout(ir.get(), tm.get());
  if (llvm::Error e = mlir::makeOptimizingTransformer(2, 0, tm.get())(ir.get()))
    throw Error("[jit] LLVM optimization failed: " + llvm::toString(std::move(e)),
                ErrorKind::Internal);
  auto compiled = llvm::orc::SimpleCompiler(*tm)(*ir);
  if (!compiled)
    throw Error("[jit] LLVM code generation failed: " + llvm::toString(compiled.takeError()),
                ErrorKind::Internal);
  return std::move(*compiled);
}

std::unique_ptr<llvm::MemoryBuffer> read_disk_cache(const std::string &path) {
  if (path.empty())
    return nullptr;
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return nullptr;
  ++g_disk_hits;
  return std::move(*buf);
}

void write_disk_cache(const std::string &path, const llvm::MemoryBuffer &object) {
  if (path.empty())
    return;
  // Write then rename: a concurrent reader never sees half a file.
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(object.getBufferStart(), static_cast<std::streamsize>(object.getBufferSize()));
  }
  std::filesystem::rename(tmp, path, ec);
  if (!ec)
    ++g_disk_writes;
}

std::unique_ptr<llvm::MemoryBuffer>
compile_or_load(mlir::ModuleOp module, const std::vector<std::pair<std::string, std::string>> &list,
                const std::string &target, const std::string &name, StageTexts *stages,
                const std::string &stop_after) {
  // The staged text is printed only for a reader (stages) or the persistent cache's key.
  std::string cache_dir = stop_after.empty() ? disk_cache_dir() : "";
  std::string staged_text = stages || !cache_dir.empty() ? print(module) : "";
  if (stages)
    stages->emplace_back("strata", staged_text);
  if (stop_after == "strata")
    return nullptr;
  // The CPU's key is the IR alone (the fingerprint names its pipeline); others add the target.
  std::string cache_path =
      cache_dir.empty()
          ? ""
          : disk_cache_path(cache_dir, target.empty() ? staged_text : target + "\n" + staged_text);
  if (std::unique_ptr<llvm::MemoryBuffer> object = read_disk_cache(cache_path))
    return object;
  if (run_stages(module, list, name, stages, stop_after))
    return nullptr;
  std::unique_ptr<llvm::MemoryBuffer> object = compile_object(module, name, stages, stop_after);
  if (object)
    write_disk_cache(cache_path, *object);
  return object;
}

std::unique_ptr<llvm::orc::LLJIT>
load_object(std::unique_ptr<llvm::MemoryBuffer> object,
            const std::vector<std::pair<std::string, void *>> &runtime_symbols) {
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
  llvm::orc::SymbolMap symbols;
  for (const auto &[symbol, address] : runtime_symbols)
    symbols[(*jit)->mangleAndIntern(symbol)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                                 llvm::JITSymbolFlags::Exported};
  llvm::cantFail(lib.define(llvm::orc::absoluteSymbols(std::move(symbols))));
  if (llvm::Error e = (*jit)->addObjectFile(std::move(object)))
    throw Error("[jit] cannot load compiled code: " + llvm::toString(std::move(e)),
                ErrorKind::Internal);
  return std::move(*jit);
}

void (*lookup_entry(llvm::orc::LLJIT &jit))(void **) {
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

std::unique_ptr<CpuExecutable> CpuExecutable::compile(StagedFunction staged,
                                                      const std::string &name, StageTexts *stages,
                                                      const std::string &stop_after) {
  std::unique_ptr<llvm::MemoryBuffer> object = detail::compile_or_load(
      *staged.module, mlir::strata::cpuLoweringStages(), "", name, stages, stop_after);
  if (!object)
    return nullptr;
  auto exe = std::unique_ptr<CpuExecutable>(new CpuExecutable());
  exe->jit_ = detail::load_object(
      std::move(object),
      {{"memrefCopy", reinterpret_cast<void *>(&memrefCopy)},
       {"strata_rt_gemm", reinterpret_cast<void *>(&strata_rt_gemm)},
       {"strata_rt_host_callback", reinterpret_cast<void *>(&strata_rt_host_callback)},
       {"strata_rt_host_callback_buffer",
        reinterpret_cast<void *>(&strata_rt_host_callback_buffer)},
       {"strata_rt_host_callback_dim", reinterpret_cast<void *>(&strata_rt_host_callback_dim)}});
  exe->entry_ = detail::lookup_entry(*exe->jit_);
  exe->adopt_signature(staged);
  return exe;
}

std::vector<Array> Executable::invoke(void (*entry)(void **), const std::vector<Array> &inputs,
                                      const std::vector<Array> &constants, Device device) const {
  size_t n_args = inputs.size() + constants.size() + results_.size();
  size_t words = 0;
  for (const AbstractValue &a : inputs_)
    words += 3 + 2 * a.shape.size();
  for (const Array &c : constants)
    words += 3 + 2 * c.shape().size();
  for (const AbstractValue &a : results_)
    words += 3 + 2 * a.shape.size();
  // Small signatures live on the stack: this is the cache-hit path.
  llvm::SmallVector<int64_t, 64> desc(words);
  llvm::SmallVector<void *, 16> ptrs(n_args), args(n_args);
  std::vector<Array> results;
  results.reserve(results_.size());
  size_t at = 0, k = 0;
  auto add = [&](const Array &x) {
    detail::fill_descriptor(desc.data() + at, x.buffer()->data(), x.shape());
    ptrs[k] = desc.data() + at;
    args[k] = &ptrs[k];
    at += 3 + 2 * x.shape().size();
    ++k;
  };
  for (const Array &x : inputs)
    add(x);
  for (const Array &c : constants)
    add(c);
  for (const AbstractValue &a : results_) {
    results.push_back(empty_on(a.shape, a.dtype, device, a.weak_type));
    add(results.back());
  }
  entry(args.data());
  rethrow_host_callback_error(); // compiled code cannot unwind: a callback's error waits here
  return results;
}

std::vector<Array> CpuExecutable::run(const std::vector<Array> &inputs) const {
  std::vector<Array> results = invoke(entry_, inputs, constants_, cpu_device());
  return detail::assemble_outputs(outputs_, results, inputs);
}

std::vector<Array> detail::assemble_outputs(const std::vector<StagedOutput> &outputs,
                                            const std::vector<Array> &results,
                                            const std::vector<Array> &inputs) {
  std::vector<Array> outs;
  outs.reserve(outputs.size());
  for (const StagedOutput &o : outputs) {
    switch (o.kind) {
    case StagedOutput::Kind::Result:
      outs.push_back(results[o.index]);
      break;
    case StagedOutput::Kind::Input:
      outs.push_back(inputs[o.index].weak_type() == o.aval.weak_type
                         ? inputs[o.index]
                         : inputs[o.index].with_weak_type(o.aval.weak_type));
      break;
    case StagedOutput::Kind::Constant:
      outs.push_back(o.value);
      break;
    }
  }
  return outs;
}

} // namespace strata::rt
