// Checked size arithmetic: the one place that turns a shape and dtype into an element count or
// byte count, and the one format of the errors raised when either is too large to allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "strata/allocation_error.h"
#include "strata/array.h"

namespace strata {

/// "16 EiB", "1.5 GiB", "12 B": binary units, one decimal unless whole (the figure in
/// AllocationError messages, also for byte counts no integer type holds).
STRATA_EXPORT std::string format_byte_count(long double nbytes);

/// The element count of `shape`. A negative dimension is a strata::Error (ValueError) naming
/// `op`; a count past INT64_MAX is an AllocationError "[op] too large: ...".
STRATA_EXPORT int64_t checked_num_elements(const Shape &shape, std::string_view op);

/// The bytes an array of `dtype` and `shape` takes: checked_num_elements, then an
/// AllocationError when the byte count passes PTRDIFF_MAX (no pointer difference, and so no
/// allocation, can span it).
STRATA_EXPORT size_t checked_byte_size(DType dtype, const Shape &shape, std::string_view op);

/// a + b and a * b for the dimensions a shape rule computes (padded sizes, concatenated
/// lengths): an AllocationError "[op] too large: ..." where int64 overflows.
STRATA_EXPORT int64_t checked_dim_add(int64_t a, int64_t b, std::string_view op);
STRATA_EXPORT int64_t checked_dim_mul(int64_t a, int64_t b, std::string_view op);

/// checked_byte_size for the result of an op that creates an array from nothing (zeros, eye,
/// arange): checked when it runs eagerly, so the error names the op and the result's own dtype;
/// skipped under a dynamic level (jit staging, eval_shape), where shapes are abstract and any
/// size is fine until something allocates it.
STRATA_EXPORT void check_result_size(std::string_view op, DType dtype, const Shape &shape);

/// Throws the AllocationError for a failed allocation of `dtype[shape]` in `where` ("host
/// memory", "cuda:0"), adding the allocator's own `info` when it has one.
[[noreturn]] STRATA_EXPORT void throw_out_of_memory(std::string_view op, DType dtype,
                                                    const Shape &shape, std::string_view where,
                                                    std::string_view info = {});

/// Names the op that allocation errors on this thread report for the guard's lifetime. The
/// outermost guard wins, so `zeros` (not the broadcast it is built from) names the failure,
/// and a jitted call names `jit`. `op` must outlive the guard (a literal or a primitive name).
class STRATA_EXPORT AllocationScope {
public:
  explicit AllocationScope(std::string_view op);
  ~AllocationScope();
  AllocationScope(const AllocationScope &) = delete;
  AllocationScope &operator=(const AllocationScope &) = delete;

private:
  bool set_;
};

/// The op named by this thread's outermost AllocationScope, or "array" outside any.
STRATA_EXPORT std::string_view allocation_op();

} // namespace strata
