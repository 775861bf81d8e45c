// fft: lax.fft, the discrete Fourier transform over 1 to 3 trailing axes (FFT, IFFT, RFFT,
// IRFFT), with JAX's shape, dtype and transpose rules; the kernels are FFTW's (fft_fftw.cpp).
#include <algorithm>
#include <cctype>
#include <string>

#include "primitives/rules_impl.h"
#include "strata/internal/fft.h"
#include "strata/lax.h"

namespace strata {
namespace {

constexpr const char *kOp = "fft";

FftKind parse_kind(std::string_view s) {
  std::string u(s);
  for (char &c : u)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (u == "FFT")
    return FftKind::FFT;
  if (u == "IFFT")
    return FftKind::IFFT;
  if (u == "RFFT")
    return FftKind::RFFT;
  if (u == "IRFFT")
    return FftKind::IRFFT;
  fail(kOp, "fft_type must be one of FFT, IFFT, RFFT, IRFFT, got '", s, "'");
}
const char *kind_name(FftKind k) {
  static const char *names[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  return names[static_cast<int>(k)];
}

std::string lengths_str(const std::vector<int64_t> &v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

std::vector<AbstractValue> fft_shape_rule(std::span<const AbstractValue> in, const Params &params) {
  if (in.size() != 1)
    fail(kOp, "expects one operand, got ", in.size());
  const AbstractValue &x = in[0];
  FftKind kind = parse_kind(params.get_string("fft_type"));
  const std::vector<int64_t> &n = params.get_ints("fft_lengths");
  size_t k = n.size(), rank = x.shape.size();
  if (k < 1 || k > 3)
    fail(kOp, "fft_lengths must have 1 to 3 entries, got ", lengths_str(n));
  for (int64_t v : n)
    if (v < 0)
      fail(kOp, "fft_lengths must be non-negative, got ", lengths_str(n));
  if (k > rank)
    fail(kOp, "fft_lengths ", lengths_str(n), " has more entries than the operand ", x.str(),
         " has dimensions");
  std::vector<int64_t> minor(x.shape.end() - static_cast<ptrdiff_t>(k), x.shape.end());
  AbstractValue out = x;
  switch (kind) {
  case FftKind::RFFT:
    if (x.dtype != DType::Float32 && x.dtype != DType::Float64)
      fail(kOp, "RFFT input must be float32 or float64, got ", x.str());
    if (minor != n)
      fail(kOp, "RFFT input shape ", x.str(), " minor dimensions must be equal to fft_lengths ",
           lengths_str(n));
    out.shape.back() = n.back() / 2 + 1;
    out.dtype = complex_dtype(x.dtype);
    break;
  case FftKind::IRFFT:
    if (!is_complex(x.dtype))
      fail(kOp, "IRFFT input must be complex64 or complex128, got ", x.str());
    if (!std::equal(n.begin(), n.end() - 1, minor.begin()) || minor.back() != n.back() / 2 + 1)
      fail(kOp, "IRFFT input shape ", x.str(), " minor dimensions must be equal to fft_lengths ",
           lengths_str(n),
           " except the last, which must be fft_lengths[-1] // 2 + 1 = ", n.back() / 2 + 1);
    out.shape.back() = n.back();
    out.dtype = real_dtype(x.dtype);
    break;
  case FftKind::FFT:
  case FftKind::IFFT:
    if (!is_complex(x.dtype))
      fail(kOp, kind_name(kind), " input must be complex64 or complex128, got ", x.str());
    if (minor != n)
      fail(kOp, kind_name(kind), " input shape ", x.str(),
           " minor dimensions must be equal to fft_lengths ", lengths_str(n));
    break;
  }
  out.weak_type = false;
  return {out};
}

std::vector<Array> fft_impl(std::span<const Array> in, const Params &params,
                            std::span<const AbstractValue> out) {
  FftKind kind = parse_kind(params.get_string("fft_type"));
  const std::vector<int64_t> &n = params.get_ints("fft_lengths");
  const Shape &shape = in[0].shape();
  int64_t batch = 1;
  for (size_t i = 0; i + n.size() < shape.size(); ++i)
    batch *= shape[i];
  Array result = Array::empty(out[0].shape, out[0].dtype);
  fft_run(kind, real_dtype(in[0].dtype()), n, batch, in[0].data(), result.mutable_data());
  return {result};
}

// ---- Transform rules ---------------------------------------------------------------------------
// The transform is linear, so its tangent is the transform of the tangent.
std::vector<Array> fft_jvp(std::span<const Array>, std::span<const Array> t, std::span<const Array>,
                           const Params &params) {
  if (rules::is_zero(t[0]))
    return {Array()};
  return {lax::fft(t[0], params.get_string("fft_type"), params.get_ints("fft_lengths"))};
}

// RFFT is FFT(complex(x)) cut to the first n/2+1 entries of the last axis; its transpose pads
// the cotangent back with zeros, applies FFT (the DFT matrix is symmetric) and keeps the real
// part (the transpose of the real-to-complex embedding).
Array rfft_transpose(const Array &ct, const std::vector<int64_t> &n) {
  int64_t rank = ct.ndim();
  std::vector<int64_t> zeros(static_cast<size_t>(rank), 0), high = zeros;
  high.back() = n.back() - ct.shape().back();
  Array zero =
      lax::convert_element_type(Array::weak_scalar(0.0, real_dtype(ct.dtype())), ct.dtype());
  Array full = lax::pad(ct, zero, zeros, high, zeros);
  return lax::real(lax::fft(full, "FFT", n));
}

// IRFFT reads each interior entry of the half spectrum twice (it and its Hermitian mirror) and
// the zero-frequency (and, for even n, the Nyquist) entry once: the transpose is RFFT weighted by
// 1, 2, ..., 2, (1) and 1/prod(n), conjugated by JAX's convention for complex cotangents.
Array irfft_transpose(const Array &ct, const std::vector<int64_t> &n) {
  Array x = lax::fft(ct, "RFFT", n);
  int64_t half = x.shape().back();
  double total = 1;
  for (int64_t v : n)
    total *= static_cast<double>(v);
  std::vector<double> w(static_cast<size_t>(half), 2.0 / total);
  w.front() = 1.0 / total;
  if (n.back() % 2 == 0)
    w.back() = 1.0 / total;
  Array mask = lax::convert_element_type(Array::from_vector(w, {half}), x.dtype());
  mask = lax::broadcast_in_dim(mask, x.shape(), {x.ndim() - 1});
  return lax::conj(lax::mul(mask, x));
}

std::vector<Array> fft_vjp(std::span<const Array>, std::span<const Array>,
                           std::span<const Array> ct, const std::vector<bool> &,
                           const Params &params) {
  if (rules::is_zero(ct[0]))
    return {Array()};
  const std::string &type = params.get_string("fft_type");
  const std::vector<int64_t> &n = params.get_ints("fft_lengths");
  switch (parse_kind(type)) {
  case FftKind::RFFT:
    return {rfft_transpose(ct[0], n)};
  case FftKind::IRFFT:
    return {irfft_transpose(ct[0], n)};
  default: // FFT and IFFT are their own transposes (symmetric matrices)
    return {lax::fft(ct[0], type, n)};
  }
}

// The transformed axes are trailing, so the batch axis goes to the front.
std::vector<Array> fft_batch(const BatchContext &ctx, std::span<const Array> vals,
                             std::span<const int64_t> dims, const Params &params,
                             std::vector<int64_t> &out_dims) {
  out_dims = {0};
  Array x = rules::batch_to_front(vals[0], dims[0], ctx.axis_size);
  return {lax::fft(x, params.get_string("fft_type"), params.get_ints("fft_lengths"))};
}

const Primitive &fft_p = register_primitive({
    .name = kOp,
    .shape_rule = fft_shape_rule,
    .impl = fft_impl,
    .jvp = fft_jvp,
    .vjp = fft_vjp,
    .batch = fft_batch,
});

} // namespace

// ---- lax wrapper -------------------------------------------------------------------------------
namespace lax {
Array fft(const Array &x, std::string_view fft_type, const std::vector<int64_t> &fft_lengths) {
  return bind1(
      fft_p, {x},
      {{"fft_type", std::string(kind_name(parse_kind(fft_type)))}, {"fft_lengths", fft_lengths}});
}
} // namespace lax

} // namespace strata
