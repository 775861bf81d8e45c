// strata.host_callback: its assembly round-trips, its effects keep it through canonicalize and
// CSE (even without results), and its verifier rejects a negative id.
// RUN: strata-opt %s -split-input-file | strata-opt -split-input-file | FileCheck %s
// RUN: strata-opt %s -split-input-file -canonicalize -cse | FileCheck %s --check-prefix=KEEP

// Parse and print: operands, the id, results (none, one, several).
// CHECK-LABEL: func.func @round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[N:.*]]: tensor<i32>)
// CHECK: strata.host_callback(%[[X]]) callback_id = 0 : (tensor<3xf32>) -> ()
// CHECK: %[[Y:.*]] = strata.host_callback(%[[X]], %[[N]]) callback_id = 1 : (tensor<3xf32>, tensor<i32>) -> tensor<3xf32>
// CHECK: %{{.*}}:2 = strata.host_callback() callback_id = 2 : () -> (tensor<2xi32>, tensor<f64>)
func.func @round_trip(%x: tensor<3xf32>, %n: tensor<i32>) -> tensor<3xf32> {
  strata.host_callback(%x) callback_id = 0 : (tensor<3xf32>) -> ()
  %y = strata.host_callback(%x, %n) callback_id = 1 : (tensor<3xf32>, tensor<i32>) -> tensor<3xf32>
  %a:2 = strata.host_callback() callback_id = 2 : () -> (tensor<2xi32>, tensor<f64>)
  return %y : tensor<3xf32>
}

// -----

// Two identical calls stay two calls, in order, and an unused result does not drop its call.
// KEEP-LABEL: func.func @effects
// KEEP: strata.host_callback(%{{.*}}) callback_id = 7 : (tensor<3xf32>) -> ()
// KEEP-NEXT: strata.host_callback(%{{.*}}) callback_id = 7 : (tensor<3xf32>) -> ()
// KEEP-NEXT: strata.host_callback(%{{.*}}) callback_id = 8 : (tensor<3xf32>) -> tensor<3xf32>
// KEEP-NEXT: strata.host_callback(%{{.*}}) callback_id = 7 : (tensor<3xf32>) -> ()
func.func @effects(%x: tensor<3xf32>) {
  strata.host_callback(%x) callback_id = 7 : (tensor<3xf32>) -> ()
  strata.host_callback(%x) callback_id = 7 : (tensor<3xf32>) -> ()
  %unused = strata.host_callback(%x) callback_id = 8 : (tensor<3xf32>) -> tensor<3xf32>
  strata.host_callback(%x) callback_id = 7 : (tensor<3xf32>) -> ()
  return
}
