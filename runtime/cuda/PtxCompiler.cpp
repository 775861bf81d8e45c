// PTX -> cubin with nvJitLink, cached in memory and in $STRATA_CACHE_DIR/cuda (verified entries).
#include <atomic>
#include <cstdlib>
#include <unordered_map>

#include "runtime/cuda/CudaInternal.h"
#include "strata/internal/cache_entry.h"
#include "strata/internal/sha256.h"

namespace strata::cuda {

namespace {

std::atomic<int64_t> g_compiles{0}, g_memory_hits{0}, g_disk_hits{0}, g_disk_writes{0},
    g_disk_discarded{0};

struct MemoryCache {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<const std::vector<char>>> cubins;
};
MemoryCache &memory_cache() {
  static MemoryCache *c = new MemoryCache; // never freed: used from static destructors
  return *c;
}

/// sm_90, sm_90a, sm_100f, sm_120: what nvJitLink's -arch takes for a real chip.
bool is_chip_name(const std::string &chip) {
  if (chip.size() < 4 || chip.compare(0, 3, "sm_") != 0)
    return false;
  size_t i = 3;
  while (i < chip.size() && chip[i] >= '0' && chip[i] <= '9')
    ++i;
  if (i == 3)
    return false;
  return i == chip.size() || (i + 1 == chip.size() && (chip[i] == 'a' || chip[i] == 'f'));
}

std::string jitlink_log(const api::JitLink &jl, api::nvJitLinkHandle h) {
  size_t size = 0;
  if (jl.nvJitLinkGetErrorLogSize(h, &size) != api::NVJITLINK_SUCCESS || size == 0)
    return "";
  std::string log(size, '\0');
  if (jl.nvJitLinkGetErrorLog(h, log.data()) != api::NVJITLINK_SUCCESS)
    return "";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

/// nvJitLink -arch=<chip> -O3 on the PTX; throws with nvJitLink's log on failure.
std::vector<char> compile(const api::JitLink &jl, const std::string &ptx, const std::string &chip) {
  std::string arch = "-arch=" + chip;
  const char *options[] = {arch.c_str(), "-O3"};
  api::nvJitLinkHandle h = nullptr;
  if (api::nvJitLinkResult r = jl.nvJitLinkCreate(&h, 2, options); r != api::NVJITLINK_SUCCESS)
    throw Error(
        detail::cat("[cuda] nvJitLinkCreate for ", chip, " failed: ", api::jitlink_result_name(r)),
        ErrorKind::Internal);
  struct Destroy {
    const api::JitLink &jl;
    api::nvJitLinkHandle &h;
    ~Destroy() { jl.nvJitLinkDestroy(&h); }
  } destroy{jl, h};
  ++g_compiles;
  auto fail_with_log = [&](const char *call, api::nvJitLinkResult r) {
    std::string log = jitlink_log(jl, h);
    throw Error(detail::cat("[cuda] ", call, " failed compiling PTX (", ptx.size(), " bytes) for ",
                            chip, ": ", api::jitlink_result_name(r),
                            log.empty() ? "" : "\nnvJitLink log:\n", log),
                ErrorKind::Internal);
  };
  // The size includes the terminating NUL: PTX is passed as a C string.
  if (api::nvJitLinkResult r = jl.nvJitLinkAddData(h, api::NVJITLINK_INPUT_PTX, ptx.c_str(),
                                                   ptx.size() + 1, "strata.ptx");
      r != api::NVJITLINK_SUCCESS)
    fail_with_log("nvJitLinkAddData", r);
  if (api::nvJitLinkResult r = jl.nvJitLinkComplete(h); r != api::NVJITLINK_SUCCESS)
    fail_with_log("nvJitLinkComplete", r);
  size_t size = 0;
  if (api::nvJitLinkResult r = jl.nvJitLinkGetLinkedCubinSize(h, &size);
      r != api::NVJITLINK_SUCCESS)
    fail_with_log("nvJitLinkGetLinkedCubinSize", r);
  std::vector<char> cubin(size);
  if (api::nvJitLinkResult r = jl.nvJitLinkGetLinkedCubin(h, cubin.data());
      r != api::NVJITLINK_SUCCESS)
    fail_with_log("nvJitLinkGetLinkedCubin", r);
  return cubin;
}

std::string jitlink_version(const api::JitLink &jl) {
  unsigned major = 0, minor = 0;
  jl.nvJitLinkVersion(&major, &minor);
  return detail::cat(major, ".", minor);
}

} // namespace

bool jitlink_available() { return api::jitlink() != nullptr; }
std::string jitlink_unavailable_reason() { return api::jitlink() ? "" : api::jitlink_error(); }

PtxCacheStats ptx_cache_stats() {
  return {g_compiles.load(), g_memory_hits.load(), g_disk_hits.load(), g_disk_writes.load(),
          g_disk_discarded.load()};
}

void clear_ptx_memory_cache() {
  MemoryCache &mem = memory_cache();
  std::lock_guard<std::mutex> lock(mem.mu);
  mem.cubins.clear();
}

std::vector<char> ptx_to_cubin(const std::string &ptx, const std::string &chip) {
  if (!is_chip_name(chip))
    fail("cuda", "ptx_to_cubin: '", chip, "' is not a chip name (sm_90, sm_90a, sm_120)");
  const api::JitLink *jl = api::jitlink();
  if (!jl)
    fail("cuda", "ptx_to_cubin needs nvJitLink: ", api::jitlink_error());
  // The key covers everything the cubin depends on: the compiler, its options and the input.
  // The entry stores it whole (the fingerprint is the compiler), so a swapped entry is caught.
  std::string fingerprint = "nvJitLink " + jitlink_version(*jl);
  std::string key_text = detail::cat(fingerprint, "\n-arch=", chip, " -O3\n");
  key_text += ptx;
  std::string key = sha256_hex(key_text, 16);

  MemoryCache &mem = memory_cache();
  {
    std::lock_guard<std::mutex> lock(mem.mu);
    if (auto it = mem.cubins.find(key); it != mem.cubins.end()) {
      ++g_memory_hits;
      return *it->second;
    }
  }

  std::string path;
  if (const char *dir = std::getenv("STRATA_CACHE_DIR"); dir && *dir)
    path = detail::cat(dir, "/cuda/", key, ".cubin");
  std::vector<char> cubin;
  if (!path.empty()) {
    cache::EntryRead entry = cache::read_entry(path, fingerprint, key_text, "cuda");
    if (entry.status == cache::EntryRead::Status::Discarded)
      ++g_disk_discarded;
    if (entry.status == cache::EntryRead::Status::Hit) {
      cubin.assign(entry.payload.begin(), entry.payload.end());
      ++g_disk_hits;
    }
  }
  if (cubin.empty()) {
    cubin = compile(*jl, ptx, chip);
    if (!path.empty() && cache::write_entry(path, fingerprint, key_text,
                                            std::string_view(cubin.data(), cubin.size()), "cuda"))
      ++g_disk_writes;
  }
  auto shared = std::make_shared<const std::vector<char>>(cubin);
  std::lock_guard<std::mutex> lock(mem.mu);
  mem.cubins.emplace(key, std::move(shared));
  return cubin;
}

} // namespace strata::cuda
