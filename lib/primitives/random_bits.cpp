// Bit-level primitives behind strata::random: the Threefry-2x32 block cipher, logical shifts and
// bitcast_convert_type.
#include <cstring>

#include "primitives/elementwise_impl.h"
#include "primitives/rules_impl.h"
#include "strata/lax.h"

namespace strata {
namespace {

// ---- threefry2x32 -------------------------------------------------------------------------------
//
// Threefry-2x32 with 20 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011), in exactly the form of JAX's threefry2x32 primitive: key schedule
// (k0, k1, k0 ^ k1 ^ 0x1BD11BDA), rotations 13,15,26,6 / 17,29,16,24, and a key injection with
// a round counter after every four rounds.

inline uint32_t rotl(uint32_t v, int r) { return (v << r) | (v >> (32 - r)); }

inline void threefry_block(uint32_t k0, uint32_t k1, uint32_t &x0, uint32_t &x1) {
  static constexpr int kRot[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ 0x1BD11BDAu};
  x0 += ks[0];
  x1 += ks[1];
  for (uint32_t i = 0; i < 5; ++i) {
    for (int r : kRot[i % 2]) {
      x0 += x1;
      x1 = rotl(x1, r) ^ x0;
    }
    x0 += ks[(i + 1) % 3];
    x1 += ks[(i + 2) % 3] + i + 1;
  }
}

const Primitive &threefry2x32_p = register_primitive({
    .name = "threefry2x32",
    .traits = kRandom | kNonDifferentiable,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &) {
          expect_arity("threefry2x32", in, 4);
          for (const AbstractValue &a : in)
            if (a.dtype != DType::UInt32)
              fail_kind(ErrorKind::Type, "threefry2x32", "expects u32 operands, got ", in[0].str(),
                        ", ", in[1].str(), ", ", in[2].str(), ", ", in[3].str());
          for (const AbstractValue &a : in)
            if (a.shape != in[0].shape)
              fail("threefry2x32", "operand shapes differ: ", in[0].str(), ", ", in[1].str(), ", ",
                   in[2].str(), ", ", in[3].str());
          AbstractValue out{in[0].shape, DType::UInt32, false};
          return std::vector<AbstractValue>{out, out};
        },
    .impl =
        [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
          Array y0 = Array::empty(out[0].shape, DType::UInt32);
          Array y1 = Array::empty(out[1].shape, DType::UInt32);
          const uint32_t *k0 = in[0].data<uint32_t>(), *k1 = in[1].data<uint32_t>();
          const uint32_t *x0 = in[2].data<uint32_t>(), *x1 = in[3].data<uint32_t>();
          uint32_t *o0 = static_cast<uint32_t *>(y0.mutable_data());
          uint32_t *o1 = static_cast<uint32_t *>(y1.mutable_data());
          // Twenty rounds per element: a quarter of the elementwise grain keeps chunks similar in
          // time.
          parallel_for(y0.size(), kElementwiseGrain / 4, [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) {
              uint32_t a = x0[i], c = x1[i];
              threefry_block(k0[i], k1[i], a, c);
              o0[i] = a;
              o1[i] = c;
            }
          });
          return std::vector<Array>{y0, y1};
        },
    // Integer outputs: no jvp/vjp. Elementwise over its four operands, so it batches as they do.
    .batch = rules::elementwise_batch_rule(),
});

// ---- shift_left, shift_right_logical, shift_right_arithmetic ------------------------------------

std::vector<AbstractValue> shift_shape_rule(const char *op, std::span<const AbstractValue> in) {
  expect_arity(op, in, 2);
  const AbstractValue &x = in[0], &y = in[1];
  if (x.dtype != y.dtype)
    fail_kind(ErrorKind::Type, op, "operand dtypes differ: ", x.str(), " and ", y.str());
  if (!is_integer(x.dtype))
    fail_kind(ErrorKind::Type, op, "expects integer operands, got ", x.str(), " and ", y.str());
  if (x.shape != y.shape)
    fail_kind(ErrorKind::Type, op, "operand shapes differ: ", x.str(), " and ", y.str());
  return {{x.shape, x.dtype, x.weak_type && y.weak_type}};
}

enum class Shift { Left, RightLogical, RightArithmetic };
template <Shift Kind> const Primitive &def_shift(const char *name) {
  return register_primitive({
      .name = name,
      .traits = kElementwise | kFusible | kNonDifferentiable,
      .shape_rule = [name](std::span<const AbstractValue> in,
                           const Params &) { return shift_shape_rule(name, in); },
      .impl =
          [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
            Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
            // A generic lambda, so that `if constexpr` discards the non-integer instantiations.
            auto shift = [&](auto tag) {
              using T = decltype(tag);
              if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
                using U = std::make_unsigned_t<T>;
                map_binary(in[0].data<T>(), in[1].data<T>(), static_cast<T *>(z.mutable_data()),
                           z.size(), [](T a, T b) {
                             // The amount counts as unsigned, so negative amounts are "too wide"
                             // too.
                             U ua = static_cast<U>(a), ub = static_cast<U>(b);
                             if constexpr (Kind == Shift::RightArithmetic) {
                               // On the bits as signed: the sign bit fills in (all of it when too
                               // wide).
                               using S = std::make_signed_t<T>;
                               S sa = static_cast<S>(ua);
                               if (ub >= 8 * sizeof(T))
                                 return static_cast<T>(sa < 0 ? S(-1) : S(0));
                               return static_cast<T>(static_cast<S>(sa >> ub));
                             } else {
                               if (ub >= 8 * sizeof(T))
                                 return T(0);
                               return static_cast<T>(
                                   static_cast<U>(Kind == Shift::Left ? ua << ub : ua >> ub));
                             }
                           });
              }
            };
            STRATA_DISPATCH(out[0].dtype, T, shift(T{}));
            return std::vector<Array>{z};
          },
      .batch = rules::elementwise_batch_rule(),
  });
}

const Primitive &shift_left_p = def_shift<Shift::Left>("shift_left");
const Primitive &shift_right_logical_p = def_shift<Shift::RightLogical>("shift_right_logical");
const Primitive &shift_right_arithmetic_p =
    def_shift<Shift::RightArithmetic>("shift_right_arithmetic");

// ---- bitcast_convert_type -----------------------------------------------------------------------

const Primitive &bitcast_p = register_primitive({
    .name = "bitcast_convert_type",
    // The result's bits are not a differentiable function of the input's value, whichever way
    // the cast goes (int -> float included): zero tangents and no input cotangent.
    .traits = kElementwise | kFusible | kNonDifferentiable,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &params) {
          expect_arity("bitcast_convert_type", in, 1);
          DType to = params.get_dtype("new_dtype");
          if (is_bool(in[0].dtype) || is_bool(to))
            fail_kind(ErrorKind::Type, "bitcast_convert_type", "cannot bitcast ", in[0].str(),
                      " to ", short_name(to), ": bool has no defined bit layout");
          if (itemsize(in[0].dtype) != itemsize(to))
            fail_kind(ErrorKind::Type, "bitcast_convert_type", "cannot bitcast ", in[0].str(),
                      " to ", short_name(to), ": itemsizes differ (", itemsize(in[0].dtype),
                      " and ", itemsize(to), " bytes)");
          return std::vector<AbstractValue>{{in[0].shape, to, false}};
        },
    .impl =
        [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
          Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          if (z.nbytes() > 0)
            std::memcpy(z.mutable_data(), in[0].data(), static_cast<size_t>(z.nbytes()));
          return std::vector<Array>{z};
        },
    .batch = rules::elementwise_batch_rule(),
});

} // namespace

// ---- lax wrappers -------------------------------------------------------------------------------
namespace lax {
std::pair<Array, Array> threefry2x32(const Array &key0, const Array &key1, const Array &x0,
                                     const Array &x1) {
  std::vector<Array> out = bind(threefry2x32_p, {key0, key1, x0, x1});
  return {std::move(out[0]), std::move(out[1])};
}
Array shift_left(const Array &x, const Array &y) { return bind1(shift_left_p, {x, y}); }
Array shift_right_logical(const Array &x, const Array &y) {
  return bind1(shift_right_logical_p, {x, y});
}
Array shift_right_arithmetic(const Array &x, const Array &y) {
  return bind1(shift_right_arithmetic_p, {x, y});
}
Array bitcast_convert_type(const Array &x, DType dtype) {
  return bind1(bitcast_p, {x}, {{"new_dtype", dtype}});
}
} // namespace lax

} // namespace strata
