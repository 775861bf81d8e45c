// strata-gpu-host-memory on strata.host_callback's lowering: the table is a host stack array
// (its stores stay), the result buffer moves to the device, and the call becomes the GPU
// runtime's strata_rt_cuda_host_callback, which copies the buffers through the host.
// RUN: strata-opt %s -strata-gpu-host-memory | FileCheck %s

// CHECK-LABEL: func.func @callback
// CHECK-SAME: (%[[X:.*]]: memref<3xf32>, %[[OUT:.*]]: memref<3xf32>)
// CHECK: %[[T:.*]] = memref.alloca() : memref<12xindex>
// CHECK: %[[R:.*]] = gpu.alloc () : memref<3xf32>
// CHECK: memref.store %{{.*}}, %[[T]]
// CHECK: call @strata_rt_cuda_host_callback(%{{.*}}, %{{.*}}) : (i64, memref<?xindex>) -> ()
// CHECK: gpu.memcpy %[[OUT]], %[[R]]
// CHECK: func.func private @strata_rt_cuda_host_callback(i64, memref<?xindex>)
module attributes {gpu.container_module} {
  func.func @callback(%x: memref<3xf32>, %out: memref<3xf32>) {
    %t = memref.alloca() : memref<12xindex>
    %r = memref.alloc() : memref<3xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %p = memref.extract_aligned_pointer_as_index %x : memref<3xf32> -> index
    memref.store %c1, %t[%c0] : memref<12xindex>
    memref.store %p, %t[%c1] : memref<12xindex>
    %id = arith.constant 3 : i64
    %d = memref.cast %t : memref<12xindex> to memref<?xindex>
    call @strata_rt_host_callback(%id, %d) : (i64, memref<?xindex>) -> ()
    memref.copy %r, %out : memref<3xf32> to memref<3xf32>
    return
  }
  func.func private @strata_rt_host_callback(i64, memref<?xindex>)
}
