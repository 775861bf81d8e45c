// The CPU backend: strata-lower-to-cpu, LLVM's ORC JIT for the host CPU, and the calling
// convention of compiled functions (memref descriptors, outputs allocated by the runtime).
#include "runtime/CpuBackend.h"

#include <cstring>

#include "dialects/strata/StrataOps.h"
#include "transforms/LowerToCpu.h"
#include "transforms/Passes.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "blas_impl.h"
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
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    mlir::DialectRegistry registry;
    registry.insert<mlir::strata::StrataDialect>();
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    mlir::registerBuiltinDialectTranslation(registry);
    mlir::registerLLVMDialectTranslation(registry);
    auto *c = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    c->loadDialect<mlir::strata::StrataDialect>();
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

namespace {

/// strata-linalg-to-blas's call: c += a * b with strides in elements (see blas_impl.h).
extern "C" void strata_rt_gemm(int64_t bits, int64_t batch, int64_t m, int64_t n, int64_t k,
                               int64_t a, int64_t a_off, int64_t a_bs, int64_t a_rs, int64_t a_cs,
                               int64_t b, int64_t b_off, int64_t b_bs, int64_t b_rs, int64_t b_cs,
                               int64_t c, int64_t c_off, int64_t c_bs, int64_t c_rs,
                               int64_t c_cs) {
  int64_t size = bits / 8;
  auto at = [size](int64_t p, int64_t off) {
    return reinterpret_cast<void *>(p + off * size);
  };
  strided_gemm(bits == 32 ? DType::Float32 : DType::Float64, batch, m, n, k,
               GemmArg{at(a, a_off), a_bs, a_rs, a_cs}, GemmArg{at(b, b_off), b_bs, b_rs, b_cs},
               GemmArg{at(c, c_off), c_bs, c_rs, c_cs});
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

/// A memref descriptor as the C interface takes it: {allocated, aligned, offset, sizes[r],
/// strides[r]}, all 8-byte words.
void fill_descriptor(int64_t *d, void *data, const Shape &shape) {
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

} // namespace

CpuExecutable::~CpuExecutable() = default;

std::unique_ptr<CpuExecutable> CpuExecutable::compile(StagedFunction staged,
                                                      const std::string &name, StageTexts *stages,
                                                      const std::string &stop_after) {
  mlir::MLIRContext &ctx = jit_context();
  mlir::ModuleOp module = *staged.module;
  if (stages)
    stages->emplace_back("strata", print(module));
  if (stop_after == "strata")
    return nullptr;

  std::string diagnostics, failed_pass;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &diag) {
    std::string loc;
    llvm::raw_string_ostream los(loc);
    diag.getLocation().print(los);
    diagnostics += loc + ": " + diag.str() + "\n";
    return mlir::success();
  });
  for (const auto &[stage, text] : mlir::strata::cpuLoweringStages()) {
    mlir::PassManager pm(&ctx);
    pm.addInstrumentation(std::make_unique<FailedPassRecorder>(&failed_pass));
    if (mlir::failed(mlir::parsePassPipeline(text, pm)))
      throw Error(detail::cat("[jit] the '", stage, "' stage's pipeline does not parse: ", text,
                              "\n", diagnostics),
                  ErrorKind::Internal);
    if (mlir::failed(pm.run(module)))
      throw Error(detail::cat("[jit] compiling ", name, " failed in stage '", stage, "' (pass ",
                              failed_pass.empty() ? "?" : failed_pass, "):\n", diagnostics,
                              "IR before the stage is what STRATA_DUMP_IR writes"),
                  ErrorKind::Internal);
    if (stages)
      stages->emplace_back(stage, print(module));
    if (stop_after == stage)
      return nullptr;
  }

  auto tm_builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tm_builder)
    throw Error("[jit] cannot detect the host CPU: " + llvm::toString(tm_builder.takeError()),
                ErrorKind::Internal);
  auto tm = tm_builder->createTargetMachine();
  if (!tm)
    throw Error("[jit] no LLVM target for the host: " + llvm::toString(tm.takeError()),
                ErrorKind::Internal);
  if (stages) {
    llvm::LLVMContext llvm_ctx;
    std::unique_ptr<llvm::Module> ir = mlir::translateModuleToLLVMIR(module, llvm_ctx);
    std::string text;
    llvm::raw_string_ostream os(text);
    if (ir)
      ir->print(os, nullptr);
    stages->emplace_back("llvm-ir", text);
  }
  if (stop_after == "llvm-ir")
    return nullptr;

  mlir::ExecutionEngineOptions options;
  auto transformer = mlir::makeOptimizingTransformer(3, 0, tm->get());
  options.transformer = transformer;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  options.enableGDBNotificationListener = false;
  options.enablePerfNotificationListener = false;
  auto engine = mlir::ExecutionEngine::create(module, options, std::move(*tm));
  if (!engine)
    throw Error(detail::cat("[jit] LLVM could not compile ", name, ": ",
                            llvm::toString(engine.takeError()), "\n", diagnostics),
                ErrorKind::Internal);
  auto exe = std::unique_ptr<CpuExecutable>(new CpuExecutable());
  exe->engine_ = std::move(*engine);
  // Runtime functions the lowering calls (memref.copy of strided views).
  exe->engine_->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("memrefCopy")] = {llvm::orc::ExecutorAddr::fromPtr(&memrefCopy),
                                       llvm::JITSymbolFlags::Exported};
    symbols[interner("strata_rt_gemm")] = {llvm::orc::ExecutorAddr::fromPtr(&strata_rt_gemm),
                                           llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  exe->engine_->initialize();
  auto entry = exe->engine_->lookupPacked("_mlir_ciface_main");
  if (!entry)
    throw Error("[jit] compiled code has no entry point: " + llvm::toString(entry.takeError()),
                ErrorKind::Internal);
  exe->entry_ = *entry;
  exe->inputs_ = std::move(staged.inputs);
  exe->constants_ = std::move(staged.constants);
  exe->results_ = std::move(staged.results);
  exe->outputs_ = std::move(staged.outputs);
  return exe;
}

std::vector<Array> CpuExecutable::run(const std::vector<Array> &inputs) const {
  size_t n_args = inputs.size() + constants_.size() + results_.size();
  size_t words = 0;
  auto count = [&](const Shape &s) { words += 3 + 2 * s.size(); };
  for (const AbstractValue &a : inputs_)
    count(a.shape);
  for (const Array &c : constants_)
    count(c.shape());
  for (const AbstractValue &a : results_)
    count(a.shape);
  // Small signatures live on the stack: this is the cache-hit path.
  llvm::SmallVector<int64_t, 64> desc(words);
  llvm::SmallVector<void *, 16> ptrs(n_args), args(n_args);
  std::vector<Array> results;
  results.reserve(results_.size());
  size_t at = 0, k = 0;
  auto add = [&](const void *data, const Shape &shape) {
    fill_descriptor(desc.data() + at, const_cast<void *>(data), shape);
    ptrs[k] = desc.data() + at;
    args[k] = &ptrs[k];
    at += 3 + 2 * shape.size();
    ++k;
  };
  for (const Array &x : inputs)
    add(x.data(), x.shape());
  for (const Array &c : constants_)
    add(c.data(), c.shape());
  for (const AbstractValue &a : results_) {
    results.push_back(Array::empty(a.shape, a.dtype, a.weak_type));
    add(results.back().mutable_data(), a.shape);
  }
  entry_(args.data());

  std::vector<Array> outs;
  outs.reserve(outputs_.size());
  for (const StagedOutput &o : outputs_) {
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
