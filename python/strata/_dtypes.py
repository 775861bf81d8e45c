"""Strata's dtype options and the bfloat16 dtype.

`jax_enable_x64` (off by default, as in JAX; STRATA_ENABLE_X64=1 or JAX_ENABLE_X64=1 in the
environment, or strata.config.update("jax_enable_x64", True)) switches 64-bit mode in the core:
off, numpy float64/int64/uint64 inputs become float32/int32/uint32, explicit 64-bit dtype
requests give the 32-bit type with a UserWarning, and the default types are float32/int32.

bfloat16 for numpy, which has no such dtype: ml_dtypes' dtype when it is installed, else a
stand-in object that Strata accepts wherever a dtype is expected and that compares equal to the
string 'bfloat16'. Arrays of bfloat16 convert to numpy as float32."""

from strata import _core
from strata._config import config as _config

_config.define("jax_enable_x64", False,
               help="64-bit types (float64, int64, uint64) and 64-bit default types",
               hook=lambda on: _core._set_enable_x64(bool(on)))

try:  # pragma: no cover - ml_dtypes is not in Debian 12
    import ml_dtypes as _ml
    import numpy as _np
    bfloat16 = _np.dtype(_ml.bfloat16)
except ImportError:
    class _BFloat16:
        """Stand-in for numpy's missing bfloat16 dtype."""
        name = "bfloat16"
        str = "bfloat16"
        itemsize = 2
        kind = "f"

        def __repr__(self):
            return "dtype('bfloat16')"

        def __str__(self):
            return "bfloat16"

        def __eq__(self, other):
            return other is self or other == "bfloat16" or \
                getattr(other, "name", None) == "bfloat16"

        def __hash__(self):
            return hash("bfloat16")

        def __call__(self, x):
            return _core.asarray(x, self)

    bfloat16 = _BFloat16()

_core._set_bfloat16(bfloat16)
