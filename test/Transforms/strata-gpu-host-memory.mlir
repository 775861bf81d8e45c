// strata-gpu-host-memory: host buffers in device memory, constants copied to the device, host
// scalar reads through the runtime, host stores rejected.
// RUN: strata-opt %s -strata-gpu-host-memory -split-input-file -verify-diagnostics | FileCheck %s

// A temporary and a copy on the host become gpu.alloc/gpu.memcpy/gpu.dealloc; kernels and views
// are untouched.
// CHECK-LABEL: func.func @temporaries
// CHECK-SAME: (%[[X:.*]]: memref<8xf32>, %[[OUT:.*]]: memref<8xf32>)
// CHECK: %[[T:.*]] = gpu.alloc () : memref<8xf32>
// CHECK: gpu.memcpy %[[T]], %[[X]] : memref<8xf32>, memref<8xf32>
// CHECK: gpu.memcpy %[[OUT]], %[[T]] : memref<8xf32>, memref<8xf32>
// CHECK: gpu.dealloc %[[T]] : memref<8xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
module attributes {gpu.container_module} {
  func.func @temporaries(%x: memref<8xf32>, %out: memref<8xf32>) {
    %t = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    memref.copy %x, %t : memref<8xf32> to memref<8xf32>
    memref.copy %t, %out : memref<8xf32> to memref<8xf32>
    memref.dealloc %t : memref<8xf32>
    return
  }
}

// -----

// A constant global read on the host: a device copy made where it is read, passed on instead of
// the host address, freed before the return.
// CHECK-LABEL: func.func @constant
// CHECK: %[[G:.*]] = memref.get_global @c : memref<3xf32>
// CHECK-NEXT: %[[D:.*]] = gpu.alloc () : memref<3xf32>
// CHECK-NEXT: gpu.memcpy %[[D]], %[[G]] : memref<3xf32>, memref<3xf32>
// CHECK: gpu.memcpy %{{.*}}, %[[D]]
// CHECK: gpu.dealloc %[[D]] : memref<3xf32>
// CHECK-NEXT: return
module {
  memref.global "private" constant @c : memref<3xf32> = dense<[1.0, 2.0, 3.0]>
  func.func @constant(%out: memref<3xf32>) {
    %g = memref.get_global @c : memref<3xf32>
    memref.copy %g, %out : memref<3xf32> to memref<3xf32>
    return
  }
}

// -----

// A scalar the host needs (a dynamic_slice index) is read through strata_rt_cuda_to_host into a
// host alloca: the element's address is the aligned pointer plus offset times 4 bytes.
// CHECK-LABEL: func.func @scalar_read
// CHECK-SAME: (%[[I:.*]]: memref<i32>)
// CHECK: %{{.*}}, %[[OFF:.*]] = memref.extract_strided_metadata %[[I]]
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[I]]
// CHECK: %[[BYTES:.*]] = arith.muli %[[OFF]], %c4
// CHECK: %[[SRC:.*]] = arith.addi %[[P]], %[[BYTES]]
// CHECK: %[[H:.*]] = memref.alloca() : memref<i32>
// CHECK: call @strata_rt_cuda_to_host(%{{.*}}, %{{.*}}, %c4_i64) : (i64, i64, i64) -> ()
// CHECK: %[[V:.*]] = memref.load %[[H]][] : memref<i32>
// CHECK: return %[[V]] : i32
// CHECK: func.func private @strata_rt_cuda_to_host(i64, i64, i64)
module {
  func.func @scalar_read(%i: memref<i32>) -> i32 {
    %v = memref.load %i[] : memref<i32>
    return %v : i32
  }
}

// -----

// Writing device memory from the host is an error: that belongs in a kernel.
module {
  func.func @host_store(%x: memref<4xf32>, %v: f32) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{host code writes a device buffer}}
    memref.store %v, %x[%c0] : memref<4xf32>
    return
  }
}

// -----

// Functions inside a gpu.module are device code and stay as they are.
// CHECK-LABEL: gpu.module @kernels
// CHECK: memref.store
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<4xf32>, %v: f32) kernel {
      %c0 = arith.constant 0 : index
      memref.store %v, %x[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
