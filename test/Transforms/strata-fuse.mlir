// RUN: strata-opt --split-input-file --strata-fuse %s | FileCheck %s

// An elementwise chain becomes one fusion whose only result is the chain's end.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[F:.*]] = strata.fusion (%[[A:[^ ]+]] = %[[X]], %[[B:[^ ]+]] = %[[Y]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %[[E:[^ ]+]] = strata.exp %[[A]]
// CHECK-NEXT: %[[N:[^ ]+]] = strata.neg %[[E]]
// CHECK-NEXT: %[[S:[^ ]+]] = strata.add %[[N]], %[[B]]
// CHECK-NEXT: strata.yield %[[S]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @chain(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.neg %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = strata.add %1, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// bias + gelu (tanh form): the bias broadcast, a constant and a value with several users
// inside the group all fuse into one op.
// CHECK-LABEL: func.func @bias_gelu
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[BIAS:[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[F:.*]] = strata.fusion (%[[C:[^ ]+]] = %[[BIAS]], %[[A:[^ ]+]] = %[[X]]) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %[[B:[^ ]+]] = strata.broadcast_in_dim %[[C]], broadcast_dimensions = [1]
// CHECK-NEXT: %[[H:[^ ]+]] = strata.add %[[A]], %[[B]]
// CHECK-NEXT: %[[K:[^ ]+]] = arith.constant dense<4.471500e-02>
// CHECK-NEXT: %[[H2:[^ ]+]] = strata.mul %[[H]], %[[H]]
// CHECK-NEXT: %[[H3:[^ ]+]] = strata.mul %[[H2]], %[[H]]
// CHECK-NEXT: %[[KH3:[^ ]+]] = strata.mul %[[H3]], %[[K]]
// CHECK-NEXT: %[[I:[^ ]+]] = strata.add %[[H]], %[[KH3]]
// CHECK-NEXT: %[[T:[^ ]+]] = strata.tanh %[[I]]
// CHECK-NEXT: %[[R:[^ ]+]] = strata.mul %[[H]], %[[T]]
// CHECK-NEXT: strata.yield %[[R]] : tensor<2x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @bias_gelu(%x: tensor<2x3xf32>, %bias: tensor<3xf32>) -> tensor<2x3xf32> {
  %b = strata.broadcast_in_dim %bias, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %h = strata.add %x, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %k = arith.constant dense<0.044715> : tensor<2x3xf32>
  %h2 = strata.mul %h, %h : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %h3 = strata.mul %h2, %h : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %kh3 = strata.mul %h3, %k : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %i = strata.add %h, %kh3 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = strata.tanh %i : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = strata.mul %h, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// A value also used after the group (by a reduction) becomes a second fusion result.
// CHECK-LABEL: func.func @outside_use_after
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[Y:[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[F:[^:]+]]:2 = strata.fusion (%[[A:[^ ]+]] = %[[X]], %[[B:[^ ]+]] = %[[Y]]) : (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
// CHECK-NEXT: %[[E:[^ ]+]] = strata.exp %[[A]]
// CHECK-NEXT: %[[S:[^ ]+]] = strata.add %[[E]], %[[B]]
// CHECK-NEXT: %[[T:[^ ]+]] = strata.tanh %[[S]]
// CHECK-NEXT: strata.yield %[[E]], %[[T]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:[^ ]+]] = strata.reduce_sum %[[F]]#0, axes = [1]
// CHECK-NEXT: return %[[F]]#1, %[[R]]
func.func @outside_use_after(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
  %e = strata.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = strata.add %e, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = strata.tanh %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = strata.reduce_sum %e, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  return %t, %r : tensor<2x3xf32>, tensor<2xf32>
}

// -----

// No group crosses a dot_general: the prologue and the epilogue fuse separately.
// CHECK-LABEL: func.func @dot_general_boundary
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[W:[^:]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[P:.*]] = strata.fusion (%[[A:[^ ]+]] = %[[X]]) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %[[E:[^ ]+]] = strata.exp %[[A]]
// CHECK-NEXT: %[[N:[^ ]+]] = strata.neg %[[E]]
// CHECK-NEXT: strata.yield %[[N]] : tensor<2x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[D:[^ ]+]] = strata.dot_general %[[P]], %[[W]]
// CHECK-NEXT: %[[Q:.*]] = strata.fusion (%[[B:[^ ]+]] = %[[D]]) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT: %[[T:[^ ]+]] = strata.tanh %[[B]]
// CHECK-NEXT: %[[L:[^ ]+]] = strata.logistic %[[T]]
// CHECK-NEXT: strata.yield %[[L]] : tensor<2x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[Q]]
func.func @dot_general_boundary(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %e = strata.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %n = strata.neg %e : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %d = strata.dot_general %n, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %t = strata.tanh %d : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %l = strata.logistic %t : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %l : tensor<2x4xf32>
}

// -----

// A producer with a use before the group stays outside, once: it is not duplicated.
// CHECK-LABEL: func.func @outside_use_before
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[Y:[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[E:[^ ]+]] = strata.exp %[[X]]
// CHECK-NEXT: %[[R:[^ ]+]] = strata.reduce_sum %[[E]], axes = [1]
// CHECK-NEXT: %[[F:.*]] = strata.fusion (%[[A:[^ ]+]] = %[[E]], %[[B:[^ ]+]] = %[[Y]]) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %[[S:[^ ]+]] = strata.add %[[A]], %[[B]]
// CHECK-NEXT: %[[T:[^ ]+]] = strata.tanh %[[S]]
// CHECK-NEXT: strata.yield %[[T]] : tensor<2x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]], %[[R]]
// CHECK-NOT: strata.exp
func.func @outside_use_before(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
  %e = strata.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = strata.reduce_sum %e, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %s = strata.add %e, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = strata.tanh %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %t, %r : tensor<2x3xf32>, tensor<2xf32>
}

// -----

// The exception: a broadcast of a small operand is cheap, so it is cloned into the group and
// the original stays for its other user.
// CHECK-LABEL: func.func @cheap_broadcast_duplicated
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[V:[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[B:[^ ]+]] = strata.broadcast_in_dim %[[V]], broadcast_dimensions = [1]
// CHECK-NEXT: %[[R:[^ ]+]] = strata.reduce_sum %[[B]], axes = [1]
// CHECK-NEXT: %[[F:.*]] = strata.fusion (%[[C:[^ ]+]] = %[[V]], %[[A:[^ ]+]] = %[[X]]) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %[[B2:[^ ]+]] = strata.broadcast_in_dim %[[C]], broadcast_dimensions = [1]
// CHECK-NEXT: %[[S:[^ ]+]] = strata.add %[[A]], %[[B2]]
// CHECK-NEXT: %[[T:[^ ]+]] = strata.tanh %[[S]]
// CHECK-NEXT: strata.yield %[[T]] : tensor<2x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]], %[[R]]
func.func @cheap_broadcast_duplicated(%x: tensor<2x3xf32>, %v: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
  %b = strata.broadcast_in_dim %v, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %r = strata.reduce_sum %b, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %s = strata.add %x, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = strata.tanh %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %t, %r : tensor<2x3xf32>, tensor<2xf32>
}

// -----

// A lone elementwise op is left as it is.
// CHECK-LABEL: func.func @single
// CHECK-NEXT: strata.exp
// CHECK-NOT: strata.fusion
func.func @single(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
