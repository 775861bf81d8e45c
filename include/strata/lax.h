// strata::lax: one function per primitive, with lax's strict semantics (no implicit
// broadcasting or promotion: operands must already agree). The numpy-style surface in ops.h
// checks, promotes and broadcasts, then calls these.
#pragma once

#include <optional>
#include <vector>

#include "strata/array.h"
#include "strata/primitive.h"

namespace strata::lax {

// ---- Elementwise unary -------------------------------------------------------------------
STRATA_EXPORT Array neg(const Array &x);
STRATA_EXPORT Array abs(const Array &x);
STRATA_EXPORT Array sign(const Array &x);
STRATA_EXPORT Array floor(const Array &x);
STRATA_EXPORT Array ceil(const Array &x);
STRATA_EXPORT Array round(const Array &x); // half to even, as numpy and jnp.round
STRATA_EXPORT Array exp(const Array &x);
STRATA_EXPORT Array log(const Array &x);
STRATA_EXPORT Array log1p(const Array &x);
STRATA_EXPORT Array expm1(const Array &x);
STRATA_EXPORT Array sqrt(const Array &x);
STRATA_EXPORT Array rsqrt(const Array &x);
STRATA_EXPORT Array sin(const Array &x);
STRATA_EXPORT Array cos(const Array &x);
STRATA_EXPORT Array tan(const Array &x);
STRATA_EXPORT Array tanh(const Array &x);
STRATA_EXPORT Array logistic(const Array &x);
STRATA_EXPORT Array erf(const Array &x);
STRATA_EXPORT Array erf_inv(const Array &x);
STRATA_EXPORT Array sinh(const Array &x);
STRATA_EXPORT Array cosh(const Array &x);
STRATA_EXPORT Array asin(const Array &x);
STRATA_EXPORT Array acos(const Array &x);
STRATA_EXPORT Array atan(const Array &x);
STRATA_EXPORT Array asinh(const Array &x);
STRATA_EXPORT Array acosh(const Array &x);
STRATA_EXPORT Array atanh(const Array &x);
STRATA_EXPORT Array cbrt(const Array &x);
STRATA_EXPORT Array exp2(const Array &x);
STRATA_EXPORT Array erfc(const Array &x);
STRATA_EXPORT Array lgamma(const Array &x);     // log |Gamma(x)|
STRATA_EXPORT Array digamma(const Array &x);    // psi(x); NaN at 0 and the negative integers
STRATA_EXPORT Array bessel_i0e(const Array &x); // exp(-|x|) I0(x)
STRATA_EXPORT Array bessel_i1e(const Array &x); // exp(-|x|) I1(x)
STRATA_EXPORT Array is_finite(const Array &x);
STRATA_EXPORT Array bitwise_not(const Array &x); // logical not on bool
/// Number of set bits / leading zero bits of integers (same dtype).
STRATA_EXPORT Array population_count(const Array &x);
STRATA_EXPORT Array clz(const Array &x);
STRATA_EXPORT Array integer_pow(const Array &x, int64_t y);

// ---- Elementwise binary (same shape and dtype) ---------------------------------------------
STRATA_EXPORT Array add(const Array &x, const Array &y);
STRATA_EXPORT Array sub(const Array &x, const Array &y);
STRATA_EXPORT Array mul(const Array &x, const Array &y);
STRATA_EXPORT Array div(const Array &x, const Array &y); // integers round toward zero
STRATA_EXPORT Array rem(const Array &x, const Array &y); // sign of the dividend (C fmod)
STRATA_EXPORT Array pow(const Array &x, const Array &y);
STRATA_EXPORT Array max(const Array &x, const Array &y); // NaN-propagating
STRATA_EXPORT Array min(const Array &x, const Array &y);
STRATA_EXPORT Array atan2(const Array &x, const Array &y);
/// Regularized incomplete gamma P(a, x) and Q(a, x) = 1 - P(a, x).
STRATA_EXPORT Array igamma(const Array &a, const Array &x);
STRATA_EXPORT Array igammac(const Array &a, const Array &x);
/// d/da P(a, x).
STRATA_EXPORT Array igamma_grad_a(const Array &a, const Array &x);
/// d/da of a Gamma(a, 1) sample x (implicit reparameterization).
STRATA_EXPORT Array random_gamma_grad(const Array &a, const Array &x);
/// psi^(m)(x) for integer-valued m >= 0 (NaN otherwise).
STRATA_EXPORT Array polygamma(const Array &m, const Array &x);
/// Hurwitz zeta(s, q) = sum_k (q + k)^-s.
STRATA_EXPORT Array zeta(const Array &s, const Array &q);
/// The representable value of x's dtype next to x in the direction of y.
STRATA_EXPORT Array nextafter(const Array &x, const Array &y);
/// The regularized incomplete beta function I_x(a, b) (primitive regularized_incomplete_beta).
STRATA_EXPORT Array betainc(const Array &a, const Array &b, const Array &x);
STRATA_EXPORT Array bitwise_and(const Array &x, const Array &y);
STRATA_EXPORT Array bitwise_or(const Array &x, const Array &y);
STRATA_EXPORT Array bitwise_xor(const Array &x, const Array &y);
STRATA_EXPORT Array eq(const Array &x, const Array &y);
STRATA_EXPORT Array ne(const Array &x, const Array &y);
STRATA_EXPORT Array lt(const Array &x, const Array &y);
STRATA_EXPORT Array le(const Array &x, const Array &y);
STRATA_EXPORT Array gt(const Array &x, const Array &y);
STRATA_EXPORT Array ge(const Array &x, const Array &y);

/// pred ? on_true : on_false, elementwise; pred is bool of the same shape.
STRATA_EXPORT Array select(const Array &pred, const Array &on_true, const Array &on_false);
/// min(max(x, lo), hi); lo and hi are scalars or of x's shape.
STRATA_EXPORT Array clamp(const Array &lo, const Array &x, const Array &hi);
/// Converts to dtype (floats to ints truncate toward zero; to bool: x != 0).
STRATA_EXPORT Array convert_element_type(const Array &x, DType dtype, bool weak_type = false);
/// Identity whose derivative is zero.
STRATA_EXPORT Array stop_gradient(const Array &x);

// ---- Shapes -------------------------------------------------------------------------------
/// Values 0..shape[dimension]-1 along `dimension`, broadcast over the rest.
STRATA_EXPORT Array iota(DType dtype, const Shape &shape, int64_t dimension = 0);
/// Operand dimension i goes to output dimension broadcast_dimensions[i] (size equal or 1).
STRATA_EXPORT Array broadcast_in_dim(const Array &x, const Shape &shape,
                                     const std::vector<int64_t> &broadcast_dimensions);
STRATA_EXPORT Array reshape(const Array &x, const Shape &new_sizes);
STRATA_EXPORT Array transpose(const Array &x, const std::vector<int64_t> &permutation);
STRATA_EXPORT Array rev(const Array &x, const std::vector<int64_t> &dimensions);
STRATA_EXPORT Array slice(const Array &x, const std::vector<int64_t> &start,
                          const std::vector<int64_t> &limit,
                          const std::vector<int64_t> &strides = {});
/// Start indices are integer scalars, clamped so the slice stays in bounds (as XLA does).
STRATA_EXPORT Array dynamic_slice(const Array &x, const std::vector<Array> &start_indices,
                                  const Shape &slice_sizes);
STRATA_EXPORT Array dynamic_update_slice(const Array &x, const Array &update,
                                         const std::vector<Array> &start_indices);
/// Pads with a scalar `padding_value`: low/high may be negative (crop), interior >= 0.
STRATA_EXPORT Array pad(const Array &x, const Array &padding_value, const std::vector<int64_t> &low,
                        const std::vector<int64_t> &high, const std::vector<int64_t> &interior);
STRATA_EXPORT Array concatenate(const std::vector<Array> &xs, int64_t dimension);

// ---- Reductions ---------------------------------------------------------------------------
STRATA_EXPORT Array reduce_sum(const Array &x, const std::vector<int64_t> &axes);
STRATA_EXPORT Array reduce_max(const Array &x, const std::vector<int64_t> &axes);
STRATA_EXPORT Array reduce_min(const Array &x, const std::vector<int64_t> &axes);
STRATA_EXPORT Array reduce_prod(const Array &x, const std::vector<int64_t> &axes);
/// Index of the first maximum (NaN counts as the maximum) along `axis`.
STRATA_EXPORT Array argmax(const Array &x, int64_t axis, DType index_dtype = DType::Int32);
STRATA_EXPORT Array argmin(const Array &x, int64_t axis, DType index_dtype = DType::Int32);
STRATA_EXPORT Array cumsum(const Array &x, int64_t axis, bool reverse = false);
STRATA_EXPORT Array cumprod(const Array &x, int64_t axis, bool reverse = false);
STRATA_EXPORT Array cummax(const Array &x, int64_t axis, bool reverse = false);
STRATA_EXPORT Array cummin(const Array &x, int64_t axis, bool reverse = false);

// ---- Contractions -------------------------------------------------------------------------
struct DotDimensionNumbers {
  std::vector<int64_t> lhs_contracting, rhs_contracting, lhs_batch, rhs_batch;
};
/// Output dims: batch dims, then lhs free dims, then rhs free dims (as lax.dot_general).
STRATA_EXPORT Array dot_general(const Array &lhs, const Array &rhs, const DotDimensionNumbers &dims,
                                std::optional<DType> preferred_element_type = std::nullopt);

// ---- Gather and scatter (XLA semantics; the index vector is the last dim of indices) -------
struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims, collapsed_slice_dims, start_index_map;
};
/// Start indices are clamped so every slice lies in bounds (documented in docs/indexing.md).
STRATA_EXPORT Array gather(const Array &operand, const Array &indices,
                           const GatherDimensionNumbers &dims, const Shape &slice_sizes);
struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims;
};
/// Updates whose window falls out of bounds are dropped (as JAX's default mode).
STRATA_EXPORT Array scatter_add(const Array &operand, const Array &indices, const Array &updates,
                                const ScatterDimensionNumbers &dims);
STRATA_EXPORT Array scatter(const Array &operand, const Array &indices, const Array &updates,
                            const ScatterDimensionNumbers &dims);

// ---- Sorting ------------------------------------------------------------------------------
/// Sorts all operands along `dimension` by the first `num_keys` operands (lexicographic),
/// stable; NaNs sort last.
STRATA_EXPORT std::vector<Array> sort(const std::vector<Array> &operands, int64_t dimension = -1,
                                      int64_t num_keys = 1);

// ---- Bit shifts ---------------------------------------------------------------------------
/// x << y on integers of one dtype and shape; y counts as unsigned, and shifts of at least the
/// bit width give 0 (as XLA defines them).
STRATA_EXPORT Array shift_left(const Array &x, const Array &y);
/// Zero-filling x >> y on the bits of x (signed integers shift as their unsigned bits).
STRATA_EXPORT Array shift_right_logical(const Array &x, const Array &y);
/// Sign-filling x >> y on the bits of x as signed; amounts of at least the width give all sign
/// bits.
STRATA_EXPORT Array shift_right_arithmetic(const Array &x, const Array &y);
/// Reinterprets the bits of x as `dtype`, which must have the same itemsize (bool excluded).
STRATA_EXPORT Array bitcast_convert_type(const Array &x, DType dtype);

// ---- Random bits --------------------------------------------------------------------------
/// The Threefry-2x32 block cipher (20 rounds); all four inputs u32 of one shape.
STRATA_EXPORT std::pair<Array, Array> threefry2x32(const Array &key0, const Array &key1,
                                                   const Array &x0, const Array &x1);

// ---- Complex numbers (complex family) ----------------------------------------------------
/// x + iy from two f32 (-> c64) or two f64 (-> c128) arrays of one shape.
STRATA_EXPORT Array complex(const Array &x, const Array &y);
/// The real part of a complex array (c64 -> f32, c128 -> f64).
STRATA_EXPORT Array real(const Array &x);
/// The imaginary part of a complex array.
STRATA_EXPORT Array imag(const Array &x);
/// The complex conjugate; of an f32/f64 array, its complex value (as lax.conj).
STRATA_EXPORT Array conj(const Array &x);

// ---- Fourier transforms (fft family) --------------------------------------------------------
/// lax.fft over the trailing len(fft_lengths) axes (1 to 3): fft_type "FFT" / "IFFT" (complex to
/// complex, IFFT scaled by 1/prod(fft_lengths)), "RFFT" (f32/f64 to c64/c128, last axis n/2+1),
/// "IRFFT" (the reverse, scaled); case-insensitive, as JAX's strings.
STRATA_EXPORT Array fft(const Array &x, std::string_view fft_type,
                        const std::vector<int64_t> &fft_lengths);

// ---- Windowed reductions (lib/primitives/window.cpp) --------------------------------------
/// A window over every dimension of an operand (XLA's ReduceWindow): its dimensions, strides,
/// (low, high) padding and base/window dilations. Empty strides, padding or dilations mean
/// ones, zeros and ones.
struct WindowDims {
  std::vector<int64_t> dimensions, strides;
  std::vector<std::pair<int64_t, int64_t>> padding;
  std::vector<int64_t> base_dilation, window_dilation;
};
/// Sum, maximum and minimum of each window (padding counts as the identity).
STRATA_EXPORT Array reduce_window_sum(const Array &x, const WindowDims &window);
STRATA_EXPORT Array reduce_window_max(const Array &x, const WindowDims &window);
STRATA_EXPORT Array reduce_window_min(const Array &x, const WindowDims &window);
/// The general reduction: `computation` maps (accumulators..., elements...) scalars to the new
/// accumulators; each operand is padded with its initial value.
STRATA_EXPORT std::vector<Array> reduce_window(const std::vector<Array> &operands,
                                               const std::vector<Array> &init_values,
                                               const FlatFn &computation, const WindowDims &window);
/// For each window of `operand`, the element of `tangents` where select picks (the first
/// maximum when select_ge, else the first minimum): reduce_window_max/min's jvp.
STRATA_EXPORT Array select_and_gather_add(const Array &tangents, const Array &operand,
                                          bool select_ge, const WindowDims &window);
/// Each window's `source` value added at the element select picks in `operand`:
/// reduce_window_max/min's vjp.
STRATA_EXPORT Array select_and_scatter_add(const Array &source, const Array &operand,
                                           bool select_ge, const WindowDims &window);

// ---- Convolution --------------------------------------------------------------------------
/// Which dimensions of lhs, rhs and the output are batch/feature/spatial (as JAX's
/// ConvDimensionNumbers): lhs_spec = (batch, feature, spatial...), rhs_spec = (out feature,
/// in feature, spatial...), out_spec = (batch, feature, spatial...).
struct ConvDimensionNumbers {
  std::vector<int64_t> lhs_spec, rhs_spec, out_spec;
};
/// XLA's convolution, as lax.conv_general_dilated: padding holds one (low, high) pair per
/// spatial dimension (negative crops); empty dilations mean 1; no dimension numbers mean
/// NC..., OI..., NC... .
STRATA_EXPORT Array
conv_general_dilated(const Array &lhs, const Array &rhs, const std::vector<int64_t> &window_strides,
                     const std::vector<std::pair<int64_t, int64_t>> &padding,
                     std::vector<int64_t> lhs_dilation = {}, std::vector<int64_t> rhs_dilation = {},
                     std::optional<ConvDimensionNumbers> dimension_numbers = std::nullopt,
                     int64_t feature_group_count = 1, int64_t batch_group_count = 1,
                     std::optional<DType> preferred_element_type = std::nullopt);

} // namespace strata::lax
