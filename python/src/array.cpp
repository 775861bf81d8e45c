// Bindings of strata::Array (shape, dtype, operators, indexing, numpy interop) and the value
// conversions every other binding file uses.
#include "common.h"

#include <cstring>

namespace strata::python {
namespace {

py::module_ &numpy_module() {
  static auto *np = new py::module_(py::module_::import("numpy")); // leaked: lives to exit
  return *np;
}
py::object *g_bfloat16 = nullptr;

Array from_numpy(py::handle obj) {
  // asarray first: ascontiguousarray would turn a 0-d value into shape (1,).
  py::array a = numpy_module().attr("asarray")(obj);
  if (!(a.flags() & py::array::c_style))
    a = numpy_module().attr("ascontiguousarray")(a);
  DType t = dtype_from_py(a.dtype());
  Shape shape(a.shape(), a.shape() + a.ndim());
  return Array::from_data(a.data(), shape, t);
}

bool contains_array(py::handle obj) {
  if (py::isinstance<Array>(obj))
    return true;
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj))
    for (py::handle h : obj)
      if (contains_array(h))
        return true;
  return false;
}

std::string type_name(py::handle obj) { return py::str(py::type::of(obj).attr("__name__")); }

// The message for a traced value used where Python needs a concrete one.
[[noreturn]] void concretization_error(const Array &x, const std::string &what) {
  std::string detail;
  try {
    (void)x.data();
  } catch (const Error &e) {
    detail = e.what();
  }
  throw py::type_error("ConcretizationTypeError: a traced value was used as a Python " + what +
                       " (" + detail +
                       "). Under jit or a transform use strata.numpy.where or "
                       "strata.lax.select instead of Python control flow, or mark the argument "
                       "static with jit's static_argnums/static_argnames.");
}
void require_concrete(const Array &x, const std::string &what) {
  if (!x.is_concrete())
    concretization_error(x, what);
}

py::tuple shape_tuple(const Shape &s) {
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i)
    t[i] = py::int_(s[i]);
  return t;
}

// Integer arrays (one per mask dimension) holding the coordinates of a concrete mask's true
// entries: numpy's x[mask] == x[mask.nonzero()].
std::vector<Index> mask_indices(const Array &mask) {
  if (!mask.is_concrete())
    throw py::index_error("[index] boolean mask indexing needs a concrete mask (its result "
                          "shape depends on the values), so it is not available under jit or "
                          "vmap; use strata.numpy.where(mask, x, 0) instead");
  const auto *m = static_cast<const uint8_t *>(mask.data());
  const Shape &shape = mask.shape();
  std::vector<std::vector<int64_t>> coords(shape.size());
  int64_t n = mask.size();
  for (int64_t flat = 0; flat < n; ++flat) {
    if (!m[flat])
      continue;
    int64_t rest = flat;
    for (size_t d = shape.size(); d-- > 0;) {
      coords[d].push_back(rest % shape[d]);
      rest /= shape[d];
    }
  }
  std::vector<Index> out;
  for (auto &c : coords)
    out.emplace_back(Array::from_vector(c));
  return out;
}

void append_index(std::vector<Index> &out, py::handle k) {
  if (py::isinstance<Array>(k) || py::isinstance<py::array>(k) ||
      py::isinstance<py::list>(k)) {
    Array a = to_array(k);
    if (a.dtype() == DType::Bool) {
      for (Index &i : mask_indices(a))
        out.push_back(std::move(i));
      return;
    }
    if (!is_integer(a.dtype()))
      throw py::index_error("[index] index arrays must be integers or booleans, got " +
                            a.type_str());
    out.emplace_back(a);
  } else if (PyBool_Check(k.ptr())) {
    throw py::index_error("[index] a Python bool is not a valid index");
  } else if (PyIndex_Check(k.ptr())) {
    out.emplace_back(index_of(k));
  } else if (py::isinstance<py::slice>(k)) {
    auto opt = [&](const char *name) -> std::optional<int64_t> {
      py::object v = k.attr(name);
      if (v.is_none())
        return std::nullopt;
      return index_of(v);
    };
    std::optional<int64_t> step = opt("step");
    if (step && *step == 0)
      throw py::value_error("[index] slice step cannot be zero");
    out.emplace_back(Slice(opt("start"), opt("stop"), step.value_or(1)));
  } else if (k.is_none()) {
    out.emplace_back(NewAxis);
  } else if (k.ptr() == Py_Ellipsis) {
    out.emplace_back(Ellipsis);
  } else {
    throw py::index_error("[index] unsupported index of type " + type_name(k) +
                          " (use integers, slices, None, ..., integer or boolean arrays)");
  }
}

std::vector<Index> to_indices(py::handle key) {
  std::vector<Index> out;
  if (py::isinstance<py::tuple>(key))
    for (py::handle k : key)
      append_index(out, k);
  else
    append_index(out, key);
  return out;
}

py::object item_of(const Array &x) {
  require_concrete(x, "scalar (item)");
  if (x.size() != 1)
    throw py::value_error("[item] only size-1 arrays convert to Python scalars, got " +
                          x.type_str());
  if (x.dtype() == DType::Bool)
    return py::bool_(x.item<bool>());
  if (is_integer(x.dtype()))
    return py::int_(x.item<int64_t>());
  return py::float_(x.item<double>());
}

using Binary = Array (*)(const Array &, const Array &);
template <Binary F> Array forward(const Array &x, py::handle y) {
  Array b = to_array(y, &x);
  return F(x, b);
}
template <Binary F> Array reflected(const Array &x, py::handle y) {
  Array a = to_array(y, &x);
  return F(a, x);
}

} // namespace

void set_bfloat16_object(py::object obj) { g_bfloat16 = new py::object(std::move(obj)); }

py::object numpy_dtype(DType t) {
  static py::object *table[kNumDTypes] = {};
  if (t == DType::BFloat16 && g_bfloat16)
    return *g_bfloat16;
  auto &slot = table[static_cast<int>(t)];
  if (!slot) {
    if (t == DType::BFloat16)
      return py::str("bfloat16");
    slot = new py::object(numpy_module().attr("dtype")(std::string(dtype_name(t))));
  }
  return *slot;
}

DType dtype_from_py(py::handle obj) {
  if (g_bfloat16 && obj.is(*g_bfloat16))
    return DType::BFloat16;
  if (obj.ptr() == reinterpret_cast<PyObject *>(&PyFloat_Type))
    return kDefaultFloat;
  if (obj.ptr() == reinterpret_cast<PyObject *>(&PyLong_Type))
    return kDefaultInt;
  if (obj.ptr() == reinterpret_cast<PyObject *>(&PyBool_Type))
    return DType::Bool;
  std::string name;
  if (py::isinstance<py::str>(obj)) {
    name = obj.cast<std::string>();
    try {
      return dtype_from_name(name);
    } catch (const Error &) {
    }
  }
  try {
    name = py::str(numpy_module().attr("dtype")(obj).attr("name"));
  } catch (const py::error_already_set &) {
    throw py::type_error("[dtype] cannot interpret " + std::string(py::repr(obj)) +
                         " as a data type");
  }
  try {
    return dtype_from_name(name);
  } catch (const Error &) {
    throw py::type_error("[dtype] strata has no dtype " + name +
                         " (it has bool, int8, int32, int64, uint8, uint32, float16, "
                         "bfloat16, float32, float64)");
  }
}

std::optional<DType> optional_dtype(py::handle obj) {
  if (obj.is_none())
    return std::nullopt;
  return dtype_from_py(obj);
}

Array to_array(py::handle obj, const Array *like) {
  if (py::isinstance<Array>(obj))
    return obj.cast<const Array &>();
  PyObject *p = obj.ptr();
  if (PyBool_Check(p))
    return Array(p == Py_True);
  if (PyLong_Check(p)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (overflow)
      throw py::value_error("[asarray] Python int " + std::string(py::str(obj)) +
                            " is too large for int64");
    return Array::weak_scalar_int(v);
  }
  // np.float64 subclasses Python's float, but it is a typed (not weak) float64 scalar.
  if (PyFloat_CheckExact(p)) {
    double v = PyFloat_AS_DOUBLE(p);
    if (like && is_floating(like->dtype()))
      return Array::weak_scalar(v, like->dtype());
    return Array::weak_scalar(v);
  }
  py::module_ &np = numpy_module();
  if (py::isinstance<py::array>(obj) || py::isinstance(obj, np.attr("generic")))
    return from_numpy(obj);
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    if (contains_array(obj)) {
      std::vector<Array> parts;
      for (py::handle h : obj)
        parts.push_back(to_array(h));
      return stack(parts);
    }
    py::array a = np.attr("asarray")(obj);
    std::string kind = py::str(a.dtype().attr("kind"));
    // Python numbers in lists get JAX's default types, as jnp.asarray gives.
    if (kind == "f")
      a = a.attr("astype")("float32");
    else if (kind == "i")
      a = a.attr("astype")("int32");
    return from_numpy(a);
  }
  if (py::hasattr(obj, "__array__"))
    return from_numpy(np.attr("asarray")(obj));
  throw py::type_error("[asarray] cannot convert a value of type " + type_name(obj) +
                       " to a strata Array");
}

Array asarray(py::handle obj, std::optional<DType> dtype) {
  Array a = to_array(obj);
  if (dtype && (a.dtype() != *dtype || a.weak_type()))
    return astype(a, *dtype);
  return a;
}

std::pair<Array, Array> to_arrays(py::handle x, py::handle y) {
  if (py::isinstance<Array>(x)) {
    const Array &a = x.cast<const Array &>();
    return {a, to_array(y, &a)};
  }
  if (py::isinstance<Array>(y)) {
    const Array &b = y.cast<const Array &>();
    return {to_array(x, &b), b};
  }
  Array a = to_array(x);
  return {a, to_array(y, &a)};
}

Axes to_axes(py::handle obj) {
  if (obj.is_none())
    return Axes();
  if (PyIndex_Check(obj.ptr()))
    return Axes(static_cast<int>(index_of(obj)));
  std::vector<int> v;
  for (py::handle h : obj)
    v.push_back(static_cast<int>(index_of(h)));
  return Axes(std::move(v));
}

Shape to_shape(py::handle obj) {
  if (PyIndex_Check(obj.ptr()))
    return Shape{index_of(obj)};
  Shape s;
  for (py::handle h : obj)
    s.push_back(index_of(h));
  return s;
}

std::vector<Array> to_array_list(py::handle seq) {
  std::vector<Array> out;
  for (py::handle h : seq)
    out.push_back(to_array(h));
  return out;
}

void init_array(py::module_ &m) {
  m.def("_set_bfloat16", &set_bfloat16_object, "Registers the object that stands for bfloat16.");
  py::class_<Array> cls(m, "Array", "An immutable n-dimensional strata array (or a traced "
                                    "value inside a transform).");
  cls.def_property_readonly("shape", [](const Array &x) { return shape_tuple(x.shape()); })
      .def_property_readonly("dtype", [](const Array &x) { return numpy_dtype(x.dtype()); })
      .def_property_readonly("ndim", &Array::ndim)
      .def_property_readonly("size", [](const Array &x) { return x.size(); })
      .def_property_readonly("nbytes", &Array::nbytes)
      .def_property_readonly("itemsize",
                             [](const Array &x) { return static_cast<int>(itemsize(x.dtype())); })
      .def_property_readonly("weak_type", &Array::weak_type,
                             "True for values from Python scalars (they take the other "
                             "operand's type in arithmetic).")
      .def_property_readonly("T", &Array::T)
      .def_property_readonly("device", [](const Array &x) { return x.device().to_string(); })
      .def_property_readonly("is_concrete", &Array::is_concrete,
                             "False for a traced value inside jit or a transform.")
      .def("type_str", &Array::type_str, "'f32[2,3]'")
      .def(
          "astype", [](const Array &x, py::handle dtype) { return astype(x, dtype_from_py(dtype)); },
          py::arg("dtype"))
      .def(
          "reshape",
          [](const Array &x, py::args shape) {
            if (shape.size() == 1 && !PyIndex_Check(shape[0].ptr()))
              return reshape(x, to_shape(shape[0]));
            return reshape(x, to_shape(shape));
          },
          "x.reshape(2, 3) or x.reshape((2, 3)); one dimension may be -1.")
      .def("item", &item_of, "The value of a size-1 array as a Python scalar.")
      .def("__getitem__",
           [](const Array &x, py::handle key) { return index(x, to_indices(key)); })
      .def("__len__",
           [](const Array &x) {
             if (x.ndim() == 0)
               throw py::type_error("len() of a 0-d array");
             return x.shape()[0];
           })
      .def("__bool__",
           [](const Array &x) {
             require_concrete(x, "bool");
             if (x.size() != 1)
               throw py::value_error("[bool] the truth value of an array with more than one "
                                     "element is ambiguous; use .any() or .all()");
             return x.item<bool>();
           })
      .def("__int__",
           [](const Array &x) {
             require_concrete(x, "int");
             return item_of(x).attr("__int__")();
           })
      .def("__float__",
           [](const Array &x) {
             require_concrete(x, "float");
             return item_of(x).attr("__float__")();
           })
      .def("__index__",
           [](const Array &x) {
             require_concrete(x, "index");
             if (!is_integer(x.dtype()) || x.size() != 1)
               throw py::type_error("[index] only integer scalar arrays can be an index, got " +
                                    x.type_str());
             return x.item<int64_t>();
           })
      .def_property_readonly(
          "__array_interface__",
          [](const Array &x) {
            // Zero-copy view for numpy; the dict-less cases fall back to __array__.
            // Device arrays copy through __array__ (their data is not host memory).
            if (!x.is_concrete() || x.dtype() == DType::BFloat16 || x.size() == 0 ||
                x.device().kind != Device::Kind::CPU)
              throw py::attribute_error("__array_interface__");
            py::dict d;
            d["shape"] = shape_tuple(x.shape());
            d["typestr"] = numpy_dtype(x.dtype()).attr("str");
            d["data"] = py::make_tuple(reinterpret_cast<uintptr_t>(x.data()), true);
            d["version"] = 3;
            return d;
          })
      .def(
          "__array__",
          [](const Array &x, py::object dtype, py::object) {
            require_concrete(x, "numpy array");
            Array y = x.dtype() == DType::BFloat16 ? astype(x, DType::Float32) : x;
            py::array out(py::dtype::from_args(numpy_dtype(y.dtype())),
                          std::vector<py::ssize_t>(y.shape().begin(), y.shape().end()));
            y.copy_to(out.mutable_data());
            if (!dtype.is_none())
              return py::array(out.attr("astype")(dtype));
            return out;
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("__neg__", [](const Array &x) { return negative(x); })
      .def("__pos__", [](const Array &x) { return x; })
      .def("__abs__", [](const Array &x) { return strata::abs(x); })
      .def("__invert__", [](const Array &x) { return bitwise_not(x); })
      .def("__add__", &forward<add>)
      .def("__radd__", &reflected<add>)
      .def("__sub__", &forward<subtract>)
      .def("__rsub__", &reflected<subtract>)
      .def("__mul__", &forward<multiply>)
      .def("__rmul__", &reflected<multiply>)
      .def("__truediv__", &forward<divide>)
      .def("__rtruediv__", &reflected<divide>)
      .def("__floordiv__", &forward<floor_divide>)
      .def("__rfloordiv__", &reflected<floor_divide>)
      .def("__mod__", &forward<remainder>)
      .def("__rmod__", &reflected<remainder>)
      .def("__pow__", &forward<power>)
      .def("__rpow__", &reflected<power>)
      .def("__matmul__", &forward<matmul>)
      .def("__rmatmul__", &reflected<matmul>)
      .def("__and__", &forward<bitwise_and>)
      .def("__rand__", &reflected<bitwise_and>)
      .def("__or__", &forward<bitwise_or>)
      .def("__ror__", &reflected<bitwise_or>)
      .def("__xor__", &forward<bitwise_xor>)
      .def("__rxor__", &reflected<bitwise_xor>)
      .def("__eq__", &forward<equal>)
      .def("__ne__", &forward<not_equal>)
      .def("__lt__", &forward<less>)
      .def("__le__", &forward<less_equal>)
      .def("__gt__", &forward<greater>)
      .def("__ge__", &forward<greater_equal>);
  cls.attr("__hash__") = py::none(); // arrays compare elementwise, as numpy's and JAX's
  cls.attr("__array_priority__") = 100; // ndarray <op> Array defers to Array's reflected op

  m.def(
      "asarray", [](py::handle x, py::handle dtype) { return asarray(x, optional_dtype(dtype)); },
      py::arg("a"), py::arg("dtype") = py::none(),
      "Converts an Array, numpy array, Python scalar or (nested) list to an Array; numpy data "
      "is copied.");
  m.def("memory_stats", [] {
    MemoryStats s = memory_stats();
    py::dict d;
    d["live_bytes"] = s.live_bytes;
    d["peak_bytes"] = s.peak_bytes;
    d["live_buffers"] = s.live_buffers;
    d["total_allocations"] = s.total_allocations;
    return d;
  });
}

} // namespace strata::python
