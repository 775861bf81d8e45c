// strata-device-check: the GPU tests and benchmarks that scripts/device-check runs on a lent GPU
// machine (docs/gpu.md). --tests runs the gtests linked in; --bench prints one JSON record per
// line; --check trains a few steps and compares the device against the host. With
// --device cpu --small everything runs here on the CPU at small sizes (the plumbing's test).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "strata/device.h"
#include "strata/jit.h"
#include "strata/nn.h"
#include "strata/random.h"
#include "strata/strata.h"

#if __has_include("runtime/cuda/CudaRuntime.h") && defined(STRATA_DEVICE_CHECK_CUDA)
#include "runtime/cuda/CudaRuntime.h"
#define STRATA_HAVE_CUDA_RUNTIME 1
#endif

using namespace strata;

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Options {
  std::string device = "";
  bool small = false;
  std::string filter;
  int reps = 0; // 0: per benchmark default
};

// ---- Devices and the peers measured in this process ---------------------------------------

bool on_host(Device d) { return d.kind == Device::Kind::CPU; }

std::string describe(Device d) {
  if (on_host(d))
    return "cpu (" + std::to_string(std::thread::hardware_concurrency()) + " threads)";
  DeviceBackend *b = device_backend(d.kind);
  return b ? b->describe(d.index) : d.to_string();
}

/// The device whose stream the peers measured directly (copies, cuBLAS) run on.
int g_sync_device = -1;

/// Waits until the work that produced `y` is done (the clock stops after this).
void block_until_ready(const Array &y) {
#ifdef STRATA_HAVE_CUDA_RUNTIME
  if (g_sync_device >= 0) {
    strata::cuda::synchronize(g_sync_device);
    return;
  }
#endif
  if (on_host(y.device()))
    return; // host kernels finish before they return
#ifdef STRATA_HAVE_CUDA_RUNTIME
  strata::cuda::synchronize(y.device().index);
#else
  // Reading one element back is ordered after everything queued before it.
  Array one = lax::slice(reshape(y, {-1}), {0}, {1});
  char buf[16];
  one.copy_to(buf);
#endif
}

/// Seconds to copy `bytes` from one buffer to another on `d` (the bandwidth roof for
/// elementwise code): cudaMemcpy device-to-device through strata::cuda, or memcpy on the host.
double copy_seconds(Device d, size_t bytes, int reps) {
  std::vector<double> t;
  if (on_host(d)) {
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    auto copy = [&] {
      std::vector<std::thread> ts;
      size_t chunk = bytes / threads;
      for (int i = 1; i < threads; ++i)
        ts.emplace_back([&, i] {
          size_t b = chunk * i, e = i == threads - 1 ? bytes : b + chunk;
          std::memcpy(dst.data() + b, src.data() + b, e - b);
        });
      std::memcpy(dst.data(), src.data(), chunk);
      for (auto &th : ts)
        th.join();
    };
    copy();
    for (int r = 0; r < reps; ++r) {
      auto t0 = Clock::now();
      copy();
      t.push_back(seconds_since(t0));
    }
  } else {
    DeviceBackend *b = device_backend(d.kind);
    void *src = b->allocate(d.index, bytes), *dst = b->allocate(d.index, bytes);
    const int inner = 10;
#ifdef STRATA_HAVE_CUDA_RUNTIME
    // Queued back to back on the device's stream, as the jitted kernels are.
    auto copy = [&] { strata::cuda::copy_device_to_device_async(d.index, dst, src, bytes); };
    auto sync = [&] { strata::cuda::synchronize(d.index); };
#else
    // The backend's copy is synchronous: it includes one synchronization per copy.
    auto copy = [&] { b->copy_between(d.index, src, d.index, dst, bytes); };
    auto sync = [] {};
#endif
    copy();
    sync();
    for (int r = 0; r < reps; ++r) {
      auto t0 = Clock::now();
      for (int i = 0; i < inner; ++i)
        copy();
      sync();
      t.push_back(seconds_since(t0) / inner);
    }
    b->deallocate(d.index, src, bytes);
    b->deallocate(d.index, dst, bytes);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Seconds per call of f(), median of `reps` timed batches of `inner` calls after `warmup`
/// calls; the batch ends with a synchronization on the last result.
double time_steady(const std::function<Array()> &f, int reps, int inner = 1, int warmup = 2) {
  for (int i = 0; i < warmup; ++i)
    block_until_ready(f());
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    Array last;
    for (int i = 0; i < inner; ++i)
      last = f();
    block_until_ready(last);
    t.push_back(seconds_since(t0) / inner);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// ---- Records --------------------------------------------------------------------------------

std::string json_escape(const std::string &s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\')
      o += '\\';
    if (static_cast<unsigned char>(c) < 0x20)
      o += ' ';
    else
      o += c;
  }
  return o;
}

std::string g_device_desc;

/// One JSON line: value (unit) and, when a peer was measured in this process, the peer, its
/// value and value/peer_value. Peers from other processes (JAX, PyTorch) are joined by
/// scripts/device-check.
void record(const std::string &name, double value, const std::string &unit,
            const std::string &peer = "", double peer_value = 0, const std::string &extra = "") {
  std::printf("{\"name\": \"%s\", \"value\": %.6g, \"unit\": \"%s\"", name.c_str(), value,
              unit.c_str());
  if (!peer.empty())
    std::printf(", \"peer\": \"%s\", \"peer_value\": %.6g, \"ratio\": %.4f",
                json_escape(peer).c_str(), peer_value, value / peer_value);
  else
    std::printf(", \"peer\": null, \"ratio\": null");
  std::printf(", \"device\": \"%s\"%s%s}\n", json_escape(g_device_desc).c_str(),
              extra.empty() ? "" : ", ", extra.c_str());
  std::fflush(stdout);
}

void record_error(const std::string &name, const std::string &what) {
  std::printf("{\"name\": \"%s\", \"error\": \"%s\", \"device\": \"%s\"}\n", name.c_str(),
              json_escape(what).c_str(), json_escape(g_device_desc).c_str());
  std::fflush(stdout);
}

bool selected(const Options &o, const std::string &name) {
  return o.filter.empty() || name.find(o.filter) != std::string::npos;
}

template <class F> void guarded(const std::string &name, F &&f) {
  try {
    f();
  } catch (const std::exception &e) {
    record_error(name, e.what());
  }
}

// ---- Models -----------------------------------------------------------------------------------

Array normal_init(uint32_t seed, const Shape &shape, double scale, DType dtype) {
  Array w = random::normal(random::fold_in(random::key(20261130), seed), shape) * as_weak(scale);
  return w.astype(dtype);
}

using Params = std::vector<Array>;

Params to_device(const Params &p, Device d) {
  Params out;
  for (const Array &a : p)
    out.push_back(device_put(a, d));
  return out;
}

// The fused elementwise chain of bench_jit (six ops on every element).
Array chain(const Array &x) {
  return (tanh(x * as_weak(1.5) + as_weak(0.5)) * exp(-x)) - as_weak(0.25);
}

// MLP 784-512-512-10 with softmax cross-entropy; weights scaled 1/sqrt(fan_in), zero biases.
Params mlp_init(DType dtype) {
  const std::vector<int64_t> sizes = {784, 512, 512, 10};
  Params p;
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    p.push_back(normal_init(static_cast<uint32_t>(i), {sizes[i], sizes[i + 1]},
                            1.0 / std::sqrt(static_cast<double>(sizes[i])), dtype));
    p.push_back(zeros({sizes[i + 1]}, dtype));
  }
  return p;
}

Array mlp_loss(const Params &p, const Array &x, const Array &labels) {
  Array h = x;
  for (size_t i = 0; i < p.size(); i += 2) {
    h = matmul(h, p[i]) + p[i + 1];
    if (i + 2 < p.size())
      h = nn::relu(h);
  }
  return -mean(sum(nn::log_softmax(h.astype(float32)) * nn::one_hot(labels, 10), -1));
}

std::pair<Array, Params> mlp_step(const Params &p, const Array &x, const Array &labels) {
  auto [loss, g] = value_and_grad(mlp_loss)(p, x, labels);
  Params np;
  for (size_t i = 0; i < p.size(); ++i)
    np.push_back(p[i] - as_weak(0.01) * g[i]);
  return {loss, np};
}

/// A pre-norm transformer block: LN, QKV projection, causal softmax attention, output
/// projection, residual, LN, MLP 4x with tanh-GELU, residual.
struct BlockConfig {
  int64_t d_model = 1024, heads = 16, seq = 1024, batch = 8;
};

enum BlockParam { kLn1S, kLn1B, kWqkv, kBqkv, kWo, kBo, kLn2S, kLn2B, kW1, kB1, kW2, kB2 };

Params block_init(const BlockConfig &c, DType dtype) {
  const int64_t d = c.d_model;
  auto w = [&](uint32_t seed, int64_t fan_in, int64_t fan_out) {
    return normal_init(100 + seed, {fan_in, fan_out}, 1.0 / std::sqrt(double(fan_in)), dtype);
  };
  return {ones({d}, dtype), zeros({d}, dtype),     w(0, d, 3 * d),   zeros({3 * d}, dtype),
          w(1, d, d),       zeros({d}, dtype),     ones({d}, dtype), zeros({d}, dtype),
          w(2, d, 4 * d),   zeros({4 * d}, dtype), w(3, 4 * d, d),   zeros({d}, dtype)};
}

Array block_forward(const Params &p, const Array &x, int64_t heads) {
  const int64_t b = x.shape(0), s = x.shape(1), d = x.shape(2), hd = d / heads;
  Array h = nn::layer_norm(x, p[kLn1S], p[kLn1B]);
  Array qkv = matmul(h, p[kWqkv]) + p[kBqkv];
  std::vector<Array> parts = split(qkv, 3, -1);
  auto to_heads = [&](const Array &t) {
    return transpose(reshape(t, {b, s, heads, hd}), std::vector<int>{0, 2, 1, 3});
  };
  Array q = to_heads(parts[0]), k = to_heads(parts[1]), v = to_heads(parts[2]);
  Array scores = matmul(q, swapaxes(k, -1, -2)) * as_weak(1.0 / std::sqrt(double(hd)));
  Array causal = lax::iota(int32, {s, s}, 1) <= lax::iota(int32, {s, s}, 0);
  scores = where(causal, scores, full_like(scores, -1e9));
  Array attn = matmul(nn::softmax(scores, -1), v);
  attn = reshape(transpose(attn, std::vector<int>{0, 2, 1, 3}), {b, s, d});
  Array x1 = x + (matmul(attn, p[kWo]) + p[kBo]);
  Array h2 = nn::layer_norm(x1, p[kLn2S], p[kLn2B]);
  Array m = nn::gelu(matmul(h2, p[kW1]) + p[kB1]);
  return x1 + (matmul(m, p[kW2]) + p[kB2]);
}

/// Mean squared error against a target, accumulated in f32 whatever the block's dtype.
Array block_loss(const Params &p, const Array &x, const Array &target, int64_t heads) {
  Array y = block_forward(p, x, heads).astype(float32);
  return mean(square(y - target.astype(float32)));
}

BlockConfig block_config(const Options &o) {
  return o.small ? BlockConfig{64, 4, 32, 2} : BlockConfig{};
}

// ---- Benchmarks -------------------------------------------------------------------------------

void bench_chain(const Options &o, Device dev) {
  const int64_t n = o.small ? (int64_t(1) << 20) : (int64_t(1) << 26);
  const int reps = o.reps ? o.reps : 7;
  Array x = device_put(random::uniform(random::key(0), {n}), dev);
  auto f = jit(chain);
  double t = time_steady([&] { return f(x); }, reps, 10);
  double tc = copy_seconds(dev, size_t(n) * 4, reps);
  // Both move 8n bytes: the chain reads x and writes y, the copy reads and writes n floats.
  double bw = 8.0 * n / t / 1e9, copy_bw = 8.0 * n / tc / 1e9;
  record("jit_chain6_f32_bandwidth", bw, "GB/s",
         on_host(dev) ? "memcpy" : "device copy (strata::cuda)", copy_bw,
         "\"n\": " + std::to_string(n) + ", \"target_ratio\": 0.85");
}

void bench_dot(const Options &o, Device dev, DType dtype) {
  const int64_t n = o.small ? 256 : 4096;
  const int reps = o.reps ? o.reps : 7;
  const std::string name = std::string("jit_dot_general_") + std::string(short_name(dtype));
  Array a = device_put(normal_init(1, {n, n}, 1.0, dtype), dev);
  Array b = device_put(normal_init(2, {n, n}, 1.0, dtype), dev);
  auto f = jit([](const Array &x, const Array &y) {
    return lax::dot_general(x, y, lax::DotDimensionNumbers{{1}, {0}, {}, {}});
  });
  double t = time_steady([&] { return f(a, b); }, reps, 5);
  const double flop = 2.0 * double(n) * n * n;
  std::string peer;
  double tp = 0;
#ifdef STRATA_HAVE_CUDA_RUNTIME
  if (!on_host(dev)) {
    // cuBLAS(Lt) through Strata's runtime without jit, on buffers of its own holding the same
    // values (bf16 A and B give an f32 C there).
    const size_t in_bytes = size_t(n) * n * itemsize(dtype), out_bytes = size_t(n) * n * 4;
    void *da = strata::cuda::allocate(dev.index, in_bytes);
    void *db = strata::cuda::allocate(dev.index, in_bytes);
    void *dc = strata::cuda::allocate(dev.index, out_bytes);
    std::vector<char> host(in_bytes);
    device_put(a, cpu_device()).copy_to(host.data());
    strata::cuda::copy_to_device(dev.index, da, host.data(), in_bytes);
    device_put(b, cpu_device()).copy_to(host.data());
    strata::cuda::copy_to_device(dev.index, db, host.data(), in_bytes);
    strata::cuda::GemmArgs g;
    g.type = dtype == bfloat16 ? strata::cuda::GemmType::BF16 : strata::cuda::GemmType::F32;
    g.m = g.n = g.k = n;
    g.a = {da, 0, 0, n, 1};
    g.b = {db, 0, 0, n, 1};
    g.c = {dc, 0, 0, n, 1};
    Array token = zeros({1}); // time_steady's handle; the synchronization is the device's
    tp = time_steady(
        [&] {
          strata::cuda::gemm(dev.index, g);
          return token;
        },
        reps, 5);
    strata::cuda::synchronize(dev.index);
    strata::cuda::deallocate(dev.index, da);
    strata::cuda::deallocate(dev.index, db);
    strata::cuda::deallocate(dev.index, dc);
    peer = "cuBLAS direct (strata::cuda::gemm)";
  }
#endif
  if (peer.empty()) {
    // Without the CUDA runtime (or on the host): the eager op, which calls the same library.
    tp = time_steady([&] { return matmul(a, b); }, reps, on_host(dev) ? 1 : 5);
    peer = on_host(dev) ? "eager matmul (BLIS)" : "eager matmul";
  }
  record(name + "_" + std::to_string(n), flop / t / 1e12, "TFLOP/s", peer, flop / tp / 1e12,
         "\"target_ratio\": 0.95");
}

/// First call (trace + compile + run, synchronized) of a fresh jitted function, and its
/// compile seconds as jit counts them.
template <class J, class... A> std::pair<double, double> first_call(J &step, const A &...args) {
  auto t0 = Clock::now();
  auto out = step(args...);
  block_until_ready(std::get<0>(out));
  return {seconds_since(t0), step.stats().compile_seconds};
}

void bench_mlp(const Options &o, Device dev) {
  const int64_t batch = 256;
  const int reps = o.reps ? o.reps : 20;
  Params p = to_device(mlp_init(float32), dev);
  Array x = device_put(random::normal(random::key(1), {batch, 784}), dev);
  Array y = device_put(random::randint(random::key(2), {batch}, 0, 10), dev);
  auto step = jit(mlp_step);
  auto [first, compile] = first_call(step, p, x, y);
  double t = time_steady([&] { return step(p, x, y).first; }, reps, 5);
  std::string extra = "\"first_call_s\": " + std::to_string(first) +
                      ", \"compile_s\": " + std::to_string(compile) + ", \"batch\": 256";
  record("mlp_train_step_784_512_512_10_b256_f32", t * 1e3, "ms", "", 0, extra);
}

void bench_block(const Options &o, Device dev, DType dtype) {
  const BlockConfig c = block_config(o);
  const int reps = o.reps ? o.reps : 10;
  const std::string tag = std::string(short_name(dtype));
  Params p = to_device(block_init(c, dtype), dev);
  Array x = device_put(normal_init(7, {c.batch, c.seq, c.d_model}, 1.0, dtype), dev);
  Array target = device_put(normal_init(8, {c.batch, c.seq, c.d_model}, 1.0, dtype), dev);
  const int64_t heads = c.heads;
  auto step = jit([heads](const Params &p, const Array &x, const Array &t) {
    return value_and_grad([heads](const Params &p, const Array &x, const Array &t) {
      return block_loss(p, x, t, heads);
    })(p, x, t);
  });
  auto [first, compile] = first_call(step, p, x, target);
  double t = time_steady([&] { return step(p, x, target).first; }, reps, 1);
  const std::string shape = "d" + std::to_string(c.d_model) + "_h" + std::to_string(c.heads) +
                            "_s" + std::to_string(c.seq) + "_b" + std::to_string(c.batch);
  record("transformer_block_step_" + shape + "_" + tag, t * 1e3, "ms", "", 0,
         "\"what\": \"jit(value_and_grad(loss)) over all parameters\"");
  record("transformer_block_first_call_" + shape + "_" + tag, first, "s", "", 0,
         "\"compile_s\": " + std::to_string(compile) + ", \"target\": 2.0");
}

int run_bench(const Options &o, Device dev) {
  std::fprintf(stderr, "[bench] on %s%s\n", g_device_desc.c_str(), o.small ? " (small)" : "");
  if (selected(o, "chain"))
    guarded("jit_chain6_f32_bandwidth", [&] { bench_chain(o, dev); });
  for (DType t : {float32, bfloat16})
    if (selected(o, "dot_general"))
      guarded(std::string("jit_dot_general_") + std::string(short_name(t)),
              [&] { bench_dot(o, dev, t); });
  if (selected(o, "mlp"))
    guarded("mlp_train_step", [&] { bench_mlp(o, dev); });
  for (DType t : {float32, bfloat16})
    if (selected(o, "transformer"))
      guarded(std::string("transformer_block_") + std::string(short_name(t)),
              [&] { bench_block(o, dev, t); });
  return 0;
}

// ---- Check mode: training makes progress, and the device agrees with the host ---------------

double host_value(const Array &a) { return device_put(a, cpu_device()).item<double>(); }

int run_check(const Options &o, Device dev) {
  int failures = 0;
  auto report = [&](const std::string &what, bool ok, const std::string &detail) {
    std::printf("{\"check\": \"%s\", \"ok\": %s, \"detail\": \"%s\", \"device\": \"%s\"}\n",
                what.c_str(), ok ? "true" : "false", json_escape(detail).c_str(),
                json_escape(g_device_desc).c_str());
    std::fflush(stdout);
    failures += ok ? 0 : 1;
  };
  // Small sizes: the host reference runs op by op.
  const BlockConfig c{64, 4, 32, 2};
  for (DType dtype : {float32, bfloat16}) {
    const std::string tag(short_name(dtype));
    try {
      Params p_host = block_init(c, dtype);
      Array x_host = normal_init(7, {c.batch, c.seq, c.d_model}, 1.0, dtype);
      Array t_host = normal_init(8, {c.batch, c.seq, c.d_model}, 1.0, dtype);
      const int64_t heads = c.heads;
      auto loss_fn = [heads](const Params &p, const Array &x, const Array &t) {
        return block_loss(p, x, t, heads);
      };
      // The jitted loss on the device against the eager loss on the host.
      double want = block_loss(p_host, x_host, t_host, heads).item<double>();
      Params p = to_device(p_host, dev);
      Array x = device_put(x_host, dev), t = device_put(t_host, dev);
      double got = host_value(jit(loss_fn)(p, x, t));
      double tol = dtype == float32 ? 1e-4 : 3e-2;
      report("transformer_loss_matches_host_" + tag, std::fabs(got - want) <= tol * std::fabs(want),
             "device " + std::to_string(got) + " host " + std::to_string(want));
      // Its gradient agrees with the host's too (one parameter, the largest).
      auto g_dev = jit(grad(loss_fn))(p, x, t);
      auto g_host = grad(loss_fn)(p_host, x_host, t_host);
      double gd = host_value(sum(square(g_dev[kW1].astype(float32))));
      double gh = sum(square(g_host[kW1].astype(float32))).item<double>();
      report("transformer_grad_matches_host_" + tag, std::fabs(gd - gh) <= 10 * tol * std::fabs(gh),
             "|dW1|^2 device " + std::to_string(gd) + " host " + std::to_string(gh));
      // SGD steps on one batch: the loss goes down.
      auto step = jit([loss_fn](const Params &p, const Array &x, const Array &t) {
        auto [loss, g] = value_and_grad(loss_fn)(p, x, t);
        Params np;
        for (size_t i = 0; i < p.size(); ++i)
          np.push_back(p[i] - as_weak(0.05) * g[i]);
        return std::make_pair(loss, np);
      });
      std::vector<double> losses;
      for (int i = 0; i < 5; ++i) {
        auto [loss, np] = step(p, x, t);
        losses.push_back(host_value(loss));
        p = np;
      }
      std::string trace;
      for (double l : losses)
        trace += std::to_string(l) + " ";
      bool finite =
          std::all_of(losses.begin(), losses.end(), [](double l) { return std::isfinite(l); });
      report("transformer_sgd_loss_decreases_" + tag, finite && losses.back() < losses.front(),
             trace);
    } catch (const std::exception &e) {
      report("transformer_" + tag, false, e.what());
    }
  }
  try {
    Params p = to_device(mlp_init(float32), dev);
    Array x = device_put(random::normal(random::key(1), {256, 784}), dev);
    Array y = device_put(random::randint(random::key(2), {256}, 0, 10), dev);
    auto step = jit(mlp_step);
    std::vector<double> losses;
    for (int i = 0; i < 5; ++i) {
      auto [loss, np] = step(p, x, y);
      losses.push_back(host_value(loss));
      p = np;
    }
    report("mlp_sgd_loss_decreases", losses.back() < losses.front(),
           std::to_string(losses.front()) + " -> " + std::to_string(losses.back()));
  } catch (const std::exception &e) {
    report("mlp", false, e.what());
  }
  return failures ? 1 : 0;
}

// A test of the bundle itself: a jitted function on the GPU agrees with the host.
TEST(DeviceCheck, JittedChainOnGpuMatchesHost) {
  std::vector<Device> ds = devices();
  auto it = std::find_if(ds.begin(), ds.end(), [](Device d) { return !on_host(d); });
  if (it == ds.end()) {
    DeviceBackend *b = device_backend(Device::Kind::CUDA);
    GTEST_SKIP() << "no GPU: " << (b ? b->unavailable_reason() : "no CUDA runtime linked");
  }
  Array x = random::uniform(random::key(3), {1000});
  std::vector<float> want = chain(x).to_vector<float>();
  std::vector<float> got = jit(chain)(device_put(x, *it)).to_vector<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5f * (1 + std::fabs(want[i]))) << "element " << i;
}

Device pick_device(const Options &o) {
  if (!o.device.empty())
    return parse_device(o.device);
  for (Device d : devices())
    if (!on_host(d))
      return d;
  DeviceBackend *b = device_backend(Device::Kind::CUDA);
  throw Error(std::string("[device-check] no GPU (") +
              (b ? b->unavailable_reason() : "no CUDA runtime linked") +
              "); use --device cpu to run on the host");
}

void usage() {
  std::fprintf(stderr,
               "usage: strata-device-check [--tests [gtest flags]] [--bench] [--check]\n"
               "         [--device cuda:0|cpu] [--small] [--filter NAME] [--reps N]\n"
               "  --tests   the GPU gtests linked in (they skip without a GPU)\n"
               "  --bench   benchmarks, one JSON record per line on stdout\n"
               "  --check   a few SGD steps and device-vs-host agreement (exit 1 on failure)\n"
               "  --small   small sizes (the CPU run of scripts/device-check run)\n");
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  bool tests = false, bench = false, check = false;
  std::vector<char *> gtest_args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--tests")
      tests = true;
    else if (a == "--bench")
      bench = true;
    else if (a == "--check")
      check = true;
    else if (a == "--small")
      o.small = true;
    else if (a == "--device")
      o.device = value();
    else if (a == "--filter")
      o.filter = value();
    else if (a == "--reps")
      o.reps = std::atoi(value().c_str());
    else if (a.rfind("--gtest", 0) == 0)
      gtest_args.push_back(argv[i]);
    else {
      usage();
      return 2;
    }
  }
  if (!tests && !bench && !check) {
    usage();
    return 2;
  }
  int rc = 0;
  if (tests) {
    int n = static_cast<int>(gtest_args.size());
    testing::InitGoogleTest(&n, gtest_args.data());
    rc |= RUN_ALL_TESTS();
  }
  if (bench || check) {
    try {
      Device dev = pick_device(o);
      g_device_desc = describe(dev);
      if (!on_host(dev))
        g_sync_device = dev.index;
      if (check)
        rc |= run_check(o, dev);
      if (bench)
        rc |= run_bench(o, dev);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "%s\n", e.what());
      record_error("device-check", e.what());
      rc |= 1;
    }
  }
  return rc;
}
