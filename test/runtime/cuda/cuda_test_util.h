// Helpers of the CUDA runtime tests: a hand-written PTX kernel, a cubin (ELF) reader, and the PTX
// that strata-opt generates for a test/Transforms program.
#pragma once

#include <elf.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/cuda/CudaRuntime.h"
#include "strata/error.h"

namespace cudatest {

/// The message of the CUDA runtime's recorded error (rethrow_pending_error), "" when none.
inline std::string pending_message() {
  try {
    strata::cuda::rethrow_pending_error();
  } catch (const strata::Error &e) {
    return e.what();
  }
  return "";
}

/// c[i] = a[i] + b[i] for i < n (f32), one thread per element.
inline const char *kVaddPtx = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry vadd(
  .param .u64 vadd_a,
  .param .u64 vadd_b,
  .param .u64 vadd_c,
  .param .u32 vadd_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<11>;
  ld.param.u64 %rd1, [vadd_a];
  ld.param.u64 %rd2, [vadd_b];
  ld.param.u64 %rd3, [vadd_c];
  ld.param.u32 %r1, [vadd_n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mul.wide.u32 %rd7, %r5, 4;
  add.s64 %rd8, %rd4, %rd7;
  add.s64 %rd9, %rd5, %rd7;
  add.s64 %rd10, %rd6, %rd7;
  ld.global.f32 %f1, [%rd8];
  ld.global.f32 %f2, [%rd9];
  add.f32 %f3, %f1, %f2;
  st.global.f32 [%rd10], %f3;
DONE:
  ret;
}
)";

/// What a cubin says about itself.
struct CubinInfo {
  bool elf64 = false;
  uint16_t machine = 0;
  uint32_t flags = 0;
  std::vector<std::string> functions; ///< STT_FUNC symbols
};

inline CubinInfo read_cubin(const std::vector<char> &bytes) {
  CubinInfo info;
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0 ||
      bytes[EI_CLASS] != ELFCLASS64)
    return info;
  info.elf64 = true;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  info.machine = eh.e_machine;
  info.flags = eh.e_flags;
  auto section = [&](size_t i) {
    Elf64_Shdr sh{};
    size_t at = eh.e_shoff + i * eh.e_shentsize;
    if (at + sizeof sh <= bytes.size())
      std::memcpy(&sh, bytes.data() + at, sizeof sh);
    return sh;
  };
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh = section(i);
    if (sh.sh_type != SHT_SYMTAB || sh.sh_entsize != sizeof(Elf64_Sym))
      continue;
    Elf64_Shdr strtab = section(sh.sh_link);
    for (size_t off = 0; off + sizeof(Elf64_Sym) <= sh.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, bytes.data() + sh.sh_offset + off, sizeof sym);
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_name >= strtab.sh_size)
        continue;
      info.functions.emplace_back(bytes.data() + strtab.sh_offset + sym.st_name);
    }
  }
  return info;
}

/// The names of the PTX's kernels (".entry NAME(").
inline std::vector<std::string> ptx_entries(const std::string &ptx) {
  std::vector<std::string> names;
  for (size_t at = ptx.find(".entry "); at != std::string::npos; at = ptx.find(".entry ", at + 1)) {
    size_t begin = at + 7, end = ptx.find_first_of("( \n", begin);
    names.push_back(ptx.substr(begin, end - begin));
  }
  return names;
}

/// Runs a shell command; its stdout, or "" with `ok` false when it fails.
inline std::string run_command(const std::string &cmd, bool &ok) {
  std::string out;
  FILE *p = popen(cmd.c_str(), "r");
  ok = p != nullptr;
  if (!p)
    return out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    out.append(buf, n);
  ok = pclose(p) == 0;
  return out;
}

/// Undoes MLIR's string escapes (\XX hex pairs) in a printed attribute.
inline std::string unescape_mlir(const std::string &s) {
  std::string out;
  auto hex = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 2 < s.size()) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// The first case of test/Transforms/strata-lower-to-nvvm.mlir through strata-opt
/// --strata-lower-to-nvvm=chip=<chip>: the PTX text of its gpu.binary ("" with `error` set when
/// strata-opt fails).
inline std::string strata_opt_ptx(const std::string &strata_opt, const std::string &source_dir,
                                  const std::string &chip, std::string &error) {
  std::ifstream in(source_dir + "/test/Transforms/strata-lower-to-nvvm.mlir");
  std::stringstream all;
  all << in.rdbuf();
  std::string text = all.str();
  std::string first = text.substr(0, text.find("// -----"));
  std::string path = testing::TempDir() + "/strata_cuda_case0.mlir";
  std::ofstream(path) << first;
  bool ok = false;
  std::string out =
      run_command(strata_opt + " " + path + " --strata-lower-to-nvvm=chip=" + chip + " 2>&1", ok);
  if (!ok) {
    error = "strata-opt failed:\n" + out;
    return "";
  }
  size_t begin = out.find("assembly = \"");
  if (begin == std::string::npos) {
    error = "no gpu.binary assembly in strata-opt's output";
    return "";
  }
  begin += 12;
  size_t end = out.find('"', begin);
  return unescape_mlir(out.substr(begin, end - begin));
}

} // namespace cudatest
