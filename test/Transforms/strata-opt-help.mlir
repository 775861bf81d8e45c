// strata-opt --help lists every Strata pass and named pipeline.
// RUN: strata-opt --help | FileCheck %s
// CHECK: Available Dialects: {{.*}}linalg{{.*}}math{{.*}}strata{{.*}}tensor
// CHECK-DAG: --strata-lower-to-linalg
// CHECK-DAG: --strata-infer-shapes
// CHECK-DAG: --strata-optimize
// CHECK-DAG: --strata-lower-to-cpu-linalg
// CHECK-DAG: --strata-fuse
// CHECK-DAG: --strata-optimize-fused
// CHECK-DAG: --strata-layout
// CHECK-DAG: --strata-lower-to-cpu{{ }}
// CHECK-DAG: --strata-linalg-to-blas
// CHECK-DAG: --strata-approximate-math
// CHECK-DAG: --strata-parallelize-loops
// CHECK-DAG: --strata-unique-results
// CHECK-DAG: --strata-lower-to-nvvm
// CHECK-DAG: --strata-gpu-map-loops
// CHECK-DAG: --strata-nvvm-intrinsics
