// Every branch of the shared verifier, and a sample of the shape rules' errors it reports.
// RUN: strata-opt %s -split-input-file -verify-diagnostics

// An operand shape that the binary rule rejects.
func.func @shape_mismatch(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'strata.add' op [add] operand shapes differ: f32[2,3] and f32[3]}}
  %0 = strata.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Operand dtypes that differ.
func.func @dtype_mismatch(%x: tensor<2x3xf32>, %y: tensor<2x3xi32>) {
  // expected-error @+1 {{[mul] operand dtypes differ: f32[2,3] and i32[2,3]}}
  %0 = strata.mul %x, %y : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
  return
}

// -----

// A dtype that the primitive does not accept.
func.func @dtype_not_accepted(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{[exp] expects a floating-point operand, got i32[2,3]}}
  %0 = strata.exp %x : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return
}

// -----

// broadcast_dimensions that are not increasing.
func.func @bad_broadcast_dimensions(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{[broadcast_in_dim] broadcast_dimensions [1,0] must be strictly increasing}}
  %0 = strata.broadcast_in_dim %x, broadcast_dimensions = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// An operand dimension that cannot broadcast to the result's.
func.func @broadcast_size(%x: tensor<2xf32>) {
  // expected-error @+1 {{[broadcast_in_dim] cannot broadcast f32[2] to [4,3]}}
  %0 = strata.broadcast_in_dim %x, broadcast_dimensions = [1] : (tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

// A reshape that changes the element count.
func.func @reshape_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{[reshape] cannot reshape f32[2,3] (6 elements) to [4]}}
  %0 = strata.reshape %x : (tensor<2x3xf32>) -> tensor<4xf32>
  return
}

// -----

// A permutation that repeats a dimension.
func.func @bad_permutation(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{[transpose] permutation [0,0] is not a permutation of the dimensions of f32[2,3]}}
  %0 = strata.transpose %x, permutation = [0, 0] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

// A reduction axis out of range.
func.func @bad_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{[reduce_sum] axis 2 is out of range for f32[2,3]}}
  %0 = strata.reduce_sum %x, axes = [2] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Contracting dimensions of different sizes.
func.func @dot_general_contracting(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{[dot_general] contracting dimensions differ: f32[2,3] and f32[4,5] (lhs dimension 1, rhs dimension 0)}}
  %0 = strata.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// A preferred_element_type narrower than the operands.
func.func @dot_general_preferred(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{[dot_general] preferred_element_type f16 is narrower than the operands}}
  %0 = strata.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0] {preferred_element_type = f16} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf16>
  return
}

// -----

// A select predicate that is not bool.
func.func @select_predicate(%p: tensor<2x3xf32>, %x: tensor<2x3xf32>) {
  // expected-error @+1 {{[select] predicate must be bool, got f32[2,3]}}
  %0 = strata.select %p, %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// An integer attribute that the rule checks: a negative power of an integer.
func.func @integer_pow_negative(%x: tensor<2xi32>) {
  // expected-error @+1 {{[integer_pow] negative exponent -2 for integer operand i32[2]}}
  %0 = strata.integer_pow %x, y = -2 : (tensor<2xi32>) -> tensor<2xi32>
  return
}

// -----

// An operand element type with no Strata dtype.
func.func @unsupported_operand_type(%x: tensor<2xi16>) {
  // expected-error @+1 {{operand #0 has unsupported element type 'i16'}}
  %0 = strata.neg %x : (tensor<2xi16>) -> tensor<2xi16>
  return
}

// -----

// A result element type with no Strata dtype.
func.func @unsupported_result_type(%x: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has unsupported element type 'f8E4M3FN'}}
  %0 = strata.convert_element_type %x : (tensor<2xf32>) -> tensor<2xf8E4M3FN>
  return
}

// -----

// Signed (si32) integers: Strata's signed dtypes are signless in the IR.
func.func @signed_integer_type(%x: tensor<2xsi32>) {
  // expected-error @+1 {{operand #0 has unsupported element type 'si32'}}
  %0 = strata.neg %x : (tensor<2xsi32>) -> tensor<2xsi32>
  return
}

// -----

// A type attribute with no Strata dtype.
func.func @unsupported_type_attribute(%a: tensor<2x3xi8>, %b: tensor<3x4xi8>) {
  // expected-error @+1 {{attribute 'preferred_element_type' has unsupported element type 'i16'}}
  %0 = strata.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0] {preferred_element_type = i16} : (tensor<2x3xi8>, tensor<3x4xi8>) -> tensor<2x4xi32>
  return
}

// -----

// Dynamic dimensions are not supported yet.
func.func @dynamic_shape(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{operand #0 must have a static shape, got 'tensor<?x3xf32>'}}
  %0 = strata.neg %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

// Unranked tensors fail the ODS constraint before the shared verifier runs.
func.func @unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of any type values}}
  %0 = strata.neg %x : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// A result shape that differs from the rule's.
func.func @wrong_result_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type 'tensor<3x2xf32>', but the shape rule of 'neg' gives 'tensor<2x3xf32>'}}
  %0 = strata.neg %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// A result dtype that differs from the rule's: comparisons give bool.
func.func @wrong_result_dtype(%x: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type 'tensor<2xf32>', but the shape rule of 'lt' gives 'tensor<2xi1>'}}
  %0 = strata.lt %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// The element count of a huge shape overflows int64: an error, not a wrapped count.
func.func @reshape_overflow(%x: tensor<4611686018427387904x4xf32>) -> tensor<0xf32> {
  // expected-error @+1 {{overflows int64}}
  %0 = strata.reshape %x : (tensor<4611686018427387904x4xf32>) -> tensor<0xf32>
  return %0 : tensor<0xf32>
}
