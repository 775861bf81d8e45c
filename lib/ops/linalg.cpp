// matmul and einsum, lowered to lax::dot_general (plus transposes, diagonals and sums).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "ops_impl.h"

namespace strata {

using namespace ops_detail;

// ---- matmul ----------------------------------------------------------------------------------
// As JAX: batch dims that both operands hold become dot_general batch dims; a batch dim only
// one operand holds (missing or of extent 1 in the other) becomes a free dim of that operand,
// so that a dense layer [b, s, d] @ [d, f] is one gemm with m = b * s and its weight is never
// broadcast (nor its gradient summed over a broadcast batch). A transpose restores the order
// [batch..., m, n] when a free batch dim of the rhs comes before one of the lhs.
Array matmul(const Array &a, const Array &b) {
  if (a.ndim() == 0 || b.ndim() == 0)
    fail("matmul", "operands must be at least 1-dimensional, got ", a.type_str(), " and ",
         b.type_str());
  bool a_mat = a.ndim() > 1, b_mat = b.ndim() > 1;
  int64_t k_l = a.shape().back(), k_r = b_mat ? b.shape()[b.ndim() - 2] : b.shape()[0];
  if (k_l != k_r)
    fail("matmul", "contracting dimensions differ: ", a.type_str(), " and ", b.type_str(), " (",
         k_l, " vs ", k_r, ")");
  // Batch extents aligned on the right; -1 where an operand has no such dim.
  int64_t na = a_mat ? a.ndim() - 2 : 0, nbr = b_mat ? b.ndim() - 2 : 0;
  int64_t nb = std::max(na, nbr);
  std::vector<int64_t> a_batch(static_cast<size_t>(nb), -1), b_batch(static_cast<size_t>(nb), -1);
  for (int64_t i = 0; i < na; ++i)
    a_batch[nb - na + i] = a.shape()[i];
  for (int64_t i = 0; i < nbr; ++i)
    b_batch[nb - nbr + i] = b.shape()[i];
  // Output positions of each kind of dot_general result dim, and the operands' dims to squeeze.
  std::vector<int64_t> idx_batch, idx_a, idx_b, a_squeeze, b_squeeze, lb, rb;
  for (int64_t i = 0; i < nb; ++i) {
    int64_t ba = a_batch[i], bb = b_batch[i];
    auto a_pos = static_cast<int64_t>(idx_batch.size() + idx_a.size() + a_squeeze.size());
    auto b_pos = static_cast<int64_t>(idx_batch.size() + idx_b.size() + b_squeeze.size());
    if (ba < 0) {
      idx_b.push_back(i);
    } else if (bb < 0) {
      idx_a.push_back(i);
    } else if (ba == 1) {
      idx_b.push_back(i);
      a_squeeze.push_back(a_pos);
    } else if (bb == 1) {
      idx_a.push_back(i);
      b_squeeze.push_back(b_pos);
    } else if (ba == bb) {
      lb.push_back(a_pos - static_cast<int64_t>(a_squeeze.size()));
      rb.push_back(b_pos - static_cast<int64_t>(b_squeeze.size()));
      idx_batch.push_back(i);
    } else {
      fail("matmul", "batch dimensions of ", a.type_str(), " and ", b.type_str(),
           " cannot be broadcast");
    }
  }
  if (a_mat)
    idx_a.push_back(nb);
  if (b_mat)
    idx_b.push_back(nb + (a_mat ? 1 : 0));
  auto squeezed = [](const Array &x, const std::vector<int64_t> &dims) {
    if (dims.empty())
      return x;
    Shape s;
    for (int64_t d = 0; d < x.ndim(); ++d)
      if (std::find(dims.begin(), dims.end(), d) == dims.end())
        s.push_back(x.shape()[d]);
    return lax::reshape(x, s);
  };
  std::vector<Array> ps = promote("matmul", {squeezed(a, a_squeeze), squeezed(b, b_squeeze)});
  const Array &l = ps[0], &r = ps[1];
  lax::DotDimensionNumbers dims;
  dims.lhs_contracting = {l.ndim() - 1};
  dims.rhs_contracting = {r.ndim() - 1 - (b_mat ? 1 : 0)};
  dims.lhs_batch = lb;
  dims.rhs_batch = rb;
  Array out = lax::dot_general(l, r, dims); // batch, lhs free, rhs free
  std::vector<int64_t> order = idx_batch;
  order.insert(order.end(), idx_a.begin(), idx_a.end());
  order.insert(order.end(), idx_b.begin(), idx_b.end());
  std::vector<int64_t> perm(order.size());
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) {
    perm[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
    identity = identity && order[i] == static_cast<int64_t>(i);
  }
  return identity ? out : lax::transpose(out, perm);
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
