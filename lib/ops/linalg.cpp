// matmul and einsum, lowered to lax::dot_general (plus transposes, diagonals and sums).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "ops_impl.h"

namespace strata {

using namespace ops_detail;

// ---- matmul ----------------------------------------------------------------------------------
Array matmul(const Array &a, const Array &b) {
  if (a.ndim() == 0 || b.ndim() == 0)
    fail("matmul", "operands must be at least 1-dimensional, got ", a.type_str(), " and ",
         b.type_str());
  // Vectors become matrices ([k] -> [1,k] on the left, [k,1] on the right); the added dim is
  // dropped from the result.
  Array l = a.ndim() == 1 ? lax::reshape(a, {1, a.shape()[0]}) : a;
  Array r = b.ndim() == 1 ? lax::reshape(b, {b.shape()[0], 1}) : b;
  int64_t k_l = l.shape().back(), k_r = r.shape()[r.ndim() - 2];
  if (k_l != k_r)
    fail("matmul", "contracting dimensions differ: ", a.type_str(), " and ", b.type_str(), " (",
         k_l, " vs ", k_r, ")");
  Shape lb(l.shape().begin(), l.shape().end() - 2), rb(r.shape().begin(), r.shape().end() - 2);
  Shape batch;
  try {
    batch = broadcast_shapes(lb, rb);
  } catch (const Error &) {
    fail("matmul", "batch dimensions of ", a.type_str(), " and ", b.type_str(),
         " cannot be broadcast");
  }
  std::vector<Array> ps = promote("matmul", {l, r});
  auto full = [&](const Array &x) {
    Shape s = batch;
    s.push_back(x.shape()[x.ndim() - 2]);
    s.push_back(x.shape().back());
    return broadcast_to_shape("matmul", x, s);
  };
  l = full(ps[0]);
  r = full(ps[1]);
  int64_t nb = static_cast<int64_t>(batch.size());
  lax::DotDimensionNumbers dims;
  dims.lhs_contracting = {nb + 1};
  dims.rhs_contracting = {nb};
  for (int64_t i = 0; i < nb; ++i) {
    dims.lhs_batch.push_back(i);
    dims.rhs_batch.push_back(i);
  }
  Array out = lax::dot_general(l, r, dims); // batch..., m, n
  if (a.ndim() == 1 || b.ndim() == 1) {
    Shape s = batch;
    if (a.ndim() != 1)
      s.push_back(out.shape()[nb]);
    if (b.ndim() != 1)
      s.push_back(out.shape()[nb + 1]);
    out = lax::reshape(out, s);
  }
  return out;
}

// ---- einsum ----------------------------------------------------------------------------------
namespace {

// Labels are ints: letters are their character codes; the dims covered by "..." get
// kEllipsisBase + k, right-aligned across operands so that they broadcast as numpy does.
constexpr int kEllipsisBase = 1000;
using Labels = std::vector<int>;

std::string label_str(int l) {
  if (l >= kEllipsisBase)
    return "...";
  return std::string(1, static_cast<char>(l));
}

/// One parsed term: letters, and where "..." stood (-1 when absent).
struct Term {
  std::vector<int> letters;
  int ellipsis_at = -1;
};

Term parse_term(const std::string &s) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ' ')
      continue;
    if (c == '.') {
      if (s.compare(i, 3, "...") != 0 || t.ellipsis_at >= 0)
        fail("einsum", "invalid ellipsis in subscripts '", s, "'");
      t.ellipsis_at = static_cast<int>(t.letters.size());
      i += 2;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c)))
      fail("einsum", "invalid subscript '", std::string(1, c), "' in '", s,
           "': only letters and '...' are allowed");
    t.letters.push_back(c);
  }
  return t;
}

/// An operand on its way through the contraction, with one label per dim.
struct Operand {
  Array x;
  Labels labels;
};

/// Takes the diagonal over every label repeated within one operand.
Operand take_diagonals(Operand op) {
  for (;;) {
    int p = -1, q = -1;
    for (size_t i = 0; i < op.labels.size() && p < 0; ++i)
      for (size_t j = i + 1; j < op.labels.size(); ++j)
        if (op.labels[i] == op.labels[j]) {
          p = static_cast<int>(i);
          q = static_cast<int>(j);
          break;
        }
    if (p < 0)
      return op;
    int64_t n = op.x.shape()[p];
    if (op.x.shape()[q] != n)
      fail("einsum", "repeated subscript '", label_str(op.labels[p]), "' has sizes ", n, " and ",
           op.x.shape()[q], " in ", op.x.type_str());
    // Move the pair last, flatten it to n*n, and read every (n+1)-th element: the diagonal.
    std::vector<int64_t> perm;
    Labels labels;
    Shape shape;
    for (size_t i = 0; i < op.labels.size(); ++i)
      if (static_cast<int>(i) != p && static_cast<int>(i) != q) {
        perm.push_back(static_cast<int64_t>(i));
        labels.push_back(op.labels[i]);
        shape.push_back(op.x.shape()[i]);
      }
    perm.push_back(p);
    perm.push_back(q);
    Array x = lax::transpose(op.x, perm);
    Shape flat = shape;
    flat.push_back(n * n);
    x = lax::reshape(x, flat);
    std::vector<int64_t> start(flat.size(), 0), limit = flat, strides(flat.size(), 1);
    strides.back() = n + 1;
    x = lax::slice(x, start, limit, strides);
    labels.push_back(op.labels[p]);
    op = {x, labels};
  }
}

/// Sums out the dims whose labels are not in `keep`.
Operand sum_out(Operand op, const std::set<int> &keep) {
  std::vector<int64_t> axes;
  Labels labels;
  for (size_t i = 0; i < op.labels.size(); ++i) {
    if (keep.count(op.labels[i]))
      labels.push_back(op.labels[i]);
    else
      axes.push_back(static_cast<int64_t>(i));
  }
  if (axes.empty())
    return op;
  return {lax::reduce_sum(op.x, axes), labels};
}

/// Stretches size-1 dims of `op` to the sizes the other operand has for the same label.
Operand stretch(Operand op, const std::map<int, int64_t> &sizes) {
  Shape shape = op.x.shape();
  bool changed = false;
  for (size_t i = 0; i < op.labels.size(); ++i) {
    int64_t want = sizes.at(op.labels[i]);
    if (shape[i] != want) {
      shape[i] = want;
      changed = true;
    }
  }
  if (!changed)
    return op;
  std::vector<int64_t> dims(shape.size());
  for (size_t i = 0; i < dims.size(); ++i)
    dims[i] = static_cast<int64_t>(i);
  return {lax::broadcast_in_dim(op.x, shape, dims), op.labels};
}

/// Contracts two operands, keeping the labels in `keep` (output plus later operands).
Operand contract(Operand a, Operand b, const std::set<int> &keep) {
  std::set<int> in_a(a.labels.begin(), a.labels.end()), in_b(b.labels.begin(), b.labels.end());
  // Labels on one side only that nobody needs later are summed out first.
  std::set<int> keep_a = keep, keep_b = keep;
  keep_a.insert(in_b.begin(), in_b.end());
  keep_b.insert(in_a.begin(), in_a.end());
  a = sum_out(a, keep_a);
  b = sum_out(b, keep_b);
  std::map<int, int64_t> sizes;
  for (const Operand *op : {&a, &b})
    for (size_t i = 0; i < op->labels.size(); ++i) {
      int64_t s = op->x.shape()[i];
      auto [it, fresh] = sizes.emplace(op->labels[i], s);
      if (!fresh && it->second != s) {
        if (it->second != 1 && s != 1)
          fail("einsum", "subscript '", label_str(op->labels[i]), "' has sizes ", it->second,
               " and ", s, " in ", a.x.type_str(), " and ", b.x.type_str());
        it->second = std::max(it->second, s);
      }
    }
  a = stretch(a, sizes);
  b = stretch(b, sizes);
  lax::DotDimensionNumbers dims;
  Labels out;
  for (size_t i = 0; i < a.labels.size(); ++i) {
    auto j = std::find(b.labels.begin(), b.labels.end(), a.labels[i]);
    if (j == b.labels.end())
      continue;
    bool batch = keep.count(a.labels[i]) > 0;
    (batch ? dims.lhs_batch : dims.lhs_contracting).push_back(static_cast<int64_t>(i));
    (batch ? dims.rhs_batch : dims.rhs_contracting).push_back(j - b.labels.begin());
    if (batch)
      out.push_back(a.labels[i]);
  }
  for (int l : a.labels)
    if (!in_b.count(l))
      out.push_back(l);
  for (int l : b.labels)
    if (!in_a.count(l))
      out.push_back(l);
  return {lax::dot_general(a.x, b.x, dims), out};
}

} // namespace

Array einsum(const std::string &subscripts, const std::vector<Array> &operands) {
  if (operands.empty())
    fail("einsum", "needs at least one operand");
  std::string lhs = subscripts, rhs;
  bool explicit_out = false;
  if (size_t arrow = subscripts.find("->"); arrow != std::string::npos) {
    lhs = subscripts.substr(0, arrow);
    rhs = subscripts.substr(arrow + 2);
    explicit_out = true;
    if (rhs.find("->") != std::string::npos)
      fail("einsum", "subscripts '", subscripts, "' have more than one '->'");
  }
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(parse_term(lhs.substr(start, comma - start)));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (terms.size() != operands.size())
    fail("einsum", "subscripts '", subscripts, "' name ", terms.size(), " operands, but ",
         operands.size(), " were given");

  // Expand each term's "..." into labels, right-aligned across all operands.
  int64_t ellipsis_rank = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    int64_t named = static_cast<int64_t>(terms[i].letters.size());
    int64_t rank = operands[i].ndim();
    if (terms[i].ellipsis_at < 0 ? rank != named : rank < named)
      fail("einsum", "operand ", i, " (", operands[i].type_str(), ") has ", rank,
           " dimensions, but its subscripts name ", named);
    if (terms[i].ellipsis_at >= 0)
      ellipsis_rank = std::max(ellipsis_rank, rank - named);
  }
  std::vector<Operand> ops;
  std::map<int, int> counts;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term &t = terms[i];
    Labels labels;
    int64_t covered = operands[i].ndim() - static_cast<int64_t>(t.letters.size());
    for (size_t j = 0; j <= t.letters.size(); ++j) {
      if (static_cast<int>(j) == t.ellipsis_at)
        for (int64_t k = 0; k < covered; ++k)
          labels.push_back(kEllipsisBase + static_cast<int>(ellipsis_rank - covered + k));
      if (j < t.letters.size())
        labels.push_back(t.letters[j]);
    }
    for (int l : std::set<int>(labels.begin(), labels.end()))
      ++counts[l];
    ops.push_back({operands[i], labels});
  }

  // The output labels: explicit (dims covered by "..." are summed when the output lacks it, as
  // in JAX), or implicit: the "..." dims, then the letters occurring once, alphabetically.
  Labels out;
  if (explicit_out) {
    Term t = parse_term(rhs);
    for (size_t j = 0; j <= t.letters.size(); ++j) {
      if (static_cast<int>(j) == t.ellipsis_at)
        for (int64_t k = 0; k < ellipsis_rank; ++k)
          out.push_back(kEllipsisBase + static_cast<int>(k));
      if (j < t.letters.size()) {
        int l = t.letters[j];
        if (!counts.count(l))
          fail("einsum", "output subscript '", label_str(l), "' does not appear in the inputs");
        if (std::find(out.begin(), out.end(), l) != out.end())
          fail("einsum", "output subscript '", label_str(l), "' appears more than once");
        out.push_back(l);
      }
    }
  } else {
    for (int64_t k = 0; k < ellipsis_rank; ++k)
      out.push_back(kEllipsisBase + static_cast<int>(k));
    int letter_count[256] = {};
    for (const Term &t : terms)
      for (int l : t.letters)
        ++letter_count[l];
    for (int l = 0; l < 256; ++l)
      if (letter_count[l] == 1)
        out.push_back(l);
  }

  std::vector<Array> promoted;
  for (const Operand &op : ops)
    promoted.push_back(op.x);
  promoted = promote("einsum", promoted);
  for (size_t i = 0; i < ops.size(); ++i)
    ops[i] = take_diagonals({promoted[i], ops[i].labels});

  // Contract left to right; each step keeps what the output and the later operands need.
  std::set<int> out_set(out.begin(), out.end());
  Operand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    std::set<int> keep = out_set;
    for (size_t j = i + 1; j < ops.size(); ++j)
      keep.insert(ops[j].labels.begin(), ops[j].labels.end());
    acc = contract(acc, ops[i], keep);
  }
  acc = sum_out(acc, out_set);
  // Dims of size 1 of a broadcast label present in the output only through "...": fine, they
  // already sit in acc. Finally order the dims as the output asks.
  std::vector<int64_t> perm;
  for (int l : out) {
    auto it = std::find(acc.labels.begin(), acc.labels.end(), l);
    if (it == acc.labels.end()) // an ellipsis dim only some operands have: cannot happen
      fail("einsum", "internal error: output label '", label_str(l), "' was lost");
    perm.push_back(it - acc.labels.begin());
  }
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  return identity ? acc.x : lax::transpose(acc.x, perm);
}

} // namespace strata
