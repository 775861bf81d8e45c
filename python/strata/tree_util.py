"""Pytrees (jax.tree_util's names): nested tuples, lists, dicts, None, namedtuples and registered
custom nodes flatten to a list of leaves and a PyTreeDef that rebuilds them."""

__all__ = [
    "PyTreeDef", "register_pytree_node", "tree_flatten", "tree_unflatten", "tree_leaves",
    "tree_structure", "tree_map", "treedef_is_leaf",
]

_registry = {}


def register_pytree_node(nodetype, flatten_func, unflatten_func):
    """Makes `nodetype` a pytree node: flatten_func(x) -> (children, aux_data) and
    unflatten_func(aux_data, children) -> x. aux_data must be hashable and comparable (it is part
    of the structure, which keys jit's cache)."""
    if nodetype in _registry:
        raise ValueError(f"{nodetype.__name__} is already registered as a pytree node")
    _registry[nodetype] = (flatten_func, unflatten_func)


class PyTreeDef:
    """The structure of a pytree: a node kind, its static data, and its children's structures."""
    __slots__ = ("kind", "data", "children", "num_leaves")

    def __init__(self, kind, data, children):
        self.kind = kind  # "leaf", "none", "tuple", "list", "dict", "namedtuple", "custom"
        self.data = data
        self.children = tuple(children)
        self.num_leaves = 1 if kind == "leaf" else sum(c.num_leaves for c in self.children)

    def _key(self):
        return (self.kind, self.data, self.children)

    def __eq__(self, other):
        return isinstance(other, PyTreeDef) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"PyTreeDef({self._str()})"

    def _str(self):
        inner = ", ".join(c._str() for c in self.children)
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        if self.kind == "tuple":
            return f"({inner}{',' if len(self.children) == 1 else ''})"
        if self.kind == "list":
            return f"[{inner}]"
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {c._str()}"
                                   for k, c in zip(self.data, self.children)) + "}"
        if self.kind == "namedtuple":
            return f"{self.data.__module__}.{self.data.__qualname__}({inner})"
        return f"CustomNode({self.data[0].__qualname__}[{self.data[1]!r}], [{inner}])"

    def unflatten(self, leaves):
        it = iter(leaves)
        out = self._build(it)
        for _ in it:
            raise ValueError(f"too many leaves for {self!r}")
        return out

    def _build(self, it):
        if self.kind == "leaf":
            try:
                return next(it)
            except StopIteration:
                raise ValueError(f"too few leaves for the structure") from None
        kids = [c._build(it) for c in self.children]
        if self.kind == "none":
            return None
        if self.kind == "tuple":
            return tuple(kids)
        if self.kind == "list":
            return kids
        if self.kind == "dict":
            return dict(zip(self.data, kids))
        if self.kind == "namedtuple":
            return self.data(*kids)
        nodetype, aux = self.data
        return _registry[nodetype][1](aux, kids)


_LEAF = PyTreeDef("leaf", None, ())


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _flatten(x, leaves, is_leaf):
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    if x is None:
        return PyTreeDef("none", None, ())
    t = type(x)
    if t in _registry:
        children, aux = _registry[t][0](x)
        return PyTreeDef("custom", (t, aux), [_flatten(c, leaves, is_leaf) for c in children])
    if t is tuple:
        return PyTreeDef("tuple", None, [_flatten(c, leaves, is_leaf) for c in x])
    if t is list:
        return PyTreeDef("list", None, [_flatten(c, leaves, is_leaf) for c in x])
    if t is dict:
        keys = tuple(sorted(x))  # JAX orders dict keys
        return PyTreeDef("dict", keys, [_flatten(x[k], leaves, is_leaf) for k in keys])
    if _is_namedtuple(x):
        return PyTreeDef("namedtuple", t, [_flatten(c, leaves, is_leaf) for c in x])
    leaves.append(x)
    return _LEAF


def tree_flatten(tree, is_leaf=None):
    """(leaves, treedef); None is an empty node, as in JAX."""
    leaves = []
    treedef = _flatten(tree, leaves, is_leaf)
    return leaves, treedef


def tree_unflatten(treedef, leaves):
    return treedef.unflatten(leaves)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def treedef_is_leaf(treedef):
    return treedef.kind == "leaf"


def tree_map(f, tree, *rest, is_leaf=None):
    """f applied to the leaves of `tree` (and the matching leaves of `rest`, same structure)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = []
    for r in rest:
        rl, rd = tree_flatten(r, is_leaf)
        if rd != treedef:
            raise ValueError(f"tree_map: structures differ: {treedef!r} and {rd!r}")
        others.append(rl)
    return treedef.unflatten([f(*xs) for xs in zip(leaves, *others)])


def _prefix_leaves(prefix, tree, what):
    """One value of `prefix` per leaf of `tree`, where `prefix` is a tree prefix of `tree` whose
    leaves (ints or None) apply to whole subtrees (vmap's in_axes and out_axes)."""
    out = []

    def walk(p, t):
        if p is None or isinstance(p, int):
            out.extend([p] * len(tree_leaves(t)))
            return
        pd = tree_flatten(p, is_leaf=lambda v: v is None)[1]
        td = tree_structure(t)
        if pd.kind != td.kind or len(pd.children) != len(td.children) or pd.data != td.data:
            raise ValueError(f"{what} {p!r} is not a tree prefix of the value's structure "
                             f"{td!r}")
        if isinstance(p, dict):
            for k in sorted(p):
                walk(p[k], t[k])
        elif type(p) in _registry:
            pc, _ = _registry[type(p)][0](p)
            tc, _ = _registry[type(t)][0](t)
            for a, b in zip(pc, tc):
                walk(a, b)
        else:
            for a, b in zip(p, t):
                walk(a, b)

    walk(prefix, tree)
    return out
