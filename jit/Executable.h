// A compiled function the jit cache holds: the CPU and GPU executables run behind this.
#pragma once

#include <vector>

#include "jit/Staging.h"
#include "strata/array.h"
#include "strata/export.h"

namespace strata::rt {

class STRATA_EXPORT Executable {
public:
  virtual ~Executable() = default;
  /// Runs on concrete arrays of the staged input types; allocates the outputs where the
  /// executable runs (host memory, or the GPU it was compiled for).
  virtual std::vector<Array> run(const std::vector<Array> &inputs) const = 0;

  const std::vector<AbstractValue> &inputs() const { return inputs_; }

protected:
  /// Keeps what running needs from the staged function: its input, constant and result
  /// signatures and how outputs are assembled.
  void adopt_signature(StagedFunction &staged) {
    inputs_ = std::move(staged.inputs);
    constants_ = std::move(staged.constants);
    results_ = std::move(staged.results);
    outputs_ = std::move(staged.outputs);
  }
  /// Calls `entry` (the packed `strata_entry`) on memref descriptors of `inputs` and
  /// `constants` (concrete arrays already on `device`) and of fresh results allocated on
  /// `device`; returns the results.
  std::vector<Array> invoke(void (*entry)(void **), const std::vector<Array> &inputs,
                            const std::vector<Array> &constants, Device device) const;

  std::vector<AbstractValue> inputs_;
  std::vector<Array> constants_;
  std::vector<AbstractValue> results_;
  std::vector<StagedOutput> outputs_;
};

/// Fills a memref descriptor {allocated, aligned, offset, sizes, strides} for a dense array.
void fill_descriptor(int64_t *d, void *data, const Shape &shape);

/// The user's outputs from the computed `results`, the `inputs` and the staged constants.
std::vector<Array> assemble_outputs(const std::vector<StagedOutput> &outputs,
                                    const std::vector<Array> &results,
                                    const std::vector<Array> &inputs);

} // namespace strata::rt
