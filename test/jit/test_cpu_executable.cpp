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

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

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

namespace {

/// sin, * 1.01, + 0.1, repeated: `n` elementwise ops.
strata::Array sin_chain(const strata::Array &x0, int n) {
  strata::Array x = x0;
  for (int i = 0; i < n; ++i)
    x = i % 3 == 0 ? strata::sin(x) : i % 3 == 1 ? x * 1.01 : x + 0.1;
  return x;
}

/// Inputs with the edge cases of sin: NaN, infinities, signed zeros, huge arguments (the
/// range reduction), subnormals; 1037 elements, not a multiple of any vector width.
template <class T> std::vector<T> sin_inputs() {
  std::vector<T> v = {std::numeric_limits<T>::quiet_NaN(),
                      std::numeric_limits<T>::infinity(),
                      -std::numeric_limits<T>::infinity(),
                      T(0),
                      T(-0.0),
                      T(1e30),
                      T(-1e30),
                      std::numeric_limits<T>::denorm_min(),
                      T(3.14159265358979),
                      T(1e5)};
  while (v.size() < 1037)
    v.push_back(T(std::sin(0.37 * static_cast<double>(v.size())) * 40));
  return v;
}

/// A chain longer than one fused group (groups stop at 64 ops, the outlined loop nests repeat
/// and share functions; sin calls libmvec's vector sin when the loop is vectorized) computes
/// what the eager kernels compute, edge cases included.
template <class T> void expect_chain_matches_eager(double tolerance) {
  std::vector<T> in = sin_inputs<T>();
  strata::Array x = strata::Array::from_vector(in);
  for (int n : {1, 70, 200}) {
    std::vector<T> got = strata::jit([n](const strata::Array &a) { return sin_chain(a, n); })(x)
                             .template to_vector<T>();
    std::vector<T> want = sin_chain(x, n).template to_vector<T>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << "n=" << n << " x=" << in[i];
        continue;
      }
      EXPECT_NEAR(got[i], want[i], tolerance * std::max<double>(1, std::abs(want[i])))
          << "n=" << n << " x=" << in[i] << " i=" << i;
      if (n == 1 && want[i] == 0) // sin(-0) = -0
        EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << "x=" << in[i];
    }
  }
}

TEST(CpuExecutable, LongSinChainMatchesEagerF32) { expect_chain_matches_eager<float>(2e-5); }
TEST(CpuExecutable, LongSinChainMatchesEagerF64) { expect_chain_matches_eager<double>(1e-12); }

/// A deep network (70 layers: a gemm call and one fused bias + tanh loop nest each) is outlined
/// into one function per distinct nest, shared by the layers; it computes what the eager
/// kernels compute (odd batch and width).
TEST(CpuExecutable, DeepNetworkOutlinedMatchesEager) {
  auto deep = [](const strata::Array &x0, const strata::Array &w, const strata::Array &b) {
    strata::Array x = x0;
    for (int i = 0; i < 70; ++i)
      x = strata::tanh(strata::matmul(x, w) + b);
    return x;
  };
  std::vector<float> xv(7 * 12), wv(12 * 12), bv(12);
  for (size_t i = 0; i < xv.size(); ++i)
    xv[i] = static_cast<float>(std::sin(0.3 * static_cast<double>(i)));
  for (size_t i = 0; i < wv.size(); ++i)
    wv[i] = static_cast<float>(0.4 * std::cos(0.7 * static_cast<double>(i)));
  for (size_t i = 0; i < bv.size(); ++i)
    bv[i] = static_cast<float>(0.1 * static_cast<double>(i) - 0.5);
  strata::Array x = strata::Array::from_vector(xv, {7, 12});
  strata::Array w = strata::Array::from_vector(wv, {12, 12});
  strata::Array b = strata::Array::from_vector(bv);
  std::vector<float> got = strata::jit(deep)(x, w, b).to_vector<float>();
  std::vector<float> want = deep(x, w, b).to_vector<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-4) << i;
}

/// STRATA_TIMING=1 prints one line per compile naming every phase; unset, nothing.
TEST(CpuExecutable, TimingPrintsEachPhase) {
  strata::Array x = strata::Array::from_vector(std::vector<float>{1, 2, 3});
  auto f = [](const strata::Array &a) { return strata::exp(a) * 2.0 + 1.0; };
  ::setenv("STRATA_TIMING", "1", 1);
  testing::internal::CaptureStderr();
  strata::jit(f)(x);
  std::string line = testing::internal::GetCapturedStderr();
  ::unsetenv("STRATA_TIMING");
  EXPECT_NE(line.find("[strata] jit("), std::string::npos) << line;
  EXPECT_NE(line.find(" staged ops: staging "), std::string::npos) << line;
  for (const char *phase : {", optimized ", ", linalg ", ", bufferized ", ", llvm ", ", translate ",
                            ", llvm-opt ", ", codegen ", ", load ", ", link ", ", total "})
    EXPECT_NE(line.find(phase), std::string::npos) << phase << " in " << line;
  testing::internal::CaptureStderr();
  strata::jit(f)(x);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

} // namespace
