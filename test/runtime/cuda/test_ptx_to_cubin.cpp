// PTX -> cubin through the real nvJitLink (no GPU needed): hand-written and strata-opt-generated
// kernels for sm_90 and sm_120, the memory and persistent caches, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include <sys/stat.h>
#include <unistd.h>

#include "cuda_test_util.h"
#include "runtime/cuda/CudaRuntime.h"
#include "strata/internal/cache_entry.h"
#include "strata/internal/sha256.h"
#include "test_util.h"

using namespace strata;
using namespace strata::cuda;
using testutil::expect_error;

namespace {

#define REQUIRE_JITLINK()                                                                          \
  if (!jitlink_available())                                                                        \
  GTEST_SKIP() << "nvJitLink is not available: " << jitlink_unavailable_reason()

/// The SM version nvJitLink wrote into the cubin's ELF flags; the field moved between ELF ABI
/// versions (bits 0-7 before CUDA 12.8's ABI 8, bits 8-15 after), so both are accepted.
bool flags_name_chip(uint32_t flags, int sm) {
  return (flags & 0xff) == static_cast<uint32_t>(sm) ||
         ((flags >> 8) & 0xff) == static_cast<uint32_t>(sm);
}

void expect_kernel_cubin(const std::vector<char> &cubin, const std::string &kernel, int sm) {
  cudatest::CubinInfo info = cudatest::read_cubin(cubin);
  ASSERT_TRUE(info.elf64) << "not a 64-bit ELF";
  EXPECT_EQ(info.machine, 190) << "e_machine is not EM_CUDA";
  EXPECT_TRUE(flags_name_chip(info.flags, sm)) << "e_flags 0x" << std::hex << info.flags;
  EXPECT_NE(std::find(info.functions.begin(), info.functions.end(), kernel), info.functions.end())
      << "no function symbol " << kernel;
}

std::string file_bytes(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Whether the cache entry at `p` is a Strata entry whose payload (its last bytes) is `cubin`.
bool holds_cubin(const std::filesystem::path &p, const std::vector<char> &cubin) {
  std::string bytes = file_bytes(p);
  return bytes.size() > strata::cache::kEntryHeaderSize + cubin.size() &&
         bytes.compare(0, 8, std::string("STRATA\0C", 8)) == 0 &&
         bytes.compare(bytes.size() - cubin.size(), cubin.size(), cubin.data(), cubin.size()) == 0;
}

} // namespace

TEST(Sha256, MatchesFips180Vectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(sha256_hex("abc", 4), "ba7816bf");
}

TEST(PtxToCubin, HandWrittenKernelForSm90AndSm120) {
  REQUIRE_JITLINK();
  for (auto [chip, sm] : {std::pair{"sm_90", 90}, std::pair{"sm_120", 120}}) {
    SCOPED_TRACE(chip);
    expect_kernel_cubin(ptx_to_cubin(cudatest::kVaddPtx, chip), "vadd", sm);
  }
}

TEST(PtxToCubin, StrataOptKernelsForSm90AndSm120) {
  REQUIRE_JITLINK();
  if (!std::filesystem::exists(STRATA_OPT_PATH))
    GTEST_SKIP() << "strata-opt is not built: " << STRATA_OPT_PATH;
  for (auto [chip, sm] : {std::pair{"sm_90", 90}, std::pair{"sm_120", 120}}) {
    SCOPED_TRACE(chip);
    std::string error;
    std::string ptx = cudatest::strata_opt_ptx(STRATA_OPT_PATH, STRATA_SOURCE_DIR, chip, error);
    ASSERT_FALSE(ptx.empty()) << error;
    EXPECT_NE(ptx.find(std::string(".target ") + chip), std::string::npos);
    std::vector<std::string> kernels = cudatest::ptx_entries(ptx);
    ASSERT_FALSE(kernels.empty()) << ptx;
    std::vector<char> cubin = ptx_to_cubin(ptx, chip);
    for (const std::string &k : kernels)
      expect_kernel_cubin(cubin, k, sm);
  }
}

TEST(PtxToCubin, SecondRequestHitsTheMemoryCache) {
  REQUIRE_JITLINK();
  clear_ptx_memory_cache();
  PtxCacheStats before = ptx_cache_stats();
  std::vector<char> first = ptx_to_cubin(cudatest::kVaddPtx, "sm_90");
  std::vector<char> second = ptx_to_cubin(cudatest::kVaddPtx, "sm_90");
  PtxCacheStats after = ptx_cache_stats();
  EXPECT_EQ(first, second);
  EXPECT_EQ(after.memory_hits - before.memory_hits, 1);
  EXPECT_LE(after.compiles - before.compiles, 1) << "at most one nvJitLink run";
  // Another chip is another entry.
  ptx_to_cubin(cudatest::kVaddPtx, "sm_120");
  EXPECT_EQ(ptx_cache_stats().memory_hits, after.memory_hits);
}

TEST(PtxToCubin, PersistentCacheInStrataCacheDir) {
  REQUIRE_JITLINK();
  namespace fs = std::filesystem;
  fs::path dir = fs::path(testing::TempDir()) / ("strata_cuda_cache_" + std::to_string(getpid()));
  fs::remove_all(dir);
  const char *outer = std::getenv("STRATA_CACHE_DIR");
  std::string saved = outer ? outer : "";
  ASSERT_EQ(setenv("STRATA_CACHE_DIR", dir.c_str(), 1), 0);
  // A PTX text no earlier test compiled (a comment changes the key, not the code).
  std::string ptx = std::string(cudatest::kVaddPtx) + "// disk cache test " + dir.string() + "\n";
  clear_ptx_memory_cache();
  PtxCacheStats s0 = ptx_cache_stats();
  std::vector<char> compiled = ptx_to_cubin(ptx, "sm_90");
  PtxCacheStats s1 = ptx_cache_stats();
  EXPECT_EQ(s1.compiles - s0.compiles, 1);
  EXPECT_EQ(s1.disk_writes - s0.disk_writes, 1);
  std::vector<fs::path> files;
  for (const auto &e : fs::directory_iterator(dir / "cuda"))
    files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u) << "one file, no temporary left behind";
  EXPECT_EQ(files[0].extension(), ".cubin");
  EXPECT_TRUE(holds_cubin(files[0], compiled));

  clear_ptx_memory_cache();
  std::vector<char> loaded = ptx_to_cubin(ptx, "sm_90");
  PtxCacheStats s2 = ptx_cache_stats();
  EXPECT_EQ(loaded, compiled);
  EXPECT_EQ(s2.disk_hits - s1.disk_hits, 1);
  EXPECT_EQ(s2.compiles, s1.compiles) << "read from disk, not compiled";

  // A damaged file is recompiled and replaced.
  std::ofstream(files[0], std::ios::binary | std::ios::trunc) << "garbage";
  clear_ptx_memory_cache();
  EXPECT_EQ(ptx_to_cubin(ptx, "sm_90"), compiled);
  EXPECT_EQ(ptx_cache_stats().compiles - s2.compiles, 1);
  EXPECT_TRUE(holds_cubin(files[0], compiled));
  if (outer)
    setenv("STRATA_CACHE_DIR", saved.c_str(), 1);
  else
    unsetenv("STRATA_CACHE_DIR");
  fs::remove_all(dir);
}

TEST(PtxToCubin, CorruptPersistentEntriesAreRecompiled) {
  // Each damage of the entry: the right cubin comes back (compiled again, the entry discarded
  // and rewritten valid), never the damaged or foreign bytes and never a hang.
  REQUIRE_JITLINK();
  namespace fs = std::filesystem;
  fs::path dir = fs::path(testing::TempDir()) / ("strata_cuda_corrupt_" + std::to_string(getpid()));
  fs::remove_all(dir);
  const char *outer = std::getenv("STRATA_CACHE_DIR");
  std::string saved = outer ? outer : "";
  ASSERT_EQ(setenv("STRATA_CACHE_DIR", dir.c_str(), 1), 0);
  std::string ptx = std::string(cudatest::kVaddPtx) + "// corrupt cache test " + dir.string();
  std::string other_ptx = ptx + " (another key)\n";
  ptx += "\n";
  clear_ptx_memory_cache();
  std::vector<char> compiled = ptx_to_cubin(ptx, "sm_90");
  std::vector<fs::path> files;
  for (const auto &e : fs::directory_iterator(dir / "cuda"))
    files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);
  fs::path entry = files[0];
  std::string good = file_bytes(entry);
  ptx_to_cubin(other_ptx, "sm_90");
  fs::path other_entry;
  for (const auto &e : fs::directory_iterator(dir / "cuda"))
    if (e.path() != entry)
      other_entry = e.path();
  ASSERT_FALSE(other_entry.empty());
  auto write = [&](const std::string &bytes) {
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
  };
  std::string elf_header(64, '\0');
  elf_header.replace(0, 4,
                     "\x7f"
                     "ELF");
  std::string flipped = good;
  flipped[good.size() / 2 + 200] ^= 0x10;
  std::vector<std::pair<std::string, std::function<void()>>> damages = {
      {"empty", [&] { write(""); }},
      {"header only", [&] { write(good.substr(0, strata::cache::kEntryHeaderSize)); }},
      {"one byte short", [&] { write(good.substr(0, good.size() - 1)); }},
      {"elf header only", [&] { write(elf_header); }},
      {"bare cubin", [&] { write(std::string(compiled.begin(), compiled.end())); }},
      {"another key's entry",
       [&] { fs::copy_file(other_entry, entry, fs::copy_options::overwrite_existing); }},
      {"a flipped byte", [&] { write(flipped); }},
      {"a fifo",
       [&] {
         fs::remove(entry);
         ASSERT_EQ(mkfifo(entry.c_str(), 0600), 0);
       }},
      {"a directory",
       [&] {
         fs::remove(entry);
         fs::create_directory(entry);
       }},
      {"a symlink",
       [&] {
         fs::remove(entry);
         fs::create_symlink(other_entry, entry);
       }},
  };
  alarm(120); // a blocking read of the FIFO would hang: the alarm ends the test instead
  for (auto &[name, damage] : damages) {
    SCOPED_TRACE(name);
    damage();
    clear_ptx_memory_cache();
    strata::cache::reset_entry_warnings();
    PtxCacheStats before = ptx_cache_stats();
    testing::internal::CaptureStderr();
    std::vector<char> cubin = ptx_to_cubin(ptx, "sm_90");
    std::string warned = testing::internal::GetCapturedStderr();
    PtxCacheStats after = ptx_cache_stats();
    EXPECT_EQ(cubin, compiled);
    EXPECT_EQ(after.compiles - before.compiles, 1);
    EXPECT_EQ(after.disk_discarded - before.disk_discarded, 1);
    EXPECT_EQ(after.disk_writes - before.disk_writes, 1);
    EXPECT_NE(warned.find("[cuda] discarding corrupt cache entry " + entry.string()),
              std::string::npos)
        << warned;
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(entry)));
    EXPECT_TRUE(holds_cubin(entry, compiled));
    clear_ptx_memory_cache();
    EXPECT_EQ(ptx_to_cubin(ptx, "sm_90"), compiled);
    EXPECT_EQ(ptx_cache_stats().disk_hits - after.disk_hits, 1) << "the rewritten entry is read";
  }
  alarm(0);
  if (outer)
    setenv("STRATA_CACHE_DIR", saved.c_str(), 1);
  else
    unsetenv("STRATA_CACHE_DIR");
  fs::remove_all(dir);
}

TEST(PtxToCubin, BadPtxCarriesNvJitLinkLog) {
  REQUIRE_JITLINK();
  std::string bad = std::string(cudatest::kVaddPtx);
  bad.replace(bad.find("add.f32 %f3, %f1, %f2;"), 22, "add.f32 %f3, %f1, %undefined_reg;");
  expect_error([&] { ptx_to_cubin(bad, "sm_90"); },
               {"[cuda]", "failed compiling PTX", "sm_90", "NVJITLINK_ERROR_PTX_COMPILE",
                "nvJitLink log", "undefined_reg"});
  expect_error([] { ptx_to_cubin("this is not PTX", "sm_120"); }, {"sm_120", "nvJitLink log"});
}

TEST(PtxToCubin, RejectsNamesThatAreNotChips) {
  for (const char *chip : {"sm90", "compute_90", "sm_", "sm_90x", "", "sm_9a0"})
    expect_error([&] { ptx_to_cubin(cudatest::kVaddPtx, chip); }, {"is not a chip name"});
}
