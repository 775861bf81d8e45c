// Unit tests of strata-gpu-kernels' launch-configuration arithmetic
// (transforms/gpu/LaunchConfig.h).
#include "transforms/gpu/LaunchConfig.h"

#include <gtest/gtest.h>

namespace lc = strata::gpu;

// Oracles: the sizes written out by hand for each case, not recomputed with the formulas.

TEST(LaunchConfig, CeilDivAndWarps) {
  EXPECT_EQ(lc::ceilDiv(0, 4), 0);
  EXPECT_EQ(lc::ceilDiv(1, 4), 1);
  EXPECT_EQ(lc::ceilDiv(8, 4), 2);
  EXPECT_EQ(lc::ceilDiv(9, 4), 3);
  EXPECT_EQ(lc::roundUpToWarp(0), 32);
  EXPECT_EQ(lc::roundUpToWarp(1), 32);
  EXPECT_EQ(lc::roundUpToWarp(32), 32);
  EXPECT_EQ(lc::roundUpToWarp(33), 64);
}

TEST(LaunchConfig, ElementwiseThreadsShrinkToWholeWarpsForSmallWork) {
  EXPECT_EQ(lc::elementwiseThreads(30, 256), 32);
  EXPECT_EQ(lc::elementwiseThreads(64, 256), 64);
  EXPECT_EQ(lc::elementwiseThreads(100, 256), 128);
  EXPECT_EQ(lc::elementwiseThreads(1 << 20, 256), 256);
  EXPECT_EQ(lc::elementwiseThreads(1 << 20, 1024), 1024);
}

TEST(LaunchConfig, GridIsCeilOfWorkCappedByMaxBlocks) {
  // 64 x 1024 f32 in vectors of 4: 16384 chunks, 256 threads -> 64 blocks.
  EXPECT_EQ(lc::gridBlocks(16384, 256, 1056), 64);
  EXPECT_EQ(lc::gridBlocks(16385, 256, 1056), 65);
  // 100M elements: capped at 8 blocks per SM of a 132-SM H200; threads loop (grid stride).
  EXPECT_EQ(lc::gridBlocks(100'000'000, 256, 1056), 1056);
  EXPECT_EQ(lc::gridBlocks(0, 256, 1056), 1);
  EXPECT_EQ(lc::gridBlocks(10, 256, 0), 1);
}

TEST(LaunchConfig, VectorWidthDividesTheInnermostExtent) {
  EXPECT_EQ(lc::vectorWidth(1024, 4), 4);  // f32: 16 bytes
  EXPECT_EQ(lc::vectorWidth(1024, 8), 2);  // f64
  EXPECT_EQ(lc::vectorWidth(1024, 2), 8);  // f16
  EXPECT_EQ(lc::vectorWidth(1024, 1), 16); // i8
  EXPECT_EQ(lc::vectorWidth(1000, 4), 4);
  EXPECT_EQ(lc::vectorWidth(10, 4), 2);
  EXPECT_EQ(lc::vectorWidth(5, 4), 1);
  EXPECT_EQ(lc::vectorWidth(6, 2), 2);
  EXPECT_EQ(lc::vectorWidth(0, 4), 1);
  EXPECT_EQ(lc::vectorWidth(16, 0), 1);
}

TEST(LaunchConfig, ShortRowsTakeAWarpEach) {
  // 128 rows of 10 f32 in chunks of 2: 5 chunks per row, a warp per row, 8 rows per block.
  lc::RowLaunch l = lc::rowLaunch(128, 5, 256, 1056);
  EXPECT_EQ(l.threadsPerRow, 32);
  EXPECT_EQ(l.rowsPerBlock, 8);
  EXPECT_EQ(l.blockThreads, 256);
  EXPECT_EQ(l.blocks, 16);
  EXPECT_EQ(l.chunksPerThread, 1);
  // Fewer rows than warps in a block: no idle warps.
  l = lc::rowLaunch(3, 32, 256, 1056);
  EXPECT_EQ(l.rowsPerBlock, 3);
  EXPECT_EQ(l.blockThreads, 96);
  EXPECT_EQ(l.blocks, 1);
}

TEST(LaunchConfig, LongRowsTakeABlockEach) {
  // Softmax over 8 rows of 1000 f32: 250 chunks of 4 -> 256 threads per row, one chunk each.
  lc::RowLaunch l = lc::rowLaunch(8, 250, 256, 1056);
  EXPECT_EQ(l.threadsPerRow, 256);
  EXPECT_EQ(l.rowsPerBlock, 1);
  EXPECT_EQ(l.blockThreads, 256);
  EXPECT_EQ(l.blocks, 8);
  EXPECT_EQ(l.chunksPerThread, 1);
  // 40 chunks: two warps.
  l = lc::rowLaunch(64, 40, 256, 1056);
  EXPECT_EQ(l.threadsPerRow, 64);
  EXPECT_EQ(l.chunksPerThread, 1);
  // Rows of 32768 f32 (8192 chunks): 32 chunks per thread; 10000 rows capped at max-blocks.
  l = lc::rowLaunch(10000, 8192, 256, 1056);
  EXPECT_EQ(l.threadsPerRow, 256);
  EXPECT_EQ(l.chunksPerThread, 32);
  EXPECT_EQ(l.blocks, 1056);
}

TEST(LaunchConfig, FullReductionTwoStages) {
  // 4 x 1024 f32 = 1024 chunks of 4: 4 blocks of 256, then one warp combines 4 partials.
  lc::FullReduceLaunch l = lc::fullReduceLaunch(1024, 256, 1056);
  EXPECT_EQ(l.blockThreads, 256);
  EXPECT_EQ(l.blocks, 4);
  EXPECT_EQ(l.finalThreads, 32);
  // 1e8 chunks: 1056 partials, combined by one block of 256.
  l = lc::fullReduceLaunch(100'000'000, 256, 1056);
  EXPECT_EQ(l.blocks, 1056);
  EXPECT_EQ(l.finalThreads, 256);
  // A tiny one: one warp, one partial.
  l = lc::fullReduceLaunch(3, 256, 1056);
  EXPECT_EQ(l.blockThreads, 32);
  EXPECT_EQ(l.blocks, 1);
  EXPECT_EQ(l.finalThreads, 32);
}
