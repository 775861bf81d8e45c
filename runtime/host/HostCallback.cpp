// strata_rt_host_callback: compiled code's calls of registered host functions.
#include "runtime/host/HostCallback.h"

#include <cstring>
#include <exception>
#include <vector>

#include "strata/callback.h"
#include "strata/error.h"

namespace strata::rt {
namespace {
/// The exception of the first failing callback of the current run in this thread.
thread_local std::exception_ptr g_pending;
/// The buffers announced for the next call: per buffer address, dtype, rank, dimensions.
thread_local std::vector<int64_t> g_buffers;

struct BufferDesc {
  void *data;
  DType dtype;
  Shape shape;
};

BufferDesc read_desc(const int64_t *&t) {
  BufferDesc d;
  d.data = reinterpret_cast<void *>(static_cast<intptr_t>(*t++));
  d.dtype = static_cast<DType>(*t++);
  int64_t rank = *t++;
  d.shape.assign(t, t + rank);
  t += rank;
  return d;
}
} // namespace

void run_host_callback_buffers(int64_t id, int64_t n_in, int64_t n_out, const BufferCopy &to_host,
                               const BufferCopy &from_host) {
  // Taken before the callback runs: it may call compiled code that announces buffers of its own.
  std::vector<int64_t> table = std::move(g_buffers);
  g_buffers.clear();
  if (g_pending)
    return; // a callback of this run failed already: the run's results are discarded
  try {
    const int64_t *t = table.data();
    // The callback may keep its arguments past the call (a Python closure can), and the
    // compiled code frees the buffers afterwards: the arguments are copies.
    std::vector<Array> args;
    for (int64_t i = 0; i < n_in; ++i) {
      BufferDesc d = read_desc(t);
      Array a = Array::empty(d.shape, d.dtype);
      if (a.nbytes() > 0)
        to_host(a.mutable_data(), d.data, static_cast<size_t>(a.nbytes()));
      args.push_back(a);
    }
    std::vector<Array> outs = run_host_callback(id, args);
    if (static_cast<int64_t>(outs.size()) != n_out)
      throw Error(detail::cat("[host_callback] the compiled call expects ", n_out,
                              " results, the callback returned ", outs.size()),
                  ErrorKind::Internal);
    for (int64_t j = 0; j < n_out; ++j) {
      BufferDesc d = read_desc(t);
      const Array &o = outs[static_cast<size_t>(j)];
      if (o.dtype() != d.dtype || o.shape() != d.shape)
        throw Error(detail::cat("[host_callback] result ", j, " is ", o.type_str(),
                                " but the compiled call expects ", type_str(d.dtype, d.shape)),
                    ErrorKind::Internal);
      if (o.nbytes() == 0)
        continue;
      std::vector<uint8_t> bytes(static_cast<size_t>(o.nbytes()));
      o.copy_to(bytes.data());
      from_host(d.data, bytes.data(), bytes.size());
    }
  } catch (...) {
    g_pending = std::current_exception();
  }
}

void rethrow_host_callback_error() {
  if (!g_pending)
    return;
  std::exception_ptr e = g_pending;
  g_pending = nullptr;
  std::rethrow_exception(e);
}

} // namespace strata::rt

extern "C" void strata_rt_host_callback_buffer(int64_t address, int64_t dtype, int64_t rank) {
  strata::rt::g_buffers.insert(strata::rt::g_buffers.end(), {address, dtype, rank});
}

extern "C" void strata_rt_host_callback_dim(int64_t size) { strata::rt::g_buffers.push_back(size); }

extern "C" void strata_rt_host_callback(int64_t id, int64_t n_in, int64_t n_out) {
  auto copy = [](void *dst, const void *src, size_t bytes) { std::memcpy(dst, src, bytes); };
  strata::rt::run_host_callback_buffers(id, n_in, n_out, copy, copy);
}
