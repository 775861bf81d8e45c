"""strata.lax: one function per primitive, with lax's strict semantics (operands must already
agree in shape and dtype)."""

from strata._core.lax import *  # noqa: F401,F403
from strata._core.lax import stop_gradient as _stop_gradient_leaf


def stop_gradient(x):
    """x unchanged, each leaf of the pytree a constant for every derivative transform."""
    from strata.tree_util import tree_map
    return tree_map(_stop_gradient_leaf, x)
