// Device registry, placement (device_put) and eager dispatch to a device runtime.
#include "core/device_impl.h"

#include <cstring>
#include <mutex>

#include "strata/error.h"
#include "strata/internal/buffer.h"

namespace strata {

namespace {
struct Registry {
  std::mutex mu;
  DeviceBackend *cuda = nullptr;
  DeviceEvalFn cuda_eval;
};
Registry &registry() {
  static Registry r;
  return r;
}
} // namespace

void register_device_backend(Device::Kind kind, DeviceBackend *backend) {
  if (kind == Device::Kind::CPU)
    fail("register_device_backend", "cpu has no backend to register");
  std::lock_guard<std::mutex> lock(registry().mu);
  registry().cuda = backend;
}

DeviceBackend *device_backend(Device::Kind kind) {
  if (kind == Device::Kind::CPU)
    return nullptr;
  std::lock_guard<std::mutex> lock(registry().mu);
  return registry().cuda;
}

void register_device_eval(Device::Kind kind, DeviceEvalFn fn) {
  if (kind == Device::Kind::CPU)
    fail("register_device_eval", "cpu ops run through the reference kernels");
  std::lock_guard<std::mutex> lock(registry().mu);
  registry().cuda_eval = std::move(fn);
}

DeviceBackend *checked_backend(std::string_view op, Device device) {
  DeviceBackend *b = device_backend(device.kind);
  if (!b)
    fail(op, device.to_string(),
         " is not available: no CUDA runtime is loaded (link "
         "Strata::cuda or use the jit library, which loads it)");
  int count = b->device_count();
  if (device.index < 0 || device.index >= count)
    fail(op, device.to_string(), " is not available: ",
         count == 0 ? b->unavailable_reason()
                    : detail::cat("this process has ", count, " CUDA device(s)"));
  return b;
}

std::vector<Device> devices() {
  std::vector<Device> out{cpu_device()};
  if (DeviceBackend *b = device_backend(Device::Kind::CUDA))
    for (int i = 0, n = b->device_count(); i < n; ++i)
      out.push_back(Device{Device::Kind::CUDA, i});
  return out;
}

Device parse_device(const std::string &name) {
  std::string kind = name, index = "0";
  if (size_t colon = name.find(':'); colon != std::string::npos) {
    kind = name.substr(0, colon);
    index = name.substr(colon + 1);
  }
  bool digits = !index.empty() && index.size() < 6 &&
                index.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || (kind != "cpu" && kind != "cuda" && kind != "gpu"))
    fail("device", "'", name, "' is not a device name (cpu, cpu:0, cuda:N, gpu:N)");
  Device d{kind == "cpu" ? Device::Kind::CPU : Device::Kind::CUDA, std::stoi(index)};
  if (d.kind == Device::Kind::CPU) {
    if (d.index != 0)
      fail("device", "'", name, "': the host is cpu:0");
    return d;
  }
  checked_backend("device", d);
  return d;
}

Device common_device(std::string_view op, const std::vector<Array> &inputs) {
  Device out = cpu_device();
  for (const Array &a : inputs) {
    if (!a.valid() || !a.is_concrete())
      continue;
    Device d = a.buffer()->device();
    if (d.kind == Device::Kind::CPU)
      continue;
    if (out.kind != Device::Kind::CPU && !(out == d))
      fail(op, "inputs live on ", out.to_string(), " and ", d.to_string(),
           "; put them on one device with device_put");
    out = d;
  }
  return out;
}

std::vector<Array> device_eval(const Primitive &prim, const std::vector<Array> &inputs,
                               const Params &params, Device device) {
  DeviceEvalFn fn;
  {
    std::lock_guard<std::mutex> lock(registry().mu);
    fn = registry().cuda_eval;
  }
  if (!fn)
    fail(prim.name, "inputs live on ", device.to_string(),
         " but no GPU evaluator is registered (eager GPU ops need the jit library, "
         "Strata::jit)");
  return fn(prim, inputs, params);
}

Array device_put(const Array &x, Device device) {
  if (!x.is_concrete())
    return x; // placement is not data: a traced value passes through
  const Buffer &src = *x.buffer();
  Device from = src.device();
  if (from == device)
    return x;
  Array out = empty_on(x.shape(), x.dtype(), device, x.weak_type());
  size_t n = static_cast<size_t>(x.nbytes());
  if (n == 0)
    return out;
  void *dst = out.buffer()->data();
  if (from.kind == Device::Kind::CPU)
    checked_backend("device_put", device)->copy_from_host(device.index, dst, src.data(), n);
  else if (device.kind == Device::Kind::CPU)
    checked_backend("device_put", from)->copy_to_host(from.index, dst, src.data(), n);
  else
    checked_backend("device_put", from)->copy_between(from.index, src.data(), device.index, dst, n);
  return out;
}

} // namespace strata
