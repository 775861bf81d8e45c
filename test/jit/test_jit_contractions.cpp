// Compiled dot_general against eager over the layouts that reach the runtime's strided gemm in
// different ways (merged dims, loops around the call, operands read in place through their
// strides), in every dtype the compiler takes and at edge values; and the lowered IR of
// attention and of jit(vmap(grad)), which pins that their contractions are gemm calls and
// that nothing is copied or filled twice.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "jit_test_util.h"
#include "strata/jit.h"

using namespace strata;
using namespace strata::testutil;

namespace {

/// One dot_general: operand shapes and dimension numbers.
struct Case {
  const char *name;
  Shape lhs, rhs;
  lax::DotDimensionNumbers dims;
};

const std::vector<Case> &cases() {
  static const std::vector<Case> all = {
      {"canonical batch matmul, odd sizes", {3, 17, 33}, {3, 33, 19}, {{2}, {1}, {0}, {0}}},
      {"dense layer: free dims merge into m", {2, 5, 7}, {7, 3}, {{2}, {0}, {}, {}}},
      {"weight gradient: contracting dims merge into k",
       {2, 5, 7},
       {2, 5, 3},
       {{0, 1}, {0, 1}, {}, {}}},
      {"contracting dims paired crosswise: a loop over k",
       {2, 3, 4},
       {3, 2, 5},
       {{0, 1}, {1, 0}, {}, {}}},
      {"attention scores bqhd,bkhd->bhqk", {2, 5, 3, 4}, {2, 6, 3, 4}, {{3}, {3}, {0, 2}, {0, 2}}},
      {"attention output bhqk,bkhd->bhqd", {2, 3, 5, 6}, {2, 6, 3, 4}, {{3}, {1}, {0, 1}, {0, 2}}},
      {"attention key gradient", {2, 5, 3, 4}, {2, 3, 5, 6}, {{1}, {2}, {0, 2}, {0, 1}}},
      {"three batch dims, none adjacent in both",
       {2, 4, 3, 5, 2},
       {3, 2, 2, 5, 6},
       {{3}, {3}, {0, 2, 4}, {1, 0, 2}}},
      {"free dims apart: a loop over m", {3, 4, 2, 5}, {4, 6}, {{1}, {0}, {}, {}}},
      {"batch dim last and contracting first", {4, 3, 2}, {2, 4, 5}, {{0}, {1}, {2}, {0}}},
      {"batched outer product (no contraction)", {3, 7}, {3, 5}, {{}, {}, {0}, {0}}},
      {"outer product", {7}, {5}, {{}, {}, {}, {}}},
      {"unit dims everywhere", {5, 1, 3}, {3, 1, 4}, {{2}, {0}, {}, {}}},
      {"batch of one", {1, 3, 4}, {1, 4, 2}, {{2}, {1}, {0}, {0}}},
      {"empty free dim", {2, 0, 3}, {2, 3, 4}, {{2}, {1}, {0}, {0}}},
      {"empty contraction", {2, 3, 0}, {2, 0, 4}, {{2}, {1}, {0}, {0}}},
  };
  return all;
}

Tolerance tolerance(DType d) {
  if (d == DType::Float64)
    return Tolerance::of(1e-12);
  if (d == DType::Float32)
    return Tolerance::of(2e-5);
  return is_floating(d) ? Tolerance::of(2e-2) : Tolerance::exact();
}

/// Small integers (exact in every dtype) or normal samples.
Array operand(uint64_t seed, const Shape &shape, DType d) {
  Array x = rnd(seed, shape);
  return is_floating(d) ? x.astype(d) : lax::round(x * 3.0).astype(d);
}

TEST(JitContractions, EveryLayoutMatchesEagerInEveryDtype) {
  for (DType d : {float64, float32, float16, bfloat16, int32}) {
    uint64_t seed = 1;
    for (const Case &c : cases()) {
      Array a = operand(seed++, c.lhs, d), b = operand(seed++, c.rhs, d);
      auto f = [dims = c.dims](const Array &x, const Array &y) {
        return lax::dot_general(x, y, dims);
      };
      expect_matches(jit(f)(a, b), f(a, b), tolerance(d),
                     std::string(c.name) + " in " + std::string(dtype_name(d)));
    }
  }
}

/// Operands that are views in the compiled code: a transposed operand (strata-layout folds the
/// transpose into the dimension numbers, so the gemm reads it through its strides) and a slice.
TEST(JitContractions, TransposedAndSlicedOperandsMatchEager) {
  Array q = rnd(1, {2, 3, 5, 4}), k = rnd(2, {2, 6, 3, 4}), w = rnd(3, {9, 7});
  auto scores = [](const Array &q, const Array &k) {
    // 'bhqd,bkhd->bhqk' written with an explicit transpose of q to [b, q, h, d].
    return lax::dot_general(lax::transpose(q, {0, 2, 1, 3}), k, {{3}, {3}, {0, 2}, {0, 2}});
  };
  expect_matches(jit(scores)(q, k), scores(q, k), tolerance(float64), "transposed q");
  auto sliced = [](const Array &x, const Array &w) {
    return lax::dot_general(lax::slice(x, {0, 0, 1}, {2, 6, 4}), lax::slice(w, {2, 1}, {5, 7}),
                            {{2}, {0}, {}, {}});
  };
  Array x = rnd(4, {2, 6, 4});
  expect_matches(jit(sliced)(x, w), sliced(x, w), tolerance(float64), "sliced operands");
}

/// NaN, infinities and signed zeros propagate as in eager (inf * 0 is NaN, a NaN poisons its
/// row and column) through the looped and the merged layouts.
TEST(JitContractions, EdgeValuesMatchEager) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (DType d : {float64, float32}) {
    for (const Case &c : cases()) {
      Array a = rnd(7, c.lhs), b = rnd(8, c.rhs);
      std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
      const double edges[] = {nan, inf, -inf, 0.0, -0.0};
      for (size_t i = 0; i < av.size(); i += 5)
        av[i] = edges[(i / 5) % 5];
      for (size_t i = 2; i < bv.size(); i += 7)
        bv[i] = edges[(i / 7 + 3) % 5];
      a = make(av, c.lhs, d);
      b = make(bv, c.rhs, d);
      auto f = [dims = c.dims](const Array &x, const Array &y) {
        return lax::dot_general(x, y, dims);
      };
      expect_matches(jit(f)(a, b), f(a, b), tolerance(d),
                     std::string(c.name) + " at edge values in " + std::string(dtype_name(d)));
    }
  }
}

/// Multi-head attention (two batch dims) and its gradient under jit, against eager.
Array attention_loss(const Array &q, const Array &k, const Array &v) {
  Array s = einsum("bqhd,bkhd->bhqk", {q, k}) * 0.5;
  Array p = nn::softmax(s, -1);
  Array o = einsum("bhqk,bkhd->bqhd", {p, v});
  return sum(o * o);
}

TEST(JitContractions, AttentionGradientMatchesEager) {
  Array q = rnd(1, {2, 5, 3, 4}), k = rnd(2, {2, 5, 3, 4}), v = rnd(3, {2, 5, 3, 4});
  auto g = grad<0, 1, 2>(attention_loss);
  auto [gq, gk, gv] = jit(g)(q, k, v);
  auto [wq, wk, wv] = g(q, k, v);
  expect_matches(gq, wq, Tolerance::of(1e-11), "q");
  expect_matches(gk, wk, Tolerance::of(1e-11), "k");
  expect_matches(gv, wv, Tolerance::of(1e-11), "v");
}

/// The number of lines of `text` that contain every one of `parts`.
size_t count(const std::string &text, std::initializer_list<const char *> parts) {
  size_t n = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    n += std::all_of(parts.begin(), parts.end(),
                     [&](const char *p) { return line.find(p) != std::string::npos; });
  return n;
}

/// Every contraction of attention's gradient is a gemm call (the two batch dims as a loop
/// around a strided-batched call), with no contraction left as loops and no operand copied.
TEST(JitContractions, AttentionGradientContractionsAreGemmCalls) {
  Array q = rnd(1, {2, 5, 3, 4});
  std::string ir = lower(grad<0, 1, 2>(attention_loss), q, q, q).as_text("bufferized");
  // Forward: scores and output; backward: the two operand gradients of each.
  EXPECT_EQ(count(ir, {"call @strata_rt_gemm("}), 6u) << ir;
  EXPECT_EQ(count(ir, {"memref.copy"}), 0u) << ir;
  // A contraction left as loops would be a generic over 4 parallel dims and the reduced one.
  EXPECT_EQ(count(ir, {"\"parallel\", \"parallel\", \"parallel\", \"parallel\", \"reduction\""}),
            0u)
      << ir;
}

/// The GPU path (for sm_90, no device needed) makes the same calls of cuBLAS's strided-batched
/// gemm, the loops around them in host code, and compiles down to LLVM IR.
TEST(JitContractions, AttentionGradientCallsCublasOnTheGpuPath) {
  Array q = rnd(1, {2, 5, 3, 4}).astype(float32);
  JitOptions gpu;
  gpu.chip = "sm_90";
  Lowered l = jit(grad<0, 1, 2>(attention_loss), gpu).lower(q, q, q);
  std::string ir = l.as_text("bufferized");
  EXPECT_EQ(count(ir, {"call @strata_rt_cuda_gemm("}), 6u) << ir;
  EXPECT_EQ(count(ir, {"\"parallel\", \"parallel\", \"parallel\", \"parallel\", \"reduction\""}),
            0u)
      << ir;
  EXPECT_NE(l.as_text("llvm-ir").find("define"), std::string::npos);
}

/// jit(vmap(grad)) of a dense layer: the forward and the input gradient are each one gemm over
/// the whole batch (the unbatched weight is not broadcast), and the per-example weight
/// gradients, outer products, are written once: no zero fill of that result before them, and
/// nothing copied.
TEST(JitContractions, VmappedDenseLayerGradientIsGemmsAndOneWrite) {
  auto per_example = [](const Array &w, const Array &x) {
    Array h = tanh(matmul(matmul(x, w), w));
    return sum(h * h);
  };
  auto vg = vmap(grad(per_example), {kNotBatched, 0});
  Array w = rnd(1, {6, 6}), x = rnd(2, {8, 6});
  expect_matches(jit(vg)(w, x), vg(w, x), Tolerance::of(1e-12));
  std::string ir = lower(vg, w, x).as_text("bufferized");
  // Two forward products and one input gradient, each one gemm of batch 1 and m = 8 (the
  // vmapped batch), and no other.
  EXPECT_EQ(count(ir, {"call @strata_rt_gemm("}), 3u) << ir;
  EXPECT_EQ(count(ir, {"call @strata_rt_gemm(%c64_i64, %c1_i64, %c8_i64, %c6_i64, %c6_i64,"}), 3u)
      << ir;
  EXPECT_EQ(count(ir, {"memref.copy"}), 0u) << ir;
  // The two [8, 6, 6] outer products are written, never zero-filled first.
  EXPECT_EQ(count(ir, {"linalg.fill", "8x6x6xf64"}), 0u) << ir;
  EXPECT_GE(count(ir, {"linalg.generic", "8x6x6xf64"}), 2u) << ir;
}

} // namespace
