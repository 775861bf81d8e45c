// strata-lower-to-nvvm on a whole MLP train step (784-512-512-10, batch 128, softmax cross
// entropy, SGD), as jit stages it (bench/bench_jit.cpp mlp_train_step, STRATA_DUMP_IR): the 8
// dot_generals (3 forward, 5 backward) are host calls of cuBLAS between the kernels; the host
// function keeps no loop and no load or store of buffer data; each fusion group is one kernel.
// test/gpu/ptxas_check.sh assembles every kernel with ptxas for sm_90 and sm_120.
// RUN: strata-opt %s -strata-lower-to-nvvm=chip=sm_90 | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-NOT: scf.
// CHECK-NOT: memref.load
// CHECK-NOT: memref.store
// First layer: gemm, then bias add and relu as ONE grid-stride kernel with 16-byte accesses
// (65536 f32: 16384 chunks, 64 blocks of 256).
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: call @strata_rt_cuda_gemm(%[[C0]],
// CHECK: gpu.launch_func @[[RELU1:.*]]::@main_kernel blocks in (%[[C64]], %{{.*}}, %{{.*}}) threads in (%[[C256]],
// CHECK: call @strata_rt_cuda_gemm(%[[C0]],
// CHECK: gpu.launch_func @{{.*}}::@main_kernel blocks in (%[[C64]], %{{.*}}, %{{.*}}) threads in (%[[C256]],
// CHECK: call @strata_rt_cuda_gemm(%[[C0]],
// Logits: bias add, log-sum-exp rows and the label terms as one row kernel (a warp per row of
// 10, 8 rows per block of 256: 16 blocks).
// CHECK: gpu.launch_func @[[ROWS:.*]]::@main_kernel blocks in (%[[C16]], %{{.*}}, %{{.*}}) threads in (%[[C256]],
// Then the loss (a full reduction over the batch), the backward kernels and the 5 gemms of
// the gradients.
// CHECK-COUNT-5: call @strata_rt_cuda_gemm(%[[C0]],
// CHECK-NOT: call @strata_rt_cuda_gemm
// CHECK: return
// CHECK: gpu.binary @[[RELU1]]
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: st.global.v4.b32
// CHECK-SAME: max{{(.NaN)?}}.f32
// CHECK-SAME: st.global.v4.b32
// CHECK: gpu.binary @[[ROWS]]
// CHECK-SAME: shfl.sync.bfly.b32
module {
  func.func @main(%arg0: tensor<784x512xf32> {bufferization.writable = false}, %arg1: tensor<512xf32> {bufferization.writable = false}, %arg2: tensor<512x512xf32> {bufferization.writable = false}, %arg3: tensor<512xf32> {bufferization.writable = false}, %arg4: tensor<512x10xf32> {bufferization.writable = false}, %arg5: tensor<10xf32> {bufferization.writable = false}, %arg6: tensor<128x784xf32> {bufferization.writable = false}, %arg7: tensor<128xi32> {bufferization.writable = false}) -> (tensor<f32>, tensor<784x512xf32>, tensor<512xf32>, tensor<512x512xf32>, tensor<512xf32>, tensor<512x10xf32>, tensor<10xf32>) attributes {llvm.emit_c_interface} {
    %cst = arith.constant dense<0.00999999977> : tensor<f32>
    %cst_0 = arith.constant dense<0.00999999977> : tensor<f32>
    %cst_1 = arith.constant dense<0.00999999977> : tensor<f32>
    %cst_2 = arith.constant dense<0.00999999977> : tensor<f32>
    %cst_3 = arith.constant dense<0.00999999977> : tensor<f32>
    %cst_4 = arith.constant dense<0.00999999977> : tensor<f32>
    %cst_5 = arith.constant dense<5.000000e-01> : tensor<f64>
    %cst_6 = arith.constant dense<5.000000e-01> : tensor<f64>
    %cst_7 = arith.constant dense<1.000000e+00> : tensor<f64>
    %cst_8 = arith.constant dense<1.000000e+00> : tensor<f64>
    %cst_9 = arith.constant dense<-1.000000e+00> : tensor<f64>
    %cst_10 = arith.constant dense<1.000000e+00> : tensor<f64>
    %cst_11 = arith.constant dense<1.280000e+02> : tensor<f64>
    %cst_12 = arith.constant dense<0> : tensor<i32>
    %cst_13 = arith.constant dense<0> : tensor<i32>
    %0 = strata.dot_general %arg6, %arg0, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<128x784xf32>, tensor<784x512xf32>) -> tensor<128x512xf32>
    %1 = strata.broadcast_in_dim %arg1, broadcast_dimensions = [1] : (tensor<512xf32>) -> tensor<128x512xf32>
    %2 = strata.add %0, %1 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xf32>
    %3 = strata.convert_element_type %cst_13 : (tensor<i32>) -> tensor<f32>
    %4 = strata.broadcast_in_dim %3, broadcast_dimensions = [] : (tensor<f32>) -> tensor<128x512xf32>
    %5 = strata.max %2, %4 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xf32>
    %6 = strata.dot_general %5, %arg2, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<128x512xf32>, tensor<512x512xf32>) -> tensor<128x512xf32>
    %7 = strata.broadcast_in_dim %arg3, broadcast_dimensions = [1] : (tensor<512xf32>) -> tensor<128x512xf32>
    %8 = strata.add %6, %7 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xf32>
    %9 = strata.convert_element_type %cst_12 : (tensor<i32>) -> tensor<f32>
    %10 = strata.broadcast_in_dim %9, broadcast_dimensions = [] : (tensor<f32>) -> tensor<128x512xf32>
    %11 = strata.max %8, %10 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xf32>
    %12 = strata.dot_general %11, %arg4, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<128x512xf32>, tensor<512x10xf32>) -> tensor<128x10xf32>
    %13 = strata.broadcast_in_dim %arg5, broadcast_dimensions = [1] : (tensor<10xf32>) -> tensor<128x10xf32>
    %14 = strata.add %12, %13 : (tensor<128x10xf32>, tensor<128x10xf32>) -> tensor<128x10xf32>
    %15 = strata.reduce_max %14, axes = [1] : (tensor<128x10xf32>) -> tensor<128xf32>
    %16 = strata.reshape %15 : (tensor<128xf32>) -> tensor<128x1xf32>
    %17 = strata.stop_gradient %16 : (tensor<128x1xf32>) -> tensor<128x1xf32>
    %18 = strata.broadcast_in_dim %17, broadcast_dimensions = [0, 1] : (tensor<128x1xf32>) -> tensor<128x10xf32>
    %19 = strata.sub %14, %18 : (tensor<128x10xf32>, tensor<128x10xf32>) -> tensor<128x10xf32>
    %20 = strata.exp %19 : (tensor<128x10xf32>) -> tensor<128x10xf32>
    %21 = strata.reduce_sum %20, axes = [1] : (tensor<128x10xf32>) -> tensor<128xf32>
    %22 = strata.reshape %21 : (tensor<128xf32>) -> tensor<128x1xf32>
    %23 = strata.log %22 : (tensor<128x1xf32>) -> tensor<128x1xf32>
    %24 = strata.broadcast_in_dim %23, broadcast_dimensions = [0, 1] : (tensor<128x1xf32>) -> tensor<128x10xf32>
    %25 = strata.sub %19, %24 : (tensor<128x10xf32>, tensor<128x10xf32>) -> tensor<128x10xf32>
    %26 = strata.broadcast_in_dim %arg7, broadcast_dimensions = [0] : (tensor<128xi32>) -> tensor<128x10xi32>
    %27 = strata.iota dimension = 1 : tensor<128x10xi32>
    %28 = strata.eq %26, %27 : (tensor<128x10xi32>, tensor<128x10xi32>) -> tensor<128x10xi1>
    %29 = strata.convert_element_type %28 : (tensor<128x10xi1>) -> tensor<128x10xf32>
    %30 = strata.mul %25, %29 : (tensor<128x10xf32>, tensor<128x10xf32>) -> tensor<128x10xf32>
    %31 = strata.reduce_sum %30, axes = [1] : (tensor<128x10xf32>) -> tensor<128xf32>
    %32 = strata.reduce_sum %31, axes = [0] : (tensor<128xf32>) -> tensor<f32>
    %33 = strata.convert_element_type %cst_11 : (tensor<f64>) -> tensor<f32>
    %34 = strata.div %32, %33 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %35 = strata.neg %34 : (tensor<f32>) -> tensor<f32>
    %36 = strata.convert_element_type %cst_10 : (tensor<f64>) -> tensor<f32>
    %37 = strata.convert_element_type %cst_9 : (tensor<f64>) -> tensor<f32>
    %38 = strata.mul %36, %37 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %39 = strata.convert_element_type %cst_8 : (tensor<f64>) -> tensor<f32>
    %40 = strata.div %39, %33 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %41 = strata.mul %38, %40 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %42 = strata.broadcast_in_dim %41, broadcast_dimensions = [] : (tensor<f32>) -> tensor<128xf32>
    %43 = strata.broadcast_in_dim %42, broadcast_dimensions = [0] : (tensor<128xf32>) -> tensor<128x10xf32>
    %44 = strata.mul %43, %29 : (tensor<128x10xf32>, tensor<128x10xf32>) -> tensor<128x10xf32>
    %45 = strata.neg %44 : (tensor<128x10xf32>) -> tensor<128x10xf32>
    %46 = strata.reduce_sum %45, axes = [1] : (tensor<128x10xf32>) -> tensor<128xf32>
    %47 = strata.reshape %46 : (tensor<128xf32>) -> tensor<128x1xf32>
    %48 = strata.convert_element_type %cst_7 : (tensor<f64>) -> tensor<f32>
    %49 = strata.broadcast_in_dim %48, broadcast_dimensions = [] : (tensor<f32>) -> tensor<128x1xf32>
    %50 = strata.div %49, %22 : (tensor<128x1xf32>, tensor<128x1xf32>) -> tensor<128x1xf32>
    %51 = strata.mul %47, %50 : (tensor<128x1xf32>, tensor<128x1xf32>) -> tensor<128x1xf32>
    %52 = strata.reshape %51 : (tensor<128x1xf32>) -> tensor<128xf32>
    %53 = strata.broadcast_in_dim %52, broadcast_dimensions = [0] : (tensor<128xf32>) -> tensor<128x10xf32>
    %54 = strata.mul %53, %20 : (tensor<128x10xf32>, tensor<128x10xf32>) -> tensor<128x10xf32>
    %55 = strata.add %44, %54 : (tensor<128x10xf32>, tensor<128x10xf32>) -> tensor<128x10xf32>
    %56 = strata.neg %55 : (tensor<128x10xf32>) -> tensor<128x10xf32>
    %57 = strata.reduce_sum %56, axes = [1] : (tensor<128x10xf32>) -> tensor<128xf32>
    %58 = strata.reshape %57 : (tensor<128xf32>) -> tensor<128x1xf32>
    %59 = strata.reduce_sum %55, axes = [0] : (tensor<128x10xf32>) -> tensor<10xf32>
    %60 = strata.dot_general %55, %arg4, batch_dims = [] x [], contracting_dims = [1] x [1] : (tensor<128x10xf32>, tensor<512x10xf32>) -> tensor<128x512xf32>
    %61 = strata.dot_general %11, %55, batch_dims = [] x [], contracting_dims = [0] x [0] : (tensor<128x512xf32>, tensor<128x10xf32>) -> tensor<512x10xf32>
    %62 = strata.gt %8, %10 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xi1>
    %63 = strata.convert_element_type %62 : (tensor<128x512xi1>) -> tensor<128x512xf32>
    %64 = strata.convert_element_type %cst_6 : (tensor<f64>) -> tensor<f32>
    %65 = strata.broadcast_in_dim %64, broadcast_dimensions = [] : (tensor<f32>) -> tensor<128x512xf32>
    %66 = strata.eq %8, %10 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xi1>
    %67 = strata.convert_element_type %66 : (tensor<128x512xi1>) -> tensor<128x512xf32>
    %68 = strata.mul %65, %67 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xf32>
    %69 = strata.add %63, %68 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xf32>
    %70 = strata.mul %60, %69 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xf32>
    %71 = strata.reduce_sum %70, axes = [0] : (tensor<128x512xf32>) -> tensor<512xf32>
    %72 = strata.dot_general %70, %arg2, batch_dims = [] x [], contracting_dims = [1] x [1] : (tensor<128x512xf32>, tensor<512x512xf32>) -> tensor<128x512xf32>
    %73 = strata.dot_general %5, %70, batch_dims = [] x [], contracting_dims = [0] x [0] : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<512x512xf32>
    %74 = strata.gt %2, %4 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xi1>
    %75 = strata.convert_element_type %74 : (tensor<128x512xi1>) -> tensor<128x512xf32>
    %76 = strata.convert_element_type %cst_5 : (tensor<f64>) -> tensor<f32>
    %77 = strata.broadcast_in_dim %76, broadcast_dimensions = [] : (tensor<f32>) -> tensor<128x512xf32>
    %78 = strata.eq %2, %4 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xi1>
    %79 = strata.convert_element_type %78 : (tensor<128x512xi1>) -> tensor<128x512xf32>
    %80 = strata.mul %77, %79 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xf32>
    %81 = strata.add %75, %80 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xf32>
    %82 = strata.mul %72, %81 : (tensor<128x512xf32>, tensor<128x512xf32>) -> tensor<128x512xf32>
    %83 = strata.reduce_sum %82, axes = [0] : (tensor<128x512xf32>) -> tensor<512xf32>
    %84 = strata.dot_general %arg6, %82, batch_dims = [] x [], contracting_dims = [0] x [0] : (tensor<128x784xf32>, tensor<128x512xf32>) -> tensor<784x512xf32>
    %85 = strata.convert_element_type %cst_4 : (tensor<f32>) -> tensor<f32>
    %86 = strata.broadcast_in_dim %85, broadcast_dimensions = [] : (tensor<f32>) -> tensor<784x512xf32>
    %87 = strata.mul %86, %84 : (tensor<784x512xf32>, tensor<784x512xf32>) -> tensor<784x512xf32>
    %88 = strata.sub %arg0, %87 : (tensor<784x512xf32>, tensor<784x512xf32>) -> tensor<784x512xf32>
    %89 = strata.convert_element_type %cst_3 : (tensor<f32>) -> tensor<f32>
    %90 = strata.broadcast_in_dim %89, broadcast_dimensions = [] : (tensor<f32>) -> tensor<512xf32>
    %91 = strata.mul %90, %83 : (tensor<512xf32>, tensor<512xf32>) -> tensor<512xf32>
    %92 = strata.sub %arg1, %91 : (tensor<512xf32>, tensor<512xf32>) -> tensor<512xf32>
    %93 = strata.convert_element_type %cst_2 : (tensor<f32>) -> tensor<f32>
    %94 = strata.broadcast_in_dim %93, broadcast_dimensions = [] : (tensor<f32>) -> tensor<512x512xf32>
    %95 = strata.mul %94, %73 : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
    %96 = strata.sub %arg2, %95 : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
    %97 = strata.convert_element_type %cst_1 : (tensor<f32>) -> tensor<f32>
    %98 = strata.broadcast_in_dim %97, broadcast_dimensions = [] : (tensor<f32>) -> tensor<512xf32>
    %99 = strata.mul %98, %71 : (tensor<512xf32>, tensor<512xf32>) -> tensor<512xf32>
    %100 = strata.sub %arg3, %99 : (tensor<512xf32>, tensor<512xf32>) -> tensor<512xf32>
    %101 = strata.convert_element_type %cst_0 : (tensor<f32>) -> tensor<f32>
    %102 = strata.broadcast_in_dim %101, broadcast_dimensions = [] : (tensor<f32>) -> tensor<512x10xf32>
    %103 = strata.mul %102, %61 : (tensor<512x10xf32>, tensor<512x10xf32>) -> tensor<512x10xf32>
    %104 = strata.sub %arg4, %103 : (tensor<512x10xf32>, tensor<512x10xf32>) -> tensor<512x10xf32>
    %105 = strata.convert_element_type %cst : (tensor<f32>) -> tensor<f32>
    %106 = strata.broadcast_in_dim %105, broadcast_dimensions = [] : (tensor<f32>) -> tensor<10xf32>
    %107 = strata.mul %106, %59 : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xf32>
    %108 = strata.sub %arg5, %107 : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xf32>
    return %35, %88, %92, %96, %100, %104, %108 : tensor<f32>, tensor<784x512xf32>, tensor<512xf32>, tensor<512x512xf32>, tensor<512xf32>, tensor<512x10xf32>, tensor<10xf32>
  }
}
