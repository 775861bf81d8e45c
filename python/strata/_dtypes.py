"""bfloat16 for numpy, which has no such dtype: ml_dtypes' dtype when it is installed, else a
stand-in object that Strata accepts wherever a dtype is expected and that compares equal to the
string 'bfloat16'. Arrays of bfloat16 convert to numpy as float32."""

from strata import _core

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
