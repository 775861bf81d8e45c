// The JIT runtime functions the static device bundle provides itself: memrefCopy (the CPU
// backend's memref.copy) and the bf16 truncations that compiled code may call. Normally they
// come from Debian's libmlir_c_runner_utils/libmlir_float16_utils, which need libMLIR.so.
#include <cstdint>
#include <cstring>

#include "mlir/ExecutionEngine/CRunnerUtils.h"

namespace {

uint16_t bf16_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet and its sign
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u); // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}

} // namespace

extern "C" void memrefCopy(int64_t elemSize, ::UnrankedMemRefType<char> *srcArg,
                           ::UnrankedMemRefType<char> *dstArg) {
  DynamicMemRefType<char> src(*srcArg);
  DynamicMemRefType<char> dst(*dstArg);
  const int64_t rank = src.rank;
  for (int64_t d = 0; d < rank; ++d)
    if (src.sizes[d] == 0)
      return;
  char *from = src.data + src.offset * elemSize;
  char *to = dst.data + dst.offset * elemSize;
  // The innermost run of dimensions that both sides store contiguously is one memcpy.
  int64_t inner = 1, d = rank;
  while (d > 0 && src.strides[d - 1] == inner && dst.strides[d - 1] == inner) {
    inner *= src.sizes[d - 1];
    --d;
  }
  const int64_t chunk = inner * elemSize;
  if (d == 0) {
    std::memcpy(to, from, static_cast<size_t>(chunk));
    return;
  }
  // Odometer over the outer dimensions 0..d-1.
  int64_t index[64] = {};
  if (d > 64)
    return; // memrefs of rank above 64 do not occur in Strata's programs
  for (;;) {
    std::memcpy(to, from, static_cast<size_t>(chunk));
    int64_t k = d - 1;
    for (; k >= 0; --k) {
      from += src.strides[k] * elemSize;
      to += dst.strides[k] * elemSize;
      if (++index[k] < src.sizes[k])
        break;
      from -= src.sizes[k] * src.strides[k] * elemSize;
      to -= dst.sizes[k] * dst.strides[k] * elemSize;
      index[k] = 0;
    }
    if (k < 0)
      return;
  }
}

// x86-64 returns bf16 in the low half of xmm0, as __bf16. Default visibility: the JIT looks
// these up in the process (the build hides symbols by default).
#define STRATA_BUNDLE_EXPORT __attribute__((visibility("default")))
extern "C" STRATA_BUNDLE_EXPORT __bf16 __truncsfbf2(float f) {
  return __builtin_bit_cast(__bf16, bf16_bits(f));
}
extern "C" STRATA_BUNDLE_EXPORT __bf16 __truncdfbf2(double d) {
  // Through float would round twice; round the double to float's precision with odd rounding
  // (sticky bit) first so the second rounding is exact.
  float f = static_cast<float>(d);
  double back = static_cast<double>(f);
  if (back != d && f == f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) == 0) {
      u |= 1u; // underflowed to zero: the smallest subnormal of d's sign
    } else if ((u & 1u) == 0) {
      // Move one ulp toward d so the sticky bit records the discarded part.
      u += ((back < d) == (f > 0)) ? 1u : ~0u;
    }
    std::memcpy(&f, &u, sizeof u);
  }
  return __builtin_bit_cast(__bf16, bf16_bits(f));
}
