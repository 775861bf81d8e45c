// dot_general against a naive contraction in double written here: layouts that gemm reads in
// place or through copies, every dtype, preferred element types, edge shapes and errors.
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

STRATA_TESTS_PRIMITIVES("dot_general");

namespace {

using Dims = lax::DotDimensionNumbers;

std::vector<int64_t> free_dims(size_t rank, const std::vector<int64_t> &a,
                               const std::vector<int64_t> &b) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d)
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end())
      out.push_back(d);
  return out;
}

int64_t flat_index(const Shape &shape, const std::vector<int64_t> &idx) {
  int64_t f = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    f = f * shape[i] + idx[i];
  return f;
}

/// Splits a flat index over `sizes` into a multi-index.
std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t> &sizes) {
  std::vector<int64_t> idx(sizes.size());
  for (size_t i = sizes.size(); i-- > 0;) {
    idx[i] = flat % sizes[i];
    flat /= sizes[i];
  }
  return idx;
}

/// The contraction by definition: each output element sums products over contracting indices.
std::vector<double> naive_dot(const std::vector<double> &l, const Shape &ls,
                              const std::vector<double> &r, const Shape &rs, const Dims &d,
                              Shape &out_shape) {
  auto lf = free_dims(ls.size(), d.lhs_batch, d.lhs_contracting);
  auto rf = free_dims(rs.size(), d.rhs_batch, d.rhs_contracting);
  out_shape.clear();
  for (int64_t b : d.lhs_batch)
    out_shape.push_back(ls[b]);
  for (int64_t f : lf)
    out_shape.push_back(ls[f]);
  for (int64_t f : rf)
    out_shape.push_back(rs[f]);
  std::vector<int64_t> csizes;
  for (int64_t c : d.lhs_contracting)
    csizes.push_back(ls[c]);
  int64_t nc = num_elements(csizes);
  std::vector<double> out(static_cast<size_t>(num_elements(out_shape)), 0.0);
  for (int64_t o = 0; o < static_cast<int64_t>(out.size()); ++o) {
    std::vector<int64_t> oi = unflatten(o, out_shape);
    std::vector<int64_t> li(ls.size()), ri(rs.size());
    size_t p = 0;
    for (size_t i = 0; i < d.lhs_batch.size(); ++i, ++p) {
      li[d.lhs_batch[i]] = oi[p];
      ri[d.rhs_batch[i]] = oi[p];
    }
    for (int64_t f : lf)
      li[f] = oi[p++];
    for (int64_t f : rf)
      ri[f] = oi[p++];
    double acc = 0;
    for (int64_t c = 0; c < nc; ++c) {
      std::vector<int64_t> ci = unflatten(c, csizes);
      for (size_t i = 0; i < ci.size(); ++i) {
        li[d.lhs_contracting[i]] = ci[i];
        ri[d.rhs_contracting[i]] = ci[i];
      }
      acc += l[flat_index(ls, li)] * r[flat_index(rs, ri)];
    }
    out[o] = acc;
  }
  return out;
}

/// Small values (exact in every dtype, products exact in f16) from a fixed generator.
std::vector<double> gen(int64_t n, DType t, uint32_t seed) {
  std::vector<double> v(static_cast<size_t>(n));
  for (auto &e : v) {
    seed = seed * 1664525u + 1013904223u;
    int r = static_cast<int>((seed >> 16) % 7);
    e = is_unsigned_integer(t) ? r : r - 3;
  }
  return v;
}

struct Case {
  const char *name;
  Shape ls, rs;
  Dims dims;
};

// Layout cases: plain and transposed matmuls (read in place), batch dims in unusual positions,
// contracting dims in permuted order, and layouts that need a copy.
const std::vector<Case> &cases() {
  static const std::vector<Case> c = {
      {"matmul", {3, 4}, {4, 5}, {{1}, {0}, {}, {}}},
      {"lhs_transposed", {4, 3}, {4, 5}, {{0}, {0}, {}, {}}},
      {"rhs_transposed", {3, 4}, {5, 4}, {{1}, {1}, {}, {}}},
      {"both_transposed", {4, 3}, {5, 4}, {{0}, {1}, {}, {}}},
      {"vector_dot", {6}, {6}, {{0}, {0}, {}, {}}},
      {"matvec", {3, 6}, {6}, {{1}, {0}, {}, {}}},
      {"vecmat", {6}, {6, 2}, {{0}, {0}, {}, {}}},
      {"outer", {3}, {4}, {{}, {}, {}, {}}},
      {"scalar_times_matrix", {}, {2, 3}, {{}, {}, {}, {}}},
      {"batched", {2, 3, 4}, {2, 4, 5}, {{2}, {1}, {0}, {0}}},
      {"batch_in_middle", {3, 2, 4}, {4, 5, 2}, {{2}, {0}, {1}, {2}}},
      {"batch_last", {3, 4, 2}, {2, 4, 5}, {{1}, {1}, {2}, {0}}},
      {"two_batch_dims_swapped", {2, 3, 4, 5}, {3, 2, 5, 2}, {{3}, {2}, {0, 1}, {1, 0}}},
      {"two_contracting_permuted", {2, 3, 4}, {4, 3, 5}, {{2, 1}, {0, 1}, {}, {}}},
      {"two_contracting_in_order", {2, 3, 4}, {3, 4, 5}, {{1, 2}, {0, 1}, {}, {}}},
      {"split_free_dims", {4, 3, 5}, {3, 2}, {{1}, {0}, {}, {}}},
      {"split_contracting", {4, 3, 5}, {4, 5, 2}, {{0, 2}, {0, 1}, {}, {}}},
      {"multi_free", {2, 3, 4}, {4, 2, 3}, {{2}, {0}, {}, {}}},
      {"size_one_dims", {1, 3, 1, 4}, {4, 1, 5}, {{3}, {0}, {}, {}}},
      {"batch_only", {2, 3}, {2, 3}, {{}, {}, {0, 1}, {0, 1}}},
  };
  return c;
}

void run_case(const Case &c, DType t, std::optional<DType> pref = std::nullopt) {
  SCOPED_TRACE(std::string(c.name) + " " + std::string(short_name(t)));
  std::vector<double> l = gen(num_elements(c.ls), t, 1), r = gen(num_elements(c.rs), t, 2);
  Shape out_shape;
  std::vector<double> want = naive_dot(l, c.ls, r, c.rs, c.dims, out_shape);
  DType od = pref ? *pref : t;
  if (is_integer(od))
    for (double &v : want)
      v = wrap_to(od, v);
  Array got = lax::dot_general(make(l, c.ls, t), make(r, c.rs, t), c.dims, pref);
  expect_array(got, want, out_shape, od, tol_for(od));
}

} // namespace

TEST(PrimDotGeneral, LayoutsAllDtypes) {
  for (DType t : all_dtypes()) {
    if (t == bool_)
      continue;
    for (const Case &c : cases())
      run_case(c, t);
  }
}

TEST(PrimDotGeneral, PreferredElementType) {
  for (const Case &c : cases()) {
    run_case(c, int8, int32);
    run_case(c, int8, float32);
    run_case(c, uint8, int64);
    run_case(c, int32, float64);
    run_case(c, float16, float32);
    run_case(c, bfloat16, float16);
    run_case(c, float32, float64);
    run_case(c, float64, float64);
  }
  // Without a preferred type i8 wraps; with i32 it does not.
  Array a = make({100, 100}, {1, 2}, int8), b = make({100, 100}, {2, 1}, int8);
  expect_array(lax::dot_general(a, b, {{1}, {0}, {}, {}}), {32}, {1, 1}, int8);
  expect_array(lax::dot_general(a, b, {{1}, {0}, {}, {}}, int32), {20000}, {1, 1}, int32);
}

TEST(PrimDotGeneral, HandValues) {
  Array a = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  Array b = make({7, 8, 9, 10, 11, 12}, {3, 2}, float32);
  expect_array(lax::dot_general(a, b, {{1}, {0}, {}, {}}), {58, 64, 139, 154}, {2, 2}, float32);
  expect_array(lax::dot_general(a, a, {{1}, {1}, {}, {}}), {14, 32, 32, 77}, {2, 2}, float32);
  expect_array(lax::dot_general(a, a, {{1}, {1}, {0}, {0}}), {14, 77}, {2}, float32);
}

TEST(PrimDotGeneral, LargerMatricesThroughBlas) {
  // Sizes past BLIS's blocking, in-place transposed views, and many small batched products.
  struct Big {
    Shape ls, rs;
    Dims dims;
  };
  std::vector<Big> bigs = {{{130, 97}, {97, 81}, {{1}, {0}, {}, {}}},
                           {{97, 130}, {81, 97}, {{0}, {1}, {}, {}}},
                           {{16, 9, 12}, {16, 12, 7}, {{2}, {1}, {0}, {0}}},
                           {{9, 16, 12}, {12, 7, 16}, {{2}, {0}, {1}, {2}}}};
  for (const Big &b : bigs)
    for (DType t : {float32, float64, bfloat16, int32}) {
      Case c{"big", b.ls, b.rs, b.dims};
      run_case(c, t);
    }
}

TEST(PrimDotGeneral, ZeroSizeDims) {
  for (DType t : {float32, float64, float16, int32, uint8}) {
    SCOPED_TRACE(short_name(t));
    // K = 0 gives zeros.
    expect_array(lax::dot_general(make({}, {2, 0}, t), make({}, {0, 3}, t), {{1}, {0}, {}, {}}),
                 {0, 0, 0, 0, 0, 0}, {2, 3}, t);
    expect_array(lax::dot_general(make({}, {0, 2}, t), make({}, {0}, t), {{0}, {0}, {}, {}}),
                 {0, 0}, {2}, t);
    // M = 0, N = 0 and zero batches give empty results.
    expect_array(lax::dot_general(make({}, {0, 4}, t),
                                  make(std::vector<double>(12, 1.0), {4, 3}, t),
                                  {{1}, {0}, {}, {}}),
                 {}, {0, 3}, t);
    expect_array(lax::dot_general(make(std::vector<double>(8, 1.0), {2, 4}, t), make({}, {4, 0}, t),
                                  {{1}, {0}, {}, {}}),
                 {}, {2, 0}, t);
    expect_array(
        lax::dot_general(make({}, {0, 2, 3}, t), make({}, {0, 3, 4}, t), {{2}, {1}, {0}, {0}}), {},
        {0, 2, 4}, t);
  }
}

TEST(PrimDotGeneral, RankZeroAndWeakTypes) {
  Array w = Array::weak_scalar(3.0), x = Array::weak_scalar(2.0);
  Array y = lax::dot_general(w, x, {{}, {}, {}, {}});
  EXPECT_TRUE(y.weak_type());
  expect_array(y, {6}, {}, w.dtype());
  EXPECT_FALSE(lax::dot_general(w, x, {{}, {}, {}, {}}, float64).weak_type());
  EXPECT_FALSE(lax::dot_general(w, make({2}, {}, w.dtype()), {{}, {}, {}, {}}).weak_type());
}

TEST(PrimDotGeneral, Errors) {
  Array a = make({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
  Array b = make(std::vector<double>(20, 1.0), {4, 5}, float32);
  expect_error([&] { lax::dot_general(a, b, {{1}, {0}, {}, {}}); },
               {"[dot_general] contracting dimensions differ: f32[2,3] and f32[4,5]"});
  Array c = make(std::vector<double>(36, 1.0), {3, 3, 4}, float32);
  expect_error([&] { lax::dot_general(a, c, {{1}, {1}, {0}, {0}}); },
               {"batch dimensions differ: f32[2,3] and f32[3,3,4]"});
  expect_error([&] { lax::dot_general(a, make({1, 2, 3}, float64), {{1}, {0}, {}, {}}); },
               {"operand dtypes differ: f32[2,3] and f64[3]"});
  expect_error(
      [&] { lax::dot_general(make({1, 0}, bool_), make({1, 1}, bool_), {{0}, {0}, {}, {}}); },
      {"expects numeric operands", "bool[2]"});
  expect_error([&] { lax::dot_general(a, a, {{2}, {1}, {}, {}}); },
               {"lhs contracting dimension 2 is out of range for f32[2,3]"});
  expect_error([&] { lax::dot_general(a, a, {{1}, {-1}, {}, {}}); },
               {"rhs contracting dimension -1 is out of range"});
  expect_error([&] { lax::dot_general(a, a, {{1}, {1}, {2}, {0}}); },
               {"lhs batch dimension 2 is out of range"});
  expect_error([&] { lax::dot_general(a, a, {{1, 1}, {0, 1}, {}, {}}); },
               {"lhs dimension 1 appears more than once"});
  expect_error([&] { lax::dot_general(a, a, {{1}, {1}, {1}, {0}}); },
               {"lhs dimension 1 appears more than once"});
  expect_error([&] { lax::dot_general(a, a, {{1}, {}, {}, {}}); },
               {"as many contracting dimensions"});
  expect_error([&] { lax::dot_general(a, a, {{}, {}, {0}, {}}); }, {"as many batch dimensions"});
  expect_error([&] { lax::dot_general(a, a, {{1}, {1}, {}, {}}, float16); },
               {"preferred_element_type f16 is narrower"});
  expect_error([&] { lax::dot_general(a, a, {{1}, {1}, {}, {}}, int32); },
               {"preferred_element_type i32 is incompatible"});
  expect_error([&] { lax::dot_general(a, a, {{1}, {1}, {}, {}}, bool_); }, {"incompatible"});
  Array i = make({1, 2}, int32);
  expect_error([&] { lax::dot_general(i, i, {{0}, {0}, {}, {}}, int8); }, {"narrower"});
  expect_error([&] { lax::dot_general(i, i, {{0}, {0}, {}, {}}, bool_); }, {"incompatible"});
}

TEST(PrimDotGeneral, AbstractEval) {
  const Primitive *p = find_primitive("dot_general");
  ASSERT_NE(p, nullptr);
  AbstractValue in[2] = {{{5, 2, 3}, bfloat16, false}, {{3, 7, 5}, bfloat16, false}};
  Params params{{"lhs_contracting", std::vector<int64_t>{2}},
                {"rhs_contracting", std::vector<int64_t>{0}},
                {"lhs_batch", std::vector<int64_t>{0}},
                {"rhs_batch", std::vector<int64_t>{2}},
                {"preferred_element_type", float32}};
  auto out = abstract_eval(*p, in, params);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (AbstractValue{{5, 2, 7}, float32, false}));
}
