// The primitives that build and take apart complex numbers: complex, real, imag, conj. All four
// are linear; their transposes follow JAX's convention (no conjugation of cotangents), so that
// grad of a real function of z is the conjugate of its Wirtinger derivative d/dz-bar, times 2.
#include "primitives/elementwise_impl.h"
#include "primitives/rules_impl.h"
#include "strata/lax.h"

namespace strata {
namespace {

/// The shape rule of real and imag: a complex operand, its parts' dtype out.
std::vector<AbstractValue> part_shape_rule(std::string_view op, std::span<const AbstractValue> in) {
  expect_arity(op, in, 1);
  if (!is_complex(in[0].dtype))
    fail_kind(ErrorKind::Type, op, "expects a complex operand, got ", in[0].str());
  return {{in[0].shape, real_dtype(in[0].dtype), in[0].weak_type}};
}

/// y[i] = part(x[i]) where x is complex: part(z) gives z's real part, imaginary part or
/// conjugate (Out the storage type of y); nothing for other T, which the shape rules exclude.
template <class T, bool ToReal, class F> void map_complex(const Array &x, Array &y, F part) {
  if constexpr (is_complex_v<T>) {
    using Out = std::conditional_t<ToReal, real_t<T>, T>;
    map_unary(x.data<T>(), static_cast<Out *>(y.mutable_data()), y.size(), part);
  }
}
/// y[i] = complex(x[i], 0) where x is f32 or f64 (conj of a real operand).
template <class T> void map_to_complex(const Array &x, Array &y) {
  if constexpr (std::is_floating_point_v<T>) {
    using C = std::complex<T>;
    map_unary(x.data<T>(), static_cast<C *>(y.mutable_data()), y.size(),
              [](T r) { return C(r, T(0)); });
  }
}
/// z[i] = x[i] + i y[i] where x and y are f32 or f64.
template <class T> void map_make_complex(const Array &x, const Array &y, Array &z) {
  if constexpr (std::is_floating_point_v<T>) {
    using C = std::complex<T>;
    map_binary(x.data<T>(), y.data<T>(), static_cast<C *>(z.mutable_data()), z.size(),
               [](T re, T im) { return C(re, im); });
  }
}

/// A complex array of x's shape from its real parts (and zero imaginary parts).
Array as_complex(const Array &re) { return lax::complex(re, rules::zeros_of(re)); }

const Primitive &real_p = register_primitive({
    .name = "real",
    .traits = kElementwise | kFusible | kLinear,
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &) { return part_shape_rule("real", in); },
    .impl =
        [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
          Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          STRATA_DISPATCH_ALL(in[0].dtype(), T,
                              map_complex<T, true>(in[0], y, [](auto z) { return z.real(); }));
          return std::vector<Array>{y};
        },
    .jvp = [](std::span<const Array>, std::span<const Array> t, std::span<const Array>,
              const Params &) -> std::vector<Array> {
      return {rules::is_zero(t[0]) ? Array() : lax::real(t[0])};
    },
    .vjp = [](std::span<const Array>, std::span<const Array>, std::span<const Array> ct,
              const std::vector<bool> &, const Params &) -> std::vector<Array> {
      return {rules::is_zero(ct[0]) ? Array() : as_complex(ct[0])};
    },
    .batch = rules::elementwise_batch_rule(),
});

const Primitive &imag_p = register_primitive({
    .name = "imag",
    .traits = kElementwise | kFusible | kLinear,
    .shape_rule = [](std::span<const AbstractValue> in,
                     const Params &) { return part_shape_rule("imag", in); },
    .impl =
        [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
          Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          STRATA_DISPATCH_ALL(in[0].dtype(), T,
                              map_complex<T, true>(in[0], y, [](auto z) { return z.imag(); }));
          return std::vector<Array>{y};
        },
    .jvp = [](std::span<const Array>, std::span<const Array> t, std::span<const Array>,
              const Params &) -> std::vector<Array> {
      return {rules::is_zero(t[0]) ? Array() : lax::imag(t[0])};
    },
    // The transpose of x -> im(x) is ct -> -i ct (JAX's complex(0, -ct)).
    .vjp = [](std::span<const Array>, std::span<const Array>, std::span<const Array> ct,
              const std::vector<bool> &, const Params &) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      return {lax::complex(rules::zeros_of(ct[0]), lax::neg(ct[0]))};
    },
    .batch = rules::elementwise_batch_rule(),
});

// conj of a real f32/f64 operand is its complex value (lax.conj's result is always complex).
const Primitive &conj_p = register_primitive({
    .name = "conj",
    .traits = kElementwise | kFusible | kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &) {
          expect_arity("conj", in, 1);
          DType t = in[0].dtype;
          if (!is_complex(t) && t != DType::Float32 && t != DType::Float64)
            fail_kind(ErrorKind::Type, "conj", "expects a complex, f32 or f64 operand, got ",
                      in[0].str());
          return std::vector<AbstractValue>{{in[0].shape, complex_dtype(t), in[0].weak_type}};
        },
    .impl =
        [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
          Array y = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          if (is_complex(in[0].dtype())) {
            STRATA_DISPATCH_ALL(in[0].dtype(), T, map_complex<T, false>(in[0], y, [](auto z) {
                                  return std::conj(z);
                                }));
          } else {
            STRATA_DISPATCH(in[0].dtype(), T, map_to_complex<T>(in[0], y));
          }
          return std::vector<Array>{y};
        },
    .jvp = [](std::span<const Array>, std::span<const Array> t, std::span<const Array>,
              const Params &) -> std::vector<Array> {
      return {rules::is_zero(t[0]) ? Array() : lax::conj(t[0])};
    },
    .vjp = [](std::span<const Array> x, std::span<const Array>, std::span<const Array> ct,
              const std::vector<bool> &, const Params &) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array()};
      return {is_complex(x[0].dtype()) ? lax::conj(ct[0]) : lax::real(ct[0])};
    },
    .batch = rules::elementwise_batch_rule(),
});

// complex(x, y) = x + iy for f32 (-> c64) or f64 (-> c128) operands of one shape.
const Primitive &complex_p = register_primitive({
    .name = "complex",
    .traits = kElementwise | kFusible | kLinear,
    .shape_rule =
        [](std::span<const AbstractValue> in, const Params &) {
          expect_arity("complex", in, 2);
          const AbstractValue &x = in[0], &y = in[1];
          if (x.dtype != y.dtype || (x.dtype != DType::Float32 && x.dtype != DType::Float64))
            fail_kind(ErrorKind::Type, "complex", "expects two f32 or two f64 operands, got ",
                      x.str(), " and ", y.str());
          if (x.shape != y.shape)
            fail_kind(ErrorKind::Type, "complex", "operand shapes differ: ", x.str(), " and ",
                      y.str());
          return std::vector<AbstractValue>{
              {x.shape, complex_dtype(x.dtype), x.weak_type && y.weak_type}};
        },
    .impl =
        [](std::span<const Array> in, const Params &, std::span<const AbstractValue> out) {
          Array z = Array::empty(out[0].shape, out[0].dtype, out[0].weak_type);
          STRATA_DISPATCH(in[0].dtype(), T, map_make_complex<T>(in[0], in[1], z));
          return std::vector<Array>{z};
        },
    .jvp = [](std::span<const Array> x, std::span<const Array> t, std::span<const Array>,
              const Params &) -> std::vector<Array> {
      if (rules::is_zero(t[0]) && rules::is_zero(t[1]))
        return {Array()};
      auto part = [&](int i) { return rules::is_zero(t[i]) ? rules::zeros_of(x[i]) : t[i]; };
      return {lax::complex(part(0), part(1))};
    },
    // The transpose of (x, y) -> x + iy is ct -> (re ct, -im ct), as JAX's.
    .vjp = [](std::span<const Array>, std::span<const Array>, std::span<const Array> ct,
              const std::vector<bool> &, const Params &) -> std::vector<Array> {
      if (rules::is_zero(ct[0]))
        return {Array(), Array()};
      return {lax::real(ct[0]), lax::neg(lax::imag(ct[0]))};
    },
    .batch = rules::elementwise_batch_rule(),
});

} // namespace

namespace lax {
Array complex(const Array &x, const Array &y) { return bind1(complex_p, {x, y}); }
Array real(const Array &x) { return bind1(real_p, {x}); }
Array imag(const Array &x) { return bind1(imag_p, {x}); }
Array conj(const Array &x) { return bind1(conj_p, {x}); }
} // namespace lax

} // namespace strata
