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

/// Stable LSD radix sort of a[0..n) by key(a[i]) (an unsigned integer of Bytes bytes) with
/// digits of kBits bits; passes whose digit is the same for every record are skipped. The last
/// pass hands each record to emit(position, record) instead of storing it, so the caller writes
/// its result in one pass fewer. tmp holds n records (n < 2^32); a and tmp are clobbered.
template <int Bytes, int kBits, class Rec, class KeyFn, class EmitFn>
void radix_passes(Rec *a, Rec *tmp, int64_t n, KeyFn key, EmitFn emit) {
  constexpr int kBuckets = 1 << kBits, kPasses = (8 * Bytes + kBits - 1) / kBits;
  constexpr uint64_t kMask = kBuckets - 1;
  std::vector<uint32_t> hist(static_cast<size_t>(kPasses) * kBuckets, 0);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t k = key(a[i]);
    for (int d = 0; d < kPasses; ++d)
      ++hist[d * kBuckets + ((k >> (kBits * d)) & kMask)];
  }
  int passes[kPasses], np = 0;
  for (int d = 0; d < kPasses; ++d) {
    const uint32_t *row = hist.data() + d * kBuckets; // pointers: row + kBuckets may be the end
    if (*std::max_element(row, row + kBuckets) != n)
      passes[np++] = d;
  }
  Rec *src = a, *dst = tmp;
  for (int p = 0; p < np; ++p) {
    uint32_t *h = &hist[passes[p] * kBuckets];
    uint32_t sum = 0;
    for (int b = 0; b < kBuckets; ++b) {
      uint32_t c = h[b];
      h[b] = sum;
      sum += c;
    }
    int shift = kBits * passes[p];
    if (p + 1 == np) {
      for (int64_t i = 0; i < n; ++i)
        emit(int64_t{h[(key(src[i]) >> shift) & kMask]++}, src[i]);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      Rec r = src[i];
      dst[h[(key(r) >> shift) & kMask]++] = r;
    }
    std::swap(src, dst);
  }
  for (int64_t i = 0; i < n; ++i) // every key the same
    emit(i, src[i]);
}

/// Stable sort of a[0..n) by key, each record handed to emit(position, record). Records compare
/// as a whole in the stable order (by key, then by the position that the records of several
/// operands carry; equal lone keys are interchangeable), so short lines (and lines of 2^32
/// elements or more, beyond the radix counters) take a comparison sort of whole records
/// (std::stable_sort measured faster than std::sort on lines of 100). Longer ones take the radix
/// sort, with 11-bit digits on long lines of keys of 4 bytes and more (3 passes for 32 bits
/// instead of 4) and 8-bit ones otherwise (2048 counters per pass cost more than a pass saves on
/// short lines).
template <int Bytes, class Rec, class KeyFn, class EmitFn>
void stable_sort_by(Rec *a, Rec *tmp, int64_t n, KeyFn key, EmitFn emit) {
  if (n < kRadixMin || n > int64_t{UINT32_MAX}) {
    std::stable_sort(a, a + n);
    for (int64_t i = 0; i < n; ++i)
      emit(i, a[i]);
  } else if (Bytes >= 4 && n >= (1 << 15)) {
    radix_passes<Bytes, 11>(a, tmp, n, key, emit);
  } else {
    radix_passes<Bytes, 8>(a, tmp, n, key, emit);
  }
}

/// The scratch of one thread: byte buffers that grow to the largest line it meets.
struct Scratch {
  /// An uninitialized buffer of 8-byte words (every use writes before it reads: zero-filling
  /// would cost as much as a radix pass on short lines).
  struct Words {
    std::unique_ptr<uint64_t[]> data;
    size_t size = 0;
    template <class Rec> Rec *get(int64_t n) {
      size_t words = (static_cast<size_t>(n) * sizeof(Rec) + 7) / 8;
      if (size < words) {
        data.reset(new uint64_t[words]);
        size = words;
      }
      return reinterpret_cast<Rec *>(data.get());
    }
  };
  Words a, b, old_perm;
  std::vector<int64_t> perm;
  template <class Rec> Rec *first(int64_t n) { return a.get<Rec>(n); }
  template <class Rec> Rec *second(int64_t n) { return b.get<Rec>(n); }
};

/// One operand alone: its line gathered as keys, sorted, turned back into elements; zeros and NaNs,
/// whose keys forget the sign of zero and the NaN's bits, are rewritten from what the line held, in
/// their input order (stable).
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
  // Equal keys are interchangeable here, so the stable sort's order among them is irrelevant.
  stable_sort_by<sizeof(U)>(
      keys, s.second<U>(n), n, [](U k) { return uint64_t(k); },
      [&](int64_t pos, U k) { y[pos * inner] = K::value(k); });
  if constexpr (K::kFloat) {
    // The zeros sit after the negatives and the NaNs at the end, each run in input order.
    int64_t z = negatives, q = n - nans;
    for (const T &v : specials)
      y[(K::is_nan(K::bits(v)) ? q++ : z++) * inner] = v;
  }
}

/// The keys of operand `col` at positions perm[0..n) of a line (stride inner), as records
/// (key, j) that stable_sort_by orders; then perm is permuted by the sorted records (their
/// positions index a copy of the old perm).
template <class T>
void sort_perm_by(const T *col, int64_t *perm, int64_t n, int64_t inner, Scratch &s) {
  using U = typename KeyOf<T>::U;
  int64_t *old = s.old_perm.get<int64_t>(n);
  std::copy(perm, perm + n, old);
  if constexpr (sizeof(U) <= 4) {
    if (n <= int64_t{UINT32_MAX}) { // one 64-bit record: key above the position
      uint64_t *r = s.first<uint64_t>(n);
      for (int64_t j = 0; j < n; ++j)
        r[j] = (uint64_t(KeyOf<T>::key(col[old[j] * inner])) << 32) | uint64_t(j);
      stable_sort_by<sizeof(U)>(
          r, s.second<uint64_t>(n), n, [](uint64_t v) { return v >> 32; },
          [&](int64_t pos, uint64_t v) { perm[pos] = old[v & 0xffffffffu]; });
      return;
    }
  }
  struct Rec {
    uint64_t key;
    int64_t at;
    bool operator<(const Rec &o) const { return key < o.key || (key == o.key && at < o.at); }
  };
  Rec *r = s.first<Rec>(n);
  for (int64_t j = 0; j < n; ++j)
    r[j] = Rec{uint64_t(KeyOf<T>::key(col[old[j] * inner])), j};
  stable_sort_by<sizeof(U)>(
      r, s.second<Rec>(n), n, [](const Rec &v) { return v.key; },
      [&](int64_t pos, const Rec &v) { perm[pos] = old[v.at]; });
}

using PermSortFn = void (*)(const void *col, int64_t *perm, int64_t n, int64_t inner, Scratch &s);
template <class T>
void sort_perm_at(const void *col, int64_t *perm, int64_t n, int64_t inner, Scratch &s) {
  sort_perm_by(static_cast<const T *>(col), perm, n, inner, s);
}

/// One stable pass of the multi-key sort: operand `key` read from byte `offset` of each element,
/// as a T at a stride of `stride` T's. A complex key is two passes on its parts (numpy's and
/// XLA's lexicographic order: real part, then imaginary part; NaN parts after numbers).
struct KeyPass {
  PermSortFn sort;
  size_t offset;
  int64_t stride;
  int64_t key;
};
template <class T> void add_key_passes(std::vector<KeyPass> &passes, int64_t key) {
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    // Pushed in the order they run: the imaginary part first, so the real part decides.
    passes.push_back({&sort_perm_at<R>, sizeof(R), 2, key});
    passes.push_back({&sort_perm_at<R>, 0, 2, key});
  } else {
    passes.push_back({&sort_perm_at<T>, 0, 1, key});
  }
}

/// 16 bytes moved as a whole at the 8-byte alignment of complex128 (jit-compiled buffers promise
/// no more).
struct Bytes16 {
  uint64_t w[2];
};

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
  case 16:
    return apply_perm<Bytes16>(in, out, perm, n, inner);
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
  if (operands.size() == 1 && !is_complex(operands[0].dtype)) {
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
  // Several operands (or complex keys): a permutation sorted by each key in turn from the last
  // (every pass is stable, so earlier keys decide and later ones break their ties), applied to
  // every operand.
  std::vector<KeyPass> passes;
  std::vector<size_t> sizes;
  for (int64_t k = num_keys; k-- > 0;)
    STRATA_DISPATCH_ALL(operands[k].dtype, T, add_key_passes<T>(passes, k));
  for (const SortOperand &op : operands)
    sizes.push_back(itemsize(op.dtype));
  parallel_for(lines, grain, [&](int64_t b, int64_t e) {
    Scratch s;
    s.perm.resize(static_cast<size_t>(n));
    int64_t *perm = s.perm.data();
    for (int64_t line = b; line < e; ++line) {
      int64_t base = line_base(line);
      std::iota(perm, perm + n, int64_t{0});
      for (const KeyPass &kp : passes)
        kp.sort(static_cast<const uint8_t *>(operands[kp.key].in) + base * sizes[kp.key] +
                    kp.offset,
                perm, n, inner * kp.stride, s);
      for (size_t o = 0; o < operands.size(); ++o)
        apply_perm_sized(sizes[o], static_cast<const uint8_t *>(operands[o].in) + base * sizes[o],
                         static_cast<uint8_t *>(operands[o].out) + base * sizes[o], perm, n, inner);
    }
  });
}

} // namespace strata
