// The CPU backend on hand-made staged functions: a compile failure names the stage, the pass
// and the IR location of the failing op.
#include <gtest/gtest.h>

#include "jit/Context.h"
#include "jit/CpuExecutable.h"
#include "jit/DiskCache.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "strata/error.h"

namespace {

TEST(CpuExecutable, CompileFailureNamesStagePassAndLocation) {
  std::lock_guard<std::recursive_mutex> lock(strata::rt::context_mutex());
  mlir::MLIRContext &ctx = strata::rt::jit_context();
  mlir::OpBuilder b(&ctx);
  strata::rt::StagedFunction staged;
  staged.module = mlir::ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(staged.module->getBody());
  // A dynamic dimension: jit never stages one, and nothing lowers it.
  auto t = mlir::RankedTensorType::get({mlir::ShapedType::kDynamic}, b.getF32Type());
  auto fn = mlir::func::FuncOp::create(b, b.getUnknownLoc(), "main", b.getFunctionType({t}, {t}));
  fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  b.setInsertionPointToEnd(fn.addEntryBlock());
  auto loc = mlir::FileLineColLoc::get(&ctx, "handmade/exp", 7, 0);
  // By name: the dialect's classes belong to libstrata_jit, which registered it.
  mlir::OperationState state(loc, "strata.exp");
  state.addOperands(fn.getArgument(0));
  state.addTypes(t);
  mlir::Value exp = b.create(state)->getResult(0);
  mlir::func::ReturnOp::create(b, b.getUnknownLoc(), exp);
  try {
    strata::rt::CpuExecutable::compile(std::move(staged), "handmade");
    FAIL() << "a dynamic shape must not compile";
  } catch (const strata::Error &e) {
    std::string m = e.what();
    EXPECT_NE(m.find("[jit] compiling handmade failed in stage 'bufferized'"), std::string::npos)
        << m;
    EXPECT_NE(m.find("(pass one-shot-bufferize)"), std::string::npos) << m;
    EXPECT_NE(m.find("handmade/exp\":7"), std::string::npos) << m;
  }
}

} // namespace

#include <cstdlib>
#include <filesystem>

#include "strata/jit.h"
#include "strata/strata.h"

namespace {

TEST(CpuExecutable, PersistentCacheSkipsCompilation) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("strata-cache-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ::setenv("STRATA_CACHE_DIR", dir.c_str(), 1);
  auto f = [](const strata::Array &x) { return strata::tanh(x) * 3.0 + 1.0; };
  strata::Array x = strata::Array::from_vector(std::vector<float>{0.5f, -1.0f, 2.0f});
  strata::rt::DiskCacheStats before = strata::rt::disk_cache_stats();
  strata::Array a = strata::jit(f)(x); // compiles and writes the object code
  strata::rt::DiskCacheStats mid = strata::rt::disk_cache_stats();
  // A new jitted function has a new identity (an in-memory miss), but the same IR: the object
  // code comes from the disk, as it would in a second process.
  strata::Array b = strata::jit(f)(x);
  strata::rt::DiskCacheStats after = strata::rt::disk_cache_stats();
  ::unsetenv("STRATA_CACHE_DIR");
  EXPECT_EQ(mid.writes - before.writes, 1);
  EXPECT_EQ(after.hits - mid.hits, 1);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  std::vector<float> va = a.to_vector<float>(), vb = b.to_vector<float>(), want;
  for (float v : {0.5f, -1.0f, 2.0f})
    want.push_back(std::tanh(v) * 3.0f + 1.0f);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(va[i], want[i], 1e-5);
    EXPECT_EQ(va[i], vb[i]);
  }
  fs::remove_all(dir);
}

} // namespace
