// Round trip of every strata op through the text and bytecode forms.
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt %s -emit-bytecode | strata-opt | FileCheck %s
// RUN: strata-opt %s --mlir-print-op-generic | strata-opt | FileCheck %s

// Elementwise unary ops, on floats, integers and bools.
// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[I:[^:]+]]: tensor<2x3xi32>, %[[P:[^:]+]]: tensor<2x3xi1>)
func.func @unary(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>, %p: tensor<2x3xi1>) {
  // CHECK-NEXT: strata.neg %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = strata.neg %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.abs %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = strata.abs %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.sign %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = strata.sign %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.floor %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = strata.floor %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.ceil %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = strata.ceil %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.round %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = strata.round %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.exp %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = strata.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.log %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = strata.log %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.log1p %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = strata.log1p %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.expm1 %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = strata.expm1 %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.sqrt %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = strata.sqrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.rsqrt %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %11 = strata.rsqrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.sin %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = strata.sin %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.cos %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = strata.cos %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.tan %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %14 = strata.tan %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.tanh %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %15 = strata.tanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.logistic %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %16 = strata.logistic %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.erf %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %17 = strata.erf %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.erf_inv %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %18 = strata.erf_inv %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.is_finite %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %19 = strata.is_finite %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: strata.not %[[I]] : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %20 = strata.not %i : (tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: strata.not %[[P]] : (tensor<2x3xi1>) -> tensor<2x3xi1>
  %21 = strata.not %p : (tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK-NEXT: strata.integer_pow %[[X]], y = 3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %22 = strata.integer_pow %x, y = 3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.integer_pow %[[I]], y = 2 : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %23 = strata.integer_pow %i, y = 2 : (tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: strata.population_count %[[I]] : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %pc = strata.population_count %i : (tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: strata.clz %[[I]] : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %lz = strata.clz %i : (tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: strata.bessel_i0e %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %i0 = strata.bessel_i0e %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.bessel_i1e %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %i1 = strata.bessel_i1e %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.sinh %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u0 = strata.sinh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.cosh %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u1 = strata.cosh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.asin %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u2 = strata.asin %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.acos %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u3 = strata.acos %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.atan %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u4 = strata.atan %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.asinh %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u5 = strata.asinh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.acosh %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u6 = strata.acosh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.atanh %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u7 = strata.atanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.cbrt %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u8 = strata.cbrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.exp2 %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u9 = strata.exp2 %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.erfc %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u10 = strata.erfc %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.lgamma %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u11 = strata.lgamma %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.digamma %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u12 = strata.digamma %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// Elementwise binary ops.
// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[Y:[^:]+]]: tensor<2x3xf32>, %[[I:[^:]+]]: tensor<2x3xi32>, %[[J:[^:]+]]: tensor<2x3xi32>, %[[P:[^:]+]]: tensor<2x3xi1>)
func.func @binary(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %i: tensor<2x3xi32>, %j: tensor<2x3xi32>, %p: tensor<2x3xi1>) {
  // CHECK-NEXT: strata.add %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = strata.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.sub %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = strata.sub %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.mul %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = strata.mul %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.div %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = strata.div %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.rem %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = strata.rem %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.pow %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = strata.pow %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.max %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = strata.max %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.min %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = strata.min %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.atan2 %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = strata.atan2 %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.regularized_incomplete_beta %[[X]], %[[Y]], %[[X]] : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %bi = strata.regularized_incomplete_beta %x, %y, %x : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.nextafter %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %na = strata.nextafter %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.igamma %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b0 = strata.igamma %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.igammac %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b1 = strata.igammac %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.igamma_grad_a %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b2 = strata.igamma_grad_a %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.random_gamma_grad %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b3 = strata.random_gamma_grad %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.polygamma %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b4 = strata.polygamma %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.zeta %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b5 = strata.zeta %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.add %[[I]], %[[J]] : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %9 = strata.add %i, %j : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: strata.rem %[[I]], %[[J]] : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %10 = strata.rem %i, %j : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: strata.and %[[I]], %[[J]] : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %11 = strata.and %i, %j : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: strata.or %[[I]], %[[J]] : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %12 = strata.or %i, %j : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: strata.xor %[[I]], %[[J]] : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %13 = strata.xor %i, %j : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: strata.and %[[P]], %[[P]] : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %14 = strata.and %p, %p : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  return
}

// Comparisons give bool (i1) tensors.
// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[Y:[^:]+]]: tensor<2x3xf32>, %[[U:[^:]+]]: tensor<4xui32>)
func.func @compare(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %u: tensor<4xui32>) {
  // CHECK-NEXT: strata.eq %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %0 = strata.eq %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: strata.ne %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %1 = strata.ne %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: strata.lt %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = strata.lt %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: strata.le %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %3 = strata.le %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: strata.gt %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %4 = strata.gt %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: strata.ge %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %5 = strata.ge %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: strata.lt %[[U]], %[[U]] : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  %6 = strata.lt %u, %u : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  return
}

// select and clamp take scalar or full-shape operands; convert reaches every dtype.
// CHECK-LABEL: func.func @select_clamp_convert
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[Y:[^:]+]]: tensor<2x3xf32>, %[[P:[^:]+]]: tensor<2x3xi1>, %[[S:[^:]+]]: tensor<i1>, %[[LO:[^:]+]]: tensor<f32>, %[[HI:[^:]+]]: tensor<f32>)
func.func @select_clamp_convert(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %p: tensor<2x3xi1>, %s: tensor<i1>, %lo: tensor<f32>, %hi: tensor<f32>) {
  // CHECK-NEXT: strata.select %[[P]], %[[X]], %[[Y]] : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = strata.select %p, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.select %[[S]], %[[X]], %[[Y]] : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = strata.select %s, %x, %y : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.clamp %[[LO]], %[[X]], %[[HI]] : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = strata.clamp %lo, %x, %hi : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.clamp %[[X]], %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = strata.clamp %x, %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.convert_element_type %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  %4 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  // CHECK-NEXT: strata.convert_element_type %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %5 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xf16>
  // CHECK-NEXT: strata.convert_element_type %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf64>
  %6 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xf64>
  // CHECK-NEXT: strata.convert_element_type %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xi64>
  %7 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xi64>
  // CHECK-NEXT: strata.convert_element_type %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xi8>
  %8 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xi8>
  // CHECK-NEXT: strata.convert_element_type %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xui8>
  %9 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xui8>
  // CHECK-NEXT: strata.convert_element_type %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %10 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  return
}

// Shape ops; the result type carries broadcast and reshape targets.
// CHECK-LABEL: func.func @shape_ops
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[V:[^:]+]]: tensor<3xf32>, %[[S:[^:]+]]: tensor<f32>)
func.func @shape_ops(%x: tensor<2x3xf32>, %v: tensor<3xf32>, %s: tensor<f32>) {
  // CHECK-NEXT: strata.broadcast_in_dim %[[V]], broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %0 = strata.broadcast_in_dim %v, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.broadcast_in_dim %[[X]], broadcast_dimensions = [0, 2] : (tensor<2x3xf32>) -> tensor<2x4x3xf32>
  %1 = strata.broadcast_in_dim %x, broadcast_dimensions = [0, 2] : (tensor<2x3xf32>) -> tensor<2x4x3xf32>
  // CHECK-NEXT: strata.broadcast_in_dim %[[S]], broadcast_dimensions = [] : (tensor<f32>) -> tensor<2x3xf32>
  %2 = strata.broadcast_in_dim %s, broadcast_dimensions = [] : (tensor<f32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.reshape %[[X]] : (tensor<2x3xf32>) -> tensor<6xf32>
  %3 = strata.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  // CHECK-NEXT: strata.reshape %[[X]] : (tensor<2x3xf32>) -> tensor<3x1x2xf32>
  %4 = strata.reshape %x : (tensor<2x3xf32>) -> tensor<3x1x2xf32>
  // CHECK-NEXT: strata.reshape %[[S]] : (tensor<f32>) -> tensor<1x1xf32>
  %5 = strata.reshape %s : (tensor<f32>) -> tensor<1x1xf32>
  // CHECK-NEXT: strata.transpose %[[X]], permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %6 = strata.transpose %x, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NEXT: strata.transpose %[[S]], permutation = [] : (tensor<f32>) -> tensor<f32>
  %7 = strata.transpose %s, permutation = [] : (tensor<f32>) -> tensor<f32>
  return
}

// Reductions drop their axes.
// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[I:[^:]+]]: tensor<2x3xi32>, %[[P:[^:]+]]: tensor<2x3xi1>)
func.func @reductions(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>, %p: tensor<2x3xi1>) {
  // CHECK-NEXT: strata.reduce_sum %[[X]], axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %0 = strata.reduce_sum %x, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  // CHECK-NEXT: strata.reduce_max %[[X]], axes = [0, 1] : (tensor<2x3xf32>) -> tensor<f32>
  %1 = strata.reduce_max %x, axes = [0, 1] : (tensor<2x3xf32>) -> tensor<f32>
  // CHECK-NEXT: strata.reduce_min %[[X]], axes = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = strata.reduce_min %x, axes = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.reduce_prod %[[I]], axes = [0] : (tensor<2x3xi32>) -> tensor<3xi32>
  %3 = strata.reduce_prod %i, axes = [0] : (tensor<2x3xi32>) -> tensor<3xi32>
  // CHECK-NEXT: strata.reduce_max %[[P]], axes = [1] : (tensor<2x3xi1>) -> tensor<2xi1>
  %4 = strata.reduce_max %p, axes = [1] : (tensor<2x3xi1>) -> tensor<2xi1>
  return
}

// dot_general: matmul, batched matmul, outer product, preferred type, integers.
// CHECK-LABEL: func.func @dot_general
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[W:[^:]+]]: tensor<3x4xf32>, %[[A:[^:]+]]: tensor<5x2x3xf32>, %[[B:[^:]+]]: tensor<5x3x4xf32>, %[[I:[^:]+]]: tensor<2x3xi8>)
func.func @dot_general(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>, %i: tensor<2x3xi8>) {
  // CHECK-NEXT: strata.dot_general %[[X]], %[[W]], batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %0 = strata.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: strata.dot_general %[[A]], %[[B]], batch_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  %1 = strata.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  // CHECK-NEXT: strata.dot_general %[[X]], %[[X]], batch_dims = [] x [], contracting_dims = [] x [] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x2x3xf32>
  %2 = strata.dot_general %x, %x, batch_dims = [] x [], contracting_dims = [] x [] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x2x3xf32>
  // CHECK-NEXT: strata.dot_general %[[X]], %[[W]], batch_dims = [] x [], contracting_dims = [1] x [0] {preferred_element_type = f64} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf64>
  %3 = strata.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] {preferred_element_type = f64} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf64>
  // CHECK-NEXT: strata.dot_general %[[I]], %[[I]], batch_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x3xi8>, tensor<2x3xi8>) -> tensor<2xi8>
  %4 = strata.dot_general %i, %i, batch_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x3xi8>, tensor<2x3xi8>) -> tensor<2xi8>
  return
}

// Dynamic dimensions: with a dynamic operand the shape rule is skipped; with static operands a
// dynamic result dimension stands for the rule's; shape ops may target a dynamic shape.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[D:[^:]+]]: tensor<?x3xf32>, %[[X:[^:]+]]: tensor<2x3xf32>, %[[W:[^:]+]]: tensor<3x4xf32>)
func.func @dynamic(%d: tensor<?x3xf32>, %x: tensor<2x3xf32>, %w: tensor<3x4xf32>) {
  // CHECK-NEXT: %[[E:[^ ]+]] = strata.exp %[[D]] : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %0 = strata.exp %d : (tensor<?x3xf32>) -> tensor<?x3xf32>
  // CHECK-NEXT: strata.add %[[E]], %[[D]] : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x?xf32>
  %1 = strata.add %0, %d : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: strata.neg %[[X]] : (tensor<2x3xf32>) -> tensor<?x3xf32>
  %2 = strata.neg %x : (tensor<2x3xf32>) -> tensor<?x3xf32>
  // CHECK-NEXT: strata.dot_general %[[X]], %[[W]], batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<?x?xf32>
  %3 = strata.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: strata.reduce_sum %[[D]], axes = [1] : (tensor<?x3xf32>) -> tensor<?xf32>
  %4 = strata.reduce_sum %d, axes = [1] : (tensor<?x3xf32>) -> tensor<?xf32>
  // CHECK-NEXT: strata.broadcast_in_dim %[[X]], broadcast_dimensions = [1, 2] : (tensor<2x3xf32>) -> tensor<?x2x3xf32>
  %5 = strata.broadcast_in_dim %x, broadcast_dimensions = [1, 2] : (tensor<2x3xf32>) -> tensor<?x2x3xf32>
  // CHECK-NEXT: strata.reshape %[[D]] : (tensor<?x3xf32>) -> tensor<?xf32>
  %6 = strata.reshape %d : (tensor<?x3xf32>) -> tensor<?xf32>
  return
}

// Shape ops added in the second stage; iota and dynamic_slice take their shape from the result.
// CHECK-LABEL: func.func @more_shape_ops
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[Y:[^:]+]]: tensor<1x3xf32>, %[[Z:[^:]+]]: tensor<f32>, %[[I:[^:]+]]: tensor<i32>, %[[J:[^:]+]]: tensor<i64>, %[[U:[^:]+]]: tensor<1x2xf32>)
func.func @more_shape_ops(%x: tensor<2x3xf32>, %y: tensor<1x3xf32>, %z: tensor<f32>, %i: tensor<i32>, %j: tensor<i64>, %u: tensor<1x2xf32>) {
  // CHECK-NEXT: strata.iota dimension = 1 : tensor<2x3xi32>
  %0 = strata.iota dimension = 1 : tensor<2x3xi32>
  // CHECK-NEXT: strata.iota dimension = 0 : tensor<4xf32>
  %1 = strata.iota dimension = 0 : tensor<4xf32>
  // CHECK-NEXT: strata.rev %[[X]], dimensions = [1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = strata.rev %x, dimensions = [1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.rev %[[X]], dimensions = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = strata.rev %x, dimensions = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.slice %[[X]], start = [0, 1], limit = [2, 3], strides = [1, 1] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %4 = strata.slice %x, start = [0, 1], limit = [2, 3], strides = [1, 1] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: strata.slice %[[X]], start = [0, 0], limit = [2, 3], strides = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = strata.slice %x, start = [0, 0], limit = [2, 3], strides = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.slice %[[X]], start = [1, 0], limit = [2, 3], strides = [1, 2] : (tensor<2x3xf32>) -> tensor<1x2xf32>
  %6 = strata.slice %x, start = [1, 0], limit = [2, 3], strides = [1, 2] : (tensor<2x3xf32>) -> tensor<1x2xf32>
  // CHECK-NEXT: strata.dynamic_slice %[[X]][%[[I]], %[[J]]] : (tensor<2x3xf32>, tensor<i32>, tensor<i64>) -> tensor<1x2xf32>
  %7 = strata.dynamic_slice %x[%i, %j] : (tensor<2x3xf32>, tensor<i32>, tensor<i64>) -> tensor<1x2xf32>
  // CHECK-NEXT: strata.dynamic_slice %[[Z]][] : (tensor<f32>) -> tensor<f32>
  %8 = strata.dynamic_slice %z[] : (tensor<f32>) -> tensor<f32>
  // CHECK-NEXT: strata.dynamic_update_slice %[[X]], %[[U]] at [%[[I]], %[[I]]] : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  %9 = strata.dynamic_update_slice %x, %u at [%i, %i] : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.pad %[[X]], %[[Z]], low = [0, 1], high = [1, 0], interior = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x6xf32>
  %10 = strata.pad %x, %z, low = [0, 1], high = [1, 0], interior = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x6xf32>
  // CHECK-NEXT: strata.pad %[[X]], %[[Z]], low = [-1, 0], high = [0, -1], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x2xf32>
  %11 = strata.pad %x, %z, low = [-1, 0], high = [0, -1], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x2xf32>
  // CHECK-NEXT: strata.concatenate(%[[X]], %[[Y]]), dimension = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  %12 = strata.concatenate(%x, %y), dimension = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  // CHECK-NEXT: strata.concatenate(%[[X]]), dimension = 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = strata.concatenate(%x), dimension = 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.concatenate(%[[X]], %[[X]], %[[X]]), dimension = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  %14 = strata.concatenate(%x, %x, %x), dimension = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  return
}

// gather, scatter and scatter_add in XLA's general form.
// CHECK-LABEL: func.func @indexing
// CHECK-SAME: (%[[X:[^:]+]]: tensor<5x3xf32>, %[[IDX:[^:]+]]: tensor<4x1xi32>, %[[U:[^:]+]]: tensor<4x3xf32>, %[[I2:[^:]+]]: tensor<2x2xi64>, %[[N:[^:]+]]: tensor<5x3xi32>, %[[UN:[^:]+]]: tensor<2xi32>)
func.func @indexing(%x: tensor<5x3xf32>, %idx: tensor<4x1xi32>, %u: tensor<4x3xf32>, %i2: tensor<2x2xi64>, %n: tensor<5x3xi32>, %un: tensor<2xi32>) {
  // CHECK-NEXT: strata.gather %[[X]], %[[IDX]], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  %0 = strata.gather %x, %idx, offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  // CHECK-NEXT: strata.gather %[[X]], %[[I2]], offset_dims = [], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], slice_sizes = [1, 1] : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<2xf32>
  %1 = strata.gather %x, %i2, offset_dims = [], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], slice_sizes = [1, 1] : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<2xf32>
  // CHECK-NEXT: strata.gather %[[X]], %[[IDX]], offset_dims = [1, 2], collapsed_slice_dims = [], start_index_map = [1], slice_sizes = [5, 2] : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x5x2xf32>
  %2 = strata.gather %x, %idx, offset_dims = [1, 2], collapsed_slice_dims = [], start_index_map = [1], slice_sizes = [5, 2] : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x5x2xf32>
  // CHECK-NEXT: strata.scatter %[[X]], %[[IDX]], %[[U]], update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0] : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %3 = strata.scatter %x, %idx, %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0] : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  // CHECK-NEXT: strata.scatter_add %[[X]], %[[IDX]], %[[U]], update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0] : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %4 = strata.scatter_add %x, %idx, %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0] : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  // CHECK-NEXT: strata.scatter_add %[[N]], %[[I2]], %[[UN]], update_window_dims = [], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1] : (tensor<5x3xi32>, tensor<2x2xi64>, tensor<2xi32>) -> tensor<5x3xi32>
  %5 = strata.scatter_add %n, %i2, %un, update_window_dims = [], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1] : (tensor<5x3xi32>, tensor<2x2xi64>, tensor<2xi32>) -> tensor<5x3xi32>
  return
}

// Index reductions take their index dtype from the result; scans keep the operand's type.
// CHECK-LABEL: func.func @scans
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[I:[^:]+]]: tensor<2x3xi32>, %[[P:[^:]+]]: tensor<2x3xi1>)
func.func @scans(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>, %p: tensor<2x3xi1>) {
  // CHECK-NEXT: strata.argmax %[[X]], axis = 1 : (tensor<2x3xf32>) -> tensor<2xi32>
  %0 = strata.argmax %x, axis = 1 : (tensor<2x3xf32>) -> tensor<2xi32>
  // CHECK-NEXT: strata.argmax %[[I]], axis = -2 : (tensor<2x3xi32>) -> tensor<3xi64>
  %1 = strata.argmax %i, axis = -2 : (tensor<2x3xi32>) -> tensor<3xi64>
  // CHECK-NEXT: strata.argmin %[[X]], axis = 0 : (tensor<2x3xf32>) -> tensor<3xi64>
  %2 = strata.argmin %x, axis = 0 : (tensor<2x3xf32>) -> tensor<3xi64>
  // CHECK-NEXT: strata.cumsum %[[X]], axis = 1, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = strata.cumsum %x, axis = 1, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.cumsum %[[I]], axis = -1, reverse = true : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %4 = strata.cumsum %i, axis = -1, reverse = true : (tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: strata.cumprod %[[X]], axis = 0, reverse = true : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = strata.cumprod %x, axis = 0, reverse = true : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.cummax %[[X]], axis = 1, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = strata.cummax %x, axis = 1, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.cummin %[[P]], axis = 1, reverse = false : (tensor<2x3xi1>) -> tensor<2x3xi1>
  %7 = strata.cummin %p, axis = 1, reverse = false : (tensor<2x3xi1>) -> tensor<2x3xi1>
  return
}

// sort: one or more operands of one shape, sorted together by the leading keys.
// CHECK-LABEL: func.func @sort
// CHECK-SAME: (%[[K:[^:]+]]: tensor<2x3xf32>, %[[V:[^:]+]]: tensor<2x3xi32>)
func.func @sort(%k: tensor<2x3xf32>, %v: tensor<2x3xi32>) {
  // CHECK-NEXT: strata.sort(%[[K]]), dimension = 1, num_keys = 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = strata.sort(%k), dimension = 1, num_keys = 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.sort(%[[K]], %[[V]]), dimension = 0, num_keys = 1 : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  %1:2 = strata.sort(%k, %v), dimension = 0, num_keys = 1 : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  // CHECK-NEXT: strata.sort(%[[V]], %[[K]], %[[K]]), dimension = -1, num_keys = 2 : (tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>)
  %2:3 = strata.sort(%v, %k, %k), dimension = -1, num_keys = 2 : (tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>)
  return
}

// Bit-level ops behind strata::random.
// CHECK-LABEL: func.func @bits
// CHECK-SAME: (%[[U:[^:]+]]: tensor<4xui32>, %[[I:[^:]+]]: tensor<4xi8>, %[[F:[^:]+]]: tensor<4xf32>, %[[H:[^:]+]]: tensor<4xbf16>)
func.func @bits(%u: tensor<4xui32>, %i: tensor<4xi8>, %f: tensor<4xf32>, %h: tensor<4xbf16>) {
  // CHECK-NEXT: strata.shift_left %[[U]], %[[U]] : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  %0 = strata.shift_left %u, %u : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  // CHECK-NEXT: strata.shift_right_logical %[[U]], %[[U]] : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  %1 = strata.shift_right_logical %u, %u : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  // CHECK-NEXT: strata.shift_right_arithmetic %[[I]], %[[I]] : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %sra = strata.shift_right_arithmetic %i, %i : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  // CHECK-NEXT: strata.shift_right_logical %[[I]], %[[I]] : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %2 = strata.shift_right_logical %i, %i : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  // CHECK-NEXT: strata.bitcast_convert_type %[[F]] : (tensor<4xf32>) -> tensor<4xui32>
  %3 = strata.bitcast_convert_type %f : (tensor<4xf32>) -> tensor<4xui32>
  // CHECK-NEXT: strata.bitcast_convert_type %[[U]] : (tensor<4xui32>) -> tensor<4xf32>
  %4 = strata.bitcast_convert_type %u : (tensor<4xui32>) -> tensor<4xf32>
  // CHECK-NEXT: strata.bitcast_convert_type %[[H]] : (tensor<4xbf16>) -> tensor<4xf16>
  %5 = strata.bitcast_convert_type %h : (tensor<4xbf16>) -> tensor<4xf16>
  // CHECK-NEXT: strata.threefry2x32 %[[U]], %[[U]], %[[U]], %[[U]] : (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>)
  %6:2 = strata.threefry2x32 %u, %u, %u, %u : (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>)
  return
}

// Differentiation markers are identities on values.
// CHECK-LABEL: func.func @markers
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[I:[^:]+]]: tensor<2x3xi32>)
func.func @markers(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>) {
  // CHECK-NEXT: strata.stop_gradient %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = strata.stop_gradient %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.stop_gradient %[[I]] : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %1 = strata.stop_gradient %i : (tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: strata.checkpoint_name %[[X]], name = "hidden" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = strata.checkpoint_name %x, name = "hidden" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: strata.checkpoint_name %[[X]], name = "" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = strata.checkpoint_name %x, name = "" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// fusion: a fused group; block arguments stand for the operands, strata.yield gives the results.
// CHECK-LABEL: func.func @fusion
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[B:[^:]+]]: tensor<3xf32>)
func.func @fusion(%x: tensor<2x3xf32>, %bias: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK-NEXT: %{{.*}}:2 = strata.fusion (%[[A:[^ ]+]] = %[[X]], %[[C:[^ ]+]] = %[[B]]) : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0:2 = strata.fusion (%a = %x, %c = %bias) : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
    // CHECK-NEXT: %[[BC:[^ ]+]] = strata.broadcast_in_dim %[[C]], broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    %b = strata.broadcast_in_dim %c, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    // CHECK-NEXT: %[[S:[^ ]+]] = strata.add %[[A]], %[[BC]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %s = strata.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    // CHECK-NEXT: %[[T:[^ ]+]] = strata.tanh %[[S]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %t = strata.tanh %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
    // CHECK-NEXT: strata.yield %[[T]], %[[S]] : tensor<2x3xf32>, tensor<2x3xf32>
    strata.yield %t, %s : tensor<2x3xf32>, tensor<2x3xf32>
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: %{{.*}} = strata.fusion () : () -> tensor<f32> {
  %1 = strata.fusion () : () -> tensor<f32> {
    // CHECK-NEXT: %[[K:[^ ]+]] = arith.constant dense<1.000000e+00> : tensor<f32>
    %k = arith.constant dense<1.0> : tensor<f32>
    // CHECK-NEXT: strata.yield %[[K]] : tensor<f32>
    strata.yield %k : tensor<f32>
  }
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// Control flow: cond (a two-branch switch reading enclosing values), while, scan (reverse,
// carries and several xs/ys), and a zero-result cond.
// CHECK-LABEL: func.func @control_flow
func.func @control_flow(%i: tensor<i32>, %x: tensor<4xf32>, %n: tensor<i32>, %xs: tensor<3x4xf32>, %ks: tensor<3xi32>) -> (tensor<4xf32>, tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>, tensor<3xi32>) {
  // CHECK: %[[C:.*]] = strata.cond %{{.*}} : (tensor<i32>) -> tensor<4xf32> {
  // CHECK-NEXT: strata.exp
  // CHECK-NEXT: strata.yield
  // CHECK-NEXT: }, {
  // CHECK-NEXT: strata.yield %{{.*}} : tensor<4xf32>
  // CHECK-NEXT: }
  %c = strata.cond %i : (tensor<i32>) -> tensor<4xf32> {
    %a = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %a : tensor<4xf32>
  }, {
    strata.yield %x : tensor<4xf32>
  }
  // CHECK: %[[W:.*]]:2 = strata.while %{{.*}}, %{{.*}} : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) cond {
  // CHECK-NEXT: ^bb0(%[[I:.*]]: tensor<i32>, %{{.*}}: tensor<4xf32>):
  // CHECK-NEXT: strata.lt %[[I]]
  // CHECK-NEXT: strata.yield %{{.*}} : tensor<i1>
  // CHECK-NEXT: } do {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<4xf32>):
  %w:2 = strata.while %i, %x : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) cond {
  ^bb0(%j: tensor<i32>, %y: tensor<4xf32>):
    %p = strata.lt %j, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    strata.yield %p : tensor<i1>
  } do {
  ^bb0(%j: tensor<i32>, %y: tensor<4xf32>):
    %j1 = strata.add %j, %i : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %y1 = strata.mul %y, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    strata.yield %j1, %y1 : tensor<i32>, tensor<4xf32>
  }
  // CHECK: %{{.*}}:4 = strata.scan init(%{{.*}}, %{{.*}}) xs(%{{.*}}, %{{.*}}) length = 3, reverse = true : (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>, tensor<3xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>, tensor<3xi32>) {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<i32>):
  %s:4 = strata.scan init(%x, %x) xs(%xs, %ks) length = 3, reverse = true : (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>, tensor<3xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>, tensor<3xi32>) {
  ^bb0(%h: tensor<4xf32>, %g: tensor<4xf32>, %r: tensor<4xf32>, %k: tensor<i32>):
    %h1 = strata.add %h, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    strata.yield %h1, %g, %h1, %k : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>
  }
  // CHECK: strata.cond %{{.*}} : (tensor<i32>) -> () {
  // CHECK-NEXT: strata.yield
  // CHECK-NEXT: }
  strata.cond %i : (tensor<i32>) -> () {
    strata.yield
  }
  return %c, %w#0, %w#1, %s#0, %s#2, %s#3 : tensor<4xf32>, tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>, tensor<3xi32>
}

// The 16-bit and unsigned 64-bit integer dtypes (int16, uint16, uint64) are element types too.
// CHECK-LABEL: func.func @narrow_and_wide_integers
// CHECK-SAME: (%[[A:[^:]+]]: tensor<3xi16>, %[[B:[^:]+]]: tensor<3xui16>, %[[C:[^:]+]]: tensor<3xui64>)
func.func @narrow_and_wide_integers(%a: tensor<3xi16>, %b: tensor<3xui16>, %c: tensor<3xui64>)
    -> (tensor<3xi16>, tensor<3xi1>, tensor<3xui64>) {
  // CHECK-NEXT: strata.add %[[A]], %[[A]] : (tensor<3xi16>, tensor<3xi16>) -> tensor<3xi16>
  %0 = strata.add %a, %a : (tensor<3xi16>, tensor<3xi16>) -> tensor<3xi16>
  // CHECK-NEXT: strata.lt %[[B]], %[[B]] : (tensor<3xui16>, tensor<3xui16>) -> tensor<3xi1>
  %1 = strata.lt %b, %b : (tensor<3xui16>, tensor<3xui16>) -> tensor<3xi1>
  // CHECK-NEXT: strata.convert_element_type %[[B]] : (tensor<3xui16>) -> tensor<3xui64>
  %2 = strata.convert_element_type %b : (tensor<3xui16>) -> tensor<3xui64>
  // CHECK-NEXT: strata.mul %{{.*}}, %[[C]] : (tensor<3xui64>, tensor<3xui64>) -> tensor<3xui64>
  %3 = strata.mul %2, %c : (tensor<3xui64>, tensor<3xui64>) -> tensor<3xui64>
  return %0, %1, %3 : tensor<3xi16>, tensor<3xi1>, tensor<3xui64>
}

// ---- convolution
// conv_general_dilated: NHWC/HWIO, strides, asymmetric padding, two feature groups.
// CHECK-LABEL: func.func @conv_general_dilated
func.func @conv_general_dilated(%x: tensor<2x7x6x4xf32>, %w: tensor<3x2x2x6xf32>) {
  // CHECK-NEXT: strata.conv_general_dilated %{{.+}}, %{{.+}}, window_strides = [2, 1], padding = [1, 0, 0, 1], lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 3, 1, 2], rhs_spec = [3, 2, 0, 1], out_spec = [0, 3, 1, 2], feature_group_count = 2, batch_group_count = 1 : (tensor<2x7x6x4xf32>, tensor<3x2x2x6xf32>) -> tensor<2x3x6x6xf32>
  %0 = strata.conv_general_dilated %x, %w, window_strides = [2, 1], padding = [1, 0, 0, 1],
      lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 3, 1, 2],
      rhs_spec = [3, 2, 0, 1], out_spec = [0, 3, 1, 2], feature_group_count = 2,
      batch_group_count = 1 : (tensor<2x7x6x4xf32>, tensor<3x2x2x6xf32>) -> tensor<2x3x6x6xf32>
  return
}
