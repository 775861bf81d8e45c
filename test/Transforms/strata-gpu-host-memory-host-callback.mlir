// strata-gpu-host-memory on strata.host_callback's lowering: the result buffer moves to the
// device, and the final call becomes the GPU runtime's strata_rt_cuda_host_callback, which
// copies the announced (device) buffers through the host.
// RUN: strata-opt %s -strata-gpu-host-memory | FileCheck %s

// CHECK-LABEL: func.func @callback
// CHECK-SAME: (%[[X:.*]]: memref<3xf32>, %[[OUT:.*]]: memref<3xf32>)
// CHECK: %[[R:.*]] = gpu.alloc () : memref<3xf32>
// CHECK: call @strata_rt_host_callback_buffer
// CHECK: call @strata_rt_cuda_host_callback(%{{.*}}, %{{.*}}, %{{.*}}) : (i64, i64, i64) -> ()
// CHECK: gpu.memcpy %[[OUT]], %[[R]]
// CHECK: func.func private @strata_rt_cuda_host_callback(i64, i64, i64)
module attributes {gpu.container_module} {
  func.func @callback(%x: memref<3xf32>, %out: memref<3xf32>) {
    %r = memref.alloc() : memref<3xf32>
    %p = memref.extract_aligned_pointer_as_index %x : memref<3xf32> -> index
    %a = arith.index_cast %p : index to i64
    %c1 = arith.constant 1 : i64
    %c3 = arith.constant 3 : i64
    call @strata_rt_host_callback_buffer(%a, %c3, %c1) : (i64, i64, i64) -> ()
    call @strata_rt_host_callback_dim(%c3) : (i64) -> ()
    %q = memref.extract_aligned_pointer_as_index %r : memref<3xf32> -> index
    %b = arith.index_cast %q : index to i64
    call @strata_rt_host_callback_buffer(%b, %c3, %c1) : (i64, i64, i64) -> ()
    call @strata_rt_host_callback_dim(%c3) : (i64) -> ()
    %id = arith.constant 3 : i64
    call @strata_rt_host_callback(%id, %c1, %c1) : (i64, i64, i64) -> ()
    memref.copy %r, %out : memref<3xf32> to memref<3xf32>
    return
  }
  func.func private @strata_rt_host_callback(i64, i64, i64)
  func.func private @strata_rt_host_callback_buffer(i64, i64, i64)
  func.func private @strata_rt_host_callback_dim(i64)
}
