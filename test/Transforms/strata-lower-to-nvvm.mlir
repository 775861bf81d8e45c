// strata-lower-to-nvvm: strata IR to gpu kernels, NVVM and PTX text in a gpu.binary, per chip.
// (sm_120 packs pairs of f32 ops: its 16-byte accesses may read as ld.global.v2.b64.)
// test/gpu/ptxas_check.sh assembles the PTX of every case below with ptxas for both chips.
// RUN: strata-opt %s -strata-lower-to-nvvm=chip=sm_90 -split-input-file \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: strata-opt %s -strata-lower-to-nvvm=chip=sm_120 -split-input-file \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SM120
// RUN: strata-opt %s -strata-lower-to-nvvm=max-blocks=16 -split-input-file \
// RUN:   | FileCheck %s --check-prefix=GRID

// An elementwise chain with a broadcast: one kernel; a thread takes 4 consecutive elements of
// x, b and the result with one 16-byte access each (ld.global.v4 / st.global.v4): 16384
// chunks, 64 blocks of 256 threads. f32 exp/tanh approximated (no libdevice call left).
// With max-blocks=16 the grid is capped and each thread loops over the grid (grid stride: the
// back-edge branch).
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[X:.*]]: memref<64x1024xf32>, %[[B:.*]]: memref<1024xf32>, %[[OUT:.*]]: memref<64x1024xf32>
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch_func @[[K:main_kernel]]::@main_kernel blocks in (%[[C64]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[X]] : memref<64x1024xf32>, %[[B]] : memref<1024xf32>, %[[OUT]] : memref<64x1024xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: gpu.module
// SM90: gpu.binary @[[K]] [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx88">
// SM120: gpu.binary @[[K]] [#gpu.object<#nvvm.target<O = 3, chip = "sm_120", features = "+ptx88">
// SM90-SAME: .version 8.8\0A.target sm_90\0A
// SM120-SAME: .version 8.8\0A.target sm_120\0A
// CHECK-SAME: .visible .entry main_kernel(
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: mov.u32 {{.*}}%ctaid.x;
// CHECK-SAME: mov.u32 {{.*}}%tid.x;
// CHECK-SAME: ld.global.{{v4.b32|v2.b64}}
// CHECK-SAME: ld.global.{{v4.b32|v2.b64}}
// CHECK-SAME: fma.rn.f32
// CHECK-SAME: st.global.{{v4.b32|v2.b64}}
// CHECK-NOT: __nv_
// GRID-LABEL: func.func @main
// GRID-DAG: %[[C16:.*]] = arith.constant 16 : index
// GRID-DAG: %[[C256:.*]] = arith.constant 256 : index
// GRID: gpu.launch_func @{{.*}} blocks in (%[[C16]], %{{.*}}, %{{.*}}) threads in (%[[C256]],
// GRID: gpu.binary
// GRID-SAME: $L__BB0_1:
// GRID-SAME: ld.global.{{v4.b32|v2.b64}}
// GRID-SAME: st.global.{{v4.b32|v2.b64}}
// GRID-SAME: bra{{(.uni)?}} {{.*}}$L__BB0_1;
func.func @main(%x: tensor<64x1024xf32>, %b: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %0 = strata.exp %x : (tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %1 = strata.broadcast_in_dim %b, broadcast_dimensions = [1] : (tensor<1024xf32>) -> tensor<64x1024xf32>
  %2 = strata.add %0, %1 : (tensor<64x1024xf32>, tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %3 = strata.tanh %2 : (tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %3 : tensor<64x1024xf32>
}

// -----

// f16 on a rank-3 tensor of 30 elements: one flat loop over collapsed views; 3 chunks of 8 f16
// (16 bytes: ld.global.v4.b32) and a scalar tail of 6 (ld.global.b16); computed in f32 and
// rounded (cvt), one block of one warp.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: memref.collapse_shape
// CHECK: gpu.launch_func @[[K:main_kernel]]::@main_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C32]], %[[C1]], %[[C1]]) args({{.*}} : memref<30xf16>, {{.*}} : memref<30xf16>, {{.*}} : memref<30xf16>)
// CHECK: gpu.binary @[[K]]
// CHECK-SAME: .maxntid 32, 1, 1
// CHECK-SAME: ld.global.{{v4.b32|v2.b64}}
// CHECK-SAME: cvt.f32.f16
// CHECK-SAME: cvt.rn.f16x2.f32
// CHECK-SAME: st.global.{{v4.b32|v2.b64}}
// CHECK-SAME: ld.global.b16
// CHECK-SAME: st.global.b16
// CHECK-NOT: __nv_
func.func @main(%x: tensor<2x3x5xf16>, %y: tensor<2x3x5xf16>) -> tensor<2x3x5xf16> {
  %0 = strata.mul %x, %y : (tensor<2x3x5xf16>, tensor<2x3x5xf16>) -> tensor<2x3x5xf16>
  %1 = strata.exp %0 : (tensor<2x3x5xf16>) -> tensor<2x3x5xf16>
  return %1 : tensor<2x3x5xf16>
}

// -----

// Softmax over the last axis: the fusion group (row max, exp, row sum, divide) is ONE kernel,
// one block of 256 threads per row (1000 f32 = 250 chunks of 4): vector loads, the row max and
// sum reduced by warp shuffles (shfl.sync.bfly) and across the 8 warps through shared memory
// (.shared, bar.sync); the exp temporary stays in registers (no host allocation left).
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch_func @[[K:.*]]::@main_kernel blocks in (%[[C8]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @[[K]]
// CHECK-SAME: .shared .align 4 .b8
// CHECK-SAME: ld.global.{{v4.b32|v2.b64}}
// CHECK-SAME: max.NaN.f32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: st.shared.b32
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: add.rn.f32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: div.rn.f32
// CHECK-SAME: st.global.{{v4.b32|v2.b64}}
// CHECK-NOT: gpu.binary
// CHECK-NOT: __nv_
func.func @main(%x: tensor<8x1000xf32>) -> tensor<8x1000xf32> {
  %0 = strata.reduce_max %x, axes = [1] : (tensor<8x1000xf32>) -> tensor<8xf32>
  %1 = strata.broadcast_in_dim %0, broadcast_dimensions = [0] : (tensor<8xf32>) -> tensor<8x1000xf32>
  %2 = strata.sub %x, %1 : (tensor<8x1000xf32>, tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %3 = strata.exp %2 : (tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %4 = strata.reduce_sum %3, axes = [1] : (tensor<8x1000xf32>) -> tensor<8xf32>
  %5 = strata.broadcast_in_dim %4, broadcast_dimensions = [0] : (tensor<8xf32>) -> tensor<8x1000xf32>
  %6 = strata.div %3, %5 : (tensor<8x1000xf32>, tensor<8x1000xf32>) -> tensor<8x1000xf32>
  return %6 : tensor<8x1000xf32>
}

// -----

// Layer norm with scale and shift: the group (mean, centred values, variance, normalize,
// scale, shift) is ONE kernel, a block of 192 threads per row of 768 f32 (192 chunks of 4):
// two block reductions, gamma and beta read as vectors, rsqrt as sqrt and reciprocal (no
// libdevice).
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C192:.*]] = arith.constant 192 : index
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch_func @[[K:.*]]::@main_kernel blocks in (%[[C64]], %[[C1]], %[[C1]]) threads in (%[[C192]], %[[C1]], %[[C1]])
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @[[K]]
// CHECK-SAME: .maxntid 192, 1, 1
// CHECK-SAME: ld.global.{{v4.b32|v2.b64}}
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: sqrt.rn.f32
// CHECK-SAME: rcp.rn.f32
// CHECK-SAME: st.global.{{v4.b32|v2.b64}}
// CHECK-NOT: __nv_
// CHECK-NOT: gpu.binary
func.func @main(%x: tensor<64x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<64x768xf32> {
  %n = arith.constant dense<768.0> : tensor<64xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<64xf32>
  %s = strata.reduce_sum %x, axes = [1] : (tensor<64x768xf32>) -> tensor<64xf32>
  %mean = strata.div %s, %n : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %mb = strata.broadcast_in_dim %mean, broadcast_dimensions = [0] : (tensor<64xf32>) -> tensor<64x768xf32>
  %c = strata.sub %x, %mb : (tensor<64x768xf32>, tensor<64x768xf32>) -> tensor<64x768xf32>
  %sq = strata.mul %c, %c : (tensor<64x768xf32>, tensor<64x768xf32>) -> tensor<64x768xf32>
  %v = strata.reduce_sum %sq, axes = [1] : (tensor<64x768xf32>) -> tensor<64xf32>
  %var = strata.div %v, %n : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %ve = strata.add %var, %eps : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %r = strata.rsqrt %ve : (tensor<64xf32>) -> tensor<64xf32>
  %rb = strata.broadcast_in_dim %r, broadcast_dimensions = [0] : (tensor<64xf32>) -> tensor<64x768xf32>
  %y = strata.mul %c, %rb : (tensor<64x768xf32>, tensor<64x768xf32>) -> tensor<64x768xf32>
  %gb = strata.broadcast_in_dim %g, broadcast_dimensions = [1] : (tensor<768xf32>) -> tensor<64x768xf32>
  %yg = strata.mul %y, %gb : (tensor<64x768xf32>, tensor<64x768xf32>) -> tensor<64x768xf32>
  %bb = strata.broadcast_in_dim %b, broadcast_dimensions = [1] : (tensor<768xf32>) -> tensor<64x768xf32>
  %z = strata.add %yg, %bb : (tensor<64x768xf32>, tensor<64x768xf32>) -> tensor<64x768xf32>
  return %z : tensor<64x768xf32>
}

// -----

// A row sum over a short last axis (128 rows of 10): a warp per row, 8 rows per block of 256,
// 16 blocks; 5 chunks of 2 f32 (ld.global.v2), warp shuffles only (no shared memory); lane 0
// stores the row's sum.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch_func @[[K:.*]]::@main_kernel blocks in (%[[C16]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @[[K]]
// CHECK-NOT: .shared
// CHECK-SAME: ld.global.v2.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-NOT: bar.sync
// CHECK-SAME: st.global.b32
func.func @main(%x: tensor<128x10xf32>) -> tensor<128xf32> {
  %0 = strata.reduce_sum %x, axes = [1] : (tensor<128x10xf32>) -> tensor<128xf32>
  return %0 : tensor<128xf32>
}

// -----

// A full reduction: many blocks, then a deterministic second stage. 4096 f32 = 1024 chunks of
// 4: 4 blocks of 256 write one partial each (block reduction) to a temporary, then one warp
// combines the 4 partials in a fixed order with the fill's 0 and stores the result; no host
// code touches the device buffers.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NOT: memref.store
// CHECK: %[[P:.*]] = memref.alloc() : memref<4xf32>
// CHECK: gpu.launch_func @[[K0:.*]]::@main_kernel blocks in (%[[C4]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args({{.*}}, %[[P]] : memref<4xf32>)
// CHECK: gpu.launch_func @[[K1:.*]]::@main_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C32]], %[[C1]], %[[C1]]) args(%[[P]] : memref<4xf32>,
// CHECK-NEXT: memref.dealloc %[[P]]
// CHECK-NEXT: return
// CHECK: gpu.binary @[[K0]]
// CHECK-SAME: ld.global.{{v4.b32|v2.b64}}
// CHECK-SAME: add.rn.f32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK: gpu.binary @[[K1]]
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: st.global.b32
func.func @main(%x: tensor<4x1024xf32>) -> tensor<f32> {
  %0 = strata.reduce_sum %x, axes = [0, 1] : (tensor<4x1024xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A column sum (reduction over the leading axis): one thread per output column looping over
// the rows in order, adjacent threads on adjacent columns (coalesced); the fill folds in.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch_func @[[K:.*]]::@main_kernel blocks in (%[[C2]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @[[K]]
// CHECK-SAME: ld.global.b32
// CHECK-SAME: add.rn.f32
// CHECK-SAME: st.global.b32
func.func @main(%x: tensor<128x512xf32>) -> tensor<512xf32> {
  %0 = strata.reduce_sum %x, axes = [0] : (tensor<128x512xf32>) -> tensor<512xf32>
  return %0 : tensor<512xf32>
}

// -----

// dot_general: a host call of the runtime's cuBLAS gemm with device pointers (type 0: f32;
// batch 1, m 4, n 16, k 8; c overwritten: the zero fill is dropped); no kernel.
// CHECK-LABEL: func.func private @strata_rt_cuda_gemm(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i64
// CHECK: call @strata_rt_cuda_gemm(%[[C0]], %[[C1]], %[[C4]], %[[C16]], %[[C8]],
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: gpu.binary
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = strata.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A bf16 dot_general: cuBLAS with bf16 a and b into an f32 c (type 3) in a temporary, then the
// rounding to bf16 as a kernel (cvt.rn.bf16x2.f32 on sm_90).
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
// CHECK: %[[T:.*]] = memref.alloc() {{.*}} : memref<4x16xf32>
// CHECK: call @strata_rt_cuda_gemm(%[[C3]],
// CHECK: gpu.launch_func @[[K:.*]]::@main_kernel
// CHECK: gpu.binary @[[K]]
// CHECK-SAME: ld.global.{{v4.b32|v2.b64}}
// CHECK-SAME: cvt.rn.bf16x2.f32
func.func @main(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>) -> tensor<4x16xbf16> {
  %0 = strata.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

// argmax over the last axis: the initial values (the strided first column, copied, and the
// zero indices) are one elementwise kernel over 64 rows; the argmax runs a block of 256 per row
// of 1000 and combines (value, index) pairs by shuffles and shared memory.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NOT: memref.copy
// CHECK: gpu.launch_func @[[K0:.*]]::@main_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C32]], %[[C1]], %[[C1]])
// CHECK: gpu.launch_func @[[K1:.*]]::@main_kernel blocks in (%[[C64]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @[[K1]]
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: st.global.b32
func.func @main(%x: tensor<64x1000xf32>) -> tensor<64xi32> {
  %0 = strata.argmax %x, axis = 1 : (tensor<64x1000xf32>) -> tensor<64xi32>
  return %0 : tensor<64xi32>
}

// -----

// igamma in f32: one kernel computing in f64 (cvt.f64.f32 in, cvt.rn.f32.f64 out), the
// continued fraction and the series loops (scf.while) as back-edges in the PTX; f64 log and
// exp are libdevice calls.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary
// CHECK-SAME: cvt.f64.f32
// CHECK-SAME: call.uni (retval0), __nv_log,
// CHECK-SAME: $L__BB0_2:
// CHECK-SAME: bra \09$L__BB0_2;
// CHECK-SAME: $L__BB0_5:
// CHECK-SAME: bra \09$L__BB0_5;
// CHECK-SAME: cvt.rn.f32.f64
func.func @main(%a: tensor<256xf32>, %x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = strata.igamma %a, %x : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  return %0 : tensor<256xf32>
}

// -----

// A sort of lines of 100 (a bitonic network, padded to 128): two loops on the host; each step
// is a kernel copying the three working buffers (keys, payload, positions), then a kernel of
// compare-exchanges that loads partners from the copies: two kernels, since a kernel that
// wrote the copies would race with its own partner loads.
// CHECK-LABEL: func.func @main
// CHECK: scf.for
// CHECK: scf.for
// CHECK: gpu.launch_func @[[COPY:[a-z_0-9]+]]::@{{.+}} args(%{{.+}} : memref<4x128xf32>,
// CHECK-NEXT: gpu.launch_func @[[SWAP:[a-z_0-9]+]]::@{{.+}} args(%{{.+}} : memref<4x128xf32>,
// CHECK-NEXT: memref.dealloc
func.func @main(%k: tensor<4x100xf32>, %v: tensor<4x100xi32>) -> (tensor<4x100xf32>, tensor<4x100xi32>) {
  %0, %1 = strata.sort(%k, %v), dimension = 1, num_keys = 1
      : (tensor<4x100xf32>, tensor<4x100xi32>) -> (tensor<4x100xf32>, tensor<4x100xi32>)
  return %0, %1 : tensor<4x100xf32>, tensor<4x100xi32>
}
