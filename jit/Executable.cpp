// The calling convention every compiled function shares: memref descriptors for the inputs,
// the constants and fresh results, one packed entry point, and the user's outputs assembled from
// the results, the inputs and the staged constants.
#include "jit/Executable.h"

#include <cstring>

#include "runtime/host/HostCallback.h"
#include "strata/device.h"
#include "llvm/ADT/SmallVector.h"

#include "strata/internal/buffer.h"
#include "strata/sizes.h"

namespace strata::rt {

/// A memref descriptor as the C interface takes it: {allocated, aligned, offset, sizes[r],
/// strides[r]}, all 8-byte words.
void fill_descriptor(int64_t *d, void *data, const Shape &shape) {
  std::memcpy(d, &data, sizeof(void *));
  std::memcpy(d + 1, &data, sizeof(void *));
  d[2] = 0;
  size_t r = shape.size();
  int64_t stride = 1;
  for (size_t i = r; i-- > 0;) {
    d[3 + i] = shape[i];
    d[3 + r + i] = stride;
    stride *= shape[i];
  }
}

std::vector<Array> Executable::invoke(void (*entry)(void **), const std::vector<Array> &inputs,
                                      const std::vector<Array> &constants, Device device) const {
  size_t n_args = inputs.size() + constants.size() + results_.size();
  size_t words = 0;
  for (const AbstractValue &a : inputs_)
    words += 3 + 2 * a.shape.size();
  for (const Array &c : constants)
    words += 3 + 2 * c.shape().size();
  for (const AbstractValue &a : results_)
    words += 3 + 2 * a.shape.size();
  // Small signatures live on the stack: this is the cache-hit path.
  llvm::SmallVector<int64_t, 64> desc(words);
  llvm::SmallVector<void *, 16> ptrs(n_args), args(n_args);
  std::vector<Array> results;
  results.reserve(results_.size());
  size_t at = 0, k = 0;
  auto add = [&](const Array &x) {
    fill_descriptor(desc.data() + at, x.buffer()->data(), x.shape());
    ptrs[k] = desc.data() + at;
    args[k] = &ptrs[k];
    at += 3 + 2 * x.shape().size();
    ++k;
  };
  for (const Array &x : inputs)
    add(x);
  for (const Array &c : constants)
    add(c);
  AllocationScope scope("jit"); // names the jitted call in an output's allocation failure
  for (const AbstractValue &a : results_) {
    results.push_back(empty_on(a.shape, a.dtype, device, a.weak_type));
    add(results.back());
  }
  entry(args.data());
  rethrow_host_callback_error(); // compiled code cannot unwind: a callback's error waits here
  return results;
}

std::vector<Array> assemble_outputs(const std::vector<StagedOutput> &outputs,
                                    const std::vector<Array> &results,
                                    const std::vector<Array> &inputs) {
  std::vector<Array> outs;
  outs.reserve(outputs.size());
  for (const StagedOutput &o : outputs) {
    switch (o.kind) {
    case StagedOutput::Kind::Result:
      outs.push_back(results[o.index]);
      break;
    case StagedOutput::Kind::Input:
      outs.push_back(inputs[o.index].weak_type() == o.aval.weak_type
                         ? inputs[o.index]
                         : inputs[o.index].with_weak_type(o.aval.weak_type));
      break;
    case StagedOutput::Kind::Constant:
      outs.push_back(o.value);
      break;
    }
  }
  return outs;
}

} // namespace strata::rt
