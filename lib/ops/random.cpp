// strata::random: JAX's raw-key Threefry PRNG (jax_threefry_partitionable=False, the JAX 0.4.x
// default) built from lax primitives, so that keys and bits match jax.random bit for bit.
//
// Deviations from JAX, all where Strata lacks a dtype JAX would use:
// - randint with dtype int64 maps one 64-bit draw onto the span by a 128-bit multiply-high
//   (bias at most span / 2^64 per value) instead of JAX's two-draw u64 remainder method, since
//   there is no u64 dtype; 8- and 32-bit dtypes follow JAX exactly.
// - uniform/normal for f16 and bf16 assemble JAX's 16- and 8-bit draws in u32 and pass through an
//   exact f32 bitcast (same values as JAX's u16 bitcast); only the scalars minval/maxval round to
//   the dtype through f32 first.
// - uniform additionally clamps below maxval (JAX only clamps at minval), so that the documented
//   [minval, maxval) holds even where scaling rounds up; values below maxval are unchanged.
// - normal goes through lax::erf_inv, whose f32 result may differ from XLA's in the last bit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "strata/lax.h"
#include "strata/random.h"
#include "strata/sizes.h"

namespace strata::random {
namespace {

/// A scalar broadcast to `shape`.
Array fill(const Array &scalar, const Shape &shape) {
  return lax::broadcast_in_dim(scalar, shape, {});
}
/// A scalar `value` of `dtype` broadcast to `shape`.
Array fill(double value, DType dtype, const Shape &shape) {
  return fill(lax::convert_element_type(Array(value), dtype), shape);
}
Array fill_u32(uint32_t value, int64_t n) { return fill(Array(value), {n}); }
Array fill_i64(int64_t value, int64_t n) { return fill(Array(value), {n}); }

void check_key(std::string_view op, const Array &key) {
  if (key.dtype() != DType::UInt32 || key.shape() != Shape{2})
    fail_kind(ErrorKind::Type, op, "expects a key of type u32[2] (from random.key or ",
              "random.split), got ", key.type_str());
}

/// The element count of a draw of `dtype[shape]`, which must be allocatable (the counters
/// below are sized from it).
int64_t checked_size(std::string_view op, const Shape &shape, DType dtype) {
  return static_cast<int64_t>(checked_byte_size(dtype, shape, op) / itemsize(dtype));
}

void check_floating(std::string_view op, DType dtype) {
  if (!is_floating(dtype))
    fail_kind(ErrorKind::Type, op, "dtype must be floating-point, got ", short_name(dtype));
}

/// Word i of a key, as a u32 scalar.
Array key_word(const Array &key, int64_t i) {
  return lax::reshape(lax::slice(key, {i}, {i + 1}), {});
}
/// Row i of a u32[num, 2] array of keys.
Array key_row(const Array &keys, int64_t i) {
  return lax::reshape(lax::slice(keys, {i, 0}, {i + 1, 2}), {2});
}

/// JAX's threefry_2x32(keypair, count) on a 1-D count: padded with one 0 to even length, its
/// halves are the cipher's two input words and the two output words are concatenated back.
Array threefry_2x32(const Array &key, const Array &count) {
  const int64_t n = count.size();
  if (n == 0)
    return count;
  const bool odd = n % 2 != 0;
  Array c = odd ? lax::concatenate({count, fill_u32(0, 1)}, 0) : count;
  const int64_t h = (n + 1) / 2;
  auto [y0, y1] = lax::threefry2x32(fill(key_word(key, 0), {h}), fill(key_word(key, 1), {h}),
                                    lax::slice(c, {0}, {h}), lax::slice(c, {h}, {2 * h}));
  Array out = lax::concatenate({y0, y1}, 0);
  return odd ? lax::slice(out, {0}, {n}) : out;
}

/// 2 * n, saturated at INT64_MAX (a count bits32 refuses).
int64_t twice(int64_t n) {
  int64_t r;
  return __builtin_mul_overflow(n, 2, &r) ? INT64_MAX : r;
}

/// `n` random u32 words: the cipher over counters 0..n-1 (JAX's single-block case).
Array bits32(std::string_view op, const Array &key, int64_t n) {
  // JAX switches to split keys per block of 2^32 - 1 words; arrays that large are out of reach.
  if (n >= int64_t{0xFFFFFFFF})
    fail(op, "cannot draw ", n, " random words at once (at most 2^32 - 2)");
  return threefry_2x32(key, lax::iota(DType::UInt32, {n}));
}

/// `size` random values of `width` bits (8, 16 or 32), held in u32. Each 32-bit word splits
/// into 32 / width fields, lowest bits first: the stream JAX reads as u8/u16 for narrow draws.
Array bit_fields(std::string_view op, const Array &key, int width, int64_t size) {
  const int64_t per = 32 / width;
  const int64_t words = size / per + (size % per != 0);
  Array w = bits32(op, key, words);
  if (per == 1)
    return w;
  Array mask = fill_u32((uint32_t{1} << width) - 1, words);
  std::vector<Array> fields;
  for (int64_t j = 0; j < per; ++j) {
    Array shifted = lax::shift_right_logical(w, fill_u32(static_cast<uint32_t>(j * width), words));
    fields.push_back(lax::reshape(lax::bitwise_and(shifted, mask), {words, 1}));
  }
  Array all = lax::reshape(lax::concatenate(fields, 1), {words * per});
  return lax::slice(all, {0}, {size});
}

/// `size` random 64-bit words, as the bits of i64 (Strata has no u64): the high halves are the
/// first `size` words of the 32-bit stream and the low halves the rest, as in JAX.
Array bits64(std::string_view op, const Array &key, int64_t size) {
  Array w = bits32(op, key, twice(size));
  Array hi = lax::convert_element_type(lax::slice(w, {0}, {size}), DType::Int64);
  Array lo = lax::convert_element_type(lax::slice(w, {size}, {2 * size}), DType::Int64);
  return lax::bitwise_or(lax::shift_left(hi, fill_i64(32, size)), lo);
}

/// The largest value of a 16-bit float format (f16 or bf16, both sign-magnitude) below `bits`.
uint16_t half_below(uint16_t bits) {
  if ((bits & 0x7FFF) == 0)
    return 0x8001; // below +-0: the smallest negative subnormal
  return (bits & 0x8000) ? bits + 1 : bits - 1;
}

/// The largest value of `dtype` below the scalar `hi` (already of that dtype).
Array value_below(const Array &hi) {
  switch (hi.dtype()) {
  case DType::Float32:
    return Array(std::nextafter(hi.item<float>(), -std::numeric_limits<float>::infinity()));
  case DType::Float64:
    return Array(std::nextafter(hi.item<double>(), -std::numeric_limits<double>::infinity()));
  default: {
    uint16_t bits;
    std::memcpy(&bits, hi.data(), sizeof bits);
    bits = half_below(bits);
    return Array::from_data(&bits, {}, hi.dtype());
  }
  }
}

/// Uniform floats in [0, 1) of `dtype`, shape [n]: random mantissa bits under the exponent of
/// 1.0, minus 1 (JAX's _uniform). JAX draws as many bits as the dtype is wide, except 8 for
/// bf16 (fewer than 8 mantissa bits).
Array unit_floats(std::string_view op, const Array &key, DType dtype, int64_t n) {
  auto u32c = [&](uint32_t v) { return fill_u32(v, n); };
  const uint32_t one_f32 = 0x3F800000u;
  switch (dtype) {
  case DType::Float32: {
    Array w = bit_fields(op, key, 32, n);
    Array f = lax::bitwise_or(lax::shift_right_logical(w, u32c(32 - 23)), u32c(one_f32));
    return lax::sub(lax::bitcast_convert_type(f, DType::Float32), fill(1.0, DType::Float32, {n}));
  }
  case DType::Float64: {
    Array w = bits64(op, key, n);
    Array f = lax::bitwise_or(lax::shift_right_logical(w, fill_i64(64 - 52, n)),
                              fill_i64(int64_t{0x3FF0000000000000}, n));
    return lax::sub(lax::bitcast_convert_type(f, DType::Float64), fill(1.0, DType::Float64, {n}));
  }
  default: {
    // f16: 16 random bits keep the top 10 as the mantissa; bf16: 8 bits keep the top 7. Placed
    // at the top of an f32 mantissa they give the same value 1 + m / 2^k, which the conversion
    // to the 16-bit type keeps exactly.
    const bool f16 = dtype == DType::Float16;
    const int width = f16 ? 16 : 8, mant = f16 ? 10 : 7;
    Array m = lax::shift_right_logical(bit_fields(op, key, width, n),
                                       u32c(static_cast<uint32_t>(width - mant)));
    Array f =
        lax::bitwise_or(lax::shift_left(m, u32c(static_cast<uint32_t>(23 - mant))), u32c(one_f32));
    Array one_plus = lax::convert_element_type(lax::bitcast_convert_type(f, DType::Float32), dtype);
    return lax::sub(one_plus, fill(1.0, dtype, {n}));
  }
  }
}

Array uniform_in(std::string_view op, const Array &key, const Shape &shape, DType dtype,
                 double minval, double maxval) {
  AllocationScope scope(op);
  check_key(op, key);
  check_floating(op, dtype);
  const int64_t n = checked_size(op, shape, dtype);
  // The bounds are made concrete here (not through convert_element_type): under jit every bind
  // is staged, and the comparison below needs their values.
  Array lo = Array::weak_scalar(minval, dtype).with_weak_type(false);
  Array hi = Array::weak_scalar(maxval, dtype).with_weak_type(false);
  Array f = unit_floats(op, key, dtype, n);
  Array r = lax::add(lax::mul(f, fill(lax::sub(hi, lo), {n})), fill(lo, {n}));
  r = lax::max(fill(lo, {n}), r);
  if (lo.item<double>() < hi.item<double>())
    r = lax::min(r, fill(value_below(hi), {n}));
  return lax::reshape(r, shape);
}

} // namespace

Array key(uint64_t seed) {
  // PRNGKey(seed) = [seed >> 32, seed & 0xFFFFFFFF].
  return Array::from_vector<uint32_t>(
      {static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(seed & 0xFFFFFFFFu)});
}

Array split(const Array &key, int64_t num) {
  check_key("random.split", key);
  if (num < 0)
    fail("random.split", "num must be non-negative, got ", num);
  return lax::reshape(bits32("random.split", key, twice(num)), {num, 2});
}

Array fold_in(const Array &key, uint32_t data) {
  check_key("random.fold_in", key);
  // JAX hashes threefry_seed(data) = [data >> 32, data & 0xFFFFFFFF] = [0, data] under the key.
  return threefry_2x32(key, Array::from_vector<uint32_t>({0u, data}));
}

Array bits(const Array &key, const Shape &shape) {
  AllocationScope scope("random.bits");
  check_key("random.bits", key);
  int64_t n = checked_size("random.bits", shape, DType::UInt32);
  return lax::reshape(bit_fields("random.bits", key, 32, n), shape);
}

Array uniform(const Array &key, const Shape &shape, DType dtype, double minval, double maxval) {
  return uniform_in("random.uniform", key, shape, dtype, minval, maxval);
}

Array normal(const Array &key, const Shape &shape, DType dtype) {
  const char *op = "random.normal";
  check_floating(op, dtype);
  // sqrt(2) * erf_inv(u) with u uniform in [nextafter(-1, 0), 1) of the dtype.
  double lo;
  switch (dtype) {
  case DType::Float16:
    lo = -1.0 + std::ldexp(1.0, -11);
    break;
  case DType::BFloat16:
    lo = -1.0 + std::ldexp(1.0, -8);
    break;
  case DType::Float32:
    lo = std::nextafter(-1.0f, 0.0f);
    break;
  default:
    lo = std::nextafter(-1.0, 0.0);
    break;
  }
  Array u = uniform_in(op, key, shape, dtype, lo, 1.0);
  return lax::mul(fill(std::sqrt(2.0), dtype, shape), lax::erf_inv(u));
}

Array bernoulli(const Array &key, double p, const Shape &shape) {
  // As JAX with a Python-float p: uniform f32 draws compared with p rounded to f32.
  Array u = uniform_in("random.bernoulli", key, shape, DType::Float32, 0.0, 1.0);
  return lax::lt(u, fill(p, DType::Float32, shape));
}

Array randint(const Array &key, const Shape &shape, int64_t minval, int64_t maxval, DType dtype) {
  const char *op = "random.randint";
  check_key(op, key);
  if (!is_integer(dtype))
    fail_kind(ErrorKind::Type, op, "dtype must be an integer type, got ", short_name(dtype));
  AllocationScope scope(op);
  const int64_t n = checked_size(op, shape, dtype);
  int64_t dmin, dmax;
  switch (dtype) {
  case DType::Int8:
    dmin = INT8_MIN, dmax = INT8_MAX;
    break;
  case DType::UInt8:
    dmin = 0, dmax = UINT8_MAX;
    break;
  case DType::Int16:
    dmin = INT16_MIN, dmax = INT16_MAX;
    break;
  case DType::UInt16:
    dmin = 0, dmax = UINT16_MAX;
    break;
  case DType::Int32:
    dmin = INT32_MIN, dmax = INT32_MAX;
    break;
  case DType::UInt32:
    dmin = 0, dmax = UINT32_MAX;
    break;
  case DType::UInt64: // the bounds are int64, so the draws stay below 2^63
    dmin = 0, dmax = INT64_MAX;
    break;
  default:
    dmin = INT64_MIN, dmax = INT64_MAX;
    break;
  }
  // Bounds clip into the dtype; an empty range gives minval everywhere (JAX's behaviour).
  const bool max_out_of_range = maxval > dmax;
  const int64_t lo = std::clamp(minval, dmin, dmax), hi = std::clamp(maxval, dmin, dmax);
  Array keys = random::split(key, 2);
  Array k1 = key_row(keys, 0), k2 = key_row(keys, 1);
  Array lo_arr = fill(lax::convert_element_type(Array(lo), dtype), {n});

  if (dtype == DType::Int64 || dtype == DType::UInt64) {
    // offset = floor(b * span / 2^64) for a 64-bit draw b, from 32-bit halves; every step is
    // a multiply, add, mask or logical shift, which act on i64 bits as on u64.
    const uint64_t span = hi > lo ? static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) : 1;
    Array b = bits64(op, k1, n);
    auto c = [&](uint64_t v) { return fill_i64(static_cast<int64_t>(v), n); };
    const uint64_t m32 = 0xFFFFFFFFu;
    Array b_lo = lax::bitwise_and(b, c(m32)), b_hi = lax::shift_right_logical(b, c(32));
    Array s_lo = c(span & m32), s_hi = c(span >> 32);
    Array ll = lax::mul(b_lo, s_lo), lh = lax::mul(b_lo, s_hi);
    Array hl = lax::mul(b_hi, s_lo), hh = lax::mul(b_hi, s_hi);
    Array mid = lax::add(lax::shift_right_logical(ll, c(32)),
                         lax::add(lax::bitwise_and(lh, c(m32)), lax::bitwise_and(hl, c(m32))));
    Array off = lax::add(
        lax::add(hh, lax::shift_right_logical(lh, c(32))),
        lax::add(lax::shift_right_logical(hl, c(32)), lax::shift_right_logical(mid, c(32))));
    Array lo64 = fill(Array(lo), {n});
    return lax::reshape(lax::convert_element_type(lax::add(lo64, off), dtype), shape);
  }

  // JAX's method: two draws of the dtype's width combined modulo the span, in the unsigned type
  // of that width. Remainders by 0 return the dividend (XLA), which makes a span of 2^nbits
  // (stored as 0) come out right.
  const int nbits = static_cast<int>(itemsize(dtype)) * 8;
  const DType utype = nbits == 8 ? DType::UInt8 : nbits == 16 ? DType::UInt16 : DType::UInt32;
  const uint64_t mask = (uint64_t{1} << nbits) - 1;
  uint64_t span = (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) & mask;
  if (hi <= lo)
    span = 1;
  if (max_out_of_range && hi > lo)
    span = (span + 1) & mask; // maxval past the dtype: the span is one wider than hi - lo
  auto urem = [](uint64_t a, uint64_t b) { return b == 0 ? a : a % b; };
  uint64_t mult = urem((uint64_t{1} << (nbits / 2)) & mask, span); // 2^nbits % span, in steps
  mult = urem((mult * mult) & mask, span);

  auto draw = [&](const Array &k) {
    return lax::convert_element_type(bit_fields(op, k, nbits, n), utype);
  };
  Array higher = draw(k1), lower = draw(k2);
  Array span_arr = fill(static_cast<double>(span), utype, {n});
  Array mult_arr = fill(static_cast<double>(mult), utype, {n});
  Array off = lax::add(lax::mul(lax::rem(higher, span_arr), mult_arr), lax::rem(lower, span_arr));
  off = lax::rem(off, span_arr);
  return lax::reshape(lax::add(lo_arr, lax::convert_element_type(off, dtype)), shape);
}

Array permutation(const Array &key, int64_t n) {
  const char *op = "random.permutation";
  check_key(op, key);
  if (n < 0 || n > std::numeric_limits<int32_t>::max())
    fail(op, "n must be in [0, 2^31 - 1], got ", n);
  // JAX's _shuffle: sort by fresh random u32 keys, in enough rounds that a tie between any two
  // keys in every round has probability below 1 / n (ceil(3 ln n / ln(2^32 - 1)) rounds).
  const int rounds = static_cast<int>(
      std::ceil(3.0 * std::log(static_cast<double>(std::max<int64_t>(1, n))) /
                std::log(static_cast<double>(std::numeric_limits<uint32_t>::max()))));
  Array x = lax::iota(DType::Int32, {n});
  Array k = key;
  for (int r = 0; r < rounds; ++r) {
    Array keys = random::split(k, 2);
    k = key_row(keys, 0);
    Array sort_keys = bit_fields(op, key_row(keys, 1), 32, n);
    x = lax::sort({sort_keys, x}, 0, 1)[1];
  }
  return x;
}

Array permutation(const Array &key, const Array &x) {
  const char *op = "random.permutation";
  if (x.ndim() == 0) {
    // As JAX: an integer scalar n means permutation(key, n).
    if (!is_integer(x.dtype()) || !x.is_concrete())
      fail_kind(ErrorKind::Type, op, "x must be a concrete integer or at least 1-dimensional, got ",
                x.type_str());
    return permutation(key, x.item<int64_t>());
  }
  const int64_t n = x.shape(0);
  Array perm = permutation(key, n);
  if (n == 0)
    return x; // no rows to move (and no slice of one row to gather)
  // Rows of x in the order of perm (JAX shuffles 1-D x in place of the indices; same result).
  lax::GatherDimensionNumbers dims;
  for (int64_t d = 1; d < x.ndim(); ++d)
    dims.offset_dims.push_back(d);
  dims.collapsed_slice_dims = {0};
  dims.start_index_map = {0};
  Shape slice_sizes = x.shape();
  slice_sizes[0] = 1;
  return lax::gather(x, lax::reshape(perm, {n, 1}), dims, slice_sizes);
}

} // namespace strata::random
