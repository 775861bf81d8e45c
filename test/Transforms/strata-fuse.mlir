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

// A producer with a use before the group (by an op no group takes) stays outside, once: it is
// not duplicated.
// CHECK-LABEL: func.func @outside_use_before
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[Y:[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[E:[^ ]+]] = strata.exp %[[X]]
// CHECK-NEXT: %[[R:[^ ]+]] = strata.cumsum %[[E]], axis = 1
// CHECK-NEXT: %[[F:.*]] = strata.fusion (%[[A:[^ ]+]] = %[[E]], %[[B:[^ ]+]] = %[[Y]]) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %[[S:[^ ]+]] = strata.add %[[A]], %[[B]]
// CHECK-NEXT: %[[T:[^ ]+]] = strata.tanh %[[S]]
// CHECK-NEXT: strata.yield %[[T]] : tensor<2x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]], %[[R]]
// CHECK-NOT: strata.exp
func.func @outside_use_before(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %e = strata.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = strata.cumsum %e, axis = 1, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = strata.add %e, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = strata.tanh %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %t, %r : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// The exception: a broadcast of a small operand is cheap, so it is cloned into the group and
// the original stays for its other user.
// CHECK-LABEL: func.func @cheap_broadcast_duplicated
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[V:[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[B:[^ ]+]] = strata.broadcast_in_dim %[[V]], broadcast_dimensions = [1]
// CHECK-NEXT: %[[R:[^ ]+]] = strata.cumsum %[[B]], axis = 1
// CHECK-NEXT: %[[F:.*]] = strata.fusion (%[[C:[^ ]+]] = %[[V]], %[[A:[^ ]+]] = %[[X]]) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %[[B2:[^ ]+]] = strata.broadcast_in_dim %[[C]], broadcast_dimensions = [1]
// CHECK-NEXT: %[[S:[^ ]+]] = strata.add %[[A]], %[[B2]]
// CHECK-NEXT: %[[T:[^ ]+]] = strata.tanh %[[S]]
// CHECK-NEXT: strata.yield %[[T]] : tensor<2x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]], %[[R]]
func.func @cheap_broadcast_duplicated(%x: tensor<2x3xf32>, %v: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %b = strata.broadcast_in_dim %v, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %r = strata.cumsum %b, axis = 1, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = strata.add %x, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = strata.tanh %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %t, %r : tensor<2x3xf32>, tensor<2x3xf32>
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

// -----

// Softmax: reduce_max, its broadcast, sub, exp, reduce_sum, its broadcast and div are one
// fusion; exp, read by the sum and the div, is inside once.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[F:.*]] = strata.fusion (%[[A:[^ ]+]] = %[[X]]) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %[[M:[^ ]+]] = strata.reduce_max %[[A]], axes = [1]
// CHECK-NEXT: %[[MB:[^ ]+]] = strata.broadcast_in_dim %[[M]], broadcast_dimensions = [0]
// CHECK-NEXT: %[[D:[^ ]+]] = strata.sub %[[A]], %[[MB]]
// CHECK-NEXT: %[[E:[^ ]+]] = strata.exp %[[D]]
// CHECK-NEXT: %[[S:[^ ]+]] = strata.reduce_sum %[[E]], axes = [1]
// CHECK-NEXT: %[[SB:[^ ]+]] = strata.broadcast_in_dim %[[S]], broadcast_dimensions = [0]
// CHECK-NEXT: %[[Y:[^ ]+]] = strata.div %[[E]], %[[SB]]
// CHECK-NEXT: strata.yield %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = strata.reduce_max %x, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %mb = strata.broadcast_in_dim %m, broadcast_dimensions = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
  %d = strata.sub %x, %mb : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = strata.exp %d : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = strata.reduce_sum %e, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %sb = strata.broadcast_in_dim %s, broadcast_dimensions = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
  %y = strata.div %e, %sb : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Layer norm with scale and shift: both reductions, the epilogues on the reduced values (mean,
// variance + eps, rsqrt, behind their broadcasts) and the constants are one fusion.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x4xf32>, %[[G:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[F:.*]] = strata.fusion (%[[A:[^ ]+]] = %[[X]], %[[GA:[^ ]+]] = %[[G]], %[[BA:[^ ]+]] = %[[B]]) : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT: %[[N:[^ ]+]] = arith.constant dense<4.000000e+00> : tensor<2xf32>
// CHECK-NEXT: %[[EPS:[^ ]+]] = arith.constant dense<9.99999974E-6> : tensor<2xf32>
// CHECK-NEXT: %[[S:[^ ]+]] = strata.reduce_sum %[[A]], axes = [1]
// CHECK-NEXT: %[[MEAN:[^ ]+]] = strata.div %[[S]], %[[N]]
// CHECK-NEXT: %[[MB:[^ ]+]] = strata.broadcast_in_dim %[[MEAN]], broadcast_dimensions = [0]
// CHECK-NEXT: %[[C:[^ ]+]] = strata.sub %[[A]], %[[MB]]
// CHECK-NEXT: %[[SQ:[^ ]+]] = strata.mul %[[C]], %[[C]]
// CHECK-NEXT: %[[V:[^ ]+]] = strata.reduce_sum %[[SQ]], axes = [1]
// CHECK-NEXT: %[[VAR:[^ ]+]] = strata.div %[[V]], %[[N]]
// CHECK-NEXT: %[[VE:[^ ]+]] = strata.add %[[VAR]], %[[EPS]]
// CHECK-NEXT: %[[R:[^ ]+]] = strata.rsqrt %[[VE]]
// CHECK-NEXT: %[[RB:[^ ]+]] = strata.broadcast_in_dim %[[R]], broadcast_dimensions = [0]
// CHECK-NEXT: %[[Y:[^ ]+]] = strata.mul %[[C]], %[[RB]]
// CHECK-NEXT: %[[GB:[^ ]+]] = strata.broadcast_in_dim %[[GA]], broadcast_dimensions = [1]
// CHECK-NEXT: %[[YG:[^ ]+]] = strata.mul %[[Y]], %[[GB]]
// CHECK-NEXT: %[[BB:[^ ]+]] = strata.broadcast_in_dim %[[BA]], broadcast_dimensions = [1]
// CHECK-NEXT: %[[Z:[^ ]+]] = strata.add %[[YG]], %[[BB]]
// CHECK-NEXT: strata.yield %[[Z]] : tensor<2x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @layer_norm(%x: tensor<2x4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %n = arith.constant dense<4.0> : tensor<2xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<2xf32>
  %s = strata.reduce_sum %x, axes = [1] : (tensor<2x4xf32>) -> tensor<2xf32>
  %mean = strata.div %s, %n : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %mb = strata.broadcast_in_dim %mean, broadcast_dimensions = [0] : (tensor<2xf32>) -> tensor<2x4xf32>
  %c = strata.sub %x, %mb : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %sq = strata.mul %c, %c : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %v = strata.reduce_sum %sq, axes = [1] : (tensor<2x4xf32>) -> tensor<2xf32>
  %var = strata.div %v, %n : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %ve = strata.add %var, %eps : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = strata.rsqrt %ve : (tensor<2xf32>) -> tensor<2xf32>
  %rb = strata.broadcast_in_dim %r, broadcast_dimensions = [0] : (tensor<2xf32>) -> tensor<2x4xf32>
  %y = strata.mul %c, %rb : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %gb = strata.broadcast_in_dim %g, broadcast_dimensions = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
  %yg = strata.mul %y, %gb : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %bb = strata.broadcast_in_dim %b, broadcast_dimensions = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
  %z = strata.add %yg, %bb : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %z : tensor<2x4xf32>
}

// -----

// Reduction prologue: the elementwise producers of a reduction (here sum(exp(x - bcast(m))),
// m from outside) join it; the reduction is the group's root and only result.
// CHECK-LABEL: func.func @reduction_prologue
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[M:[^:]+]]: tensor<2xf32>)
// CHECK-NEXT: %[[F:.*]] = strata.fusion (%[[MA:[^ ]+]] = %[[M]], %[[A:[^ ]+]] = %[[X]]) : (tensor<2xf32>, tensor<2x3xf32>) -> tensor<2xf32> {
// CHECK-NEXT: %[[MB:[^ ]+]] = strata.broadcast_in_dim %[[MA]], broadcast_dimensions = [0]
// CHECK-NEXT: %[[D:[^ ]+]] = strata.sub %[[A]], %[[MB]]
// CHECK-NEXT: %[[E:[^ ]+]] = strata.exp %[[D]]
// CHECK-NEXT: %[[S:[^ ]+]] = strata.reduce_sum %[[E]], axes = [1]
// CHECK-NEXT: strata.yield %[[S]] : tensor<2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @reduction_prologue(%x: tensor<2x3xf32>, %m: tensor<2xf32>) -> tensor<2xf32> {
  %mb = strata.broadcast_in_dim %m, broadcast_dimensions = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
  %d = strata.sub %x, %mb : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = strata.exp %d : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = strata.reduce_sum %e, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

// A reduction feeding a dot_general ends its group: the dot stays outside and reads the
// fusion's result; the dot's own elementwise consumer is too small a group to form.
// CHECK-LABEL: func.func @reduction_into_dot
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[W:[^:]+]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[F:.*]] = strata.fusion (%[[A:[^ ]+]] = %[[X]]) : (tensor<2x3xf32>) -> tensor<2xf32> {
// CHECK-NEXT: %[[SQ:[^ ]+]] = strata.mul %[[A]], %[[A]]
// CHECK-NEXT: %[[S:[^ ]+]] = strata.reduce_sum %[[SQ]], axes = [1]
// CHECK-NEXT: strata.yield %[[S]] : tensor<2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[D:[^ ]+]] = strata.dot_general %[[F]], %[[W]]
// CHECK-NEXT: %[[T:[^ ]+]] = strata.tanh %[[D]]
// CHECK-NEXT: return %[[T]]
func.func @reduction_into_dot(%x: tensor<2x3xf32>, %w: tensor<2x4xf32>) -> tensor<4xf32> {
  %sq = strata.mul %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = strata.reduce_sum %sq, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %d = strata.dot_general %s, %w, batch_dims = [] x [], contracting_dims = [0] x [0] : (tensor<2xf32>, tensor<2x4xf32>) -> tensor<4xf32>
  %t = strata.tanh %d : (tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// An expensive producer read by two reductions is computed once: it joins the first
// reduction's group and is a fusion result for the second; it is never duplicated.
// CHECK-LABEL: func.func @shared_producer_not_duplicated
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[F:[^:]+]]:2 = strata.fusion (%[[A:[^ ]+]] = %[[X]]) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
// CHECK-NEXT: %[[E:[^ ]+]] = strata.exp %[[A]]
// CHECK-NEXT: %[[S:[^ ]+]] = strata.reduce_sum %[[E]], axes = [1]
// CHECK-NEXT: strata.yield %[[E]], %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[M:[^ ]+]] = strata.reduce_max %[[F]]#0, axes = [0]
// CHECK-NEXT: return %[[F]]#1, %[[M]]
// CHECK-NOT: strata.exp
func.func @shared_producer_not_duplicated(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<3xf32>) {
  %e = strata.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = strata.reduce_sum %e, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %m = strata.reduce_max %e, axes = [0] : (tensor<2x3xf32>) -> tensor<3xf32>
  return %s, %m : tensor<2xf32>, tensor<3xf32>
}

// -----

// Behind a broadcast only a reduction's epilogue joins: an elementwise producer of the bias
// that computes on no reduction stays outside (it would be recomputed per broadcast element).
// CHECK-LABEL: func.func @no_recompute_behind_broadcast
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[V:[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[E:[^ ]+]] = strata.exp %[[V]]
// CHECK-NEXT: %[[F:.*]] = strata.fusion (%[[C:[^ ]+]] = %[[E]], %[[A:[^ ]+]] = %[[X]])
// CHECK-NEXT: strata.broadcast_in_dim %[[C]]
func.func @no_recompute_behind_broadcast(%x: tensor<2x3xf32>, %v: tensor<3xf32>) -> tensor<2x3xf32> {
  %e = strata.exp %v : (tensor<3xf32>) -> tensor<3xf32>
  %b = strata.broadcast_in_dim %e, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %s = strata.add %x, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = strata.tanh %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %t : tensor<2x3xf32>
}

// -----

// Fusion stays on one side of a region boundary: the chain inside the loop body is fused
// there, the chain after the loop outside, and nothing moves across the loop.
// CHECK-LABEL: func.func @loop_body
// CHECK: %[[W:.*]] = strata.while
// CHECK: } do {
// CHECK: strata.fusion
// CHECK: strata.exp
// CHECK: strata.neg
// CHECK: strata.yield
// CHECK: strata.yield
// CHECK: }
// CHECK: strata.fusion (%{{.*}} = %[[W]])
// CHECK: strata.tanh
// CHECK: strata.abs
func.func @loop_body(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %e = strata.sin %x : (tensor<4xf32>) -> tensor<4xf32>
  %w = strata.while %e : (tensor<4xf32>) -> tensor<4xf32> cond {
  ^bb0(%a: tensor<4xf32>):
    strata.yield %p : tensor<i1>
  } do {
  ^bb0(%a: tensor<4xf32>):
    %b = strata.exp %a : (tensor<4xf32>) -> tensor<4xf32>
    %c = strata.neg %b : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %c : tensor<4xf32>
  }
  %t = strata.tanh %w : (tensor<4xf32>) -> tensor<4xf32>
  %u = strata.abs %t : (tensor<4xf32>) -> tensor<4xf32>
  return %u : tensor<4xf32>
}

// -----

// A chain longer than a group's 64 members is cut: the 64 ops nearest its end form one
// fusion, the 6 before them another, whose result the first reads.
// CHECK-LABEL: func.func @long_chain
// CHECK-NEXT: %[[F1:.*]] = strata.fusion (%{{[^ ]+}} = %{{[^ ]+}}) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[F2:.*]] = strata.fusion (%{{[^ ]+}} = %[[F1]]) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.neg
// CHECK-NEXT: strata.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F2]]
func.func @long_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.neg %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = strata.neg %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = strata.neg %2 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = strata.neg %3 : (tensor<4xf32>) -> tensor<4xf32>
  %5 = strata.neg %4 : (tensor<4xf32>) -> tensor<4xf32>
  %6 = strata.neg %5 : (tensor<4xf32>) -> tensor<4xf32>
  %7 = strata.neg %6 : (tensor<4xf32>) -> tensor<4xf32>
  %8 = strata.neg %7 : (tensor<4xf32>) -> tensor<4xf32>
  %9 = strata.neg %8 : (tensor<4xf32>) -> tensor<4xf32>
  %10 = strata.neg %9 : (tensor<4xf32>) -> tensor<4xf32>
  %11 = strata.neg %10 : (tensor<4xf32>) -> tensor<4xf32>
  %12 = strata.neg %11 : (tensor<4xf32>) -> tensor<4xf32>
  %13 = strata.neg %12 : (tensor<4xf32>) -> tensor<4xf32>
  %14 = strata.neg %13 : (tensor<4xf32>) -> tensor<4xf32>
  %15 = strata.neg %14 : (tensor<4xf32>) -> tensor<4xf32>
  %16 = strata.neg %15 : (tensor<4xf32>) -> tensor<4xf32>
  %17 = strata.neg %16 : (tensor<4xf32>) -> tensor<4xf32>
  %18 = strata.neg %17 : (tensor<4xf32>) -> tensor<4xf32>
  %19 = strata.neg %18 : (tensor<4xf32>) -> tensor<4xf32>
  %20 = strata.neg %19 : (tensor<4xf32>) -> tensor<4xf32>
  %21 = strata.neg %20 : (tensor<4xf32>) -> tensor<4xf32>
  %22 = strata.neg %21 : (tensor<4xf32>) -> tensor<4xf32>
  %23 = strata.neg %22 : (tensor<4xf32>) -> tensor<4xf32>
  %24 = strata.neg %23 : (tensor<4xf32>) -> tensor<4xf32>
  %25 = strata.neg %24 : (tensor<4xf32>) -> tensor<4xf32>
  %26 = strata.neg %25 : (tensor<4xf32>) -> tensor<4xf32>
  %27 = strata.neg %26 : (tensor<4xf32>) -> tensor<4xf32>
  %28 = strata.neg %27 : (tensor<4xf32>) -> tensor<4xf32>
  %29 = strata.neg %28 : (tensor<4xf32>) -> tensor<4xf32>
  %30 = strata.neg %29 : (tensor<4xf32>) -> tensor<4xf32>
  %31 = strata.neg %30 : (tensor<4xf32>) -> tensor<4xf32>
  %32 = strata.neg %31 : (tensor<4xf32>) -> tensor<4xf32>
  %33 = strata.neg %32 : (tensor<4xf32>) -> tensor<4xf32>
  %34 = strata.neg %33 : (tensor<4xf32>) -> tensor<4xf32>
  %35 = strata.neg %34 : (tensor<4xf32>) -> tensor<4xf32>
  %36 = strata.neg %35 : (tensor<4xf32>) -> tensor<4xf32>
  %37 = strata.neg %36 : (tensor<4xf32>) -> tensor<4xf32>
  %38 = strata.neg %37 : (tensor<4xf32>) -> tensor<4xf32>
  %39 = strata.neg %38 : (tensor<4xf32>) -> tensor<4xf32>
  %40 = strata.neg %39 : (tensor<4xf32>) -> tensor<4xf32>
  %41 = strata.neg %40 : (tensor<4xf32>) -> tensor<4xf32>
  %42 = strata.neg %41 : (tensor<4xf32>) -> tensor<4xf32>
  %43 = strata.neg %42 : (tensor<4xf32>) -> tensor<4xf32>
  %44 = strata.neg %43 : (tensor<4xf32>) -> tensor<4xf32>
  %45 = strata.neg %44 : (tensor<4xf32>) -> tensor<4xf32>
  %46 = strata.neg %45 : (tensor<4xf32>) -> tensor<4xf32>
  %47 = strata.neg %46 : (tensor<4xf32>) -> tensor<4xf32>
  %48 = strata.neg %47 : (tensor<4xf32>) -> tensor<4xf32>
  %49 = strata.neg %48 : (tensor<4xf32>) -> tensor<4xf32>
  %50 = strata.neg %49 : (tensor<4xf32>) -> tensor<4xf32>
  %51 = strata.neg %50 : (tensor<4xf32>) -> tensor<4xf32>
  %52 = strata.neg %51 : (tensor<4xf32>) -> tensor<4xf32>
  %53 = strata.neg %52 : (tensor<4xf32>) -> tensor<4xf32>
  %54 = strata.neg %53 : (tensor<4xf32>) -> tensor<4xf32>
  %55 = strata.neg %54 : (tensor<4xf32>) -> tensor<4xf32>
  %56 = strata.neg %55 : (tensor<4xf32>) -> tensor<4xf32>
  %57 = strata.neg %56 : (tensor<4xf32>) -> tensor<4xf32>
  %58 = strata.neg %57 : (tensor<4xf32>) -> tensor<4xf32>
  %59 = strata.neg %58 : (tensor<4xf32>) -> tensor<4xf32>
  %60 = strata.neg %59 : (tensor<4xf32>) -> tensor<4xf32>
  %61 = strata.neg %60 : (tensor<4xf32>) -> tensor<4xf32>
  %62 = strata.neg %61 : (tensor<4xf32>) -> tensor<4xf32>
  %63 = strata.neg %62 : (tensor<4xf32>) -> tensor<4xf32>
  %64 = strata.neg %63 : (tensor<4xf32>) -> tensor<4xf32>
  %65 = strata.neg %64 : (tensor<4xf32>) -> tensor<4xf32>
  %66 = strata.neg %65 : (tensor<4xf32>) -> tensor<4xf32>
  %67 = strata.neg %66 : (tensor<4xf32>) -> tensor<4xf32>
  %68 = strata.neg %67 : (tensor<4xf32>) -> tensor<4xf32>
  %69 = strata.neg %68 : (tensor<4xf32>) -> tensor<4xf32>
  return %69 : tensor<4xf32>
}
