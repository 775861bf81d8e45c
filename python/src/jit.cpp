// Bindings of the jit core (include/strata/jit.h) and the jitted call from Python: JitCall (the
// base of strata.jit's wrapper, whose call flattens arguments, keys the cache and rebuilds the
// outputs in C++ for pytrees of builtin containers), Lowered, and the cache counters.
#include "common.h"

#include <algorithm>
#include <string_view>

#include "strata/internal/blocking.h"
#include "strata/jit.h"

namespace strata::python {
namespace {

/// A Python object kept by C++ code that may drop it without the GIL (a trace kept by a grad
/// node) or after the interpreter is gone (then it leaks). Cheaper than hold() when the GIL is
/// already held, as it is when a call ends.
template <class T> std::shared_ptr<T> held(T value) {
  return std::shared_ptr<T>(new T(std::move(value)), [](T *p) {
    if (!Py_IsInitialized())
      return; // the interpreter is gone: leak the object rather than touch its references
    if (PyGILState_Check()) {
      delete p;
      return;
    }
    py::gil_scoped_acquire gil;
    delete p;
  });
}

// ---- Builtin pytrees --------------------------------------------------------------------------

/// The objects the fast path consults, set once by strata.api (_jit_setup) and kept for the
/// interpreter's life.
struct Setup {
  PyTypeObject *array = nullptr;
  PyTypeObject *ndarray = nullptr;
  PyObject *np_generic = nullptr;
  /// strata.tree_util's registry of custom node types (type -> node).
  PyObject *registry = nullptr;
  /// strata.tree_util.tree_flatten, for outputs that are not builtin pytrees.
  PyObject *tree_flatten = nullptr;
  /// strata.config and its attribute dict (where its cached trace key lives) and options.
  PyObject *config = nullptr;
  PyObject *config_dict = nullptr;
  PyObject *config_values = nullptr;
  PyObject *s_key = nullptr, *s_trace_key = nullptr, *s_disable_jit = nullptr,
           *s_log_compiles = nullptr, *s_fun = nullptr, *s_keys = nullptr,
           *s_call_general = nullptr;
  bool ready = false;
};
Setup &setup() {
  static Setup *s = new Setup(); // never destroyed: it outlives the interpreter's teardown
  return *s;
}

enum class Node { Leaf, None, Tuple, List, Dict, Other };

/// How the fast path treats `x`: a builtin node (exact tuple, list, dict with str keys, None),
/// an array-like leaf (Array, Python bool/int/float, numpy array or scalar), or Other: a
/// registered node, a namedtuple or container subclass, a dict with other keys, any other
/// leaf type. Other sends the call to the general (Python pytree) path.
Node node_of(PyObject *x) {
  const Setup &s = setup();
  PyTypeObject *t = Py_TYPE(x);
  if (x == Py_None)
    return Node::None;
  if (t == &PyTuple_Type)
    return Node::Tuple;
  if (t == &PyList_Type)
    return Node::List;
  if (t == &PyDict_Type)
    return Node::Dict;
  if (PyDict_GET_SIZE(s.registry) > 0) {
    int registered = PyDict_Contains(s.registry, reinterpret_cast<PyObject *>(t));
    if (registered != 0) {
      if (registered < 0)
        PyErr_Clear();
      return Node::Other;
    }
  }
  if (t == s.array || t == &PyFloat_Type || t == &PyLong_Type || t == &PyBool_Type ||
      t == s.ndarray || PyObject_TypeCheck(x, reinterpret_cast<PyTypeObject *>(s.np_generic)))
    return Node::Leaf;
  return Node::Other;
}

/// A dict's (key text, key, value) entries in tree_flatten's order (sorted keys), or false when
/// a key is not a str.
using DictEntries = std::vector<std::tuple<std::string_view, PyObject *, PyObject *>>;
bool sorted_entries(PyObject *d, DictEntries &out) {
  out.clear();
  out.reserve(static_cast<size_t>(PyDict_GET_SIZE(d)));
  Py_ssize_t pos = 0;
  PyObject *k, *v;
  while (PyDict_Next(d, &pos, &k, &v)) {
    if (!PyUnicode_CheckExact(k))
      return false;
    Py_ssize_t n;
    const char *text = PyUnicode_AsUTF8AndSize(k, &n);
    if (!text) { // a lone surrogate: the general path orders it
      PyErr_Clear();
      return false;
    }
    out.emplace_back(std::string_view(text, static_cast<size_t>(n)), k, v);
  }
  // UTF-8 byte order is code point order, which is Python's str order.
  std::sort(out.begin(), out.end(),
            [](const auto &a, const auto &b) { return std::get<0>(a) < std::get<0>(b); });
  return true;
}

void append_key(std::string &code, std::string_view key) {
  code += std::to_string(key.size());
  code += ':';
  code += key;
}

/// Python's recursion limit on one level of a nested argument: a list holding itself, or one
/// nested 200,000 deep, is a RecursionError (as tree_flatten gives) before the C stack runs out.
struct RecursionGuard {
  explicit RecursionGuard(const char *where) {
    if (Py_EnterRecursiveCall(where))
      throw py::error_already_set();
  }
  ~RecursionGuard() { Py_LeaveRecursiveCall(); }
  RecursionGuard(const RecursionGuard &) = delete;
  RecursionGuard &operator=(const RecursionGuard &) = delete;
};

/// Flattens an argument into `leaves` and appends its structure to `code` ('*' a leaf, 'N'
/// None, '(...)' a tuple, '[...]' a list, '{len:key child ...}' a dict); false when any part
/// is not a builtin pytree of array-likes.
bool flatten_arg(PyObject *x, std::vector<Array> &leaves, std::string &code) {
  RecursionGuard guard(" while flattening a jit argument");
  switch (node_of(x)) {
  case Node::Leaf:
    leaves.push_back(to_array(x));
    code += '*';
    return true;
  case Node::None:
    code += 'N';
    return true;
  case Node::Tuple:
  case Node::List: {
    bool tuple = PyTuple_CheckExact(x);
    code += tuple ? '(' : '[';
    Py_ssize_t n = tuple ? PyTuple_GET_SIZE(x) : PyList_GET_SIZE(x);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (!flatten_arg(tuple ? PyTuple_GET_ITEM(x, i) : PyList_GET_ITEM(x, i), leaves, code))
        return false;
    code += tuple ? ')' : ']';
    return true;
  }
  case Node::Dict: {
    DictEntries entries;
    if (!sorted_entries(x, entries))
      return false;
    code += '{';
    for (const auto &[text, k, v] : entries) {
      append_key(code, text);
      if (!flatten_arg(v, leaves, code))
        return false;
    }
    code += '}';
    return true;
  }
  case Node::Other:
    return false;
  }
  return false;
}

/// Reads an argument structure written by flatten_arg back, with `leaves` (the trace's
/// values) at its leaves: the arguments the function is traced with.
class ArgReader {
public:
  ArgReader(std::string_view code, const std::vector<Array> &leaves)
      : code_(code), leaves_(leaves) {}

  py::object read() {
    char c = next();
    switch (c) {
    case '*':
      if (leaf_ >= leaves_.size())
        throw std::runtime_error("[jit] the trace was given fewer values than the arguments "
                                 "have leaves");
      return py::cast(leaves_[leaf_++]);
    case 'N':
      return py::none();
    case '(':
    case '[': {
      py::list items;
      while (peek() != (c == '(' ? ')' : ']'))
        items.append(read());
      ++pos_;
      if (c == '[')
        return std::move(items);
      return py::reinterpret_steal<py::object>(PyList_AsTuple(items.ptr()));
    }
    case '{': {
      py::dict d;
      while (peek() != '}') {
        py::str key = read_key();
        d[key] = read();
      }
      ++pos_;
      return std::move(d);
    }
    default:
      throw std::runtime_error("[jit] malformed argument structure");
    }
  }
  /// The `{...}` of keyword arguments, as (name, value) pairs.
  std::vector<std::pair<py::str, py::object>> read_keywords() {
    if (next() != '{')
      throw std::runtime_error("[jit] malformed argument structure");
    std::vector<std::pair<py::str, py::object>> out;
    while (peek() != '}') {
      py::str key = read_key();
      out.emplace_back(key, read());
    }
    ++pos_;
    return out;
  }
  char next() {
    if (pos_ >= code_.size())
      throw std::runtime_error("[jit] malformed argument structure");
    return code_[pos_++];
  }
  char peek() const {
    if (pos_ >= code_.size())
      throw std::runtime_error("[jit] malformed argument structure");
    return code_[pos_];
  }
  bool all_read() const { return leaf_ == leaves_.size(); }

private:
  py::str read_key() {
    size_t colon = code_.find(':', pos_);
    size_t n = std::stoul(std::string(code_.substr(pos_, colon - pos_)));
    py::str key(code_.data() + colon + 1, n);
    pos_ = colon + 1 + n;
    return key;
  }
  std::string_view code_;
  const std::vector<Array> &leaves_;
  size_t pos_ = 0, leaf_ = 0;
};

/// The structure of a jitted function's outputs, kept with its executable: either a program
/// of builtin nodes (rebuilt here) or a strata.tree_util PyTreeDef (other pytrees).
struct OutStructure {
  enum Op : int32_t { kLeaf, kNone, kTuple, kList, kDict };
  /// Ops in preorder; tuple, list and dict ops are followed by their number of children.
  std::vector<int32_t> ops;
  /// The keys of the dicts in `ops`, in order; or the PyTreeDef.
  std::shared_ptr<py::object> keys, treedef;

  /// The structure of `out`, its leaves appended to `leaves` (as to_array converts them).
  static std::shared_ptr<OutStructure> of(py::handle out, std::vector<Array> &leaves) {
    auto s = std::make_shared<OutStructure>();
    py::list keys;
    size_t first = leaves.size();
    if (s->flatten(out.ptr(), leaves, keys)) {
      s->keys = held<py::object>(std::move(keys));
      return s;
    }
    leaves.resize(first);
    s->ops.clear();
    py::tuple r = py::reinterpret_borrow<py::object>(setup().tree_flatten)(out);
    for (py::handle leaf : r[0])
      leaves.push_back(to_array(leaf));
    s->treedef = held<py::object>(r[1]);
    return s;
  }
  /// A structure kept by the general path's trace (its PyTreeDef).
  static std::shared_ptr<OutStructure> of_treedef(py::object treedef) {
    auto s = std::make_shared<OutStructure>();
    s->treedef = held<py::object>(std::move(treedef));
    return s;
  }

  /// The outputs `outs` in this structure.
  py::object build(std::vector<Array> outs) const {
    if (treedef)
      return treedef->attr("unflatten")(py::cast(std::move(outs)));
    if (ops.size() == 1 && ops[0] == kLeaf && outs.size() == 1)
      return py::cast(std::move(outs[0]));
    size_t op = 0, leaf = 0, key = 0;
    py::object r = build(outs, op, leaf, key);
    if (leaf != outs.size())
      throw std::runtime_error("[jit] the executable returned a number of outputs its "
                               "structure does not hold");
    return r;
  }

private:
  bool flatten(PyObject *x, std::vector<Array> &leaves, py::list &keys) {
    RecursionGuard guard(" while flattening a jit output");
    switch (node_of(x)) {
    case Node::Leaf:
      ops.push_back(kLeaf);
      leaves.push_back(to_array(x));
      return true;
    case Node::None:
      ops.push_back(kNone);
      return true;
    case Node::Tuple:
    case Node::List: {
      bool tuple = PyTuple_CheckExact(x);
      Py_ssize_t n = tuple ? PyTuple_GET_SIZE(x) : PyList_GET_SIZE(x);
      ops.push_back(tuple ? kTuple : kList);
      ops.push_back(static_cast<int32_t>(n));
      for (Py_ssize_t i = 0; i < n; ++i)
        if (!flatten(tuple ? PyTuple_GET_ITEM(x, i) : PyList_GET_ITEM(x, i), leaves, keys))
          return false;
      return true;
    }
    case Node::Dict: {
      DictEntries entries;
      if (!sorted_entries(x, entries))
        return false;
      ops.push_back(kDict);
      ops.push_back(static_cast<int32_t>(entries.size()));
      for (const auto &[text, k, v] : entries) {
        keys.append(py::handle(k));
        if (!flatten(v, leaves, keys))
          return false;
      }
      return true;
    }
    case Node::Other:
      return false;
    }
    return false;
  }

  py::object build(std::vector<Array> &outs, size_t &op, size_t &leaf, size_t &key) const {
    if (op >= ops.size())
      throw std::runtime_error("[jit] malformed output structure");
    switch (ops[op++]) {
    case kLeaf:
      if (leaf >= outs.size())
        throw std::runtime_error("[jit] the executable returned fewer outputs than its "
                                 "structure holds");
      return py::cast(std::move(outs[leaf++]));
    case kNone:
      return py::none();
    case kTuple: {
      int32_t n = ops[op++];
      py::tuple t(n);
      for (int32_t i = 0; i < n; ++i)
        PyTuple_SET_ITEM(t.ptr(), i, build(outs, op, leaf, key).release().ptr());
      return std::move(t);
    }
    case kList: {
      int32_t n = ops[op++];
      py::list l(n);
      for (int32_t i = 0; i < n; ++i)
        PyList_SET_ITEM(l.ptr(), i, build(outs, op, leaf, key).release().ptr());
      return std::move(l);
    }
    case kDict: {
      int32_t n = ops[op++];
      py::dict d;
      for (int32_t i = 0; i < n; ++i) {
        py::handle k = PyList_GET_ITEM(keys->ptr(), static_cast<Py_ssize_t>(key++));
        d[k] = build(outs, op, leaf, key);
      }
      return std::move(d);
    }
    }
    throw std::runtime_error("[jit] malformed output structure");
  }
};

// ---- The cache key of a call ------------------------------------------------------------------

/// What the options' trace key (strata.config.trace_key(), part of every cache key, as options
/// change what tracing produces) and the options the call path reads were when last seen.
/// config resets its cached key on every change, so an identical key object means nothing
/// changed.
struct ConfigState {
  PyObject *key = nullptr; // a strong reference, so its address is never reused
  std::string id;
  bool disable_jit = false, log_compiles = false;
};
ConfigState &config_state() {
  static ConfigState *c = new ConfigState();
  const Setup &s = setup();
  PyObject *key = PyDict_GetItem(s.config_dict, s.s_key); // borrowed
  py::object fresh;
  if (!key || key == Py_None) {
    fresh = py::reinterpret_borrow<py::object>(s.config).attr(py::handle(s.s_trace_key))();
    key = fresh.ptr();
  }
  if (key == c->key)
    return *c;
  static py::dict *ids = new py::dict(); // trace keys by value -> a short id
  py::handle k(key);
  if (!ids->contains(k))
    (*ids)[k] = py::int_(static_cast<int64_t>(ids->size()));
  c->id = py::str((*ids)[k]).cast<std::string>();
  auto flag = [&](PyObject *name) {
    PyObject *v = PyDict_GetItem(s.config_values, name);
    int t = v ? PyObject_IsTrue(v) : 0;
    if (t < 0)
      throw py::error_already_set();
    return t == 1;
  };
  c->disable_jit = flag(s.s_disable_jit);
  c->log_compiles = flag(s.s_log_compiles);
  Py_INCREF(key);
  Py_XDECREF(c->key);
  c->key = key;
  return *c;
}

/// A call ready to run: the trace of the function for these arguments, the dynamic leaves and
/// the cache key (the argument structure, the static values and the options).
struct Prepared {
  TraceFn trace;
  std::vector<Array> leaves;
  std::string key;
};

/// The arguments a fast-path call keeps for its trace.
struct CallArgs {
  py::object self, args, kwargs;
  /// Which positional arguments are static.
  std::vector<char> is_static;
  /// flatten_arg's structure of the dynamic positional and keyword arguments.
  std::string code;
};

/// The strata.jit wrapper's C++ base: the executable cache of one function and its call.
class JitCall {
public:
  JitCall(const std::string &name, std::vector<int> static_argnums,
          std::vector<std::string> static_argnames)
      : fn_(make_options(name)), static_argnums_(std::move(static_argnums)) {
    if (!setup().ready)
      throw std::runtime_error("[jit] strata.api has not set the jitted call path up");
    py::set names;
    for (const std::string &n : static_argnames)
      names.add(py::str(n));
    static_argnames_ = std::move(names);
  }

  JitFunction &function() { return fn_; }

  /// The fast path's Prepared for this call, or nullopt when an argument is not a builtin
  /// pytree of array-likes or a static value is not hashable (the general path handles it).
  std::optional<Prepared> prepare(py::handle self, PyObject *args, PyObject *kwargs,
                                  const ConfigState &config) {
    const Setup &s = setup();
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    CallArgs call;
    call.is_static.assign(static_cast<size_t>(nargs), 0);
    bool any_static = false;
    for (int n : static_argnums_) {
      // Positions past the call's positional arguments are skipped (as JAX): such a parameter
      // is passed by keyword (static through its name) or takes its default.
      Py_ssize_t i = n < 0 ? n + nargs : n;
      if (i >= 0 && i < nargs) {
        call.is_static[static_cast<size_t>(i)] = 1;
        any_static = true;
      }
    }
    Prepared p;
    std::string &code = call.code;
    code.reserve(32);
    code += config.id;
    code += '|';
    code += '(';
    for (Py_ssize_t i = 0; i < nargs; ++i)
      if (!call.is_static[static_cast<size_t>(i)] &&
          !flatten_arg(PyTuple_GET_ITEM(args, i), p.leaves, code))
        return std::nullopt;
    code += ')';
    code += '{';
    DictEntries static_kw;
    if (kwargs && PyDict_GET_SIZE(kwargs) > 0) {
      DictEntries entries;
      if (!sorted_entries(kwargs, entries))
        return std::nullopt;
      for (const auto &entry : entries) {
        int named = PySet_Contains(static_argnames_.ptr(), std::get<1>(entry));
        if (named < 0)
          throw py::error_already_set();
        if (named) {
          static_kw.push_back(entry);
          continue;
        }
        append_key(code, std::get<0>(entry));
        if (!flatten_arg(std::get<2>(entry), p.leaves, code))
          return std::nullopt;
      }
    }
    code += '}';
    if (!any_static && static_kw.empty()) {
      p.key = code;
    } else {
      // Static values key the cache by type, hash and == (as JAX's), through the same table
      // as the general path's keys: ((position or name, (type, value)), ...).
      py::list statics;
      auto add = [&](py::handle where, PyObject *v) {
        if (PyObject_Hash(v) == -1) {
          PyErr_Clear();
          return false; // the general path raises the error that names the argument
        }
        statics.append(py::make_tuple(
            where,
            py::make_tuple(py::handle(reinterpret_cast<PyObject *>(Py_TYPE(v))), py::handle(v))));
        return true;
      };
      for (Py_ssize_t i = 0; i < nargs; ++i)
        if (call.is_static[static_cast<size_t>(i)] && !add(py::int_(i), PyTuple_GET_ITEM(args, i)))
          return std::nullopt;
      for (const auto &[text, k, v] : static_kw)
        if (!add(k, v))
          return std::nullopt;
      py::object keys = self.attr(py::handle(s.s_keys));
      py::tuple entry = py::make_tuple(py::str(code), py::tuple(statics));
      py::object id = keys.attr("setdefault")(entry, py::len(keys));
      p.key = py::str(id).cast<std::string>();
    }
    call.self = py::reinterpret_borrow<py::object>(self);
    call.args = py::reinterpret_borrow<py::object>(args);
    call.kwargs = kwargs ? py::reinterpret_borrow<py::object>(kwargs) : py::dict();
    std::shared_ptr<CallArgs> kept = held<CallArgs>(std::move(call));
    p.trace = [kept](const std::vector<Array> &in, std::shared_ptr<void> &aux) {
      py::gil_scoped_acquire gil;
      return trace(*kept, in, aux);
    };
    return p;
  }

  /// Runs a prepared call and builds its outputs. The call runs without the GIL (another
  /// thread's Python code runs meanwhile); its trace and callbacks take it back themselves.
  py::object run(const Prepared &p) {
    std::pair<std::vector<Array>, std::shared_ptr<void>> called;
    {
      py::gil_scoped_release nogil;
      called = fn_.call(p.trace, p.leaves, p.key);
    }
    auto &[outs, aux] = called;
    if (!aux)
      throw std::runtime_error("[jit] the call produced no output structure");
    return static_cast<const OutStructure *>(aux.get())->build(std::move(outs));
  }

  /// The call: the fast path, or the wrapper's _call_general for what it does not handle
  /// (disable_jit, log_compiles, other pytrees).
  py::object call(py::handle self, PyObject *args, PyObject *kwargs) {
    const Setup &s = setup();
    const ConfigState &config = config_state();
    if (!config.disable_jit && !config.log_compiles)
      if (std::optional<Prepared> p = prepare(self, args, kwargs, config))
        return run(*p);
    py::object general = self.attr(py::handle(s.s_call_general));
    PyObject *r = PyObject_Call(general.ptr(), args, kwargs);
    if (!r)
      throw py::error_already_set();
    return py::reinterpret_steal<py::object>(r);
  }

private:
  static JitOptions make_options(const std::string &name) {
    JitOptions o;
    o.name = name;
    return o;
  }

  // Traces the function for the leaves `in`: the arguments rebuilt around them (static ones
  // as given), the outputs flattened, their structure into `aux`.
  static std::vector<Array> trace(const CallArgs &call, const std::vector<Array> &in,
                                  std::shared_ptr<void> &aux) {
    std::string_view code(call.code);
    code.remove_prefix(code.find('|') + 1);
    ArgReader reader(code, in);
    if (reader.next() != '(')
      throw std::runtime_error("[jit] malformed argument structure");
    Py_ssize_t nargs = PyTuple_GET_SIZE(call.args.ptr());
    py::tuple full(nargs);
    for (Py_ssize_t i = 0; i < nargs; ++i) {
      py::object a = call.is_static[static_cast<size_t>(i)]
                         ? py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(call.args.ptr(), i))
                         : reader.read();
      PyTuple_SET_ITEM(full.ptr(), i, a.release().ptr());
    }
    if (reader.next() != ')')
      throw std::runtime_error("[jit] malformed argument structure");
    // The caller's keywords in their order, the dynamic values replaced.
    auto kw = py::reinterpret_steal<py::dict>(PyDict_Copy(call.kwargs.ptr()));
    if (!kw)
      throw py::error_already_set();
    for (auto &[name, value] : reader.read_keywords())
      kw[name] = value;
    if (!reader.all_read())
      throw std::runtime_error("[jit] the trace was given more values than the arguments have "
                               "leaves");
    py::object fun = call.self.attr(py::handle(setup().s_fun));
    py::object out =
        py::reinterpret_steal<py::object>(PyObject_Call(fun.ptr(), full.ptr(), kw.ptr()));
    if (!out)
      throw py::error_already_set();
    std::vector<Array> leaves;
    aux = OutStructure::of(out, leaves);
    return leaves;
  }

  JitFunction fn_;
  std::vector<int> static_argnums_;
  py::set static_argnames_;
};

/// Sets the pending Python error for the exception being handled, as pybind11's dispatcher
/// does (the module's and pybind11's translators).
void set_python_error() {
  try {
    throw;
  } catch (py::error_already_set &e) {
    e.restore();
  } catch (...) {
    if (py::detail::apply_exception_translators(
            py::detail::get_local_internals().registered_exception_translators))
      return;
    if (py::detail::apply_exception_translators(
            py::detail::get_internals().registered_exception_translators))
      return;
    PyErr_SetString(PyExc_SystemError, "[jit] an exception escaped the exception translators");
  }
}

// JitCall's tp_call: a call straight from the interpreter (no pybind11 dispatch, bound method
// or argument copies on the way).
PyObject *jit_call_slot(PyObject *self, PyObject *args, PyObject *kwargs) {
  try {
    JitCall &jc = py::handle(self).cast<JitCall &>();
    return jc.call(self, args, kwargs).release().ptr();
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

// trace(list of Arrays) -> (output leaves, output structure) from Python (the general path):
// the structure (a PyTreeDef) rides in `aux`, kept with the cached executable.
TraceFn trace_fn(py::object f) {
  auto fn = held<py::object>(std::move(f));
  return [fn](const std::vector<Array> &in, std::shared_ptr<void> &aux) {
    py::gil_scoped_acquire gil;
    py::tuple r = (*fn)(py::cast(in));
    if (r.size() != 2)
      throw py::type_error("[jit] the trace function must return (leaves, structure)");
    aux = OutStructure::of_treedef(r[1]);
    return to_array_list(r[0]);
  };
}

// ---- The GIL around C++ work ------------------------------------------------------------------

/// BlockingHooks::release: gives up the GIL when this thread holds it (nullptr otherwise: a
/// thread that never ran Python, a region inside a region, the interpreter gone).
void *release_gil() {
  if (!Py_IsInitialized())
    return nullptr;
  PyThreadState *mine = PyGILState_GetThisThreadState();
  if (!mine || mine != py::detail::get_thread_state_unchecked())
    return nullptr;
  return PyEval_SaveThread();
}
void restore_gil(void *token) { PyEval_RestoreThread(static_cast<PyThreadState *>(token)); }

py::dict stats_dict(const JitStats &s) {
  py::dict d;
  d["hits"] = s.hits;
  d["misses"] = s.misses;
  d["inline_calls"] = s.inline_calls;
  d["compile_seconds"] = s.compile_seconds;
  d["entries"] = s.entries;
  d["evictions"] = s.evictions;
  return d;
}
} // namespace

void init_jit(py::module_ &m) {
  using py::arg;
  // Long kernels, compiled calls and waits for the MLIR context run without the GIL.
  set_blocking_hooks({release_gil, restore_gil});
  py::class_<Lowered>(m, "Lowered", "The text of every compilation stage of a jitted call.")
      .def("as_text", &Lowered::as_text, arg("stage") = "strata",
           "Stages: strata, optimized, linalg, bufferized, llvm, llvm-ir.")
      .def("stages", &Lowered::stages);
  py::class_<Prepared>(m, "JitPrepared",
                       "One call of a jitted function ready to run: its trace, dynamic leaves "
                       "and cache key.")
      .def(py::init([](py::object trace, py::handle leaves, std::string key) {
             return Prepared{trace_fn(std::move(trace)), to_array_list(leaves), std::move(key)};
           }),
           arg("trace"), arg("leaves"), arg("key"),
           "From the general path: trace(leaves) -> (output leaves, output PyTreeDef).")
      .def_property_readonly("leaves", [](const Prepared &p) { return py::cast(p.leaves); })
      .def_property_readonly("key", [](const Prepared &p) { return p.key; });
  py::class_<JitCall>(m, "JitCall", py::custom_type_setup([](PyHeapTypeObject *heap) {
                        heap->ht_type.tp_call = jit_call_slot;
                      }),
                      "The base of strata.jit's wrapper: the compiled-executable cache of one "
                      "function; calling it flattens the arguments, finds the executable and "
                      "rebuilds the outputs in C++ for pytrees of tuples, lists, str-keyed dicts "
                      "and None over array-likes, and calls the wrapper's _call_general(*args, "
                      "**kwargs) for anything else.")
      .def(py::init<const std::string &, std::vector<int>, std::vector<std::string>>(), arg("name"),
           arg("static_argnums"), arg("static_argnames"))
      .def(
          "_prepare_fast",
          [](py::object self, py::tuple args, py::dict kwargs) -> py::object {
            std::optional<Prepared> p =
                self.cast<JitCall &>().prepare(self, args.ptr(), kwargs.ptr(), config_state());
            return p ? py::cast(std::move(*p)) : py::none();
          },
          arg("args"), arg("kwargs"),
          "The fast path's JitPrepared for this call, or None when it takes the general path.")
      .def("_run", &JitCall::run, arg("prepared"), "Runs a prepared call; returns its outputs.")
      .def(
          "_lower",
          [](JitCall &self, const Prepared &p) {
            return self.function().lower(p.trace, p.leaves, p.key);
          },
          arg("prepared"), "Stages and lowers a prepared call without running it.")
      .def(
          "stats", [](JitCall &self) { return stats_dict(self.function().stats()); },
          "Cache counters: hits, misses, inline_calls, compile_seconds, entries, evictions.")
      .def(
          "explain", [](JitCall &self) { return self.function().explain(); },
          "Why the last call missed the cache ('' when it hit).");
  m.def(
      "_jit_setup",
      [](py::object registry, py::object tree_flatten, py::object config) {
        Setup &s = setup();
        s.array = reinterpret_cast<PyTypeObject *>(py::type::of<Array>().ptr());
        py::module_ np = py::module_::import("numpy");
        s.ndarray = reinterpret_cast<PyTypeObject *>(np.attr("ndarray").ptr());
        s.np_generic = py::object(np.attr("generic")).release().ptr();
        s.registry = registry.release().ptr();
        s.tree_flatten = tree_flatten.release().ptr();
        s.config_dict = py::object(config.attr("__dict__")).release().ptr();
        s.config_values = py::object(config.attr("_values")).release().ptr();
        s.config = config.release().ptr();
        auto name = [](const char *n) { return PyUnicode_InternFromString(n); };
        s.s_key = name("_key");
        s.s_trace_key = name("trace_key");
        s.s_disable_jit = name("jax_disable_jit");
        s.s_log_compiles = name("jax_log_compiles");
        s.s_fun = name("_fun");
        s.s_keys = name("_keys");
        s.s_call_general = name("_call_general");
        s.ready = true;
      },
      arg("registry"), arg("tree_flatten"), arg("config"),
      "Gives the jitted call path strata.tree_util's node registry and tree_flatten and "
      "strata.config (kept for the interpreter's life).");
  m.def("jit_cache_stats", [] { return stats_dict(jit_cache_stats()); });
  m.def("clear_jit_cache", &clear_jit_cache);
  m.def("set_jit_cache_capacity", &set_jit_cache_capacity, arg("capacity"));
}

} // namespace strata::python
