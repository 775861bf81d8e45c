// Launch-configuration arithmetic of strata-gpu-kernels: grid, block and vector sizes (no MLIR).
#pragma once

#include <algorithm>
#include <cstdint>

namespace strata::gpu {

/// Threads per warp on every NVIDIA GPU Strata targets.
inline constexpr int64_t kWarpSize = 32;
/// Widest global access one thread makes: 16 bytes (`ld.global.v4.b32`, `ld.global.v2.b64`).
inline constexpr int64_t kMaxVectorBytes = 16;
/// Most register-held chunks (vectors of `vectorWidth` elements) per thread and per row
/// temporary in a fused row kernel; longer rows loop and keep their temporaries in memory.
inline constexpr int64_t kMaxChunksPerThread = 8;

/// ceil(a / b) for a >= 0, b > 0.
constexpr int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// `n` rounded up to whole warps (at least one warp).
constexpr int64_t roundUpToWarp(int64_t n) {
  return std::max<int64_t>(kWarpSize, ceilDiv(n, kWarpSize) * kWarpSize);
}

/// Threads per block for `work` independent items: `blockSize`, or fewer whole warps when
/// there is less work than one block (a 30-element op gets one warp, not 256 idle threads).
constexpr int64_t elementwiseThreads(int64_t work, int64_t blockSize) {
  return std::min(blockSize, roundUpToWarp(work));
}

/// Blocks of `threads` threads for `work` items, each thread taking items in a grid-stride
/// loop: ceil(work / threads) blocks, at most `maxBlocks` (the runtime passes 8 per SM: enough
/// resident blocks to hide latency, few enough that each thread does several items), at
/// least 1.
constexpr int64_t gridBlocks(int64_t work, int64_t threads, int64_t maxBlocks) {
  return std::clamp<int64_t>(ceilDiv(work, threads), 1, std::max<int64_t>(1, maxBlocks));
}

/// Elements per vector access along an innermost dimension of `innermost` elements, for
/// elements of at most `elementBytes` bytes: the widest power of two that fits in
/// kMaxVectorBytes and divides `innermost` (so no vector straddles two rows); 1 when none does.
constexpr int64_t vectorWidth(int64_t innermost, int64_t elementBytes) {
  if (elementBytes <= 0 || innermost <= 0)
    return 1;
  int64_t width = std::max<int64_t>(1, kMaxVectorBytes / elementBytes);
  while (width > 1 && innermost % width != 0)
    width /= 2;
  return width;
}

/// How a row kernel (one row reduction, or a fused row group) spreads `rows` rows of
/// `chunksPerRow` chunks each over the GPU.
struct RowLaunch {
  int64_t threadsPerRow;   ///< a warp (rows of at most 32 chunks) or a whole block
  int64_t rowsPerBlock;    ///< blockThreads / threadsPerRow
  int64_t blockThreads;    ///< threads per block
  int64_t blocks;          ///< grid size; blocks stride over the rows
  int64_t chunksPerThread; ///< ceil(chunksPerRow / threadsPerRow)
};

/// Short rows (at most one warp of chunks) take one warp each, `blockSize / 32` rows per block,
/// and reduce with warp shuffles only; longer rows take one block of up to `blockSize` threads
/// (whole warps) and reduce through shared memory. `blockSize` is a multiple of 32.
constexpr RowLaunch rowLaunch(int64_t rows, int64_t chunksPerRow, int64_t blockSize,
                              int64_t maxBlocks) {
  RowLaunch l{};
  if (chunksPerRow <= kWarpSize) {
    l.threadsPerRow = kWarpSize;
    // No more warps per block than rows.
    l.rowsPerBlock = std::clamp<int64_t>(std::min(blockSize / kWarpSize, rows), 1,
                                         std::max<int64_t>(1, blockSize / kWarpSize));
  } else {
    l.threadsPerRow = std::min(blockSize, roundUpToWarp(chunksPerRow));
    l.rowsPerBlock = 1;
  }
  l.blockThreads = l.threadsPerRow * l.rowsPerBlock;
  l.blocks = gridBlocks(rows, l.rowsPerBlock, maxBlocks);
  l.chunksPerThread = ceilDiv(chunksPerRow, l.threadsPerRow);
  return l;
}

/// The two kernels of a full reduction of `chunks` chunks: `blocks` blocks of `blockThreads`
/// threads write one partial each, then one block of `finalThreads` threads combines the
/// partials in a fixed order (deterministic: the partition depends only on the sizes).
struct FullReduceLaunch {
  int64_t blockThreads;
  int64_t blocks;
  int64_t finalThreads;
};

constexpr FullReduceLaunch fullReduceLaunch(int64_t chunks, int64_t blockSize, int64_t maxBlocks) {
  FullReduceLaunch l{};
  l.blockThreads = elementwiseThreads(chunks, blockSize);
  l.blocks = gridBlocks(chunks, l.blockThreads, maxBlocks);
  l.finalThreads = elementwiseThreads(l.blocks, blockSize);
  return l;
}

} // namespace strata::gpu
