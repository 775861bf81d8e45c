"""Pytrees (jax.tree_util's names): nested tuples, lists, dicts, None, namedtuples and registered
custom nodes flatten to a list of leaves and a PyTreeDef that rebuilds them; the key-path API
names every leaf by its path (SequenceKey, DictKey, GetAttrKey, FlattenedIndexKey)."""

import collections
import dataclasses
import functools
import operator

__all__ = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial", "PyTreeDef",
    "SequenceKey", "all_leaves", "build_tree", "default_registry", "keystr",
    "register_dataclass", "register_pytree_node", "register_pytree_node_class",
    "register_pytree_with_keys", "register_pytree_with_keys_class", "register_static",
    "tree_all", "tree_broadcast", "tree_flatten", "tree_flatten_with_path", "tree_leaves",
    "tree_leaves_with_path", "tree_map", "tree_map_with_path", "tree_reduce",
    "tree_reduce_associative", "tree_structure", "tree_transpose", "tree_unflatten",
    "treedef_children", "treedef_is_leaf", "treedef_tuple", "equality_errors",
    "flatten_one_level", "flatten_one_level_with_keys", "is_tree_node",
]


# ---- Key entries: one step of a leaf's path ---------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """The idx-th element of a tuple or list."""
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class DictKey:
    """The value under `key` of a dict (or OrderedDict, defaultdict)."""
    key: object

    def __str__(self):
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """The attribute `name` (namedtuple fields, dataclass fields)."""
    name: str

    def __str__(self):
        return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
    """The key-th child of a custom node registered without keys."""
    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"


KeyEntry = object  # any hashable key; the four classes above are the built-in ones
KeyPath = tuple  # a tuple of KeyEntry


def _simple_str(key):
    if isinstance(key, SequenceKey):
        return str(key.idx)
    if isinstance(key, (DictKey, FlattenedIndexKey)):
        return str(key.key)
    if isinstance(key, GetAttrKey):
        return str(key.name)
    return str(key)


def keystr(keys, *, simple=False, separator=""):
    """The key path `keys` as one string: "['a'][0].x", or with simple=True "a", "0", "x"
    joined by `separator`."""
    return separator.join(map(_simple_str if simple else str, keys))


# ---- The registry -----------------------------------------------------------------------------

class _Node(collections.namedtuple("_Node", "flatten unflatten flatten_with_keys")):
    """A registered node type: flatten(x) -> (children, aux), unflatten(aux, children) -> x, and
    flatten_with_keys(x) -> ([(key, child)...], aux) or None (children keyed by flat index)."""


_BUILTIN = (type(None), tuple, list, dict)


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


class PyTreeRegistry:
    """The set of custom node types (JAX's pytree registry); None, tuple, list, dict and
    namedtuples are built in."""

    def __init__(self):
        self._nodes = {}

    def register_node(self, nodetype, flatten_func, unflatten_func, flatten_with_keys_func=None):
        """Makes `nodetype` a node with these functions (see register_pytree_node)."""
        if nodetype in _BUILTIN or nodetype in self._nodes:
            raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")
        self._nodes[nodetype] = _Node(flatten_func, unflatten_func, flatten_with_keys_func)

    def register_dataclass_node(self, nodetype, data_fields, meta_fields):
        """Makes `nodetype` a node whose children are its data_fields attributes and whose
        static data are its meta_fields attributes (rebuilt with nodetype(**fields))."""
        data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)

        def flatten(x):
            return (tuple(getattr(x, n) for n in data_fields),
                    tuple(getattr(x, n) for n in meta_fields))

        def flatten_with_keys(x):
            return (tuple((GetAttrKey(n), getattr(x, n)) for n in data_fields),
                    tuple(getattr(x, n) for n in meta_fields))

        def unflatten(meta, data):
            return nodetype(**dict(zip(meta_fields, meta)), **dict(zip(data_fields, data)))

        self.register_node(nodetype, flatten, unflatten, flatten_with_keys)

    def flatten(self, tree, is_leaf=None):
        """(leaves, treedef) of `tree`; is_leaf(x) True stops the descent at x."""
        leaves = []
        return leaves, self._flatten(tree, leaves, is_leaf)

    def _flatten(self, x, leaves, is_leaf):
        if is_leaf is not None and is_leaf(x):
            leaves.append(x)
            return _LEAF
        if x is None:
            return _NONE
        t = type(x)
        if t is tuple or t is list:
            return PyTreeDef(t.__name__, None, [self._flatten(c, leaves, is_leaf) for c in x])
        if t is dict:
            keys = _sorted_keys(x)
            return PyTreeDef("dict", keys, [self._flatten(x[k], leaves, is_leaf) for k in keys])
        node = self._nodes.get(t)
        if node is not None:
            children, aux = node.flatten(x)
            return PyTreeDef("custom", (t, aux),
                             [self._flatten(c, leaves, is_leaf) for c in children],
                             registry=self)
        if _is_namedtuple(x):
            return PyTreeDef("namedtuple", t, [self._flatten(c, leaves, is_leaf) for c in x])
        leaves.append(x)
        return _LEAF

    def flatten_one_level(self, tree):
        """(children, aux data) of a node, None for a leaf."""
        t = type(tree)
        if tree is None:
            return (), None
        if t is tuple or t is list:
            return tree, None
        if t is dict:
            keys = _sorted_keys(tree)
            return [tree[k] for k in keys], keys
        node = self._nodes.get(t)
        if node is not None:
            return node.flatten(tree)
        if _is_namedtuple(tree):
            return tree, t
        return None

    def flatten_one_level_with_keys(self, tree):
        """([(key, child)...], aux data) of a node, None for a leaf."""
        t = type(tree)
        if tree is None:
            return [], None
        if t is tuple or t is list:
            return [(SequenceKey(i), c) for i, c in enumerate(tree)], None
        if t is dict:
            keys = _sorted_keys(tree)
            return [(DictKey(k), tree[k]) for k in keys], keys
        node = self._nodes.get(t)
        if node is not None:
            if node.flatten_with_keys is not None:
                kc, aux = node.flatten_with_keys(tree)
                return list(kc), aux
            children, aux = node.flatten(tree)
            return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], aux
        if _is_namedtuple(tree):
            return [(GetAttrKey(f), getattr(tree, f)) for f in t._fields], t
        return None

    def flatten_with_path(self, tree, is_leaf=None):
        """([(key path, leaf)...], treedef); is_leaf(path, x) True stops the descent at x."""
        pairs = []
        return pairs, self._flatten_path((), tree, pairs, is_leaf)

    def _flatten_path(self, path, x, pairs, is_leaf):
        if is_leaf is not None and is_leaf(path, x):
            pairs.append((path, x))
            return _LEAF
        if x is None:
            return _NONE
        level = self.flatten_one_level_with_keys(x)
        if level is None:
            pairs.append((path, x))
            return _LEAF
        kc, aux = level
        kids = [self._flatten_path(path + (k,), c, pairs, is_leaf) for k, c in kc]
        t = type(x)
        if t is tuple or t is list:
            return PyTreeDef(t.__name__, None, kids)
        if t is dict:
            return PyTreeDef("dict", aux, kids)
        if t in self._nodes:
            return PyTreeDef("custom", (t, aux), kids, registry=self)
        return PyTreeDef("namedtuple", t, kids)


def _sorted_keys(d):
    try:
        return tuple(sorted(d))
    except TypeError:  # keys of mixed types: JAX's order, by (type name, value)
        return tuple(sorted(d, key=lambda k: (type(k).__name__, k)))


default_registry = PyTreeRegistry()
_registry = default_registry._nodes


# ---- PyTreeDef --------------------------------------------------------------------------------

class _Children(tuple):
    """A node's child structures. A tuple (Strata's modules iterate `treedef.children`) that,
    called as `treedef.children()`, gives JAX's list."""
    __slots__ = ()

    def __call__(self):
        return list(self)


class PyTreeDef:
    """The structure of a pytree: a node kind, its static data, and its children's structures.
    Hashable and comparable with ==, so it can key caches (jit keys on it)."""
    __slots__ = ("kind", "data", "children", "num_leaves", "num_nodes", "_registry", "_hash")

    def __init__(self, kind, data, children, registry=None):
        self.kind = kind  # "leaf", "none", "tuple", "list", "dict", "namedtuple", "custom"
        self.data = data  # dict: sorted keys; namedtuple: its type; custom: (type, aux data)
        self.children = _Children(children)
        self.num_leaves = 1 if kind == "leaf" else sum(c.num_leaves for c in self.children)
        self.num_nodes = 1 + sum(c.num_nodes for c in self.children)
        self._registry = registry
        self._hash = None

    def _key(self):
        return (self.kind, self.data, self.children)

    def __eq__(self, other):
        if self is other:
            return True
        return isinstance(other, PyTreeDef) and self._key() == other._key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

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
            return f"CustomNode(namedtuple[{self.data.__name__}], [{inner}])"
        return f"CustomNode({self.data[0].__name__}[{self.data[1]!r}], [{inner}])"

    def __reduce__(self):
        return (PyTreeDef, (self.kind, self.data, tuple(self.children)))

    def node_data(self):
        """(type, aux data) of the root node; None for a leaf."""
        if self.kind == "leaf":
            return None
        if self.kind == "none":
            return (type(None), None)
        if self.kind in ("tuple", "list"):
            return ({"tuple": tuple, "list": list}[self.kind], None)
        if self.kind == "dict":
            return (dict, self.data)
        if self.kind == "namedtuple":
            return (self.data, None)
        return self.data

    def _make(self, kids):
        """The root node rebuilt around already-built children."""
        k = self.kind
        if k == "none":
            return None
        if k == "tuple":
            return tuple(kids)
        if k == "list":
            return list(kids)
        if k == "dict":
            return dict(zip(self.data, kids))
        if k == "namedtuple":
            return self.data(*kids)
        nodetype, aux = self.data
        nodes = (self._registry or default_registry)._nodes
        node = nodes.get(nodetype) or _registry.get(nodetype)
        return node.unflatten(aux, tuple(kids))

    def unflatten(self, leaves):
        """The pytree of this structure with these leaves (any iterable, in flattening order)."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            few = "few" if len(leaves) < self.num_leaves else "many"
            raise ValueError(f"Too {few} leaves for PyTreeDef; expected {self.num_leaves}, got "
                             f"{len(leaves)}.")
        it = iter(leaves)
        return self._build(it)

    def _build(self, it):
        if self.kind == "leaf":
            return next(it)
        return self._make([c._build(it) for c in self.children])

    def flatten_up_to(self, xs):
        """The subtrees of `xs` at this structure's leaves: xs must have this structure down to
        them (ValueError otherwise)."""
        out = []
        self._up_to(xs, out)
        return out

    def _up_to(self, x, out):
        k = self.kind
        if k == "leaf":
            out.append(x)
            return
        if k == "none":
            if x is not None:
                raise ValueError(f"Expected None, got {x!r}.")
            return
        if k in ("tuple", "list"):
            if type(x) is not (tuple if k == "tuple" else list):
                raise ValueError(f"Expected {k}, got {x!r}.")
            if len(x) != len(self.children):
                raise ValueError(f"{k.capitalize()} arity mismatch: {len(x)} != "
                                 f"{len(self.children)}; {k}: {x!r}.")
            kids = x
        elif k == "dict":
            if type(x) is not dict:
                raise ValueError(f"Expected dict, got {x!r}.")
            keys = _sorted_keys(x)
            if keys != self.data:
                raise ValueError(f"Dict key mismatch; expected keys: {list(self.data)!r}; "
                                 f"dict: {x!r}.")
            kids = [x[key] for key in keys]
        elif k == "namedtuple":
            if type(x) is not self.data:
                raise ValueError(f"Expected named tuple of type {self.data.__name__}, got "
                                 f"{x!r}.")
            kids = x
        else:
            nodetype, aux = self.data
            if type(x) is not nodetype:
                raise ValueError(f"Custom node type mismatch; expected type: {nodetype}; "
                                 f"value: {x!r}.")
            kids, xaux = default_registry._nodes[nodetype].flatten(x)
            kids = list(kids)
            if xaux != aux:
                raise ValueError(f"Mismatch custom node data: {xaux!r} != {aux!r}; value: "
                                 f"{x!r}.")
            if len(kids) != len(self.children):
                raise ValueError(f"Custom node arity mismatch: {len(kids)} != "
                                 f"{len(self.children)}; value: {x!r}.")
        for c, sub in zip(self.children, kids):
            c._up_to(sub, out)

    def compose(self, inner):
        """This structure with every leaf replaced by the structure `inner`."""
        if self.kind == "leaf":
            return inner
        return PyTreeDef(self.kind, self.data, [c.compose(inner) for c in self.children],
                         self._registry)

    def from_iterable_tree(self, xs):
        """The pytree of this structure built from nested iterables `xs` (one per node, in child
        order; anything at a leaf)."""
        if self.kind == "leaf":
            return xs
        kids = list(xs)
        if len(kids) != len(self.children):
            raise ValueError(f"Arity mismatch between trees: {len(kids)} children for a node "
                             f"of {len(self.children)} in {self!r}")
        return self._make([c.from_iterable_tree(x) for c, x in zip(self.children, kids)])

    def walk(self, f_node, f_leaf, leaves):
        """Folds the tree bottom-up: f_leaf(leaf) at leaves (identity if None), f_node(
        children's results, node data) at nodes."""
        it = iter(leaves)

        def go(t):
            if t.kind == "leaf":
                x = next(it)
                return x if f_leaf is None else f_leaf(x)
            return f_node(tuple(go(c) for c in t.children), t.node_data())
        return go(self)


_LEAF = PyTreeDef("leaf", None, ())
_NONE = PyTreeDef("none", None, ())


# ---- Flattening and mapping -------------------------------------------------------------------

def tree_flatten(tree, is_leaf=None):
    """(leaves, treedef) of a pytree; None is an empty node, dict keys are sorted (as in JAX)."""
    return default_registry.flatten(tree, is_leaf)


def tree_unflatten(treedef, leaves):
    """The pytree with structure `treedef` and these leaves."""
    return treedef.unflatten(leaves)


def tree_leaves(tree, is_leaf=None):
    """The leaves of a pytree, in flattening order."""
    return default_registry.flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    """The PyTreeDef of a pytree."""
    return default_registry.flatten(tree, is_leaf)[1]


def treedef_tuple(treedefs):
    """The structure of a tuple whose elements have these structures."""
    return PyTreeDef("tuple", None, list(treedefs))


def treedef_children(treedef):
    """The structures of the root node's children, as a list."""
    return list(treedef.children)


def treedef_is_leaf(treedef):
    """True for a structure of one node (a leaf, None or an empty container), as in JAX."""
    return treedef.num_nodes == 1


def _is_strict_leaf(treedef):
    return treedef.kind == "leaf"


def all_leaves(iterable, is_leaf=None):
    """True if every element of `iterable` is a leaf (is not a pytree node)."""
    if is_leaf is None:
        return all(_is_strict_leaf(tree_structure(x)) for x in iterable)
    lst = list(iterable)
    return lst == tree_leaves(lst, is_leaf)


def tree_map(f, tree, *rest, is_leaf=None):
    """f applied to the leaves of `tree` and the matching subtrees of `rest` (each must have
    tree's structure down to its leaves)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [treedef.flatten_up_to(r) for r in rest]
    return treedef.unflatten([f(*xs) for xs in zip(leaves, *others)])


def build_tree(treedef, xs):
    """The pytree of structure `treedef` from nested iterables `xs` (see
    PyTreeDef.from_iterable_tree)."""
    return treedef.from_iterable_tree(xs)


def tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose):
    """A pytree of structure outer(inner) turned into one of structure inner(outer); inner None:
    the structure of the first outer leaf."""
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    n_in, n_out = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != n_in * n_out:
        raise TypeError(f"Mismatch\n{treedef}\n != \n{outer_treedef.compose(inner_treedef)}")
    rows = [flat[i * n_in:(i + 1) * n_in] for i in range(n_out)]
    return inner_treedef.unflatten(outer_treedef.unflatten(col) for col in zip(*rows))


class _NoInitializer:
    def __repr__(self):
        return "<no initializer>"


no_initializer = _NoInitializer()


def tree_reduce(function, tree, initializer=no_initializer, is_leaf=None):
    """functools.reduce of `function` over the leaves (from `initializer` when given)."""
    leaves = tree_leaves(tree, is_leaf=is_leaf)
    if initializer is no_initializer:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(operation, tree, *, identity=no_initializer, is_leaf=None):
    """The leaves combined pairwise by an associative `operation` as a balanced tree
    (`identity` for an empty tree)."""
    def go(seq):
        if len(seq) == 1:
            return seq[0]
        mid = len(seq) // 2
        return operation(go(seq[:mid]), go(seq[mid:]))

    leaves = tree_leaves(tree, is_leaf=is_leaf)
    if not leaves:
        if identity is no_initializer:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    return go(leaves)


def tree_all(tree, *, is_leaf=None):
    """True if every leaf is truthy."""
    return all(tree_leaves(tree, is_leaf=is_leaf))


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    """`prefix_tree` (a tree prefix of full_tree) with each leaf repeated over the subtree of
    full_tree it covers."""
    return tree_structure(full_tree).unflatten(
        _broadcast_prefix(prefix_tree, full_tree, is_leaf))


def _broadcast_prefix(prefix_tree, full_tree, is_leaf=None):
    out = []
    tree_map(lambda p, sub: out.extend([p] * tree_structure(sub).num_leaves),
             prefix_tree, full_tree, is_leaf=is_leaf)
    return out


# ---- Key paths --------------------------------------------------------------------------------

def _with_path(tree, is_leaf, is_leaf_takes_path):
    if is_leaf is not None and not is_leaf_takes_path:
        return default_registry.flatten_with_path(tree, lambda _, x: is_leaf(x))
    return default_registry.flatten_with_path(tree, is_leaf)


def tree_flatten_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """([(key path, leaf)...], treedef); a key path is a tuple of key entries."""
    return _with_path(tree, is_leaf, is_leaf_takes_path)


def tree_leaves_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """[(key path, leaf)...] in flattening order."""
    return _with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f, tree, *rest, is_leaf=None, is_leaf_takes_path=False):
    """f(key path, leaf, *matching subtrees of rest) at every leaf of `tree`."""
    pairs, treedef = _with_path(tree, is_leaf, is_leaf_takes_path)
    others = [treedef.flatten_up_to(r) for r in rest]
    return treedef.unflatten([f(p, x, *xs) for (p, x), *xs in zip(pairs, *others)])


# ---- Registration -----------------------------------------------------------------------------

def register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func=None):
    """Makes `nodetype` a pytree node: flatten_func(x) -> (children, aux_data),
    unflatten_func(aux_data, children) -> x. aux_data must be hashable and comparable (it is
    part of the structure, which keys jit's cache)."""
    default_registry.register_node(nodetype, flatten_func, unflatten_func,
                                   flatten_with_keys_func)


def register_pytree_node_class(cls):
    """Class decorator: registers cls with its tree_flatten method and tree_unflatten
    classmethod."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys(nodetype, flatten_with_keys, unflatten_func, flatten_func=None):
    """Registers a node whose flatten_with_keys(x) -> ([(key, child)...], aux) names its
    children in key paths."""
    if flatten_func is None:
        def flatten_func(x):
            kc, aux = flatten_with_keys(x)
            return [c for _, c in kc], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls):
    """Class decorator: registers cls with its tree_flatten_with_keys method (and tree_flatten
    if present) and tree_unflatten classmethod."""
    flatten = operator.methodcaller("tree_flatten") if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                              cls.tree_unflatten, flatten)
    return cls


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """Registers a dataclass-like type: data_fields are children, meta_fields static data; for
    a dataclass both may be omitted (fields with metadata static=True are meta fields)."""
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError("register_dataclass: data_fields and meta_fields must both be "
                            f"specified when either is specified. Got {data_fields=} "
                            f"{meta_fields=}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass: data_fields and meta_fields are required when"
                            f" nodetype is not a dataclass. Got {nodetype=}.")
        fields = [f for f in dataclasses.fields(nodetype) if f.name not in drop_fields]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        given = {*data_fields, *meta_fields}
        if given != init:
            msg = ("data_fields and meta_fields must include all dataclass fields with "
                   "``init=True`` and only them.")
            if init - given:
                msg += (f" Missing fields: {init - given}. Add them to drop_fields to suppress "
                        "this error.")
            if given - init:
                msg += f" Unexpected fields: {given - init}."
            raise ValueError(msg)
    if set(data_fields) & set(meta_fields):
        raise ValueError("data_fields and meta_fields must not overlap. Overlapping fields: "
                         f"{set(data_fields) & set(meta_fields)}.")
    default_registry.register_dataclass_node(nodetype, data_fields, meta_fields)
    return nodetype


def register_static(cls):
    """Registers cls as a pytree with no leaves: its instances (hashable) are static data."""
    register_pytree_with_keys(cls, lambda x: ((), x), lambda x, _: x)
    return cls


register_pytree_with_keys(
    collections.OrderedDict,
    lambda x: (tuple((DictKey(k), v) for k, v in x.items()), tuple(x.keys())),
    lambda keys, values: collections.OrderedDict(zip(keys, values)))


def _defaultdict_with_keys(d):
    keys = _sorted_keys(d)
    return tuple((DictKey(k), d[k]) for k in keys), (d.default_factory, keys)


register_pytree_with_keys(
    collections.defaultdict, _defaultdict_with_keys,
    lambda aux, values: collections.defaultdict(aux[0], zip(aux[1], values)))


# ---- Partial ----------------------------------------------------------------------------------

class _HashableCallable:
    """A callable standing in for a functools.partial given to Partial, so that the bound
    arguments of the inner partial stay part of the function (static), not of the pytree."""

    def __init__(self, fun):
        self.fun = fun

    def __call__(self, *args, **kw):
        return self.fun(*args, **kw)

    def __hash__(self):
        return hash(self.fun)

    def __eq__(self, other):
        if isinstance(other, _HashableCallable):
            return self.fun == other.fun
        return self.fun == other

    def __repr__(self):
        return f"_HashableCallable({self.fun!r})"


class Partial(functools.partial):
    """functools.partial that is a pytree: the bound arguments are its leaves and the function
    its static data, so it can be passed through jit, grad and vmap."""

    def __new__(cls, func, *args, **kw):
        if isinstance(func, functools.partial):
            # functools.partial would merge an inner partial's arguments into this one's
            func = _HashableCallable(func)
        return super().__new__(cls, func, *args, **kw)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]))


def flatten_one_level(tree):
    """(children, aux data) of a pytree node; ValueError for a leaf."""
    out = default_registry.flatten_one_level(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


def flatten_one_level_with_keys(tree):
    """([(key, child)...], aux data) of a pytree node; ValueError for a leaf."""
    out = default_registry.flatten_one_level_with_keys(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


def is_tree_node(typ):
    """True if the type `typ` is a pytree node type (built in or registered)."""
    return (typ in _BUILTIN or typ in default_registry._nodes
            or (isinstance(typ, type) and issubclass(typ, tuple) and hasattr(typ, "_fields")))


# ---- Structural errors ------------------------------------------------------------------------

def equality_errors(tree1, tree2, is_leaf=None):
    """Yields (key path, thing in tree1, thing in tree2, explanation) for each place where the
    two pytrees' structures differ."""
    yield from _equality_errors((), tree1, tree2, is_leaf)


def _equality_errors(path, t1, t2, is_leaf):
    s1, s2 = tree_structure(t1, is_leaf), tree_structure(t2, is_leaf)
    if _is_strict_leaf(s1) and _is_strict_leaf(s2):
        return
    if type(t1) != type(t2):
        yield path, str(type(t1)), str(type(t2)), "their Python types differ"
        return
    if isinstance(t1, (list, tuple)) and len(t1) != len(t2):
        yield (path, f"{type(t1).__name__} of length {len(t1)}",
               f"{type(t2).__name__} of length {len(t2)}", "the lengths do not match")
        return
    c1, m1 = default_registry.flatten_one_level_with_keys(t1)
    c2, m2 = default_registry.flatten_one_level_with_keys(t2)
    if len(c1) != len(c2):
        yield (path, f"{type(t1)} with {len(c1)} children", f"{type(t2)} with {len(c2)} "
               "children", "the numbers of children do not match")
        return
    if m1 != m2:
        yield (path, f"{type(t1)} with pytree metadata {m1}",
               f"{type(t2)} with pytree metadata {m2}",
               "the pytree node metadata does not match")
        return
    for (k, a), (_, b) in zip(c1, c2):
        yield from _equality_errors(path + (k,), a, b, is_leaf)


# ---- Helpers for strata's transforms ----------------------------------------------------------

def _prefix_leaves(prefix, tree, what):
    """One value of `prefix` per leaf of `tree`, where `prefix` is a tree prefix of `tree` whose
    leaves (ints or None) apply to whole subtrees (vmap's in_axes and out_axes)."""
    out = []

    def walk(p, t):
        if p is None or hasattr(type(p), "__index__"):
            out.extend([p] * tree_structure(t).num_leaves)
            return
        pl = default_registry.flatten_one_level(p)
        tl = default_registry.flatten_one_level(t)
        if pl is None:
            raise ValueError(f"{what} must hold ints or None, got {p!r}")
        if (tl is None or type(p) is not type(t) or pl[1] != tl[1]
                or len(list(pl[0])) != len(list(tl[0]))):
            raise ValueError(f"{what} {p!r} is not a tree prefix of the value's structure "
                             f"{tree_structure(t)!r}")
        for a, b in zip(pl[0], tl[0]):
            walk(a, b)

    walk(prefix, tree)
    return out
