// RUN: strata-opt --strata-infer-shapes --split-input-file %s | FileCheck %s

// An elementwise chain refines in program order; a cast right after the op feeds the return.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[Y:[^:]+]]: tensor<2x3xf32>) -> tensor<?x?xf32>
// CHECK-NEXT: %[[E:.+]] = strata.exp %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[A:.+]] = strata.add %[[E]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[N:.+]] = strata.neg %[[A]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[C:.+]] = tensor.cast %[[N]] : tensor<2x3xf32> to tensor<?x?xf32>
// CHECK-NEXT: return %[[C]] : tensor<?x?xf32>
func.func @elementwise_chain(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %0 = strata.exp %x : (tensor<2x3xf32>) -> tensor<?x3xf32>
  %1 = strata.add %0, %y : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x?xf32>
  %2 = strata.neg %1 : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}

// -----

// A static broadcast feeds a dynamic bias add, which refines; a broadcast to `?` stays.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[B:[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[BB:.+]] = strata.broadcast_in_dim %[[B]], broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[S:.+]] = strata.add %[[X]], %[[BB]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[C:.+]] = tensor.cast %[[S]] : tensor<2x3xf32> to tensor<?x3xf32>
// CHECK-NEXT: %[[D:.+]] = strata.broadcast_in_dim %[[B]], broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: return %[[C]], %[[D]] : tensor<?x3xf32>, tensor<?x3xf32>
func.func @broadcast(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %0 = strata.broadcast_in_dim %b, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = strata.add %x, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  %2 = strata.broadcast_in_dim %b, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<?x3xf32>
  return %1, %2 : tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

// dot_general: the rule gives the batch, free and free dimensions.
// CHECK-LABEL: func.func @dot_general
// CHECK-SAME: (%[[A:[^:]+]]: tensor<5x2x3xf32>, %[[B:[^:]+]]: tensor<5x3x4xf32>)
// CHECK-NEXT: %[[D:.+]] = strata.dot_general %[[A]], %[[B]], batch_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
// CHECK-NEXT: %[[C:.+]] = tensor.cast %[[D]] : tensor<5x2x4xf32> to tensor<?x?x?xf32>
// CHECK-NEXT: return %[[C]]
func.func @dot_general(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<?x?x?xf32> {
  %0 = strata.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

// reduce_sum drops the reduced axis.
// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R:.+]] = strata.reduce_sum %[[X]], axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[C:.+]] = tensor.cast %[[R]] : tensor<2xf32> to tensor<?xf32>
// CHECK-NEXT: return %[[C]] : tensor<?xf32>
func.func @reduce(%x: tensor<2x3xf32>) -> tensor<?xf32> {
  %0 = strata.reduce_sum %x, axes = [1] : (tensor<2x3xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Refinement propagates through matmul, reduce and broadcast users; only the return casts.
// CHECK-LABEL: func.func @propagate
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[W:[^:]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[M:.+]] = strata.dot_general %[[X]], %[[W]], batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[T:.+]] = strata.tanh %[[M]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[R:.+]] = strata.reduce_max %[[T]], axes = [1] : (tensor<2x4xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[B:.+]] = strata.broadcast_in_dim %[[R]], broadcast_dimensions = [0] : (tensor<2xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[S:.+]] = strata.sub %[[T]], %[[B]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[C:.+]] = tensor.cast %[[S]] : tensor<2x4xf32> to tensor<?x?xf32>
// CHECK-NEXT: return %[[C]] : tensor<?x?xf32>
func.func @propagate(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<?x?xf32> {
  %0 = strata.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<?x?xf32>
  %1 = strata.tanh %0 : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = strata.reduce_max %1, axes = [1] : (tensor<?x?xf32>) -> tensor<?xf32>
  %3 = strata.broadcast_in_dim %2, broadcast_dimensions = [0] : (tensor<?xf32>) -> tensor<2x4xf32>
  %4 = strata.sub %1, %3 : (tensor<?x?xf32>, tensor<2x4xf32>) -> tensor<?x?xf32>
  return %4 : tensor<?x?xf32>
}

// -----

// A dynamic operand leaves the chain dynamic: nothing changes, no cast.
// CHECK-LABEL: func.func @stays_dynamic
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x3xf32>)
// CHECK-NEXT: %[[E:.+]] = strata.exp %[[X]] : (tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: %[[N:.+]] = strata.neg %[[E]] : (tensor<?x3xf32>) -> tensor<?x?xf32>
// CHECK-NEXT: return %[[N]] : tensor<?x?xf32>
func.func @stays_dynamic(%x: tensor<?x3xf32>) -> tensor<?x?xf32> {
  %0 = strata.exp %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %1 = strata.neg %0 : (tensor<?x3xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// Ops inside a loop body refine like any others; the body's yield keeps its type.
// CHECK-LABEL: func.func @loop_body
// CHECK: } do {
// CHECK: %[[E:.*]] = strata.exp %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[N:.*]] = strata.neg %[[E]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[N]] : tensor<4xf32> to tensor<?xf32>
// CHECK: %[[D:.*]] = tensor.cast %[[C]] : tensor<?xf32> to tensor<4xf32>
// CHECK: strata.yield %[[D]] : tensor<4xf32>
func.func @loop_body(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %w = strata.while %x : (tensor<4xf32>) -> tensor<4xf32> cond {
  ^bb0(%a: tensor<4xf32>):
    strata.yield %p : tensor<i1>
  } do {
  ^bb0(%a: tensor<4xf32>):
    %b = strata.exp %a : (tensor<4xf32>) -> tensor<?xf32>
    %c = strata.neg %b : (tensor<?xf32>) -> tensor<?xf32>
    %d = tensor.cast %c : tensor<?xf32> to tensor<4xf32>
    strata.yield %d : tensor<4xf32>
  }
  return %w : tensor<4xf32>
}
