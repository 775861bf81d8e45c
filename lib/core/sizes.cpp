// Checked element and byte counts of shapes, and the messages of AllocationError.
#include "strata/sizes.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "strata/internal/trace.h"

namespace strata {
namespace {

thread_local std::string_view t_alloc_op;

// The exact product of the dimensions as a long double (64-bit mantissa: exact for any count
// that fits int64, and a faithful magnitude past it).
long double exact_count(const Shape &shape) {
  long double n = 1;
  for (int64_t d : shape)
    n *= static_cast<long double>(d);
  return n;
}

[[noreturn]] void too_large(std::string_view op, DType dtype, const Shape &shape,
                            std::string_view why) {
  long double bytes = exact_count(shape) * static_cast<long double>(itemsize(dtype));
  throw AllocationError(detail::cat("[", op, "] too large: ", type_str(dtype, shape), " needs ",
                                    format_byte_count(bytes), ", ", why));
}

int64_t count_or_throw(const Shape &shape, std::string_view op, DType dtype, bool typed) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0)
      fail(op, "negative dimension in shape ", shape_str(shape));
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n)) {
      if (typed)
        too_large(op, dtype, shape, "its element count overflows int64");
      throw AllocationError(detail::cat("[", op, "] too large: the element count of ",
                                        shape_str(shape), " overflows int64"));
    }
  return n;
}

} // namespace

std::string format_byte_count(long double nbytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
  long double v = nbytes;
  int u = 0;
  while (u < 8 && v >= 1023.95L) { // what prints as 1024.0 goes up a unit
    v /= 1024.0L;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1Lf", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) // whole: "16 EiB", not "16.0 EiB"
    s.resize(s.size() - 2);
  return s + " " + units[u];
}

int64_t checked_num_elements(const Shape &shape, std::string_view op) {
  return count_or_throw(shape, op, DType::Float32, /*typed=*/false);
}

size_t checked_byte_size(DType dtype, const Shape &shape, std::string_view op) {
  int64_t n = count_or_throw(shape, op, dtype, /*typed=*/true);
  int64_t bytes;
  if (__builtin_mul_overflow(n, static_cast<int64_t>(itemsize(dtype)), &bytes) ||
      static_cast<uint64_t>(bytes) > static_cast<uint64_t>(PTRDIFF_MAX))
    too_large(op, dtype, shape, "more than an address space holds");
  return static_cast<size_t>(bytes);
}

int64_t checked_dim_add(int64_t a, int64_t b, std::string_view op) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    throw AllocationError(
        detail::cat("[", op, "] too large: a dimension of ", a, " + ", b, " overflows int64"));
  return r;
}
int64_t checked_dim_mul(int64_t a, int64_t b, std::string_view op) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    throw AllocationError(
        detail::cat("[", op, "] too large: a dimension of ", a, " * ", b, " overflows int64"));
  return r;
}

void check_result_size(std::string_view op, DType dtype, const Shape &shape) {
  if (dynamic_level())
    (void)checked_num_elements(shape, op);
  else
    (void)checked_byte_size(dtype, shape, op);
}

void throw_out_of_memory(std::string_view op, DType dtype, const Shape &shape,
                         std::string_view where, std::string_view info) {
  long double bytes = exact_count(shape) * static_cast<long double>(itemsize(dtype));
  throw AllocationError(detail::cat("[", op, "] out of memory: ", type_str(dtype, shape), " needs ",
                                    format_byte_count(bytes), " of ", where,
                                    info.empty() ? "" : " (", info, info.empty() ? "" : ")"));
}

AllocationScope::AllocationScope(std::string_view op) : set_(t_alloc_op.empty()) {
  if (set_)
    t_alloc_op = op;
}
AllocationScope::~AllocationScope() {
  if (set_)
    t_alloc_op = {};
}

std::string_view allocation_op() { return t_alloc_op.empty() ? "array" : t_alloc_op; }

} // namespace strata
