// The Strata C++ API: arrays, primitives, the numpy-style surface, nn and random.
#pragma once

#include "strata/allocation_error.h"
#include "strata/array.h"
#include "strata/control_flow.h"
#include "strata/device.h"
#include "strata/dtype.h"
#include "strata/error.h"
#include "strata/lax.h"
#include "strata/linalg.h"
#include "strata/nn.h"
#include "strata/ops.h"
#include "strata/primitive.h"
#include "strata/random.h"
