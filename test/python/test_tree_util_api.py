"""strata.tree_util and strata.tree against JAX's documented behaviour (the expected values are
those of JAX's docstrings and pytree semantics), and pytrees through grad, vmap and jit."""

import collections
import dataclasses
import functools
import pickle

import numpy as np
import pytest

import strata
import strata.numpy as jnp
import strata.tree
from strata import tree_util as tu

Point = collections.namedtuple("Point", "x y")


def test_public_names_match_jax():
    jax_names = {
        "DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial",
        "PyTreeDef", "SequenceKey", "all_leaves", "build_tree", "default_registry", "keystr",
        "register_dataclass", "register_pytree_node", "register_pytree_node_class",
        "register_pytree_with_keys", "register_pytree_with_keys_class", "register_static",
        "tree_all", "tree_broadcast", "tree_flatten", "tree_flatten_with_path", "tree_leaves",
        "tree_leaves_with_path", "tree_map", "tree_map_with_path", "tree_reduce",
        "tree_reduce_associative", "tree_structure", "tree_transpose", "tree_unflatten",
        "treedef_children", "treedef_is_leaf", "treedef_tuple"}
    assert len(jax_names) == 34
    assert jax_names <= set(tu.__all__)
    for n in tu.__all__:
        assert hasattr(tu, n), n
    assert {"flatten_one_level", "flatten_one_level_with_keys", "is_tree_node",
            "equality_errors"} <= set(tu.__all__)
    tree_names = {"all", "broadcast", "flatten", "flatten_with_path", "leaves",
                  "leaves_with_path", "map", "map_with_path", "reduce", "reduce_associative",
                  "static", "structure", "transpose", "unflatten"}
    assert set(strata.tree.__all__) == tree_names
    for n in tree_names:
        assert callable(getattr(strata.tree, n))


def test_flatten_order_and_repr():
    tree = {"b": [1, (2, None)], "a": Point(3, {"k": 4})}
    leaves, td = tu.tree_flatten(tree)
    assert leaves == [3, 4, 1, 2]
    assert repr(td) == ("PyTreeDef({'a': CustomNode(namedtuple[Point], [*, {'k': *}]), "
                        "'b': [*, (*, None)]})")
    assert repr(tu.tree_structure((1,))) == "PyTreeDef((*,))"
    assert repr(tu.tree_structure(None)) == "PyTreeDef(None)"
    assert repr(tu.tree_structure(5)) == "PyTreeDef(*)"
    assert td.num_leaves == 4 and td.num_nodes == 10
    assert tu.tree_unflatten(td, [10, 20, 30, 40]) == {"a": Point(10, {"k": 20}),
                                                       "b": [30, (40, None)]}
    with pytest.raises(ValueError, match="Too few leaves"):
        td.unflatten([1, 2])
    with pytest.raises(ValueError, match="Too many leaves"):
        td.unflatten(range(5))


def test_treedef_eq_hash_pickle_and_children():
    a = tu.tree_structure([(1, 2), 3, {"a": 4}])
    b = tu.tree_structure([("x", "y"), None, {"a": 0}])
    c = tu.tree_structure([(1, 2), 3, {"a": 4}])
    assert a == c and hash(a) == hash(c) and a != b and len({a, b, c}) == 2
    assert tu.treedef_children(a) == [tu.tree_structure(v) for v in [(1, 2), 3, {"a": 4}]]
    assert a.children() == tu.treedef_children(a)
    assert pickle.loads(pickle.dumps(a)) == a
    xy = tu.treedef_tuple([tu.tree_structure([1, 2, 3]), tu.tree_structure({"a": 4, "b": 5})])
    assert xy == tu.tree_structure(([1, 2, 3], {"a": 4, "b": 5}))
    assert tu.treedef_is_leaf(tu.tree_structure(1))
    assert not tu.treedef_is_leaf(tu.tree_structure([1, 2]))
    assert tu.treedef_is_leaf(tu.tree_structure(None))  # one node, as in JAX
    assert a.node_data() == (list, None)
    assert tu.tree_structure({"q": 1}).node_data() == (dict, ("q",))
    assert tu.tree_structure(1).node_data() is None


def test_is_leaf_and_none():
    tree = [1, [2, 3], None]
    assert tu.tree_leaves(tree) == [1, 2, 3]
    assert tu.tree_leaves(tree, is_leaf=lambda x: x is None) == [1, 2, 3, None]
    assert tu.tree_leaves(tree, is_leaf=lambda x: isinstance(x, list) and len(x) == 2) == \
        [1, [2, 3]]
    assert tu.tree_map(lambda x: x * 10, tree) == [10, [20, 30], None]
    assert tu.all_leaves(tu.tree_leaves({"a": [1, 2, 3]}))
    assert not tu.all_leaves([{"a": [1, 2, 3]}])
    assert not tu.all_leaves([None])
    assert tu.all_leaves([[1], 2], is_leaf=lambda x: isinstance(x, list) and len(x) == 1)


def test_tree_map_prefix_semantics_and_errors():
    assert tu.tree_map(lambda a, b: (a, b), [1, 2], [(1, 2), 3]) == [(1, (1, 2)), (2, 3)]
    assert tu.tree_map(lambda a, b, c: a + b + c, {"x": 1}, {"x": 2}, {"x": 3}) == {"x": 6}
    with pytest.raises(ValueError):
        tu.tree_map(lambda a, b: a, [1], (1,))
    with pytest.raises(ValueError):
        tu.tree_map(lambda a, b: a, [1, 2], [1])
    with pytest.raises(ValueError):
        tu.tree_map(lambda a, b: a, {"a": 1}, {"b": 1})
    with pytest.raises(ValueError):
        tu.tree_map(lambda a, b: a, [None], [3])
    td = tu.tree_structure([0, (0, 0)])
    assert td.flatten_up_to([[1], ("a", {"b": 2})]) == [[1], "a", {"b": 2}]


def test_reduce_all_transpose_build_broadcast():
    assert tu.tree_reduce(lambda a, b: a + b, [1, (2, 3)]) == 6
    assert tu.tree_reduce(lambda a, b: a + b, [1, (2, 3)], 10) == 16
    assert tu.tree_reduce(lambda a, b: a + [b], [[1], [2]], [],
                          is_leaf=lambda x: isinstance(x, list) and len(x) == 1) == [[1], [2]]
    assert strata.tree.reduce(lambda a, b: a * b, {"a": 2, "b": 3}) == 6
    calls = []
    res = tu.tree_reduce_associative(lambda a, b: calls.append((a, b)) or a + b,
                                     [1, 2, 3, 4])
    assert res == 10 and calls == [(1, 2), (3, 4), (3, 7)]
    assert tu.tree_reduce_associative(lambda a, b: a + b, [], identity=0) == 0
    with pytest.raises(TypeError):
        tu.tree_reduce_associative(lambda a, b: a + b, [])
    assert tu.tree_all([True, (1, 2)]) and not tu.tree_all([True, (0, 2)])
    assert tu.tree_all([[], True], is_leaf=lambda x: x == []) is False
    outer, inner = tu.tree_structure([0, 0, 0]), tu.tree_structure({"a": 0, "b": 0})
    tree = [{"a": 1, "b": 2}, {"a": 3, "b": 4}, {"a": 5, "b": 6}]
    assert tu.tree_transpose(outer, inner, tree) == {"a": [1, 3, 5], "b": [2, 4, 6]}
    assert tu.tree_transpose(outer, None, tree) == {"a": [1, 3, 5], "b": [2, 4, 6]}
    with pytest.raises(TypeError):
        tu.tree_transpose(outer, tu.tree_structure((0, 0, 0)), tree)
    td = tu.tree_structure([(1, 2), {"a": 3, "b": 4}])
    assert tu.build_tree(td, [[10, 11], [12, 13]]) == [(10, 11), {"a": 12, "b": 13}]
    assert tu.tree_broadcast({"x": 10, "y": 20}, {"x": {"a": 1, "b": 2}, "y": 3}) == \
        {"x": {"a": 10, "b": 10}, "y": 20}
    assert strata.tree.broadcast(100, {"x": [1, 2], "y": 3}) == {"x": [100, 100], "y": 100}
    with pytest.raises(ValueError):
        tu.tree_broadcast({"x": 10}, {"x": 1, "y": 3})
    assert td.compose(tu.tree_structure((0, 0))).num_leaves == 8


def test_key_paths_and_keystr():
    params = {"foo": {"bar": {"baz": 1, "bat": [2, 3]}}}
    paths = [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(params)]
    assert paths == ["['foo']['bar']['bat'][0]", "['foo']['bar']['bat'][1]",
                     "['foo']['bar']['baz']"]
    simple = [tu.keystr(p, simple=True, separator="/")
              for p, _ in tu.tree_leaves_with_path(params)]
    assert simple == ["foo/bar/bat/0", "foo/bar/bat/1", "foo/bar/baz"]
    assert tu.keystr((0, 1, "a", "b")) == "01ab"
    kl, td = tu.tree_flatten_with_path([Point(1, 2), None, 3])
    assert kl == [((tu.SequenceKey(0), tu.GetAttrKey("x")), 1),
                  ((tu.SequenceKey(0), tu.GetAttrKey("y")), 2), ((tu.SequenceKey(2),), 3)]
    assert td == tu.tree_structure([Point(1, 2), None, 3])
    assert str(tu.FlattenedIndexKey(3)) == "[<flat index 3>]"
    assert repr(tu.DictKey("a")) == "DictKey(key='a')"
    out = tu.tree_map_with_path(lambda p, x, y: (tu.keystr(p), x + y), {"a": 1, "b": [2]},
                                {"a": 10, "b": [20]})
    assert out == {"a": ("['a']", 11), "b": [("['b'][0]", 22)]}
    out = strata.tree.map_with_path(lambda p, x: len(p), [1, [2, 3]],
                                    is_leaf=lambda p, x: len(p) == 1, is_leaf_takes_path=True)
    assert out == [1, 1]
    kl, td = strata.tree.flatten_with_path([1, [2, 3]], is_leaf=lambda x: x == [2, 3])
    assert [x for _, x in kl] == [1, [2, 3]] and td.num_leaves == 2
    od = collections.OrderedDict([("z", 1), ("a", 2)])
    assert tu.tree_leaves(od) == [1, 2]
    assert [p for p, _ in tu.tree_leaves_with_path(od)] == [(tu.DictKey("z"),),
                                                            (tu.DictKey("a"),)]
    dd = collections.defaultdict(list, {"b": 1, "a": 2})
    back = tu.tree_map(lambda x: x + 1, dd)
    assert isinstance(back, collections.defaultdict) and back.default_factory is list
    assert dict(back) == {"a": 3, "b": 2}


class _Special:
    def __init__(self, x, y):
        self.x, self.y = x, y


def test_registrations():
    @tu.register_pytree_node_class
    class Box:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def tree_flatten(self):
            return (self.a, self.b), "meta"

        @classmethod
        def tree_unflatten(cls, aux, children):
            assert aux == "meta"
            return cls(*children)

    leaves, td = tu.tree_flatten(Box(1, [2, 3]))
    assert leaves == [1, 2, 3] and repr(td) == "PyTreeDef(CustomNode(Box['meta'], [*, [*, *]]))"
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(Box(1, 2))] == \
        ["[<flat index 0>]", "[<flat index 1>]"]
    with pytest.raises(ValueError, match="Duplicate"):
        tu.register_pytree_node(Box, lambda b: ((), None), lambda a, c: Box(1, 2))
    with pytest.raises(ValueError):
        tu.register_pytree_node(tuple, lambda b: ((), None), lambda a, c: ())

    @tu.register_pytree_with_keys_class
    class Special:
        def __init__(self, x, y):
            self.x, self.y = x, y

        def tree_flatten_with_keys(self):
            return ((tu.GetAttrKey("x"), self.x), (tu.GetAttrKey("y"), self.y)), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)

    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path([Special(1, 2)])] == \
        ["[0].x", "[0].y"]
    s = tu.tree_map(lambda v: v * 2, Special(1, 2))
    assert (s.x, s.y) == (2, 4)

    tu.register_pytree_with_keys(
        _Special, lambda s: (((tu.DictKey("x"), s.x), (tu.DictKey("y"), s.y)), "aux"),
        lambda aux, ch: _Special(*ch))
    assert tu.tree_leaves(_Special(5, [6])) == [5, 6]

    @tu.register_static
    class StaticStr(str):
        pass

    assert tu.tree_leaves([StaticStr("add"), 1]) == [1]
    assert tu.tree_structure(StaticStr("a")) != tu.tree_structure(StaticStr("b"))


def test_register_dataclass_both_forms():
    @functools.partial(tu.register_dataclass, data_fields=["x", "y"], meta_fields=["op"])
    @dataclasses.dataclass
    class S1:
        x: object
        y: object
        op: str

    leaves, td = tu.tree_flatten(S1(1, 2, "add"))
    assert leaves == [1, 2] and repr(td) == "PyTreeDef(CustomNode(S1[('add',)], [*, *]))"
    assert tu.tree_unflatten(td, [3, 4]) == S1(3, 4, "add")

    @tu.register_dataclass
    @dataclasses.dataclass
    class S2:
        x: object
        y: object
        op: str = dataclasses.field(metadata=dict(static=True))

    leaves, td = tu.tree_flatten(S2(1, 2, "mul"))
    assert leaves == [1, 2] and td.node_data() == (S2, ("mul",))
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(S2(1, 2, "m"))] == [".x", ".y"]
    with pytest.raises(ValueError, match="Missing fields"):
        @functools.partial(tu.register_dataclass, data_fields=["x"], meta_fields=[])
        @dataclasses.dataclass
        class S3:
            x: object
            y: object
    with pytest.raises(TypeError):
        tu.register_dataclass(int)
    with pytest.raises(TypeError):
        tu.register_dataclass(S2, data_fields=["x"])


def test_equality_errors():
    errs = list(tu.equality_errors([1, (2, 3)], [1, [2, 3]]))
    assert len(errs) == 1 and errs[0][0] == (tu.SequenceKey(1),)
    assert "types differ" in errs[0][3]
    assert list(tu.equality_errors({"a": 1}, {"a": 2})) == []


def test_partial_is_a_pytree_through_jit_and_grad():
    add = tu.Partial(jnp.add, jnp.float32(1.0))
    leaves, td = tu.tree_flatten(add)
    assert len(leaves) == 1 and float(add(2.0)) == 3.0

    @strata.jit
    def call(f, x):
        return f(x)

    np.testing.assert_allclose(np.asarray(call(add, jnp.float32(2.0))), 3.0)
    np.testing.assert_allclose(np.asarray(call(tu.Partial(jnp.multiply, 3.0), 2.0)), 6.0)
    g = strata.grad(lambda p: p(2.0))(tu.Partial(lambda a, x: a * x * x, 3.0))
    assert isinstance(g, tu.Partial)
    np.testing.assert_allclose(float(g.args[0]), 4.0)
    inner = functools.partial(lambda a, b, c: a + b + c, 1)
    p = tu.Partial(inner, 2)
    assert tu.tree_leaves(p) == [2] and p(3) == 6


def test_dataclass_and_custom_nodes_through_vmap_and_grad():
    @tu.register_dataclass
    @dataclasses.dataclass
    class Params:
        w: object
        b: object
        act: str = dataclasses.field(default="tanh", metadata=dict(static=True))

    def loss(p, x):
        h = jnp.tanh(x * p.w + p.b) if p.act == "tanh" else x * p.w + p.b
        return jnp.sum(h * h)

    p = Params(jnp.asarray(np.array([0.5, -0.3], np.float32)), jnp.float32(0.1))
    x = np.array([1.0, 2.0], np.float32)
    g = strata.grad(loss)(p, x)
    assert isinstance(g, Params) and g.act == "tanh"

    def loss_np(w, b):
        return np.sum(np.tanh(x * w + b) ** 2)

    from conftest import numerical_grad
    w64 = np.array([0.5, -0.3])
    np.testing.assert_allclose(np.asarray(g.w), numerical_grad(lambda w: loss_np(w, 0.1), w64),
                               rtol=1e-4)
    np.testing.assert_allclose(float(g.b), numerical_grad(lambda b: loss_np(w64, b), 0.1),
                               rtol=1e-4)
    xs = np.arange(6, dtype=np.float32).reshape(3, 2)
    batched = strata.vmap(loss, in_axes=(None, 0))(p, xs)
    per_row = [np.sum(np.tanh(r * w64 + 0.1) ** 2) for r in xs]
    np.testing.assert_allclose(np.asarray(batched), per_row, rtol=1e-5)
    jitted = strata.jit(loss)
    np.testing.assert_allclose(float(jitted(p, x)), float(loss(p, x)), rtol=1e-6)
    p2 = Params(p.w, p.b, act="linear")
    np.testing.assert_allclose(float(jitted(p2, x)), np.sum((x * w64 + 0.1) ** 2), rtol=1e-5)


def test_tree_module_aliases():
    t = {"a": [1, 2], "b": (3,)}
    leaves, td = strata.tree.flatten(t)
    assert leaves == [1, 2, 3] and strata.tree.structure(t) == td
    assert strata.tree.unflatten(td, [4, 5, 6]) == {"a": [4, 5], "b": (6,)}
    assert strata.tree.leaves(t) == [1, 2, 3]
    assert strata.tree.map(lambda x, y: x - y, t, t) == {"a": [0, 0], "b": (0,)}
    assert strata.tree.all(t) and not strata.tree.all({"a": 0})
    assert [p for p, _ in strata.tree.leaves_with_path((1,))] == [(tu.SequenceKey(0),)]
    assert strata.tree.transpose(tu.tree_structure([0, 0]), tu.tree_structure((0, 0)),
                                 [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert strata.tree.reduce_associative(max, [3, 9, 2]) == 9


def test_one_level_and_node_types():
    assert tu.flatten_one_level({"a": [1, 2], "b": {"c": 3}}) == ([[1, 2], {"c": 3}], ("a", "b"))
    assert tu.flatten_one_level(Point(1, 2)) == (Point(1, 2), Point)
    kc, aux = tu.flatten_one_level_with_keys([5, 6])
    assert kc == [(tu.SequenceKey(0), 5), (tu.SequenceKey(1), 6)] and aux is None
    with pytest.raises(ValueError, match="can't tree-flatten"):
        tu.flatten_one_level(3.0)
    assert all(tu.is_tree_node(t) for t in (tuple, list, dict, type(None), Point,
                                            collections.OrderedDict, tu.Partial))
    assert not tu.is_tree_node(int) and not tu.is_tree_node(np.ndarray)


def test_tree_static_field():
    @tu.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: object
        op: str = strata.tree.static(default="add")

    leaves, td = strata.tree.flatten(Op(1.0))
    assert leaves == [1.0] and td.node_data() == (Op, ("add",))
    assert dataclasses.fields(Op)[1].metadata["static"] is True
