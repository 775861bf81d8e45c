// Runs strata IR through two pipelines with mlir-runner and checks the same values:
// strata-lower-to-cpu, the pipeline jit runs (outputs as out-params, approximated f32 math, large
// loops in parallel on OpenMP, fused groups); and the output of strata-lower-to-linalg,
// bufferized and lowered to LLVM with upstream passes. The expected values follow libstrata's
// semantics (lib/primitives, docs/indexing.md) and were worked out by hand or with numpy, not
// with these lowerings. Contractions are in strata-lower-to-cpu-exec.mlir (the CPU pipeline
// calls strata_rt_gemm, from libstrata_jit). Sorts and scans: the CPU pipeline calls
// libstrata's kernels (strata_rt_sort, strata_rt_scan, from libstrata_jit), the other run
// strata-lower-to-linalg's loops.
// RUN: strata-opt --strata-lower-to-cpu %s \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libomp.so,%strata_lib_dir/libstrata_jit.so \
// RUN: | FileCheck %s
// RUN: strata-opt --strata-lower-to-linalg %s \
// RUN: | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:     --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata \
// RUN:     --lower-affine --finalize-memref-to-llvm --convert-math-to-llvm \
// RUN:     --convert-math-to-libm --convert-arith-to-llvm --convert-func-to-llvm \
// RUN:     --convert-cf-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)
func.func private @printMemrefI64(tensor<*xi64>)

// gather: start indices clamped so the slice is in bounds (-2 -> 0, 7 -> 4).
// CHECK: data =
// CHECK-NEXT: [10, 11, 12],
// CHECK-NEXT: [0, 1, 2],
// CHECK-NEXT: [40, 41, 42],
// CHECK-NEXT: [40, 41, 42]]
func.func @gather_rows(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>) -> tensor<4x3xf32> {
  %0 = strata.gather %x, %i, offset_dims = [1], collapsed_slice_dims = [0],
      start_index_map = [0], slice_sizes = [1, 3]
      : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// gather of 2x2 windows at [1,1], [3,3] -> [2,2], [-1,2] -> [0,2] of x[r][c] = 4r + c.
// CHECK: data =
// CHECK-NEXT: [5, 6, 9, 10, 10, 11, 14, 15, 2, 3, 6, 7]
func.func @gather_windows(%x: tensor<4x4xi32>, %i: tensor<3x2xi64>) -> tensor<3x2x2xi32> {
  %0 = strata.gather %x, %i, offset_dims = [1, 2], collapsed_slice_dims = [],
      start_index_map = [0, 1], slice_sizes = [2, 2]
      : (tensor<4x4xi32>, tensor<3x2xi64>) -> tensor<3x2x2xi32>
  return %0 : tensor<3x2x2xi32>
}

// scatter: the last duplicate wins (row 1 gets 3), index -1 is dropped.
// CHECK: data =
// CHECK-NEXT: [0, 3, 0, 2, 0]
func.func @scatter(%x: tensor<5xf32>, %i: tensor<4x1xi32>, %u: tensor<4xf32>) -> tensor<5xf32> {
  %0 = strata.scatter %x, %i, %u, update_window_dims = [], inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0]
      : (tensor<5xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// scatter_add of rows: duplicates accumulate (row 1: 1 + 1 + 3), index 5 is dropped.
// CHECK: data =
// CHECK-NEXT: [1, 1, 1],
// CHECK-NEXT: [5, 5, 5],
// CHECK-NEXT: [1, 1, 1],
// CHECK-NEXT: [3, 3, 3],
// CHECK-NEXT: [1, 1, 1]]
func.func @scatter_add(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>, %u: tensor<4x3xf32>)
    -> tensor<5x3xf32> {
  %0 = strata.scatter_add %x, %i, %u, update_window_dims = [1], inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0]
      : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// dynamic_update_slice at (3, -1), clamped to (2, 0); dynamic_slice at (ui32 3, -5),
// clamped to (2, 0), of x[r][c] = 5r + c.
// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0],
// CHECK-NEXT: [0, 0, 0, 0, 0],
// CHECK-NEXT: [1, 2, 3, 0, 0],
// CHECK-NEXT: [4, 5, 6, 0, 0]]
// CHECK: data =
// CHECK-NEXT: [10, 11, 12],
// CHECK-NEXT: [15, 16, 17]]
func.func @dynamic_update_slice(%x: tensor<4x5xf32>, %u: tensor<2x3xf32>, %i: tensor<i32>,
                                %j: tensor<i32>) -> tensor<4x5xf32> {
  %0 = strata.dynamic_update_slice %x, %u at [%i, %j]
      : (tensor<4x5xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
func.func @dynamic_slice(%x: tensor<4x5xf32>, %i: tensor<ui32>, %j: tensor<i32>)
    -> tensor<2x3xf32> {
  %0 = strata.dynamic_slice %x[%i, %j]
      : (tensor<4x5xf32>, tensor<ui32>, tensor<i32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// pad of [[1,2,3],[4,5,6]] with 9, low = [1, -1], high = [-1, 2], interior = [1, 1]: rows
// [9, r0, 9, r1] lose the last; r0 = [1,9,2,9,3] loses its first and gains two 9s.
// CHECK: data =
// CHECK-NEXT: [9, 9, 9, 9, 9, 9],
// CHECK-NEXT: [9, 2, 9, 3, 9, 9],
// CHECK-NEXT: [9, 9, 9, 9, 9, 9]]
func.func @pad(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<3x6xf32> {
  %0 = strata.pad %x, %v, low = [1, -1], high = [-1, 2], interior = [1, 1]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// sort with one float key (NaN last, stable) and an i32 payload.
// CHECK: data =
// CHECK-NEXT: [-inf, 1, 1, 3, 3, nan]
// CHECK: data =
// CHECK-NEXT: [4, 2, 5, 0, 3, 1]
func.func @sort1(%k: tensor<6xf32>, %v: tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>) {
  %0, %1 = strata.sort(%k, %v), dimension = 0, num_keys = 1
      : (tensor<6xf32>, tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>)
  return %0, %1 : tensor<6xf32>, tensor<6xi32>
}

// sort along dimension -1 with two keys (i32, then ui32 compared unsigned) and a payload.
// CHECK: data =
// CHECK-NEXT: [3, 1, 2, 0],
// CHECK-NEXT: [1, 3, 2, 0]]
func.func @sort2(%k0: tensor<2x4xi32>, %k1: tensor<2x4xui32>, %v: tensor<2x4xi32>)
    -> tensor<2x4xi32> {
  %0, %1, %2 = strata.sort(%k0, %k1, %v), dimension = -1, num_keys = 2
      : (tensor<2x4xi32>, tensor<2x4xui32>, tensor<2x4xi32>)
      -> (tensor<2x4xi32>, tensor<2x4xui32>, tensor<2x4xi32>)
  return %2 : tensor<2x4xi32>
}

// sort of a line longer than 32 (strata-lower-to-linalg's bitonic network, padded to 64): keys
// floor((7i mod 40) / 2), each value twice, with NaN at 0 and -inf at 5; the payload, an iota,
// is the stable order: -inf, then each value's two positions in order, then NaN.
// CHECK: data =
// CHECK-NEXT: [5, 23, 6, 29, 12, 35, 1, 18, 7, 24, 13, 30, 19, 36, 2, 25, 8, 31, 14, 37, 3, 20, 9, 26, 15, 32, 21, 38, 4, 27, 10, 33, 16, 39, 22, 11, 28, 17, 34, 0]
func.func @sort3(%k: tensor<40xf32>, %v: tensor<40xi32>) -> tensor<40xi32> {
  %0, %1 = strata.sort(%k, %v), dimension = 0, num_keys = 1
      : (tensor<40xf32>, tensor<40xi32>) -> (tensor<40xf32>, tensor<40xi32>)
  return %1 : tensor<40xi32>
}

// Scans: reverse cumsum, cumsum along axis 1, cumprod (i32) along axis 0, cummax with NaN,
// reverse cummin.
// CHECK: data =
// CHECK-NEXT: [10, 9, 7, 4]
// CHECK: data =
// CHECK-NEXT: [1, 3, 6],
// CHECK-NEXT: [4, 9, 15]]
// CHECK: data =
// CHECK-NEXT: [1, 2, 3],
// CHECK-NEXT: [4, 10, 18]]
// CHECK: data =
// CHECK-NEXT: [1, 3, nan, nan]
// CHECK: data =
// CHECK-NEXT: [1, 1, 2, 4]
func.func @scans(%a: tensor<4xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xi32>, %d: tensor<4xf32>,
                 %e: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = strata.cumsum %a, axis = 0, reverse = true : (tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.cumsum %b, axis = 1, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = strata.cumprod %c, axis = 0, reverse = false : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %3 = strata.cummax %d, axis = 0, reverse = false : (tensor<4xf32>) -> tensor<4xf32>
  %4 = strata.cummin %e, axis = -1, reverse = true : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4
      : tensor<4xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<4xf32>, tensor<4xf32>
}

// argmax/argmin: ties take the first index, the first NaN wins; ui32 compares unsigned.
// CHECK: data =
// CHECK-NEXT: [1, 1]
// CHECK: data =
// CHECK-NEXT: [0, 1]
// CHECK: data =
// CHECK-NEXT: [1]
func.func @argreduce(%x: tensor<2x4xf32>, %u: tensor<1x3xui32>)
    -> (tensor<2xi32>, tensor<2xi32>, tensor<1xi32>) {
  %0 = strata.argmax %x, axis = 1 : (tensor<2x4xf32>) -> tensor<2xi32>
  %1 = strata.argmin %x, axis = -1 : (tensor<2x4xf32>) -> tensor<2xi32>
  %2 = strata.argmax %u, axis = 1 : (tensor<1x3xui32>) -> tensor<1xi32>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xi32>, tensor<1xi32>
}

// threefry2x32: JAX's known-answer vectors (keys/counters 0, all ones, and the Random123 one),
// printed as i32.
// CHECK: data =
// CHECK-NEXT: [1797259609, 481924860, -997049700]
// CHECK: data =
// CHECK-NEXT: [-1715843330, -1157616665, 1212020640]
func.func @threefry(%k0: tensor<3xui32>, %k1: tensor<3xui32>, %x0: tensor<3xui32>,
                    %x1: tensor<3xui32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %0, %1 = strata.threefry2x32 %k0, %k1, %x0, %x1
      : (tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>)
      -> (tensor<3xui32>, tensor<3xui32>)
  %2 = strata.bitcast_convert_type %0 : (tensor<3xui32>) -> tensor<3xi32>
  %3 = strata.bitcast_convert_type %1 : (tensor<3xui32>) -> tensor<3xi32>
  return %2, %3 : tensor<3xi32>, tensor<3xi32>
}

// Unsigned: ui32 div (x/0 = all ones) and rem (x%0 = x), printed as i32; f32 -> ui8
// saturates (-3.5 -> 0, 300 -> 255, NaN -> 0), printed through i32; ui32 -> i64 zero-extends;
// a < b and b > a compare unsigned (only 10 < 2^32 - 1 holds).
// CHECK: data =
// CHECK-NEXT: [2147483647, -1, 3, 0]
// CHECK: data =
// CHECK-NEXT: [1, 7, 0, 10]
// CHECK: data =
// CHECK-NEXT: [0, 255, 7, 0]
// CHECK: data =
// CHECK-NEXT: [4294967295, 7, 9, 10]
// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 1]
func.func @unsigned(%a: tensor<4xui32>, %b: tensor<4xui32>, %f: tensor<4xf32>)
    -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi64>, tensor<4xi32>) {
  %0 = strata.div %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  %1 = strata.rem %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  %2 = strata.bitcast_convert_type %0 : (tensor<4xui32>) -> tensor<4xi32>
  %3 = strata.bitcast_convert_type %1 : (tensor<4xui32>) -> tensor<4xi32>
  %4 = strata.convert_element_type %f : (tensor<4xf32>) -> tensor<4xui8>
  %5 = strata.convert_element_type %4 : (tensor<4xui8>) -> tensor<4xi32>
  %6 = strata.convert_element_type %a : (tensor<4xui32>) -> tensor<4xi64>
  %7 = strata.lt %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  %8 = strata.gt %b, %a : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  %9 = strata.and %7, %8 : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %10 = strata.convert_element_type %9 : (tensor<4xi1>) -> tensor<4xi32>
  return %2, %3, %5, %6, %10 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi64>,
      tensor<4xi32>
}

// A fused softmax group (numpy: [0.0900306, 0.244728, 0.665241], thirds).
// CHECK: data =
// CHECK-NEXT: [0.0900306, 0.244728, 0.665241],
// CHECK-NEXT: [0.333333, 0.333333, 0.333333]]
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = strata.fusion (%a = %x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
    %m = strata.reduce_max %a, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
    %mb = strata.broadcast_in_dim %m, broadcast_dimensions = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
    %s = strata.sub %a, %mb : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %e = strata.exp %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %t = strata.reduce_sum %e, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
    %tb = strata.broadcast_in_dim %t, broadcast_dimensions = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
    %d = strata.div %e, %tb : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    strata.yield %d : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// iota, rev, concatenate, strided slice, erf_inv (erfinv(0.5) = 0.476936,
// erfinv(-0.9) = -1.16309).
// CHECK: data =
// CHECK-NEXT: [0, 1, 2],
// CHECK-NEXT: [0, 1, 2]]
// CHECK: data =
// CHECK-NEXT: [3, 2, 1],
// CHECK-NEXT: [6, 5, 4]]
// CHECK: data =
// CHECK-NEXT: [1, 2, 3]
// CHECK: data =
// CHECK-NEXT: [1, 3, 5]
// CHECK: data =
// CHECK-NEXT: [0.476936, -1.16309, inf, 0, nan]
func.func @shapes(%x: tensor<2x3xf32>, %a: tensor<2xf32>, %b: tensor<1xf32>, %c: tensor<7xf32>,
                  %e: tensor<5xf32>)
    -> (tensor<2x3xi32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<5xf32>) {
  %0 = strata.iota dimension = 1 : tensor<2x3xi32>
  %1 = strata.rev %x, dimensions = [1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = strata.concatenate(%a, %b), dimension = 0 : (tensor<2xf32>, tensor<1xf32>) -> tensor<3xf32>
  %3 = strata.slice %c, start = [1], limit = [6], strides = [2] : (tensor<7xf32>) -> tensor<3xf32>
  %4 = strata.erf_inv %e : (tensor<5xf32>) -> tensor<5xf32>
  return %0, %1, %2, %3, %4
      : tensor<2x3xi32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<5xf32>
}

// A loop nest large enough (512 x 512) for strata-lower-to-cpu to run it in parallel:
// y[r][c] = tanh(0.001 * (512 r + c)) - 1, read back at its first and last four elements
// (numpy: tanh(0.001 * [0, 1, 2, 3]) - 1 and tanh(0.001 * [262140 .. 262143]) - 1 = -1).
// CHECK: data =
// CHECK-NEXT: [-1, -0.999, -0.998, -0.997]
// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0]
func.func @big(%x: tensor<512x512xf32>, %s: tensor<f32>, %o: tensor<f32>) -> tensor<512x512xf32> {
  %sb = strata.broadcast_in_dim %s, broadcast_dimensions = [] : (tensor<f32>) -> tensor<512x512xf32>
  %ob = strata.broadcast_in_dim %o, broadcast_dimensions = [] : (tensor<f32>) -> tensor<512x512xf32>
  %0 = strata.mul %x, %sb : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %1 = strata.tanh %0 : (tensor<512x512xf32>) -> tensor<512x512xf32>
  %2 = strata.sub %1, %ob : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  return %2 : tensor<512x512xf32>
}
func.func @big_input() -> tensor<512x512xf32> {
  %r = strata.iota dimension = 0 : tensor<512x512xf32>
  %c = strata.iota dimension = 1 : tensor<512x512xf32>
  %k = arith.constant dense<512.> : tensor<512x512xf32>
  %0 = strata.mul %r, %k : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %1 = strata.add %0, %c : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  return %1 : tensor<512x512xf32>
}
func.func @corners(%y: tensor<512x512xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = strata.slice %y, start = [0, 0], limit = [1, 4], strides = [1, 1]
      : (tensor<512x512xf32>) -> tensor<1x4xf32>
  %1 = strata.slice %y, start = [511, 508], limit = [512, 512], strides = [1, 1]
      : (tensor<512x512xf32>) -> tensor<1x4xf32>
  %2 = strata.reshape %0 : (tensor<1x4xf32>) -> tensor<4xf32>
  %3 = strata.reshape %1 : (tensor<1x4xf32>) -> tensor<4xf32>
  return %2, %3 : tensor<4xf32>, tensor<4xf32>
}

func.func @main() {
  // gather
  %gx = arith.constant dense<[[0., 1., 2.], [10., 11., 12.], [20., 21., 22.], [30., 31., 32.],
                              [40., 41., 42.]]> : tensor<5x3xf32>
  %gi = arith.constant dense<[[1], [-2], [7], [4]]> : tensor<4x1xi32>
  %g = call @gather_rows(%gx, %gi) : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  %gw_x = arith.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]>
      : tensor<4x4xi32>
  %gw_i = arith.constant dense<[[1, 1], [3, 3], [-1, 2]]> : tensor<3x2xi64>
  %gw = call @gather_windows(%gw_x, %gw_i) : (tensor<4x4xi32>, tensor<3x2xi64>) -> tensor<3x2x2xi32>
  %gw_flat = tensor.collapse_shape %gw [[0, 1, 2]] : tensor<3x2x2xi32> into tensor<12xi32>
  // scatter
  %sx = arith.constant dense<0.> : tensor<5xf32>
  %si = arith.constant dense<[[1], [3], [1], [-1]]> : tensor<4x1xi32>
  %su = arith.constant dense<[1., 2., 3., 4.]> : tensor<4xf32>
  %s = call @scatter(%sx, %si, %su) : (tensor<5xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<5xf32>
  %ax = arith.constant dense<1.> : tensor<5x3xf32>
  %ai = arith.constant dense<[[1], [3], [1], [5]]> : tensor<4x1xi32>
  %au = arith.constant dense<[[1., 1., 1.], [2., 2., 2.], [3., 3., 3.], [4., 4., 4.]]>
      : tensor<4x3xf32>
  %sa = call @scatter_add(%ax, %ai, %au)
      : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  // dynamic slices
  %dz = arith.constant dense<0.> : tensor<4x5xf32>
  %du = arith.constant dense<[[1., 2., 3.], [4., 5., 6.]]> : tensor<2x3xf32>
  %d3 = arith.constant dense<3> : tensor<i32>
  %dm1 = arith.constant dense<-1> : tensor<i32>
  %dus = call @dynamic_update_slice(%dz, %du, %d3, %dm1)
      : (tensor<4x5xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
  %dx = arith.constant dense<[[0., 1., 2., 3., 4.], [5., 6., 7., 8., 9.],
                              [10., 11., 12., 13., 14.], [15., 16., 17., 18., 19.]]>
      : tensor<4x5xf32>
  %du3 = arith.constant dense<3> : tensor<ui32>
  %dm5 = arith.constant dense<-5> : tensor<i32>
  %ds = call @dynamic_slice(%dx, %du3, %dm5)
      : (tensor<4x5xf32>, tensor<ui32>, tensor<i32>) -> tensor<2x3xf32>
  // pad
  %px = arith.constant dense<[[1., 2., 3.], [4., 5., 6.]]> : tensor<2x3xf32>
  %pv = arith.constant dense<9.> : tensor<f32>
  %p = call @pad(%px, %pv) : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x6xf32>
  // sort
  %k = arith.constant dense<[3., 0x7FC00000, 1., 3., 0xFF800000, 1.]> : tensor<6xf32>
  %kv = arith.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>
  %sk, %sv = call @sort1(%k, %kv) : (tensor<6xf32>, tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>)
  %k0 = arith.constant dense<[[2, 1, 2, 1], [0, 0, 0, 0]]> : tensor<2x4xi32>
  %k1 = arith.constant dense<[[5, 4294967295, 4, 6], [3, 1, 2, 1]]> : tensor<2x4xui32>
  %k2 = arith.constant dense<[[0, 1, 2, 3], [0, 1, 2, 3]]> : tensor<2x4xi32>
  %s2 = call @sort2(%k0, %k1, %k2)
      : (tensor<2x4xi32>, tensor<2x4xui32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  %k3 = arith.constant dense<[0x7FC00000, 3., 7., 10., 14., 0xFF800000, 1., 4., 8., 11., 15., 18., 2., 5., 9., 12., 16., 19., 3., 6., 10., 13., 17., 0., 4., 7., 11., 14., 18., 1., 5., 8., 12., 15., 19., 2., 6., 9., 13., 16.]> : tensor<40xf32>
  %v3 = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]> : tensor<40xi32>
  %s3 = call @sort3(%k3, %v3) : (tensor<40xf32>, tensor<40xi32>) -> tensor<40xi32>
  // scans
  %ca = arith.constant dense<[1., 2., 3., 4.]> : tensor<4xf32>
  %cb = arith.constant dense<[[1., 2., 3.], [4., 5., 6.]]> : tensor<2x3xf32>
  %cc = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %cd = arith.constant dense<[1., 3., 0x7FC00000, 2.]> : tensor<4xf32>
  %ce = arith.constant dense<[3., 1., 2., 4.]> : tensor<4xf32>
  %c0, %c1, %c2, %c3, %c4 = call @scans(%ca, %cb, %cc, %cd, %ce)
      : (tensor<4xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<4xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<4xf32>, tensor<4xf32>)
  // arg reductions
  %rx = arith.constant dense<[[1., 5., 5., 2.], [1., 0x7FC00000, 7., 0x7FC00000]]> : tensor<2x4xf32>
  %ru = arith.constant dense<[[1, 4294967295, 3]]> : tensor<1x3xui32>
  %r0, %r1, %r2 = call @argreduce(%rx, %ru)
      : (tensor<2x4xf32>, tensor<1x3xui32>) -> (tensor<2xi32>, tensor<2xi32>, tensor<1xi32>)
  // threefry
  %tk0 = arith.constant dense<[0, 4294967295, 320440878]> : tensor<3xui32>
  %tk1 = arith.constant dense<[0, 4294967295, 57701188]> : tensor<3xui32>
  %tx0 = arith.constant dense<[0, 4294967295, 608135816]> : tensor<3xui32>
  %tx1 = arith.constant dense<[0, 4294967295, 2242054355]> : tensor<3xui32>
  %t0, %t1 = call @threefry(%tk0, %tk1, %tx0, %tx1)
      : (tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>)
      -> (tensor<3xi32>, tensor<3xi32>)
  // unsigned
  %ua = arith.constant dense<[4294967295, 7, 9, 10]> : tensor<4xui32>
  %ub = arith.constant dense<[2, 0, 3, 4294967295]> : tensor<4xui32>
  %uf = arith.constant dense<[-3.5, 300., 7.9, 0x7FC00000]> : tensor<4xf32>
  %u0, %u1, %u2, %u3, %u4 = call @unsigned(%ua, %ub, %uf)
      : (tensor<4xui32>, tensor<4xui32>, tensor<4xf32>)
      -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi64>, tensor<4xi32>)
  // softmax
  %fx = arith.constant dense<[[1., 2., 3.], [1., 1., 1.]]> : tensor<2x3xf32>
  %f = call @softmax(%fx) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // shapes
  %hx = arith.constant dense<[[1., 2., 3.], [4., 5., 6.]]> : tensor<2x3xf32>
  %ha = arith.constant dense<[1., 2.]> : tensor<2xf32>
  %hb = arith.constant dense<[3.]> : tensor<1xf32>
  %hc = arith.constant dense<[0., 1., 2., 3., 4., 5., 6.]> : tensor<7xf32>
  %he = arith.constant dense<[0.5, -0.9, 1., 0., 1.5]> : tensor<5xf32>
  %h0, %h1, %h2, %h3, %h4 = call @shapes(%hx, %ha, %hb, %hc, %he)
      : (tensor<2x3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<7xf32>, tensor<5xf32>)
      -> (tensor<2x3xi32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<5xf32>)

  // a parallel loop
  %bx = call @big_input() : () -> tensor<512x512xf32>
  %bs = arith.constant dense<0.001> : tensor<f32>
  %bo = arith.constant dense<1.> : tensor<f32>
  %by = call @big(%bx, %bs, %bo) : (tensor<512x512xf32>, tensor<f32>, tensor<f32>) -> tensor<512x512xf32>
  %b0, %b1 = call @corners(%by) : (tensor<512x512xf32>) -> (tensor<4xf32>, tensor<4xf32>)

  // Print in the order of the CHECK blocks above; each print starts with a header line that
  // ends in "data =".
  %U_g = tensor.cast %g : tensor<4x3xf32> to tensor<*xf32>
  %U_gw = tensor.cast %gw_flat : tensor<12xi32> to tensor<*xi32>
  %U_s = tensor.cast %s : tensor<5xf32> to tensor<*xf32>
  %U_sa = tensor.cast %sa : tensor<5x3xf32> to tensor<*xf32>
  %U_dus = tensor.cast %dus : tensor<4x5xf32> to tensor<*xf32>
  %U_ds = tensor.cast %ds : tensor<2x3xf32> to tensor<*xf32>
  %U_p = tensor.cast %p : tensor<3x6xf32> to tensor<*xf32>
  %U_sk = tensor.cast %sk : tensor<6xf32> to tensor<*xf32>
  %U_sv = tensor.cast %sv : tensor<6xi32> to tensor<*xi32>
  %U_s2 = tensor.cast %s2 : tensor<2x4xi32> to tensor<*xi32>
  %U_s3 = tensor.cast %s3 : tensor<40xi32> to tensor<*xi32>
  %U_c0 = tensor.cast %c0 : tensor<4xf32> to tensor<*xf32>
  %U_c1 = tensor.cast %c1 : tensor<2x3xf32> to tensor<*xf32>
  %U_c2 = tensor.cast %c2 : tensor<2x3xi32> to tensor<*xi32>
  %U_c3 = tensor.cast %c3 : tensor<4xf32> to tensor<*xf32>
  %U_c4 = tensor.cast %c4 : tensor<4xf32> to tensor<*xf32>
  %U_r0 = tensor.cast %r0 : tensor<2xi32> to tensor<*xi32>
  %U_r1 = tensor.cast %r1 : tensor<2xi32> to tensor<*xi32>
  %U_r2 = tensor.cast %r2 : tensor<1xi32> to tensor<*xi32>
  %U_t0 = tensor.cast %t0 : tensor<3xi32> to tensor<*xi32>
  %U_t1 = tensor.cast %t1 : tensor<3xi32> to tensor<*xi32>
  %U_u0 = tensor.cast %u0 : tensor<4xi32> to tensor<*xi32>
  %U_u1 = tensor.cast %u1 : tensor<4xi32> to tensor<*xi32>
  %U_u2 = tensor.cast %u2 : tensor<4xi32> to tensor<*xi32>
  %U_u3 = tensor.cast %u3 : tensor<4xi64> to tensor<*xi64>
  %U_u4 = tensor.cast %u4 : tensor<4xi32> to tensor<*xi32>
  %U_f = tensor.cast %f : tensor<2x3xf32> to tensor<*xf32>
  %U_h0 = tensor.cast %h0 : tensor<2x3xi32> to tensor<*xi32>
  %U_h1 = tensor.cast %h1 : tensor<2x3xf32> to tensor<*xf32>
  %U_h2 = tensor.cast %h2 : tensor<3xf32> to tensor<*xf32>
  %U_h3 = tensor.cast %h3 : tensor<3xf32> to tensor<*xf32>
  %U_h4 = tensor.cast %h4 : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%U_g) : (tensor<*xf32>) -> ()
  call @printMemrefI32(%U_gw) : (tensor<*xi32>) -> ()
  call @printMemrefF32(%U_s) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%U_sa) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%U_dus) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%U_ds) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%U_p) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%U_sk) : (tensor<*xf32>) -> ()
  call @printMemrefI32(%U_sv) : (tensor<*xi32>) -> ()
  call @printMemrefI32(%U_s2) : (tensor<*xi32>) -> ()
  call @printMemrefI32(%U_s3) : (tensor<*xi32>) -> ()
  call @printMemrefF32(%U_c0) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%U_c1) : (tensor<*xf32>) -> ()
  call @printMemrefI32(%U_c2) : (tensor<*xi32>) -> ()
  call @printMemrefF32(%U_c3) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%U_c4) : (tensor<*xf32>) -> ()
  call @printMemrefI32(%U_r0) : (tensor<*xi32>) -> ()
  call @printMemrefI32(%U_r1) : (tensor<*xi32>) -> ()
  call @printMemrefI32(%U_r2) : (tensor<*xi32>) -> ()
  call @printMemrefI32(%U_t0) : (tensor<*xi32>) -> ()
  call @printMemrefI32(%U_t1) : (tensor<*xi32>) -> ()
  call @printMemrefI32(%U_u0) : (tensor<*xi32>) -> ()
  call @printMemrefI32(%U_u1) : (tensor<*xi32>) -> ()
  call @printMemrefI32(%U_u2) : (tensor<*xi32>) -> ()
  call @printMemrefI64(%U_u3) : (tensor<*xi64>) -> ()
  call @printMemrefI32(%U_u4) : (tensor<*xi32>) -> ()
  call @printMemrefF32(%U_f) : (tensor<*xf32>) -> ()
  call @printMemrefI32(%U_h0) : (tensor<*xi32>) -> ()
  call @printMemrefF32(%U_h1) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%U_h2) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%U_h3) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%U_h4) : (tensor<*xf32>) -> ()
  %U_b0 = tensor.cast %b0 : tensor<4xf32> to tensor<*xf32>
  %U_b1 = tensor.cast %b1 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%U_b0) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%U_b1) : (tensor<*xf32>) -> ()
  return
}
