// matmul and einsum against naive loops written here: vector promotion, batch broadcasting,
// diagonals, ellipses, implicit outputs, several operands, and the errors.
#include <functional>

#include "test_util.h"

using namespace strata;
using namespace strata::testutil;

namespace {

// Deterministic small values (exact in f32 sums) for a shape.
std::vector<double> sample(const Shape &shape, int seed) {
  std::vector<double> v(static_cast<size_t>(num_elements(shape)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<double>((static_cast<int>(i) * 5 + seed * 3) % 7 - 3);
  return v;
}

// Row-major offset of an index.
int64_t at(const Shape &shape, std::initializer_list<int64_t> idx) {
  int64_t off = 0;
  size_t d = 0;
  for (int64_t i : idx)
    off = off * shape[d++] + i;
  return off;
}

} // namespace

// ---- matmul ----------------------------------------------------------------------------------
TEST(OpsLinalg, MatmulMatrices) {
  Shape sa{2, 3}, sb{3, 4};
  std::vector<double> a = sample(sa, 1), b = sample(sb, 2), want(8, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k)
        want[i * 4 + j] += a[at(sa, {i, k})] * b[at(sb, {k, j})];
  expect_array(matmul(make(a, sa, float32), make(b, sb, float32)), want, {2, 4}, float32);
  expect_array(matmul(make(a, sa, int32), make(b, sb, int8)), want, {2, 4}, int32);
  expect_array(matmul(make(a, sa, float16), make(b, sb, float64)), want, {2, 4}, float64);
}

TEST(OpsLinalg, MatmulVectorsAndBatches) {
  std::vector<double> m = sample({2, 3}, 1), v = sample({3}, 2), u = sample({2}, 3);
  std::vector<double> mv(2, 0.0), um(3, 0.0);
  double vv = 0;
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 3; ++k) {
      mv[i] += m[i * 3 + k] * v[k];
      um[k] += u[i] * m[i * 3 + k];
    }
  for (int k = 0; k < 3; ++k)
    vv += v[k] * v[k];
  Array M = make(m, {2, 3}, float32), V = make(v, {3}, float32), U = make(u, {2}, float32);
  expect_array(matmul(M, V), mv, {2}, float32);
  expect_array(matmul(U, M), um, {3}, float32);
  expect_array(matmul(V, V), {vv}, {}, float32);

  // Batch dims broadcast: [2,1,2,3] @ [3,3,2] -> [2,3,2,2].
  Shape sa{2, 1, 2, 3}, sb{3, 3, 2};
  std::vector<double> a = sample(sa, 4), b = sample(sb, 5), want;
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 3; ++q)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          double s = 0;
          for (int k = 0; k < 3; ++k)
            s += a[at(sa, {p, 0, i, k})] * b[at(sb, {q, k, j})];
          want.push_back(s);
        }
  expect_array(matmul(make(a, sa, float32), make(b, sb, float32)), want, {2, 3, 2, 2}, float32);
  // A vector against a batch of matrices: [3] @ [3,3,2] -> [3,2].
  std::vector<double> vb;
  for (int q = 0; q < 3; ++q)
    for (int j = 0; j < 2; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k)
        s += v[k] * b[at(sb, {q, k, j})];
      vb.push_back(s);
    }
  expect_array(matmul(V, make(b, sb, float32)), vb, {3, 2}, float32);
  // Zero-size contraction gives zeros.
  expect_array(matmul(make({}, {2, 0}, float32), make({}, {0, 2}, float32)), {0, 0, 0, 0}, {2, 2},
               float32);
}

TEST(OpsLinalg, MatmulErrors) {
  expect_error([] { matmul(make({1, 2, 3, 4, 5, 6}, {2, 3}, float32), zeros({4, 5})); },
               {"[matmul]", "f32[2,3]", "f32[4,5]"});
  expect_error([] { matmul(Array(1.0f), make({1}, float32)); }, {"[matmul]", "1-dimensional"});
  expect_error([] { matmul(zeros({2, 1, 1}), zeros({3, 1, 1})); },
               {"[matmul]", "batch", "f32[2,1,1]", "f32[3,1,1]"});
}

// ---- einsum ----------------------------------------------------------------------------------
TEST(OpsLinalg, EinsumBasics) {
  Shape sa{2, 3}, sb{3, 4};
  std::vector<double> a = sample(sa, 1), b = sample(sb, 2), mm(8, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k)
        mm[i * 4 + j] += a[at(sa, {i, k})] * b[at(sb, {k, j})];
  Array A = make(a, sa, float32), B = make(b, sb, float32);
  expect_array(einsum("ij,jk->ik", {A, B}), mm, {2, 4}, float32);
  expect_array(einsum("ij,jk", {A, B}), mm, {2, 4}, float32); // implicit
  expect_array(einsum(" i j , j k -> i k ", {A, B}), mm, {2, 4}, float32);
  // Transposed output.
  std::vector<double> mmt;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 2; ++i)
      mmt.push_back(mm[i * 4 + j]);
  expect_array(einsum("ij,jk->ki", {A, B}), mmt, {4, 2}, float32);
  // Implicit output sorts letters: "ba,ac" gives "bc"... and "kj,ji" gives "ik".
  expect_array(einsum("jk,ij", {B, A}), mm, {2, 4}, float32);

  std::vector<double> at_;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 2; ++i)
      at_.push_back(a[at(sa, {i, j})]);
  expect_array(einsum("ij->ji", {A}), at_, {3, 2}, float32);
  expect_array(einsum("ji", {A}), at_, {3, 2}, float32); // implicit transposes too
  double total = 0, dot = 0;
  for (double e : a)
    total += e;
  expect_array(einsum("ij->", {A}), {total}, {}, float32);
  std::vector<double> v = sample({5}, 3), w = sample({5}, 4);
  for (int i = 0; i < 5; ++i)
    dot += v[i] * w[i];
  expect_array(einsum("i,i->", {make(v, float32), make(w, float32)}), {dot}, {}, float32);
  expect_array(einsum("i,i", {make(v, float32), make(w, float32)}), {dot}, {}, float32);
  // Outer product and promotion.
  std::vector<double> outer;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      outer.push_back(v[i] * w[j]);
  expect_array(einsum("i,j->ij", {make({v[0], v[1]}, int32), make({w[0], w[1], w[2]}, float32)}),
               outer, {2, 3}, float32);
}

TEST(OpsLinalg, EinsumDiagonals) {
  Shape s{3, 3};
  std::vector<double> m = sample(s, 6);
  Array M = make(m, s, float32);
  expect_array(einsum("ii->i", {M}), {m[0], m[4], m[8]}, {3}, float32);
  expect_array(einsum("ii", {M}), {m[0] + m[4] + m[8]}, {}, float32);
  expect_array(einsum("ii->", {M}), {m[0] + m[4] + m[8]}, {}, float32);
  // A diagonal inside a bigger operand: "iji->ij" on [2,3,2].
  Shape t{2, 3, 2};
  std::vector<double> x = sample(t, 7), want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      want.push_back(x[at(t, {i, j, i})]);
  expect_array(einsum("iji->ij", {make(x, t, float64)}), want, {2, 3}, float64);
  // Triple repeat: "iii->i".
  Shape c{2, 2, 2};
  std::vector<double> y = sample(c, 8);
  expect_array(einsum("iii->i", {make(y, c, float32)}), {y[0], y[7]}, {2}, float32);
  // A diagonal then a contraction with another operand: "ii,i->" = sum_i M[i,i] v[i].
  std::vector<double> v = sample({3}, 9);
  expect_array(einsum("ii,i->", {M, make(v, float32)}), {m[0] * v[0] + m[4] * v[1] + m[8] * v[2]},
               {}, float32);
  expect_array(einsum("ii->i", {make({}, {0, 0}, float32)}), {}, {0}, float32);
  expect_error([] { einsum("ii->i", {zeros({2, 3})}); },
               {"[einsum]", "repeated subscript 'i'", "2", "3"});
}

TEST(OpsLinalg, EinsumBatchAndEllipsis) {
  Shape sa{2, 2, 3}, sb{2, 3, 2};
  std::vector<double> a = sample(sa, 1), b = sample(sb, 2), want;
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) {
        double s = 0;
        for (int j = 0; j < 3; ++j)
          s += a[at(sa, {n, i, j})] * b[at(sb, {n, j, k})];
        want.push_back(s);
      }
  Array A = make(a, sa, float32), B = make(b, sb, float32);
  expect_array(einsum("bij,bjk->bik", {A, B}), want, {2, 2, 2}, float32);
  expect_array(einsum("...ij,...jk->...ik", {A, B}), want, {2, 2, 2}, float32);
  expect_array(einsum("...ij,...jk", {A, B}), want, {2, 2, 2}, float32);
  // "..." broadcasts: [2,2,3] against a plain [3,2] matrix.
  Shape sm{3, 2};
  std::vector<double> m = sample(sm, 3), want2;
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) {
        double s = 0;
        for (int j = 0; j < 3; ++j)
          s += a[at(sa, {n, i, j})] * m[at(sm, {j, k})];
        want2.push_back(s);
      }
  expect_array(einsum("...ij,jk->...ik", {A, make(m, sm, float32)}), want2, {2, 2, 2}, float32);
  // Size-1 broadcast dims in the ellipsis: [1,2,3] with [2,3,2].
  std::vector<double> a1(a.begin(), a.begin() + 6), want3;
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) {
        double s = 0;
        for (int j = 0; j < 3; ++j)
          s += a1[at({2, 3}, {i, j})] * b[at(sb, {n, j, k})];
        want3.push_back(s);
      }
  expect_array(einsum("...ij,...jk->...ik", {make(a1, {1, 2, 3}, float32), B}), want3, {2, 2, 2},
               float32);
  // Ellipsis in the middle and summed-out letters: "i...j->..." over [2,3,4].
  Shape st{2, 3, 4};
  std::vector<double> x = sample(st, 4), mid(3, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int p = 0; p < 3; ++p)
      for (int j = 0; j < 4; ++j)
        mid[p] += x[at(st, {i, p, j})];
  expect_array(einsum("i...j->...", {make(x, st, float32)}), mid, {3}, float32);
  expect_array(einsum("...->...", {Array(2.0f)}), {2}, {}, float32);
  // An output without "..." sums the dims it covers (as JAX does).
  std::vector<double> last(4, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int p = 0; p < 3; ++p)
      for (int j = 0; j < 4; ++j)
        last[j] += x[at(st, {i, p, j})];
  expect_array(einsum("...j->j", {make(x, st, float32)}), last, {4}, float32);
}

TEST(OpsLinalg, EinsumThreeOperandsAndSummedIndices) {
  // "ij,jk,kl->il" = A B C, and "ij,jk,kl->" its total.
  Shape sa{2, 3}, sb{3, 4}, sc{4, 2};
  std::vector<double> a = sample(sa, 1), b = sample(sb, 2), c = sample(sc, 3);
  std::vector<double> want(4, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int l = 0; l < 2; ++l)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k)
          want[i * 2 + l] += a[at(sa, {i, j})] * b[at(sb, {j, k})] * c[at(sc, {k, l})];
  Array A = make(a, sa, float64), B = make(b, sb, float64), C = make(c, sc, float64);
  expect_array(einsum("ij,jk,kl->il", {A, B, C}), want, {2, 2}, float64);
  expect_array(einsum("ij,jk,kl->", {A, B, C}), {want[0] + want[1] + want[2] + want[3]}, {},
               float64);
  // A label shared by the first and last operand only: "ij,jk,ki->" (trace of ABC').
  Shape sd{4, 2};
  std::vector<double> d = sample(sd, 5);
  double tr = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        tr += a[at(sa, {i, j})] * b[at(sb, {j, k})] * d[at(sd, {k, i})];
  expect_array(einsum("ij,jk,ki->", {A, B, make(d, sd, float64)}), {tr}, {}, float64);
  expect_array(einsum("ij,jk,ki", {A, B, make(d, sd, float64)}), {tr}, {}, float64);
  // Indices summed within one operand before contracting: "ijk,k->i".
  Shape se{2, 3, 4};
  std::vector<double> e = sample(se, 6), v = sample({4}, 7), w(2, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        w[i] += e[at(se, {i, j, k})] * v[k];
  expect_array(einsum("ijk,k->i", {make(e, se, float64), make(v, float64)}), w, {2}, float64);
  // Batched three-way: "bi,bj,bk->bijk" keeps everything.
  std::vector<double> p = sample({2, 2}, 1), q = sample({2, 1}, 2), r = sample({2, 2}, 3), o;
  for (int bb = 0; bb < 2; ++bb)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k)
        o.push_back(p[bb * 2 + i] * q[bb] * r[bb * 2 + k]);
  expect_array(einsum("bi,bj,bk->bijk", {make(p, {2, 2}, float32), make(q, {2, 1}, float32),
                                         make(r, {2, 2}, float32)}),
               o, {2, 2, 1, 2}, float32);
}

TEST(OpsLinalg, EinsumErrors) {
  Array A = zeros({2, 3}), B = zeros({4, 5});
  expect_error([&] { einsum("ij,jk->ik", {A, B}); }, {"[einsum]", "'j'", "3", "4"});
  expect_error([&] { einsum("ij,jk->ik", {A}); }, {"[einsum]", "2 operands", "1 were given"});
  expect_error([&] { einsum("ijk->i", {A}); }, {"[einsum]", "f32[2,3]", "3"});
  expect_error([&] { einsum("ij->iz", {A}); }, {"[einsum]", "'z'", "does not appear"});
  expect_error([&] { einsum("ij->ii", {A}); }, {"[einsum]", "more than once"});
  expect_error([&] { einsum("i1->i", {A}); }, {"[einsum]", "invalid subscript"});
  expect_error([&] { einsum("i..j->i", {A}); }, {"[einsum]", "ellipsis"});
  expect_error([] { einsum("", {}); }, {"[einsum]", "at least one"});
}
