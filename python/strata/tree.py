"""strata.tree (jax.tree's names): short aliases of strata.tree_util's pytree functions."""

import dataclasses as _dataclasses

from strata import tree_util as _tu

__all__ = [
    "all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path", "map",
    "map_with_path", "reduce", "reduce_associative", "static", "structure", "transpose",
    "unflatten",
]


def all(tree, *, is_leaf=None):  # noqa: A001 (JAX's name)
    """True if every leaf of `tree` is truthy (tree_util.tree_all)."""
    return _tu.tree_all(tree, is_leaf=is_leaf)


def broadcast(prefix_tree, full_tree, is_leaf=None):
    """prefix_tree's leaves repeated over the subtrees of full_tree (tree_util.tree_broadcast)."""
    return _tu.tree_broadcast(prefix_tree, full_tree, is_leaf=is_leaf)


def flatten(tree, is_leaf=None):
    """(leaves, treedef) of a pytree (tree_util.tree_flatten)."""
    return _tu.tree_flatten(tree, is_leaf)


def flatten_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """([(key path, leaf)...], treedef) (tree_util.tree_flatten_with_path)."""
    return _tu.tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)


def leaves(tree, is_leaf=None):
    """The leaves of a pytree (tree_util.tree_leaves)."""
    return _tu.tree_leaves(tree, is_leaf)


def leaves_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """[(key path, leaf)...] (tree_util.tree_leaves_with_path)."""
    return _tu.tree_leaves_with_path(tree, is_leaf, is_leaf_takes_path)


def map(f, tree, *rest, is_leaf=None):  # noqa: A001
    """f over the leaves of tree and the matching subtrees of rest (tree_util.tree_map)."""
    return _tu.tree_map(f, tree, *rest, is_leaf=is_leaf)


def map_with_path(f, tree, *rest, is_leaf=None, is_leaf_takes_path=False):
    """f(key path, leaf, *rest's subtrees) at every leaf (tree_util.tree_map_with_path)."""
    return _tu.tree_map_with_path(f, tree, *rest, is_leaf=is_leaf,
                                  is_leaf_takes_path=is_leaf_takes_path)


def reduce(function, tree, initializer=_tu.no_initializer, is_leaf=None):
    """functools.reduce over the leaves (tree_util.tree_reduce)."""
    return _tu.tree_reduce(function, tree, initializer, is_leaf=is_leaf)


def reduce_associative(operation, tree, *, identity=_tu.no_initializer, is_leaf=None):
    """The leaves combined by an associative operation as a balanced tree
    (tree_util.tree_reduce_associative)."""
    return _tu.tree_reduce_associative(operation, tree, identity=identity, is_leaf=is_leaf)


def static(**kwargs):
    """dataclasses.field(**kwargs) marked static (metadata static=True), for
    tree_util.register_dataclass."""
    metadata = dict(kwargs.pop("metadata", None) or {})
    metadata["static"] = True
    return _dataclasses.field(metadata=metadata, **kwargs)


def structure(tree, is_leaf=None):
    """The PyTreeDef of a pytree (tree_util.tree_structure)."""
    return _tu.tree_structure(tree, is_leaf)


def transpose(outer_treedef, inner_treedef, pytree_to_transpose):
    """outer(inner) turned into inner(outer) (tree_util.tree_transpose)."""
    return _tu.tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose)


def unflatten(treedef, leaves):  # noqa: F811
    """The pytree of structure treedef with these leaves (tree_util.tree_unflatten)."""
    return _tu.tree_unflatten(treedef, leaves)
