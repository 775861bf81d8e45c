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
// libstrata's saturation (>= 2^63 -> max, < -2^63 -> min) and NaN -> 0.
// CHECK-LABEL: func.func @convert
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: %[[R:.*]] = arith.fptosi %[[X:.*]] : f32 to i64
// CHECK: %[[HI:.*]] = arith.cmpf oge, %[[X]]
// CHECK: arith.select %[[HI]]
// CHECK: %[[LO:.*]] = arith.cmpf olt, %[[X]]
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

// stop_gradient forwards its operand.
// CHECK-LABEL: func.func @stop_gradient
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @stop_gradient(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.stop_gradient %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Ops the pass does not handle yet (erf_inv, unsigned elements) stay in place.
// CHECK-LABEL: func.func @left_in_place
// CHECK: strata.erf_inv
// CHECK: strata.add
// CHECK-NOT: linalg
func.func @left_in_place(%x: tensor<4xf32>, %u: tensor<4xui8>) -> (tensor<4xf32>, tensor<4xui8>) {
  %0 = strata.erf_inv %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.add %u, %u : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1 : tensor<4xf32>, tensor<4xui8>
}
