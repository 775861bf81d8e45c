// DLPack interop: Array.__dlpack__/__dlpack_device__ (zero-copy export of a concrete array's
// buffer, kept alive by the capsule) and from_dlpack (import from numpy, PyTorch or any
// producer; copied, because a strata Buffer owns its memory).
#include "common.h"

#include <cstring>

namespace strata::python {
namespace {

// The DLPack 0.8 ABI (dlpack.h is not installed on the build machine; the layout is frozen).
enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDAHost = 3, kDLCUDAManaged = 13 };
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
enum DLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides; // in elements; null means compact row-major
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *self);
};

constexpr const char *kCapsule = "dltensor";
constexpr const char *kUsedCapsule = "used_dltensor";

// What an exported tensor keeps alive: the array (so its buffer) and the shape and strides.
struct Export {
  DLManagedTensor managed;
  Array array;
  std::vector<int64_t> shape, strides;
};

DLDataType dl_dtype(DType t) {
  uint8_t bits = static_cast<uint8_t>(itemsize(t) * 8);
  switch (t) {
  case DType::Bool:
    return {kDLBool, 8, 1};
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
    return {kDLInt, bits, 1};
  case DType::UInt8:
  case DType::UInt16:
  case DType::UInt32:
  case DType::UInt64:
    return {kDLUInt, bits, 1};
  case DType::BFloat16:
    return {kDLBfloat, 16, 1};
  case DType::Complex64:
  case DType::Complex128: // bits count both parts, as DLPack's complex64 is 64 bits
    return {kDLComplex, bits, 1};
  default:
    return {kDLFloat, bits, 1};
  }
}

DType strata_dtype(DLDataType d) {
  if (d.lanes != 1)
    throw py::type_error("[from_dlpack] vector dtypes (lanes " + std::to_string(d.lanes) +
                         ") are not supported");
  switch (d.code) {
  case kDLBool:
    if (d.bits == 8)
      return DType::Bool;
    break;
  case kDLInt:
    if (d.bits == 8)
      return DType::Int8;
    if (d.bits == 16)
      return DType::Int16;
    if (d.bits == 32)
      return DType::Int32;
    if (d.bits == 64)
      return DType::Int64;
    break;
  case kDLUInt:
    if (d.bits == 8)
      return DType::UInt8;
    if (d.bits == 16)
      return DType::UInt16;
    if (d.bits == 32)
      return DType::UInt32;
    if (d.bits == 64)
      return DType::UInt64;
    break;
  case kDLFloat:
    if (d.bits == 16)
      return DType::Float16;
    if (d.bits == 32)
      return DType::Float32;
    if (d.bits == 64)
      return DType::Float64;
    break;
  case kDLBfloat:
    if (d.bits == 16)
      return DType::BFloat16;
    break;
  case kDLComplex:
    if (d.bits == 64)
      return DType::Complex64;
    if (d.bits == 128)
      return DType::Complex128;
    break;
  }
  throw py::type_error(
      "[from_dlpack] strata has no dtype for DLPack type code " + std::to_string(d.code) +
      " with " + std::to_string(d.bits) +
      " bits (it has bool, int8/32/64, uint8/32, float16/32/64, bfloat16, complex64/128)");
}

void capsule_destructor(PyObject *cap) {
  // Still named "dltensor": nobody consumed it, so its memory is ours to release.
  if (PyCapsule_IsValid(cap, kCapsule)) {
    auto *m = static_cast<DLManagedTensor *>(PyCapsule_GetPointer(cap, kCapsule));
    if (m && m->deleter)
      m->deleter(m);
  } else {
    PyErr_Clear();
  }
}

py::capsule to_dlpack(const Array &x) {
  if (!x.is_concrete())
    throw py::type_error("ConcretizationTypeError: __dlpack__ of a traced value (" + x.type_str() +
                         "): only concrete arrays can be exported; call it outside jit and "
                         "the transforms");
  auto *e = new Export{};
  e->array = x;
  e->shape.assign(x.shape().begin(), x.shape().end());
  e->strides.assign(e->shape.size(), 1);
  for (size_t d = e->shape.size(); d-- > 1;)
    e->strides[d - 1] = e->strides[d] * e->shape[d];
  DLTensor &t = e->managed.dl_tensor;
  t.data = const_cast<void *>(x.data()); // shared, not copied: consumers must not write
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int32_t>(e->shape.size());
  t.dtype = dl_dtype(x.dtype());
  t.shape = e->shape.data();
  t.strides = e->strides.data();
  t.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = [](DLManagedTensor *self) {
    delete static_cast<Export *>(self->manager_ctx);
  };
  PyObject *cap = PyCapsule_New(&e->managed, kCapsule, &capsule_destructor);
  if (!cap) {
    delete e;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(cap);
}

// Copies a strided tensor into a fresh row-major array, one innermost run at a time.
void strided_copy(char *dst, const char *src, const std::vector<int64_t> &shape,
                  const int64_t *strides, size_t item) {
  size_t nd = shape.size();
  int64_t total = 1;
  for (int64_t s : shape)
    total *= s;
  if (total == 0)
    return;
  if (nd == 0) {
    std::memcpy(dst, src, item);
    return;
  }
  std::vector<int64_t> pos(nd, 0);
  int64_t inner = shape[nd - 1], inner_stride = strides[nd - 1];
  for (int64_t done = 0; done < total; done += inner) {
    int64_t off = 0;
    for (size_t d = 0; d + 1 < nd; ++d)
      off += pos[d] * strides[d];
    const char *s = src + off * static_cast<int64_t>(item);
    if (inner_stride == 1) {
      std::memcpy(dst, s, inner * item);
      dst += inner * item;
    } else {
      for (int64_t i = 0; i < inner; ++i, dst += item)
        std::memcpy(dst, s + i * inner_stride * static_cast<int64_t>(item), item);
    }
    for (size_t d = nd - 1; d-- > 0;) {
      if (++pos[d] < shape[d])
        break;
      pos[d] = 0;
    }
  }
}

Array from_dlpack(py::object obj) {
  py::object cap_obj = obj;
  if (py::hasattr(obj, "__dlpack__")) {
    if (py::hasattr(obj, "__dlpack_device__")) {
      auto dev = obj.attr("__dlpack_device__")().cast<std::pair<int, int>>();
      if (dev.first != kDLCPU && dev.first != kDLCUDAHost && dev.first != kDLCUDAManaged)
        throw py::value_error("[from_dlpack] the tensor lives on DLPack device type " +
                              std::to_string(dev.first) + " (id " + std::to_string(dev.second) +
                              "); strata has only the CPU: move it there first");
    }
    cap_obj = obj.attr("__dlpack__")();
  }
  PyObject *cap = cap_obj.ptr();
  if (!PyCapsule_CheckExact(cap))
    throw py::type_error("[from_dlpack] expected an object with __dlpack__ or a DLPack "
                         "capsule, got " +
                         std::string(py::str(py::type::of(obj).attr("__name__"))));
  if (!PyCapsule_IsValid(cap, kCapsule))
    throw py::value_error("[from_dlpack] the capsule was already consumed (a DLPack capsule "
                          "can be imported once)");
  auto *m = static_cast<DLManagedTensor *>(PyCapsule_GetPointer(cap, kCapsule));
  // From here on the tensor is ours: release it on every path.
  PyCapsule_SetName(cap, kUsedCapsule);
  struct Release {
    DLManagedTensor *m;
    ~Release() {
      if (m->deleter)
        m->deleter(m);
    }
  } release{m};
  const DLTensor &t = m->dl_tensor;
  if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost &&
      t.device.device_type != kDLCUDAManaged)
    throw py::value_error("[from_dlpack] the tensor lives on DLPack device type " +
                          std::to_string(t.device.device_type) +
                          "; strata has only the CPU: move it there first");
  DType dtype = strata_dtype(t.dtype);
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  Array out = Array::empty(Shape(shape.begin(), shape.end()), dtype);
  const char *src = static_cast<const char *>(t.data) + t.byte_offset;
  std::vector<int64_t> strides(t.ndim);
  bool compact = true;
  int64_t expect = 1;
  for (int d = t.ndim; d-- > 0;) {
    strides[d] = t.strides ? t.strides[d] : expect;
    if (shape[d] != 1 && strides[d] != expect)
      compact = false;
    expect *= shape[d];
  }
  if (out.nbytes() == 0)
    return out;
  if (compact)
    std::memcpy(out.mutable_data(), src, static_cast<size_t>(out.nbytes()));
  else
    strided_copy(static_cast<char *>(out.mutable_data()), src, shape, strides.data(),
                 itemsize(dtype));
  return out;
}

} // namespace

void init_dlpack(py::module_ &m) {
  auto cls = py::reinterpret_borrow<py::object>(m.attr("Array"));
  py::cpp_function dlpack(
      [](const Array &x, py::object stream, py::object max_version, py::object dl_device,
         py::object copy) {
        if (!stream.is_none() && !(py::isinstance<py::int_>(stream) &&
                                   (stream.cast<int>() == -1 || stream.cast<int>() == 0)))
          throw py::value_error("[__dlpack__] strata arrays live on the CPU: stream must be "
                                "None");
        if (!copy.is_none() && copy.cast<bool>())
          return to_dlpack(Array::from_data(x.data(), x.shape(), x.dtype()));
        return to_dlpack(x);
      },
      py::name("__dlpack__"), py::is_method(cls), py::kw_only(), py::arg("stream") = py::none(),
      py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
      py::arg("copy") = py::none(),
      "A DLPack capsule sharing this array's buffer (zero-copy; the capsule keeps the buffer "
      "alive). Consumers must treat the memory as read-only: strata arrays are immutable.");
  cls.attr("__dlpack__") = dlpack;
  cls.attr("__dlpack_device__") =
      py::cpp_function([](const Array &) { return py::make_tuple(static_cast<int>(kDLCPU), 0); },
                       py::name("__dlpack_device__"), py::is_method(cls), "(kDLCPU, 0).");
  m.def("from_dlpack", &from_dlpack, py::arg("x"),
        "An Array from an object with __dlpack__ (numpy, PyTorch, ...) or a DLPack capsule. "
        "The data is copied once (a strata buffer owns its memory); strided sources are "
        "gathered into row-major order.");
}

} // namespace strata::python
