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

/// Runs callback `id` on the buffers announced since the last call (strata_rt_host_callback_buffer
/// and _dim): `n_in` operands read with `to_host`, then `n_out` results written with
/// `from_host`. Never throws: the first exception is kept for rethrow_host_callback_error and
/// later callbacks of the same run are skipped.
void run_host_callback_buffers(int64_t id, int64_t n_in, int64_t n_out, const BufferCopy &to_host,
                               const BufferCopy &from_host);

/// Throws the exception a host callback raised while compiled code ran in this thread.
void rethrow_host_callback_error();

} // namespace strata::rt

// What strata-lower-to-linalg's lowering of strata.host_callback calls (scalar arguments only):
// each buffer (its address, dtype code and rank, then each dimension), then the call itself.
extern "C" void strata_rt_host_callback_buffer(int64_t address, int64_t dtype, int64_t rank);
extern "C" void strata_rt_host_callback_dim(int64_t size);
/// The CPU's call: the buffers are host memory.
extern "C" void strata_rt_host_callback(int64_t id, int64_t n_in, int64_t n_out);
