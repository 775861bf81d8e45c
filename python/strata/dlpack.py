"""strata.dlpack (jax.dlpack's names): DLPack capsules to and from other array libraries.
Export is zero-copy (the capsule shares the array's buffer); import copies once."""

from strata._core import from_dlpack  # noqa: F401


def to_dlpack(x):
    """A DLPack capsule sharing x's buffer (x: a concrete strata Array)."""
    return x.__dlpack__()
