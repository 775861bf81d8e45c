// The persistent cache (STRATA_CACHE_DIR) under every corruption of its entries: each damaged,
// foreign or non-regular entry is discarded with one warning, recompiled to the right values
// and rewritten as a valid entry; an unwritable cache directory only stops caching.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <thread>

#include "jit/DiskCache.h"
#include "strata/internal/cache_entry.h"
#include "strata/jit.h"
#include "strata/strata.h"

namespace fs = std::filesystem;
using strata::Array;
using strata::rt::disk_cache_stats;
using strata::rt::DiskCacheStats;

namespace {

const std::vector<float> kInput{0.5f, -1.0f, 2.0f, 7.25f, -3.5f};

Array add_one(const Array &x) { return x + 1.0; }
Array times_two(const Array &x) { return x * 2.0; }
/// A constant distinctive enough to be found (and patched) in the object code.
constexpr float kScale = 3.8125f;
Array scale(const Array &x) { return x * static_cast<double>(kScale) + 0.5; }

/// `fn` jitted afresh (a new identity, so the in-memory cache misses and the disk is consulted)
/// and run on kInput.
std::vector<float> run(Array (*fn)(const Array &)) {
  return strata::jit(fn)(Array::from_vector(kInput)).to_vector<float>();
}

std::vector<float> expected(float (*fn)(float)) {
  std::vector<float> out;
  for (float v : kInput)
    out.push_back(fn(v));
  return out;
}
const std::vector<float> kAddOne = expected([](float v) { return v + 1.0f; });
const std::vector<float> kTimesTwo = expected([](float v) { return v * 2.0f; });
const std::vector<float> kScaled = expected([](float v) { return v * kScale + 0.5f; });

std::string read_bytes(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
void write_bytes(const fs::path &p, const std::string &bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

/// A fresh cache directory in STRATA_CACHE_DIR for the test's lifetime.
class CacheDir {
public:
  explicit CacheDir(const std::string &tag) {
    dir_ = fs::temp_directory_path() /
           ("strata-cache-corrupt-" + std::to_string(::getpid()) + "-" + tag);
    fs::remove_all(dir_);
    ::setenv("STRATA_CACHE_DIR", dir_.c_str(), 1);
  }
  ~CacheDir() {
    ::unsetenv("STRATA_CACHE_DIR");
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  const fs::path &path() const { return dir_; }
  /// Everything in the directory (entries, and any temporary left behind).
  std::vector<fs::path> files() const {
    std::vector<fs::path> out;
    for (const auto &e : fs::directory_iterator(dir_))
      out.push_back(e.path());
    return out;
  }
  /// Compiles `fn` into the empty directory and returns its one entry's path.
  fs::path populate(Array (*fn)(const Array &)) {
    std::vector<fs::path> before = files_if_any();
    run(fn);
    for (const fs::path &p : files())
      if (std::find(before.begin(), before.end(), p) == before.end())
        return p;
    ADD_FAILURE() << "no entry written";
    return {};
  }

private:
  std::vector<fs::path> files_if_any() const {
    if (!fs::exists(dir_))
      return {};
    return files();
  }
  fs::path dir_;
};

/// Stats and stderr around one call.
struct Observed {
  std::vector<float> values;
  DiskCacheStats delta;
  std::string stderr_text;
};
Observed observe(Array (*fn)(const Array &)) {
  DiskCacheStats before = disk_cache_stats();
  testing::internal::CaptureStderr();
  Observed o;
  o.values = run(fn);
  o.stderr_text = testing::internal::GetCapturedStderr();
  DiskCacheStats after = disk_cache_stats();
  o.delta = {after.hits - before.hits, after.writes - before.writes,
             after.discarded - before.discarded};
  return o;
}

size_t count(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

/// The next run of `fn` reads a valid entry at `entry`: a hit, nothing discarded.
void expect_valid_entry(const CacheDir &cache, const fs::path &entry, Array (*fn)(const Array &),
                        const std::vector<float> &want) {
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(entry))) << entry;
  Observed again = observe(fn);
  EXPECT_EQ(again.values, want);
  EXPECT_EQ(again.delta.hits, 1) << "the rewritten entry is not read back";
  EXPECT_EQ(again.delta.discarded, 0);
  EXPECT_EQ(again.stderr_text, "");
  for (const fs::path &p : cache.files())
    EXPECT_EQ(p.string().find(".tmp"), std::string::npos) << "temporary left behind: " << p;
}

/// Compiles add_one, damages its entry with `corrupt`, and checks the next run: right values,
/// the entry discarded with exactly one warning naming it, recompiled and rewritten valid.
void check_corruption(const std::string &tag, const std::function<void(const fs::path &)> &corrupt,
                      const std::string &reason = "") {
  SCOPED_TRACE(tag);
  CacheDir cache(tag);
  fs::path entry = cache.populate(add_one);
  ASSERT_FALSE(entry.empty());
  corrupt(entry);
  strata::cache::reset_entry_warnings();
  Observed o = observe(add_one);
  EXPECT_EQ(o.values, kAddOne);
  EXPECT_EQ(o.delta.discarded, 1);
  EXPECT_EQ(o.delta.hits, 0);
  EXPECT_EQ(o.delta.writes, 1);
  EXPECT_EQ(count(o.stderr_text, "[jit] discarding corrupt cache entry " + entry.string() + ": "),
            1u)
      << o.stderr_text;
  EXPECT_EQ(count(o.stderr_text, "\n"), 1u) << "one warning: " << o.stderr_text;
  if (!reason.empty())
    EXPECT_NE(o.stderr_text.find(reason), std::string::npos) << o.stderr_text;
  expect_valid_entry(cache, entry, add_one, kAddOne);
}

TEST(DiskCacheCorruption, TruncatedAtEveryBoundary) {
  // Sizes past the header are found from a real entry: inside the fingerprint, the key and the
  // payload, and one byte short.
  std::string good;
  {
    CacheDir cache("probe");
    good = read_bytes(cache.populate(add_one));
  }
  ASSERT_GT(good.size(), strata::cache::kEntryHeaderSize + 100);
  const size_t h = strata::cache::kEntryHeaderSize;
  for (size_t length :
       {size_t{0}, size_t{1}, size_t{8}, h - 1, h, h + 3, (good.size() + h) / 2, good.size() - 1}) {
    check_corruption("truncated-" + std::to_string(length),
                     [&](const fs::path &p) { write_bytes(p, read_bytes(p).substr(0, length)); });
  }
}

TEST(DiskCacheCorruption, TrailingBytes) {
  check_corruption(
      "trailing", [](const fs::path &p) { write_bytes(p, read_bytes(p) + "x"); }, "do not add up");
}

TEST(DiskCacheCorruption, RandomBytes) {
  std::mt19937 rng(17);
  for (size_t size : {size_t{5}, size_t{100}, size_t{4096}}) {
    check_corruption("random-" + std::to_string(size), [&](const fs::path &p) {
      std::string bytes(size, '\0');
      for (char &c : bytes)
        c = static_cast<char>(rng());
      write_bytes(p, bytes);
    });
  }
}

TEST(DiskCacheCorruption, ElfHeaderOnly) {
  check_corruption(
      "elf-header",
      [](const fs::path &p) {
        std::string elf(64, '\0');
        const char ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
        std::memcpy(elf.data(), ident, sizeof ident);
        write_bytes(p, elf);
      },
      "not a Strata cache entry");
}

TEST(DiskCacheCorruption, BareObjectWithoutHeader) {
  // The entry's object code alone, as a cache without headers stored it.
  check_corruption(
      "bare-object",
      [](const fs::path &p) {
        std::string bytes = read_bytes(p);
        size_t at = bytes.find("\x7f"
                               "ELF");
        ASSERT_NE(at, std::string::npos);
        write_bytes(p, bytes.substr(at));
      },
      "not a Strata cache entry");
}

TEST(DiskCacheCorruption, EveryHeaderFieldFlipped) {
  // Magic, version, reserved, the three sizes, the checksum: one bit of each.
  for (size_t offset : {size_t{0}, size_t{8}, size_t{12}, size_t{16}, size_t{24}, size_t{32},
                        size_t{40}, size_t{71}}) {
    check_corruption("header-" + std::to_string(offset), [&](const fs::path &p) {
      std::string bytes = read_bytes(p);
      bytes[offset] ^= 0x01;
      write_bytes(p, bytes);
    });
  }
}

TEST(DiskCacheCorruption, FingerprintKeyAndPayloadBytesFlipped) {
  std::string good;
  {
    CacheDir cache("probe2");
    good = read_bytes(cache.populate(add_one));
  }
  // The first byte after the header is the fingerprint's; the staged IR ("func.func") is in the
  // key; the ELF magic starts the payload; the last byte is the payload's.
  size_t key_at = good.find("func.func"), payload_at = good.find("\x7f"
                                                                 "ELF");
  ASSERT_NE(key_at, std::string::npos);
  ASSERT_NE(payload_at, std::string::npos);
  for (auto [name, offset] : {std::pair{"fingerprint", strata::cache::kEntryHeaderSize},
                              std::pair{"key", key_at}, std::pair{"payload-start", payload_at},
                              std::pair{"payload-middle", (payload_at + good.size()) / 2},
                              std::pair{"payload-end", good.size() - 1}}) {
    check_corruption(std::string("flip-") + name, [offset = offset](const fs::path &p) {
      std::string bytes = read_bytes(p);
      bytes[offset] ^= 0x20;
      write_bytes(p, bytes);
    });
  }
}

TEST(DiskCacheCorruption, PatchedConstantIsNotLoaded) {
  CacheDir cache("constant");
  fs::path entry = cache.populate(scale);
  std::string bytes = read_bytes(entry);
  float from = kScale, to = 100.0f;
  std::string pattern(reinterpret_cast<const char *>(&from), sizeof from);
  std::string patch(reinterpret_cast<const char *>(&to), sizeof to);
  size_t payload_at = bytes.find("\x7f"
                                 "ELF");
  size_t at = bytes.find(pattern, payload_at);
  ASSERT_NE(at, std::string::npos) << "the constant is not in the object code";
  for (; at != std::string::npos; at = bytes.find(pattern, at + 1))
    bytes.replace(at, patch.size(), patch);
  write_bytes(entry, bytes);
  strata::cache::reset_entry_warnings();
  Observed o = observe(scale);
  EXPECT_EQ(o.values, kScaled);
  EXPECT_EQ(o.delta.discarded, 1);
  EXPECT_EQ(o.delta.writes, 1);
  EXPECT_NE(o.stderr_text.find("checksum"), std::string::npos) << o.stderr_text;
  expect_valid_entry(cache, entry, scale, kScaled);
}

TEST(DiskCacheCorruption, AnotherFunctionsEntryUnderTheKey) {
  // x*2's entry (a valid entry, for another key) at x+1's path: x+1 is computed, not x*2.
  CacheDir cache("foreign");
  fs::path plus = cache.populate(add_one);
  fs::path twice = cache.populate(times_two);
  ASSERT_NE(plus, twice);
  fs::copy_file(twice, plus, fs::copy_options::overwrite_existing);
  strata::cache::reset_entry_warnings();
  Observed o = observe(add_one);
  EXPECT_EQ(o.values, kAddOne);
  EXPECT_EQ(o.delta.discarded, 1);
  EXPECT_EQ(o.delta.writes, 1);
  EXPECT_NE(o.stderr_text.find("another key"), std::string::npos) << o.stderr_text;
  expect_valid_entry(cache, plus, add_one, kAddOne);
  expect_valid_entry(cache, twice, times_two, kTimesTwo);
}

TEST(DiskCacheCorruption, EntriesSwappedBetweenKeys) {
  CacheDir cache("swap");
  fs::path plus = cache.populate(add_one);
  fs::path twice = cache.populate(times_two);
  fs::path tmp = cache.path() / "swap";
  fs::rename(plus, tmp);
  fs::rename(twice, plus);
  fs::rename(tmp, twice);
  strata::cache::reset_entry_warnings();
  Observed a = observe(add_one);
  Observed b = observe(times_two);
  EXPECT_EQ(a.values, kAddOne);
  EXPECT_EQ(b.values, kTimesTwo);
  EXPECT_EQ(a.delta.discarded + b.delta.discarded, 2);
  EXPECT_EQ(a.delta.writes + b.delta.writes, 2);
  // One warning per process, however many entries are discarded.
  EXPECT_EQ(count(a.stderr_text + b.stderr_text, "discarding corrupt cache entry"), 1u);
  expect_valid_entry(cache, plus, add_one, kAddOne);
  expect_valid_entry(cache, twice, times_two, kTimesTwo);
}

TEST(DiskCacheCorruption, FifoAtTheEntryDoesNotHang) {
  // A blocking open of a FIFO without a writer never returns: the alarm ends the test instead.
  alarm(120);
  check_corruption(
      "fifo",
      [](const fs::path &p) {
        fs::remove(p);
        ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0) << std::strerror(errno);
      },
      "a FIFO");
  alarm(0);
}

TEST(DiskCacheCorruption, EmptyDirectoryAtTheEntry) {
  check_corruption(
      "directory",
      [](const fs::path &p) {
        fs::remove(p);
        fs::create_directory(p);
      },
      "a directory");
}

TEST(DiskCacheCorruption, NonEmptyDirectoryAtTheEntryOnlyStopsCaching) {
  CacheDir cache("full-directory");
  fs::path entry = cache.populate(add_one);
  fs::remove(entry);
  fs::create_directories(entry / "inside");
  strata::cache::reset_entry_warnings();
  Observed o = observe(add_one);
  EXPECT_EQ(o.values, kAddOne);
  EXPECT_EQ(o.delta.discarded, 1);
  EXPECT_EQ(o.delta.writes, 0) << "a directory cannot be replaced by an entry";
  EXPECT_EQ(count(o.stderr_text, "[jit] discarding corrupt cache entry"), 1u) << o.stderr_text;
  EXPECT_EQ(count(o.stderr_text, "[jit] cannot write cache entry"), 1u) << o.stderr_text;
  EXPECT_TRUE(fs::exists(entry / "inside"));
}

TEST(DiskCacheCorruption, SymlinkAtTheEntryIsNotFollowed) {
  // Even a link to a valid entry is refused: a link could point anywhere.
  CacheDir elsewhere("link-target");
  fs::path target = elsewhere.populate(add_one);
  fs::path kept = elsewhere.path() / "kept";
  fs::copy_file(target, kept);
  check_corruption(
      "symlink",
      [&](const fs::path &p) {
        fs::remove(p);
        fs::create_symlink(kept, p);
      },
      "a symbolic link");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(kept))) << "the link's target is untouched";
}

TEST(DiskCacheCorruption, SymlinkToAFifoDoesNotHang) {
  alarm(120);
  CacheDir elsewhere("fifo-target");
  fs::create_directories(elsewhere.path());
  fs::path fifo = elsewhere.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  check_corruption("symlink-fifo", [&](const fs::path &p) {
    fs::remove(p);
    fs::create_symlink(fifo, p);
  });
  alarm(0);
}

TEST(DiskCacheCorruption, UnreadableEntry) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "running as root, which reads files whatever their mode";
  check_corruption(
      "unreadable", [](const fs::path &p) { fs::permissions(p, fs::perms::none); },
      "cannot open it");
}

TEST(DiskCacheCorruption, OneWarningPerProcess) {
  CacheDir cache("once");
  fs::path entry = cache.populate(add_one);
  strata::cache::reset_entry_warnings();
  std::string stderr_text;
  DiskCacheStats before = disk_cache_stats();
  for (int i = 0; i < 3; ++i) {
    write_bytes(entry, "garbage");
    Observed o = observe(add_one);
    EXPECT_EQ(o.values, kAddOne);
    stderr_text += o.stderr_text;
  }
  EXPECT_EQ(disk_cache_stats().discarded - before.discarded, 3);
  EXPECT_EQ(count(stderr_text, "discarding corrupt cache entry"), 1u) << stderr_text;
}

// ---- Writing ----------------------------------------------------------------------------------

TEST(DiskCacheWrite, CreatesPrivateDirectories) {
  CacheDir cache("private");
  fs::path nested = cache.path() / "a" / "b";
  ::setenv("STRATA_CACHE_DIR", nested.c_str(), 1);
  mode_t saved = ::umask(0); // whatever the umask, the directories are 0700
  run(add_one);
  ::umask(saved);
  for (const fs::path &d : {cache.path(), cache.path() / "a", nested}) {
    struct stat st;
    ASSERT_EQ(::stat(d.c_str(), &st), 0) << d;
    EXPECT_EQ(st.st_mode & 0777, 0700u) << d;
  }
  for (const auto &e : fs::directory_iterator(nested)) {
    struct stat st;
    ASSERT_EQ(::stat(e.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << e.path();
  }
}

TEST(DiskCacheWrite, UncreatableDirectoryOnlyStopsCaching) {
  // Below a regular file no directory can be made, whoever runs the test.
  CacheDir cache("uncreatable");
  fs::create_directories(cache.path());
  write_bytes(cache.path() / "file", "x");
  ::setenv("STRATA_CACHE_DIR", (cache.path() / "file" / "cache").c_str(), 1);
  strata::cache::reset_entry_warnings();
  std::string stderr_text;
  for (int i = 0; i < 2; ++i) {
    Observed o = observe(add_one);
    EXPECT_EQ(o.values, kAddOne);
    EXPECT_EQ(o.delta.writes, 0);
    EXPECT_EQ(o.delta.discarded, 0);
    stderr_text += o.stderr_text;
  }
  EXPECT_EQ(count(stderr_text, "[jit] cannot write cache entry"), 1u) << stderr_text;
}

TEST(DiskCacheWrite, ReadOnlyDirectoryOnlyStopsCaching) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "running as root, which writes into read-only directories";
  CacheDir cache("read-only");
  fs::create_directories(cache.path());
  fs::permissions(cache.path(), fs::perms::owner_read | fs::perms::owner_exec);
  strata::cache::reset_entry_warnings();
  Observed o = observe(add_one);
  EXPECT_EQ(o.values, kAddOne);
  EXPECT_EQ(o.delta.writes, 0);
  EXPECT_EQ(count(o.stderr_text, "[jit] cannot write cache entry"), 1u) << o.stderr_text;
}

TEST(DiskCacheWrite, FullDiskOnlyStopsCaching) {
  // A file size limit makes write() fail with EFBIG as a full disk fails with ENOSPC. It holds
  // for every file the process writes (the captured stderr too): the runtime starts first (libomp
  // creates its shared-memory file on first use) and the limit leaves room for a warning, not for
  // an entry.
  CacheDir cache("full");
  EXPECT_EQ(run(times_two), kTimesTwo);
  fs::remove_all(cache.path());
  struct rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 2048;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  strata::cache::reset_entry_warnings();
  Observed o = observe(add_one);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(o.values, kAddOne);
  EXPECT_EQ(o.delta.writes, 0);
  EXPECT_EQ(count(o.stderr_text, "[jit] cannot write cache entry"), 1u) << o.stderr_text;
  EXPECT_TRUE(cache.files().empty()) << "neither an entry nor a temporary is left";
}

TEST(DiskCacheWrite, ConcurrentCompilesLeaveOneValidEntry) {
  CacheDir cache("compiles");
  std::vector<std::vector<float>> results(4);
  std::vector<std::thread> threads;
  for (auto &r : results)
    threads.emplace_back([&r] { r = run(add_one); });
  for (std::thread &t : threads)
    t.join();
  for (const auto &r : results)
    EXPECT_EQ(r, kAddOne);
  std::vector<fs::path> files = cache.files();
  ASSERT_EQ(files.size(), 1u);
  expect_valid_entry(cache, files[0], add_one, kAddOne);
}

// ---- The entry format -------------------------------------------------------------------------

TEST(CacheEntry, RoundTripAndMismatches) {
  CacheDir cache("format");
  fs::create_directories(cache.path());
  std::string path = (cache.path() / "e").string();
  ASSERT_TRUE(strata::cache::write_entry(path, "fp", "key", std::string("pay\0load", 8), "test"));
  using Status = strata::cache::EntryRead::Status;
  strata::cache::EntryRead hit = strata::cache::read_entry(path, "fp", "key", "test");
  EXPECT_EQ(hit.status, Status::Hit);
  EXPECT_EQ(hit.payload, std::string("pay\0load", 8));
  EXPECT_EQ(read_bytes(path),
            strata::cache::encode_entry("fp", "key", std::string("pay\0load", 8)));
  EXPECT_EQ(strata::cache::read_entry(path + "x", "fp", "key", "test").status, Status::Missing);
  testing::internal::CaptureStderr();
  strata::cache::EntryRead other = strata::cache::read_entry(path, "fp", "kez", "test");
  strata::cache::EntryRead compiler = strata::cache::read_entry(path, "fq", "key", "test");
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(other.status, Status::Discarded);
  EXPECT_NE(other.reason.find("another key"), std::string::npos) << other.reason;
  EXPECT_TRUE(other.payload.empty());
  EXPECT_FALSE(fs::exists(path)) << "a discarded entry is removed";
  EXPECT_EQ(compiler.status, Status::Missing) << "already removed";
  // An empty payload and empty key are entries too.
  ASSERT_TRUE(strata::cache::write_entry(path, "fp", "", "", "test"));
  EXPECT_EQ(strata::cache::read_entry(path, "fp", "", "test").status, Status::Hit);
  testing::internal::CaptureStderr();
  EXPECT_NE(strata::cache::read_entry(path, "fq", "", "test").reason.find("another compiler"),
            std::string::npos);
  testing::internal::GetCapturedStderr();
}

TEST(CacheEntry, OversizedSparseFileIsNotRead) {
  // A valid header in front of a sparse file of 2 GiB: refused by its size, at once.
  CacheDir cache("sparse");
  fs::create_directories(cache.path());
  std::string path = (cache.path() / "e").string();
  ASSERT_TRUE(strata::cache::write_entry(path, "fp", "key", "payload", "test"));
  fs::resize_file(path, uint64_t{2} << 30);
  testing::internal::CaptureStderr();
  strata::cache::EntryRead e = strata::cache::read_entry(path, "fp", "key", "test");
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(e.status, strata::cache::EntryRead::Status::Discarded);
  EXPECT_NE(e.reason.find("larger than any entry"), std::string::npos) << e.reason;
  EXPECT_FALSE(fs::exists(path));
}

TEST(CacheEntry, ConcurrentWritersAndReadersSeeWholeEntries) {
  // Writers replace the entry with payloads of different sizes while readers read it: every
  // read is a whole entry of one writer (or none yet), never a mixture.
  CacheDir cache("writers");
  fs::create_directories(cache.path());
  std::string path = (cache.path() / "e").string();
  std::atomic<int> discarded{0}, hits{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w)
    threads.emplace_back([&, w] {
      std::string payload(1000 * (w + 1) + 7, static_cast<char>('a' + w));
      for (int i = 0; i < 50; ++i)
        EXPECT_TRUE(strata::cache::write_entry(path, "fp", "key", payload, "test"));
    });
  for (int r = 0; r < 4; ++r)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        strata::cache::EntryRead e = strata::cache::read_entry(path, "fp", "key", "test");
        if (e.status == strata::cache::EntryRead::Status::Discarded)
          ++discarded;
        if (e.status == strata::cache::EntryRead::Status::Hit) {
          ++hits;
          char c = e.payload.empty() ? '?' : e.payload[0];
          EXPECT_EQ(e.payload, std::string(1000 * (c - 'a' + 1) + 7, c));
        }
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(discarded.load(), 0);
  EXPECT_GT(hits.load(), 0);
  std::vector<fs::path> files = cache.files();
  EXPECT_EQ(files.size(), 1u) << "no temporary left behind";
}

} // namespace
