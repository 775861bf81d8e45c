// RUN: strata-opt --split-input-file --strata-lower-to-linalg %s | FileCheck %s

// A unary math op becomes a linalg.generic with the math op in its body.
// CHECK-LABEL: func.func @exp
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[X]] : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[V:.*]] = math.exp %[[IN]] : f32
// CHECK: linalg.yield %[[V]] : f32
// CHECK: return %[[R]]
// CHECK-NOT: strata.
func.func @exp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = strata.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// logistic expands to 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @logistic
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[NEG:.*]] = arith.negf %[[IN]] : f32
// CHECK: %[[EXP:.*]] = math.exp %[[NEG]] : f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[DEN:.*]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK: %[[Y:.*]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK: linalg.yield %[[Y]] : f32
func.func @logistic(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.logistic %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// rsqrt maps to math.rsqrt.
// CHECK-LABEL: func.func @rsqrt
// CHECK: math.rsqrt %{{.*}} : f32
func.func @rsqrt(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.rsqrt %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// integer_pow with y = 3 is two multiplications (square and multiply).
// CHECK-LABEL: func.func @integer_pow
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[SQ:.*]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK: %[[CUBE:.*]] = arith.mulf %[[IN]], %[[SQ]] : f32
// CHECK: linalg.yield %[[CUBE]] : f32
func.func @integer_pow(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.integer_pow %x, y = 3 : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A negative integer_pow divides 1 by the positive power.
// CHECK-LABEL: func.func @integer_pow_negative
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[SQ:.*]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[INV:.*]] = arith.divf %[[ONE]], %[[SQ]] : f32
// CHECK: linalg.yield %[[INV]] : f32
func.func @integer_pow_negative(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.integer_pow %x, y = -2 : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// add picks arith.addf for floats and arith.addi for integers.
// CHECK-LABEL: func.func @add
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.addf %[[A]], %[[B]] : f32
// CHECK: ^bb0(%[[C:.*]]: i32, %[[D:.*]]: i32, %{{.*}}: i32):
// CHECK: arith.addi %[[C]], %[[D]] : i32
func.func @add(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = strata.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.add %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// Integer division avoids UB: divide by 1 where y is 0 or -1, then patch x/0 = -1.
// CHECK-LABEL: func.func @div_int
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[Y]]
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[Y]] : i32
// CHECK: %[[Q:.*]] = arith.divsi %[[X]], %[[SAFE]] : i32
// CHECK: %[[R:.*]] = arith.select %[[ZERO]], %{{.*}}, %{{.*}} : i32
// CHECK: linalg.yield %[[R]] : i32
func.func @div_int(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %0 = strata.div %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Comparisons: ordered float predicates (une for ne), signed integer predicates.
// CHECK-LABEL: func.func @compare
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK: arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : i32
func.func @compare(%x: tensor<4xf32>, %i: tensor<4xi32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = strata.lt %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = strata.ne %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = strata.ge %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// A scalar select predicate is read through an empty indexing map.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @select_scalar_pred
// CHECK-SAME: (%[[P:.*]]: tensor<i1>, %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #[[ID]], #[[ID]], #[[ID]]]
// CHECK-SAME: ins(%[[P]], %[[A]], %[[B]] : tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK: ^bb0(%[[PI:.*]]: i1, %[[AI:.*]]: f32, %[[BI:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.select %[[PI]], %[[AI]], %[[BI]] : f32
func.func @select_scalar_pred(%p: tensor<i1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>)
    -> tensor<2x3xf32> {
  %0 = strata.select %p, %a, %b : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// convert_element_type: truncf for a narrower float, sitofp from int, fptosi to int with
// libstrata's saturation (>= 2^63 -> max, <= -2^63 -> min) and NaN -> 0.
// CHECK-LABEL: func.func @convert
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: %[[R:.*]] = arith.fptosi %[[X:.*]] : f32 to i64
// CHECK: %[[HI:.*]] = arith.cmpf oge, %[[X]]
// CHECK: arith.select %[[HI]]
// CHECK: %[[LO:.*]] = arith.cmpf ole, %[[X]]
// CHECK: arith.select %[[LO]]
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]]
// CHECK: arith.select %[[NAN]]
func.func @convert(%x: tensor<4xf32>, %i: tensor<4xi32>)
    -> (tensor<4xbf16>, tensor<4xf32>, tensor<4xi64>) {
  %0 = strata.convert_element_type %x : (tensor<4xf32>) -> tensor<4xbf16>
  %1 = strata.convert_element_type %i : (tensor<4xi32>) -> tensor<4xf32>
  %2 = strata.convert_element_type %x : (tensor<4xf32>) -> tensor<4xi64>
  return %0, %1, %2 : tensor<4xbf16>, tensor<4xf32>, tensor<4xi64>
}

// -----

// broadcast_in_dim reads the operand through a projected map.
// CHECK-DAG: #[[PROJ:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @broadcast_in_dim
// CHECK-SAME: (%[[V:.*]]: tensor<3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[PROJ]], #[[ID]]]
// CHECK-SAME: ins(%[[V]] : tensor<3xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
func.func @broadcast_in_dim(%v: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = strata.broadcast_in_dim %v, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A size-1 operand dimension that expands is read at index 0.
// CHECK-DAG: #[[ZERO:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @broadcast_expand_one
// CHECK: linalg.generic {indexing_maps = [#[[ZERO]], #{{.*}}]
func.func @broadcast_expand_one(%v: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = strata.broadcast_in_dim %v, broadcast_dimensions = [0, 1] : (tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// transpose becomes linalg.transpose.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x2xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3xf32>) outs(%[[E]] : tensor<3x2xf32>) permutation = [1, 0]
// CHECK: return %[[T]]
func.func @transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = strata.transpose %x, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// reshape: collapse and expand where the shapes nest, tensor.reshape otherwise.
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
// CHECK: %[[S:.*]] = arith.constant dense<[3, 2]> : tensor<2xi64>
// CHECK: %[[R:.*]] = tensor.reshape %[[X]](%[[S]]) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
func.func @reshape(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3x1xf32>, tensor<3x2xf32>) {
  %0 = strata.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = strata.reshape %x : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  %2 = strata.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %1, %2 : tensor<6xf32>, tensor<2x3x1xf32>, tensor<3x2xf32>
}

// -----

// reduce_sum: linalg.reduce into a zero-filled init.
// CHECK-LABEL: func.func @reduce_sum
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<3xf32>)
// CHECK: linalg.reduce ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<3xf32>) dimensions = [0, 2]
// CHECK: (%[[IN:.*]]: f32, %[[ACC:.*]]: f32) {
// CHECK: arith.addf %[[IN]], %[[ACC]] : f32
func.func @reduce_sum(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = strata.reduce_sum %x, axes = [2, 0] : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// reduce_max starts from -inf (floats) and the minimum integer, with NaN-propagating max.
// CHECK-LABEL: func.func @reduce_max
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
// CHECK: arith.constant -2147483648 : i32
// CHECK: arith.maxsi
func.func @reduce_max(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %0 = strata.reduce_max %x, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = strata.reduce_max %i, axes = [1] : (tensor<2x3xi32>) -> tensor<2xi32>
  return %0, %1 : tensor<2xf32>, tensor<2xi32>
}

// -----

// dot_general in the canonical matmul layout becomes linalg.matmul.
// CHECK-LABEL: func.func @dot_matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x5xf32>)
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: linalg.matmul ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x5xf32>) outs(%[[INIT]] : tensor<2x5xf32>)
func.func @dot_matmul(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %0 = strata.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// dot_general in the canonical batched layout becomes linalg.batch_matmul.
// CHECK-LABEL: func.func @dot_batch_matmul
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<4x2x3xf32>, tensor<4x3x5xf32>)
func.func @dot_batch_matmul(%a: tensor<4x2x3xf32>, %b: tensor<4x3x5xf32>) -> tensor<4x2x5xf32> {
  %0 = strata.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
  return %0 : tensor<4x2x5xf32>
}

// -----

// Other dot_general layouts: a linalg.generic whose maps spell the dimension numbers
// (loops: batch, lhs free, rhs free, contracting).
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d1)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @dot_general
// CHECK-SAME: (%[[A:.*]]: tensor<3x4x2xf32>, %[[B:.*]]: tensor<4x5x3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]], %[[B]] :
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: linalg.yield %[[S]] : f32
func.func @dot_general(%a: tensor<3x4x2xf32>, %b: tensor<4x5x3xf32>) -> tensor<4x2x5xf32> {
  %0 = strata.dot_general %a, %b, batch_dims = [1] x [0], contracting_dims = [0] x [2]
      : (tensor<3x4x2xf32>, tensor<4x5x3xf32>) -> tensor<4x2x5xf32>
  return %0 : tensor<4x2x5xf32>
}

// -----

// A dense layer [b, s, d] x [d, f]: the lhs free dims b and s are adjacent, so they merge into
// one (a free collapse of the identity-layout buffer) and the product is one linalg.matmul with
// m = b * s, expanded back to [b, s, f].
// CHECK-LABEL: func.func @dot_dense_layer
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<4x5xf32>)
// CHECK: %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[XC]], %[[W]] : tensor<6x4xf32>, tensor<4x5xf32>)
// CHECK: tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]] output_shape [2, 3, 5] : tensor<6x5xf32> into tensor<2x3x5xf32>
func.func @dot_dense_layer(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = strata.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [2] x [0]
      : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// The dense layer's weight gradient contracts b and s of both operands, adjacent and in the
// same order in each: they merge into one contracting dim (k = b * s), a 2-D contraction whose
// lhs is read transposed; the result needs no expansion.
// CHECK-DAG: #[[L:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[R:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func @dot_weight_gradient
// CHECK: %[[XC:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[GC:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x3x5xf32> into tensor<6x5xf32>
// CHECK: linalg.generic {indexing_maps = [#[[L]], #[[R]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[XC]], %[[GC]] : tensor<6x4xf32>, tensor<6x5xf32>)
// CHECK-NOT: tensor.expand_shape
func.func @dot_weight_gradient(%x: tensor<2x3x4xf32>, %g: tensor<2x3x5xf32>) -> tensor<4x5xf32> {
  %0 = strata.dot_general %x, %g, batch_dims = [] x [], contracting_dims = [0, 1] x [0, 1]
      : (tensor<2x3x4xf32>, tensor<2x3x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// Attention's scores 'bqhd,bkhd->bhqk': the batch dims b and h are not adjacent in the
// operands, so nothing merges and the generic keeps two batch loops (strata-linalg-to-blas
// loops over one of them around a strided-batched gemm). Contracting dims paired in another
// order in the two operands do not merge either.
// CHECK-LABEL: func.func @dot_attention_scores
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-LABEL: func.func @dot_crossed_contraction
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
func.func @dot_attention_scores(%q: tensor<2x3x4x5xf32>, %k: tensor<2x6x4x5xf32>)
    -> tensor<2x4x3x6xf32> {
  %0 = strata.dot_general %q, %k, batch_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3]
      : (tensor<2x3x4x5xf32>, tensor<2x6x4x5xf32>) -> tensor<2x4x3x6xf32>
  return %0 : tensor<2x4x3x6xf32>
}
func.func @dot_crossed_contraction(%a: tensor<2x3x4xf32>, %b: tensor<3x2x5xf32>)
    -> tensor<4x5xf32> {
  %0 = strata.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [0, 1] x [1, 0]
      : (tensor<2x3x4xf32>, tensor<3x2x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// stop_gradient forwards its operand.
// CHECK-LABEL: func.func @stop_gradient
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @stop_gradient(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.stop_gradient %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// -----

// A fusion group (broadcast + add + tanh) becomes one linalg.generic reading each input once,
// inlined into the function; the exp outside the group stays a generic of its own.
// CHECK-LABEL: func.func @fusion_elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NOT: strata.
// CHECK: %[[G:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK: arith.addf
// CHECK-NEXT: math.tanh
// CHECK-NEXT: linalg.yield
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[G]] : tensor<2x3xf32>)
// CHECK: math.exp
// CHECK-NOT: linalg.generic
func.func @fusion_elementwise(%x: tensor<2x3xf32>, %bias: tensor<3xf32>) -> tensor<2x3xf32> {
  %y = strata.fusion (%a = %x, %c = %bias) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
    %b = strata.broadcast_in_dim %c, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    %s = strata.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %t = strata.tanh %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
    strata.yield %t : tensor<2x3xf32>
  }
  %z = strata.exp %y : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// -----

// A softmax group: the broadcast and sub fuse into the exp, which two ops read (the sum and
// the final div), so it is computed once into a buffer, not recomputed in each: four loop
// nests (max, exp, sum, normalize).
// CHECK-LABEL: func.func @fusion_softmax
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%{{.*}}, %[[MAX]] :
// CHECK: arith.subf
// CHECK-NEXT: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[EXP]] :
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[EXP]], %[[SUM]] :
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
func.func @fusion_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
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

// -----

// Two groups stay two loop nests: fusion never crosses a group boundary.
// CHECK-LABEL: func.func @fusion_two_groups
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: math.tanh
func.func @fusion_two_groups(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.fusion (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %e = strata.exp %a : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %e : tensor<4xf32>
  }
  %1 = strata.fusion (%b = %0) : (tensor<4xf32>) -> tensor<4xf32> {
    %t = strata.tanh %b : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %t : tensor<4xf32>
  }
  return %1 : tensor<4xf32>
}

// -----

// Unsigned elements: the body casts to signless, uses unsigned arith (divui), and casts back.
// CHECK-LABEL: func.func @unsigned_div
// CHECK: ^bb0(%[[A:.*]]: ui32, %[[B:.*]]: ui32, %{{.*}}: ui32):
// CHECK: %[[SA:.*]] = builtin.unrealized_conversion_cast %[[A]] : ui32 to i32
// CHECK: %[[SB:.*]] = builtin.unrealized_conversion_cast %[[B]] : ui32 to i32
// CHECK: %[[Q:.*]] = arith.divui %[[SA]], %{{.*}} : i32
// CHECK: %[[R:.*]] = arith.select %{{.*}}, %{{.*}}, %[[Q]] : i32
// CHECK: %[[U:.*]] = builtin.unrealized_conversion_cast %[[R]] : i32 to ui32
// CHECK: linalg.yield %[[U]] : ui32
func.func @unsigned_div(%a: tensor<4xui32>, %b: tensor<4xui32>) -> tensor<4xui32> {
  %0 = strata.div %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  return %0 : tensor<4xui32>
}

// -----

// Unsigned compares and conversions: ult, uitofp, extui, and fptoui with saturation.
// CHECK-LABEL: func.func @unsigned_convert
// CHECK: arith.cmpi ult
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.fptoui %{{.*}} : f32 to i8
func.func @unsigned_convert(%a: tensor<4xui8>, %f: tensor<4xf32>)
    -> (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>, tensor<4xui8>) {
  %0 = strata.lt %a, %a : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %1 = strata.convert_element_type %a : (tensor<4xui8>) -> tensor<4xf32>
  %2 = strata.convert_element_type %a : (tensor<4xui8>) -> tensor<4xi32>
  %3 = strata.convert_element_type %f : (tensor<4xf32>) -> tensor<4xui8>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xf32>, tensor<4xi32>, tensor<4xui8>
}

// -----

// checkpoint_name forwards its operand; iota writes linalg.index; rev reads (size - 1 - i).
// CHECK-DAG: #[[REV:.*]] = affine_map<(d0, d1) -> (d0, -d1 + 2)>
// CHECK-LABEL: func.func @identity_iota_rev
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: linalg.index 1
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: linalg.generic {indexing_maps = [#[[REV]], #{{.*}}]
// CHECK-SAME: ins(%[[X]] : tensor<2x3xf32>)
func.func @identity_iota_rev(%x: tensor<2x3xf32>) -> (tensor<2x3xi32>, tensor<2x3xf32>) {
  %c = strata.checkpoint_name %x, name = "h" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = strata.iota dimension = 1 : tensor<2x3xi32>
  %1 = strata.rev %c, dimensions = [1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xi32>, tensor<2x3xf32>
}

// -----

// slice is a strided tensor.extract_slice; concatenate inserts each input at its offset.
// CHECK-LABEL: func.func @slice_concat
// CHECK-SAME: (%[[X:.*]]: tensor<7xf32>, %[[A:.*]]: tensor<2xf32>, %[[B:.*]]: tensor<1xf32>)
// CHECK: tensor.extract_slice %[[X]][1] [3] [2] : tensor<7xf32> to tensor<3xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[I:.*]] = tensor.insert_slice %[[A]] into %[[E]][0] [2] [1]
// CHECK: tensor.insert_slice %[[B]] into %[[I]][2] [1] [1]
func.func @slice_concat(%x: tensor<7xf32>, %a: tensor<2xf32>, %b: tensor<1xf32>)
    -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = strata.slice %x, start = [1], limit = [6], strides = [2] : (tensor<7xf32>) -> tensor<3xf32>
  %1 = strata.concatenate(%a, %b), dimension = 0 : (tensor<2xf32>, tensor<1xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// pad: a fill, the part negative low/high keep, inserted with stride interior + 1.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[V:.*]]: tensor<f32>)
// CHECK: %[[P:.*]] = tensor.extract %[[V]][] : tensor<f32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[P]] : f32)
// CHECK: %[[K:.*]] = tensor.extract_slice %[[X]][0, 1] [1, 2] [1, 1]
// CHECK: tensor.insert_slice %[[K]] into %[[F]][1, 1] [1, 2] [2, 2]
func.func @pad(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<3x6xf32> {
  %0 = strata.pad %x, %v, low = [1, -1], high = [-1, 2], interior = [1, 1]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

// dynamic_slice clamps each start (ui32 zero-extended, i32 sign-extended) into
// [0, size - slice]; dynamic_update_slice inserts at the clamped starts.
// CHECK-LABEL: func.func @dynamic_slices
// CHECK: arith.extui %{{.*}} : i32 to i64
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}] [2, 3] [1, 1]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}] [2, 3] [1, 1]
func.func @dynamic_slices(%x: tensor<4x5xf32>, %i: tensor<ui32>, %j: tensor<i32>)
    -> (tensor<2x3xf32>, tensor<4x5xf32>) {
  %0 = strata.dynamic_slice %x[%i, %j] : (tensor<4x5xf32>, tensor<ui32>, tensor<i32>) -> tensor<2x3xf32>
  %1 = strata.dynamic_update_slice %x, %0 at [%j, %j]
      : (tensor<4x5xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<4x5xf32>
}

// -----

// gather: one generic over the result; the body loads the index, clamps it and extracts.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<4x1xi32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(
// CHECK: tensor.extract %[[I]]
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: %[[V:.*]] = tensor.extract %[[X]]
// CHECK: linalg.yield %[[V]] : f32
func.func @gather(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>) -> tensor<4x3xf32> {
  %0 = strata.gather %x, %i, offset_dims = [1], collapsed_slice_dims = [0],
      start_index_map = [0], slice_sizes = [1, 3]
      : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// scatter_add: a loop over the index vectors in order; an in-bounds window is added with a
// generic and inserted back, others dropped.
// CHECK-LABEL: func.func @scatter_add
// CHECK: scf.for
// CHECK: scf.if
// CHECK: tensor.extract_slice
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: tensor.insert_slice
// CHECK: } else {
func.func @scatter_add(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>, %u: tensor<4x3xf32>)
    -> tensor<5x3xf32> {
  %0 = strata.scatter_add %x, %i, %u, update_window_dims = [1], inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0]
      : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// cumsum (reverse): a loop from the end of the axis carrying an f64 running sum.
// CHECK-LABEL: func.func @cumsum
// CHECK: scf.for {{.*}} -> (tensor<2x3xf32>, tensor<2x1xf64>)
// CHECK: arith.subi
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.addf %{{.*}}, %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @cumsum(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = strata.cumsum %x, axis = 1, reverse = true : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// argmax: one reduction generic into (best value, index) from the first element.
// CHECK-LABEL: func.func @argmax
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [2, 1] [1, 1] : tensor<2x4xf32> to tensor<2xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf ord
// CHECK: linalg.index 1
func.func @argmax(%x: tensor<2x4xf32>) -> tensor<2xi32> {
  %0 = strata.argmax %x, axis = 1 : (tensor<2x4xf32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// sort: a generic counting the elements that sort before each one, then a generic moving
// every operand to those positions.
// CHECK-LABEL: func.func @sort
// CHECK: %[[POS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf uno
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[POS]], %{{.*}}, %{{.*}} : tensor<6xi64>, tensor<6xf32>, tensor<6xi32>)
func.func @sort(%k: tensor<6xf32>, %v: tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>) {
  %0, %1 = strata.sort(%k, %v), dimension = 0, num_keys = 1
      : (tensor<6xf32>, tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>)
  return %0, %1 : tensor<6xf32>, tensor<6xi32>
}

// -----

// threefry2x32, bitcast_convert_type and erf_inv are elementwise generics.
// CHECK-LABEL: func.func @bits
// CHECK: linalg.generic
// CHECK-COUNT-20: arith.shli
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: math.erfc
func.func @bits(%k: tensor<4xui32>, %f: tensor<4xf32>)
    -> (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xf32>) {
  %0, %1 = strata.threefry2x32 %k, %k, %k, %k
      : (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>)
      -> (tensor<4xui32>, tensor<4xui32>)
  %2 = strata.bitcast_convert_type %f : (tensor<4xf32>) -> tensor<4xui32>
  %3 = strata.erf_inv %f : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xf32>
}

// -----

// The inverse trigonometric and hyperbolic ops, cbrt, exp2 and erfc are one math op each.
// CHECK-LABEL: func.func @math_unary
// CHECK: math.sinh
// CHECK: math.cosh
// CHECK: math.asin
// CHECK: math.acos
// CHECK: math.atan
// CHECK: math.asinh
// CHECK: math.acosh
// CHECK: math.atanh
// CHECK: math.cbrt
// CHECK: math.exp2
// CHECK: math.erfc
func.func @math_unary(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
    tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
    tensor<4xf32>, tensor<4xf32>) {
  %0 = strata.sinh %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.cosh %x : (tensor<4xf32>) -> tensor<4xf32>
  %2 = strata.asin %x : (tensor<4xf32>) -> tensor<4xf32>
  %3 = strata.acos %x : (tensor<4xf32>) -> tensor<4xf32>
  %4 = strata.atan %x : (tensor<4xf32>) -> tensor<4xf32>
  %5 = strata.asinh %x : (tensor<4xf32>) -> tensor<4xf32>
  %6 = strata.acosh %x : (tensor<4xf32>) -> tensor<4xf32>
  %7 = strata.atanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %8 = strata.cbrt %x : (tensor<4xf32>) -> tensor<4xf32>
  %9 = strata.exp2 %x : (tensor<4xf32>) -> tensor<4xf32>
  %10 = strata.erfc %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<4xf32>, tensor<4xf32>,
      tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
      tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// population_count and clz are math.ctpop / math.ctlz; nextafter steps the bits of its operand;
// shift_right_arithmetic is arith.shrsi with the sign filling in for too wide amounts.
// CHECK-LABEL: func.func @bit_ops
// CHECK: math.ctpop
// CHECK: math.ctlz
// CHECK: arith.bitcast %{{.*}} : f16 to i16
// CHECK: arith.addi
// CHECK: arith.subi
// CHECK: arith.bitcast %{{.*}} : i16 to f16
// CHECK: arith.shrsi
func.func @bit_ops(%i: tensor<4xi32>, %x: tensor<4xf16>, %y: tensor<4xf16>)
    -> (tensor<4xi32>, tensor<4xi32>, tensor<4xf16>, tensor<4xi32>) {
  %0 = strata.population_count %i : (tensor<4xi32>) -> tensor<4xi32>
  %1 = strata.clz %i : (tensor<4xi32>) -> tensor<4xi32>
  %2 = strata.nextafter %x, %y : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %3 = strata.shift_right_arithmetic %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xf16>, tensor<4xi32>
}

// -----

// lgamma and digamma are straight-line f64 bodies (Lanczos; reflection, recurrence and the
// asymptotic series); the f32 operand is extended and the result truncated.
// CHECK-LABEL: func.func @gamma_family
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: math.sin
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: linalg.generic
// CHECK: math.tan
// CHECK-NOT: scf.while
// CHECK: return
func.func @gamma_family(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = strata.lgamma %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.digamma %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// igamma runs the series and the continued fraction as scf.while loops in the generic's body;
// zeta's direct sum is one more.
// CHECK-LABEL: func.func @incomplete_gamma
// CHECK: linalg.generic
// CHECK-COUNT-2: scf.while
// CHECK: linalg.generic
// CHECK: scf.while
// CHECK: math.powf
func.func @incomplete_gamma(%a: tensor<4xf64>, %x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %0 = strata.igamma %a, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = strata.zeta %a, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %0, %1 : tensor<4xf64>, tensor<4xf64>
}

// -----

// bessel_i0e is two unrolled Chebyshev series selected on |x| <= 8; betainc's continued
// fraction is an scf.while over its three operands.
// CHECK-LABEL: func.func @bessel_betainc
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: math.sqrt
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>)
// CHECK: scf.while
// CHECK: math.log1p
func.func @bessel_betainc(%a: tensor<4xf64>, %b: tensor<4xf64>, %x: tensor<4xf64>)
    -> (tensor<4xf64>, tensor<4xf64>) {
  %0 = strata.bessel_i0e %x : (tensor<4xf64>) -> tensor<4xf64>
  %1 = strata.regularized_incomplete_beta %a, %b, %x
      : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %0, %1 : tensor<4xf64>, tensor<4xf64>
}

// -----

// Ops on dynamic shapes stay in place (the pass is partial).
// CHECK-LABEL: func.func @left_in_place
// CHECK: strata.exp
// CHECK-NOT: linalg
func.func @left_in_place(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = strata.exp %x : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// An op whose result has no elements becomes tensor.empty (a zero-size slice whose offset equals
// a zero-size dimension is valid for the primitive but not for tensor.extract_slice).
// CHECK-LABEL: func.func @zero_size_slice
// CHECK-NEXT: %[[E:.+]] = tensor.empty() : tensor<0x0x1xf32>
// CHECK-NEXT: return %[[E]]
func.func @zero_size_slice(%x: tensor<0x1x1xf32>) -> tensor<0x0x1xf32> {
  %0 = strata.slice %x, start = [0, 1, 0], limit = [0, 1, 1], strides = [1, 1, 1] : (tensor<0x1x1xf32>) -> tensor<0x0x1xf32>
  return %0 : tensor<0x0x1xf32>
}

// -----

// Bool max/min reductions compare false < true: max starts from false, min from true (a signed
// i1 would start max from true and return true for all-false inputs).
// CHECK-LABEL: func.func @bool_reductions
// CHECK: %[[F:.+]] = arith.constant false
// CHECK: linalg.fill ins(%[[F]] : i1)
// CHECK: arith.maxui
// CHECK: %[[T:.+]] = arith.constant true
// CHECK: linalg.fill ins(%[[T]] : i1)
// CHECK: arith.minui
func.func @bool_reductions(%x: tensor<3xi1>) -> (tensor<i1>, tensor<i1>) {
  %0 = strata.reduce_max %x, axes = [0] : (tensor<3xi1>) -> tensor<i1>
  %1 = strata.reduce_min %x, axes = [0] : (tensor<3xi1>) -> tensor<i1>
  return %0, %1 : tensor<i1>, tensor<i1>
}

// -----

// A dot_general whose contracting dimensions all have extent 1 (vmap's per-example outer
// product) has no reduction loop: an all-parallel generic reading index 0 of the contracting
// dimension, accumulating into the zero-filled result.
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d1)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-LABEL: func.func @unit_contraction
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @unit_contraction(%a: tensor<4x1x3xf32>, %b: tensor<4x1x5xf32>) -> tensor<4x3x5xf32> {
  %0 = strata.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [1] x [1]
      : (tensor<4x1x3xf32>, tensor<4x1x5xf32>) -> tensor<4x3x5xf32>
  return %0 : tensor<4x3x5xf32>
}

// -----

// f16/bf16 sums and products accumulate in f32 and round once at the end, as libstrata's
// kernels do (max/min stay in the element type: they are exact).
// CHECK-LABEL: func.func @bf16_sum
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x300xbf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.addf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x300xbf16>) outs(%{{.*}} : tensor<4xbf16>)
func.func @bf16_sum(%x: tensor<4x300xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  %0 = strata.reduce_sum %x, axes = [1] : (tensor<4x300xbf16>) -> tensor<4xbf16>
  %1 = strata.reduce_max %x, axes = [1] : (tensor<4x300xbf16>) -> tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}
