// The persistent caches' entry format: encoding, a verifying non-blocking read, an atomic write.
#include "strata/internal/cache_entry.h"

#include "strata/internal/sha256.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strata::cache {
namespace {

constexpr std::string_view kMagic("STRATA\0C", 8);

std::atomic<bool> g_warned_discard{false}, g_warned_write{false};

/// Prints `message` on stderr the first time `flag` is raised in this process.
void warn_once(std::atomic<bool> &flag, const std::string &message) {
  if (!flag.exchange(true))
    std::fprintf(stderr, "%s\n", message.c_str());
}

void put_u32(std::string &out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t get_le(const char *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

std::array<uint8_t, 32> digest(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.finish();
}

/// An open file descriptor, closed on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// Reads exactly `n` bytes at the file's position into `out`; false on an error or early end
/// (errno 0: the file was shortened while being read).
bool read_exactly(int fd, char *out, size_t n) {
  while (n > 0) {
    ssize_t got = ::read(fd, out, n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got == 0)
      errno = 0;
    if (got <= 0)
      return false;
    out += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t put = ::write(fd, data.data(), data.size());
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      return false;
    data.remove_prefix(static_cast<size_t>(put));
  }
  return true;
}

/// "cannot read <what>: <why>" after read_exactly failed.
std::string read_failure(const char *what) {
  return std::string("cannot read ") + what + ": " +
         (errno ? std::strerror(errno) : "the file ended early");
}

std::string file_kind(mode_t mode) {
  if (S_ISLNK(mode))
    return "a symbolic link";
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

/// Why the entry at `path` is unusable for (`fingerprint`, `key`), or "" when `payload` now
/// holds its verified payload. `missing` is set when there is no entry at all.
std::string read_verified(const std::string &path, std::string_view fingerprint,
                          std::string_view key, std::string &payload, bool &missing) {
  struct stat before;
  if (::lstat(path.c_str(), &before) != 0) {
    missing = errno == ENOENT || errno == ENOTDIR;
    return std::string("cannot stat it: ") + std::strerror(errno);
  }
  // Judged before opening: opening a FIFO or a device could block or act on the device.
  if (!S_ISREG(before.st_mode))
    return file_kind(before.st_mode);
  Fd f;
  // O_NONBLOCK and O_NOFOLLOW: the path may have been replaced since the lstat.
  f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (f.fd < 0) {
    missing = errno == ENOENT;
    return std::string("cannot open it: ") + std::strerror(errno);
  }
  struct stat st;
  if (::fstat(f.fd, &st) != 0)
    return std::string("cannot stat it: ") + std::strerror(errno);
  if (!S_ISREG(st.st_mode))
    return file_kind(st.st_mode);
  uint64_t file_size = static_cast<uint64_t>(st.st_size);
  if (file_size > kMaxEntrySize)
    return std::to_string(file_size) + " bytes, larger than any entry (" +
           std::to_string(kMaxEntrySize) + ")";
  // The magic first, so a file of another kind is named as such even when it is short.
  std::string header(std::min<uint64_t>(file_size, kEntryHeaderSize), '\0');
  if (!read_exactly(f.fd, header.data(), header.size()))
    return read_failure("its header");
  if (header.size() >= kMagic.size() && std::string_view(header).substr(0, kMagic.size()) != kMagic)
    return "not a Strata cache entry (no header)";
  if (header.size() < kEntryHeaderSize)
    return "truncated: " + std::to_string(file_size) + " bytes, less than the " +
           std::to_string(kEntryHeaderSize) + "-byte header";
  uint64_t version = get_le(header.data() + 8, 4), reserved = get_le(header.data() + 12, 4);
  if (version != kEntryVersion || reserved != 0)
    return "entry format version " + std::to_string(version) + " (flags " +
           std::to_string(reserved) + "), this build reads version " +
           std::to_string(kEntryVersion);
  uint64_t fp_size = get_le(header.data() + 16, 8), key_size = get_le(header.data() + 24, 8),
           payload_size = get_le(header.data() + 32, 8);
  // Each size is bounded by the file's before they are added, so the sum cannot overflow.
  uint64_t room = file_size - kEntryHeaderSize;
  if (fp_size > room || key_size > room || payload_size > room ||
      fp_size + key_size + payload_size != room)
    return "the header's sizes (fingerprint " + std::to_string(fp_size) + ", key " +
           std::to_string(key_size) + ", payload " + std::to_string(payload_size) +
           " bytes) do not add up to the file's " + std::to_string(file_size) +
           " bytes (truncated or overwritten)";
  if (fp_size != fingerprint.size() || key_size != key.size())
    return fp_size != fingerprint.size() ? "written by another compiler (fingerprint differs)"
                                         : "holds another key's code";
  std::string text(fp_size + key_size, '\0');
  if (!read_exactly(f.fd, text.data(), text.size()))
    return read_failure("its key");
  if (std::string_view(text).substr(0, fp_size) != fingerprint)
    return "written by another compiler (fingerprint differs)";
  if (std::string_view(text).substr(fp_size) != key)
    return "holds another key's code";
  payload.assign(payload_size, '\0');
  if (!read_exactly(f.fd, payload.data(), payload.size()))
    return read_failure("its payload");
  std::array<uint8_t, 32> want;
  std::memcpy(want.data(), header.data() + 40, want.size());
  if (digest(payload) != want)
    return "the payload's checksum does not match (damaged)";
  return "";
}

/// Creates the missing directories of `dir`, each with mode 0700 (the cache is private: its
/// entries are code this process will run).
bool make_private_dirs(const std::filesystem::path &dir, std::string &error) {
  std::filesystem::path sofar;
  for (const std::filesystem::path &part : dir) {
    sofar /= part;
    if (::mkdir(sofar.c_str(), 0700) != 0 && errno != EEXIST) {
      error = "cannot create " + sofar.string() + ": " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

} // namespace

std::string encode_entry(std::string_view fingerprint, std::string_view key,
                         std::string_view payload) {
  std::string out(kMagic);
  put_u32(out, kEntryVersion);
  put_u32(out, 0);
  put_u64(out, fingerprint.size());
  put_u64(out, key.size());
  put_u64(out, payload.size());
  std::array<uint8_t, 32> sum = digest(payload);
  out.append(reinterpret_cast<const char *>(sum.data()), sum.size());
  out.reserve(out.size() + fingerprint.size() + key.size() + payload.size());
  out += fingerprint;
  out += key;
  out += payload;
  return out;
}

EntryRead read_entry(const std::string &path, std::string_view fingerprint, std::string_view key,
                     const char *tag) {
  EntryRead result;
  bool missing = false;
  std::string reason;
  try {
    reason = read_verified(path, fingerprint, key, result.payload, missing);
  } catch (const std::bad_alloc &) {
    reason = "no memory to read it";
  }
  if (reason.empty()) {
    result.status = EntryRead::Status::Hit;
    return result;
  }
  result.payload.clear();
  if (missing)
    return result;
  result.status = EntryRead::Status::Discarded;
  result.reason = reason;
  warn_once(g_warned_discard,
            std::string("[") + tag + "] discarding corrupt cache entry " + path + ": " + reason);
  // Files, links and FIFOs go (rename would replace them too); a directory only if empty.
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return result;
}

bool write_entry(const std::string &path, std::string_view fingerprint, std::string_view key,
                 std::string_view payload, const char *tag) {
  static std::atomic<uint64_t> serial{0};
  std::string error;
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  uint64_t size = kEntryHeaderSize + fingerprint.size() + key.size() + payload.size();
  if (size > kMaxEntrySize) {
    error = std::to_string(size) + " bytes, more than an entry may hold (" +
            std::to_string(kMaxEntrySize) + ")";
  } else if (make_private_dirs(dir, error)) {
    std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
    Fd f;
    f.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (f.fd < 0) {
      error = "cannot create " + tmp + ": " + std::strerror(errno);
    } else {
      bool ok = write_all(f.fd, encode_entry(fingerprint, key, payload));
      int saved = errno;
      ok = ::close(f.fd) == 0 && ok;
      f.fd = -1;
      if (!ok)
        error = std::string("cannot write ") + tmp + ": " + std::strerror(saved ? saved : errno);
      else if (::rename(tmp.c_str(), path.c_str()) != 0)
        error = std::string("cannot rename it into place: ") + std::strerror(errno);
      if (!error.empty())
        ::unlink(tmp.c_str());
    }
  }
  if (error.empty())
    return true;
  warn_once(g_warned_write, std::string("[") + tag + "] cannot write cache entry " + path + ": " +
                                error + "; continuing without caching it");
  return false;
}

void reset_entry_warnings() {
  g_warned_discard = false;
  g_warned_write = false;
}

} // namespace strata::cache
