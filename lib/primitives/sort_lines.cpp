// sort_lines: the line-sorting kernel of the sort primitive and of jit-compiled sorts (an LSD
// radix sort on order-preserving bit patterns, a comparison sort for short lines and for
// several keys' ties).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#include "primitives/elementwise_impl.h"
#include "strata/internal/line_kernels.h"
#include "strata/internal/thread_pool.h"

namespace strata {
namespace {

/// Lines shorter than this are sorted by comparisons: a radix pass's 256-bucket histogram and
/// prefix sum would cost more than the whole sort.
constexpr int64_t kRadixMin = 256;

template <size_t N> struct UIntOf;
template <> struct UIntOf<1> {
  using type = uint8_t;
};
template <> struct UIntOf<2> {
  using type = uint16_t;
};
template <> struct UIntOf<4> {
  using type = uint32_t;
};
template <> struct UIntOf<8> {
  using type = uint64_t;
};

/// The order-preserving bit pattern of an element type T: unsigned keys that compare as the
/// sort orders the elements, with every NaN mapped to the largest key and -0.0 to 0.0's key.
/// Floats: a set sign bit flips all bits, a clear one sets the sign bit; signed integers: the
/// sign bit flipped.
template <class T> struct KeyOf {
  using U = typename UIntOf<sizeof(T)>::type;
  static constexpr bool kFloat = is_float_v<T>;
  static constexpr U kSign = U(U(1) << (8 * sizeof(U) - 1));
  /// The bits of +infinity (floats only).
  static constexpr U inf() {
    if constexpr (sizeof(T) == 8)
      return U(0x7ff0000000000000ull);
    else if constexpr (sizeof(T) == 4)
      return U(0x7f800000u);
    else if constexpr (std::is_same_v<T, bf16_t>)
      return U(0x7f80u);
    else
      return U(0x7c00u);
  }
  static U bits(T v) {
    U b;
    std::memcpy(&b, &v, sizeof(U));
    return b;
  }
  static bool is_nan(U b) { return U(b & U(~kSign)) > inf(); }
  static U key(T v) {
    U b = bits(v);
    if constexpr (kFloat) {
      if (is_nan(b))
        return U(~U(0));
      if (b == kSign)
        b = 0;
      return (b & kSign) ? U(~b) : U(b | kSign);
    } else if constexpr (std::is_signed_v<T>) {
      return U(b ^ kSign);
    } else {
      return b;
    }
  }
  /// The element of a key (a canonical NaN for the NaN key, +0.0 for zero's).
  static T value(U k) {
    U b = k;
    if constexpr (kFloat)
      b = (k & kSign) ? U(k ^ kSign) : U(~k);
    else if constexpr (std::is_signed_v<T>)
      b = U(k ^ kSign);
    T v;
    std::memcpy(&v, &b, sizeof(U));
    return v;
  }
};

/// Stable LSD radix sort of a[0..n) by key(a[i]) (an unsigned integer of Bytes bytes), one
/// 8-bit digit per pass; passes whose digit is the same for every record are skipped. tmp holds
/// n records. Returns where the sorted records are (a or tmp).
template <int Bytes, class Rec, class KeyFn>
Rec *radix_sort(Rec *a, Rec *tmp, int64_t n, KeyFn key) {
  constexpr int bytes = Bytes;
  std::vector<int64_t> hist(static_cast<size_t>(bytes) * 256, 0);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t k = key(a[i]);
    for (int d = 0; d < bytes; ++d)
      ++hist[d * 256 + ((k >> (8 * d)) & 0xff)];
  }
  Rec *src = a, *dst = tmp;
  for (int d = 0; d < bytes; ++d) {
    int64_t *h = &hist[d * 256];
    if (*std::max_element(h, h + 256) == n)
      continue;
    int64_t sum = 0;
    for (int b = 0; b < 256; ++b) {
      int64_t c = h[b];
      h[b] = sum;
      sum += c;
    }
    int shift = 8 * d;
    for (int64_t i = 0; i < n; ++i) {
      Rec r = src[i];
      dst[h[(key(r) >> shift) & 0xff]++] = r;
    }
    std::swap(src, dst);
  }
  return src;
}

/// Stable sort of a[0..n) by key: comparisons for short lines, radix otherwise. Returns where
/// the sorted records are (a or tmp).
template <int Bytes, class Rec, class KeyFn>
Rec *stable_sort_by(Rec *a, Rec *tmp, int64_t n, KeyFn key) {
  if (n < kRadixMin) {
    std::stable_sort(a, a + n, [&](const Rec &x, const Rec &y) { return key(x) < key(y); });
    return a;
  }
  return radix_sort<Bytes>(a, tmp, n, key);
}

/// The scratch of one thread: byte buffers that grow to the largest line it meets.
struct Scratch {
  std::vector<uint64_t> a, b; // records (8-byte aligned)
  std::vector<int64_t> perm;
  template <class Rec> Rec *first(int64_t n) { return grow<Rec>(a, n); }
  template <class Rec> Rec *second(int64_t n) { return grow<Rec>(b, n); }
  template <class Rec> static Rec *grow(std::vector<uint64_t> &v, int64_t n) {
    size_t words = (static_cast<size_t>(n) * sizeof(Rec) + 7) / 8;
    if (v.size() < words)
      v.resize(words);
    return reinterpret_cast<Rec *>(v.data());
  }
};

/// One operand alone: its line gathered as keys, sorted (equal keys are interchangeable, so any
/// sort does), turned back into elements; zeros and NaNs, whose keys forget the sign of zero and
/// the NaN's bits, are rewritten from what the line held, in their input order (stable).
template <class T>
void sort_values(const T *x, T *y, int64_t n, int64_t inner, Scratch &s, std::vector<T> &specials) {
  using K = KeyOf<T>;
  using U = typename K::U;
  U *keys = s.first<U>(n);
  int64_t negatives = 0, zeros = 0, nans = 0;
  specials.clear();
  for (int64_t j = 0; j < n; ++j) {
    T v = x[j * inner];
    U k = K::key(v);
    keys[j] = k;
    if constexpr (K::kFloat) {
      U b = K::bits(v);
      if (K::is_nan(b) || (b & U(~K::kSign)) == 0) {
        specials.push_back(v);
        (K::is_nan(b) ? nans : zeros) += 1;
      } else if (b & K::kSign) {
        ++negatives;
      }
    }
  }
  U *sorted = keys;
  if (n < kRadixMin)
    std::sort(keys, keys + n);
  else
    sorted = radix_sort<sizeof(U)>(keys, s.second<U>(n), n, [](U k) { return uint64_t(k); });
  for (int64_t j = 0; j < n; ++j)
    y[j * inner] = K::value(sorted[j]);
  if constexpr (K::kFloat) {
    // The zeros sit after the negatives and the NaNs at the end, each run in input order.
    int64_t z = negatives, q = n - nans;
    for (const T &v : specials)
      y[(K::is_nan(K::bits(v)) ? q++ : z++) * inner] = v;
  }
}

/// The keys of operand `col` at positions perm[0..n) of a line (stride inner), as records
/// (key, j) that stable_sort_by orders; then perm is permuted by the sorted records.
template <class T>
void sort_perm_by(const T *col, int64_t *perm, int64_t n, int64_t inner, Scratch &s) {
  using U = typename KeyOf<T>::U;
  if constexpr (sizeof(U) <= 4) {
    if (n <= int64_t{UINT32_MAX}) { // one 64-bit record: key above the position
      uint64_t *r = s.first<uint64_t>(n);
      for (int64_t j = 0; j < n; ++j)
        r[j] = (uint64_t(KeyOf<T>::key(col[perm[j] * inner])) << 32) | uint64_t(j);
      uint64_t *out = stable_sort_by<sizeof(U)>(r, s.second<uint64_t>(n), n,
                                                [](uint64_t v) { return v >> 32; });
      // The positions index the old perm: apply them through a copy in the free buffer.
      int64_t *old = reinterpret_cast<int64_t *>(out == r ? s.second<uint64_t>(n) : r);
      std::copy(perm, perm + n, old);
      for (int64_t j = 0; j < n; ++j)
        perm[j] = old[out[j] & 0xffffffffu];
      return;
    }
  }
  struct Rec {
    uint64_t key;
    int64_t at;
  };
  Rec *r = s.first<Rec>(n);
  for (int64_t j = 0; j < n; ++j)
    r[j] = Rec{uint64_t(KeyOf<T>::key(col[perm[j] * inner])), perm[j]};
  Rec *out = stable_sort_by<sizeof(U)>(r, s.second<Rec>(n), n, [](const Rec &v) { return v.key; });
  for (int64_t j = 0; j < n; ++j)
    perm[j] = out[j].at;
}

using PermSortFn = void (*)(const void *col, int64_t *perm, int64_t n, int64_t inner, Scratch &s);
template <class T>
void sort_perm_at(const void *col, int64_t *perm, int64_t n, int64_t inner, Scratch &s) {
  sort_perm_by(static_cast<const T *>(col), perm, n, inner, s);
}

/// Copies element perm[j] of each line of `in` to element j of `out` (element size sz).
template <class E>
void apply_perm(const void *in, void *out, const int64_t *perm, int64_t n, int64_t inner) {
  const E *x = static_cast<const E *>(in);
  E *y = static_cast<E *>(out);
  for (int64_t j = 0; j < n; ++j)
    y[j * inner] = x[perm[j] * inner];
}
void apply_perm_sized(size_t sz, const void *in, void *out, const int64_t *perm, int64_t n,
                      int64_t inner) {
  switch (sz) {
  case 1:
    return apply_perm<uint8_t>(in, out, perm, n, inner);
  case 2:
    return apply_perm<uint16_t>(in, out, perm, n, inner);
  case 4:
    return apply_perm<uint32_t>(in, out, perm, n, inner);
  default:
    return apply_perm<uint64_t>(in, out, perm, n, inner);
  }
}

} // namespace

void sort_lines(std::span<const SortOperand> operands, int64_t num_keys, int64_t outer, int64_t n,
                int64_t inner) {
  int64_t lines = outer * inner;
  if (lines == 0 || n == 0 || operands.empty())
    return;
  auto line_base = [&](int64_t line) { return (line / inner) * n * inner + line % inner; };
  int64_t grain = std::max<int64_t>(1, kElementwiseGrain / n);
  if (operands.size() == 1) {
    const SortOperand &op = operands[0];
    STRATA_DISPATCH(op.dtype, T, {
      const T *x = static_cast<const T *>(op.in);
      T *y = static_cast<T *>(op.out);
      parallel_for(lines, grain, [&](int64_t b, int64_t e) {
        Scratch s;
        std::vector<T> specials;
        for (int64_t line = b; line < e; ++line) {
          int64_t base = line_base(line);
          sort_values<T>(x + base, y + base, n, inner, s, specials);
        }
      });
    });
    return;
  }
  // Several operands: a permutation sorted by each key in turn from the last (every pass is
  // stable, so earlier keys decide and later ones break their ties), applied to every operand.
  std::vector<PermSortFn> sorts;
  std::vector<size_t> sizes;
  for (int64_t k = 0; k < num_keys; ++k)
    STRATA_DISPATCH(operands[k].dtype, T, sorts.push_back(&sort_perm_at<T>));
  for (const SortOperand &op : operands)
    sizes.push_back(itemsize(op.dtype));
  parallel_for(lines, grain, [&](int64_t b, int64_t e) {
    Scratch s;
    s.perm.resize(static_cast<size_t>(n));
    int64_t *perm = s.perm.data();
    for (int64_t line = b; line < e; ++line) {
      int64_t base = line_base(line);
      std::iota(perm, perm + n, int64_t{0});
      for (int64_t k = num_keys; k-- > 0;)
        sorts[k](static_cast<const uint8_t *>(operands[k].in) + base * sizes[k], perm, n, inner, s);
      for (size_t o = 0; o < operands.size(); ++o)
        apply_perm_sized(sizes[o], static_cast<const uint8_t *>(operands[o].in) + base * sizes[o],
                         static_cast<uint8_t *>(operands[o].out) + base * sizes[o], perm, n, inner);
    }
  });
}

} // namespace strata
