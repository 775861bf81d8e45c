// The runtime side of strata.host_callback: the C functions compiled code calls, and the
// rethrow of a callback's exception once the compiled function has returned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace strata::rt {

/// Copies `bytes` between a buffer the compiled code passed and host memory: the CPU copies
/// directly; the GPU copies device memory to or from the host.
using BufferCopy = std::function<void(void *dst, const void *src, size_t bytes)>;

/// Runs callback `id` on the buffers described by `table` (see strata-lower-to-linalg's
/// lowering of strata.host_callback), reading the operands with `to_host` and writing the
/// results with `from_host`. Never throws: the first exception is kept for
/// rethrow_host_callback_error and later callbacks of the same run are skipped.
void run_host_callback_table(int64_t id, const int64_t *table, const BufferCopy &to_host,
                             const BufferCopy &from_host);

/// Throws the exception a host callback raised while compiled code ran in this thread.
void rethrow_host_callback_error();

} // namespace strata::rt

/// The CPU entry point: `table` is a memref<?xindex> passed as its descriptor's fields.
extern "C" void strata_rt_host_callback(int64_t id, int64_t *allocated, int64_t *aligned,
                                        int64_t offset, int64_t size, int64_t stride);
