// Internal side of include/strata/device.h: the backend lookup that fails with a clear error,
// and the eager dispatch of a primitive whose inputs live on a device.
#pragma once

#include <string_view>

#include "strata/device.h"

namespace strata {

/// The backend of `device`, checked to exist and to have that index; throws naming `op`.
DeviceBackend *checked_backend(std::string_view op, Device device);

/// Runs `prim` through the registered device evaluator of `device`'s kind.
std::vector<Array> device_eval(const Primitive &prim, const std::vector<Array> &inputs,
                               const Params &params, Device device);

} // namespace strata
