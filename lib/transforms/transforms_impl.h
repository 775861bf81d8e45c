// Internals shared by the transform levels.
#pragma once

#include "strata/transforms.h"
#include "../trace_impl.h"
#include "rules_impl.h"

namespace strata {

using rules::move_axis;

} // namespace strata
