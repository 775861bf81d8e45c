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
func.func @unsupported_operand_type(%x: tensor<2xi4>) {
  // expected-error @+1 {{operand #0 has unsupported element type 'i4'}}
  %0 = strata.neg %x : (tensor<2xi4>) -> tensor<2xi4>
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
  // expected-error @+1 {{attribute 'preferred_element_type' has unsupported element type 'i4'}}
  %0 = strata.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0] {preferred_element_type = i4} : (tensor<2x3xi8>, tensor<3x4xi8>) -> tensor<2x4xi32>
  return
}

// -----

// Static operands, dynamic result: the rule runs, and a static result dimension must match it.
func.func @dynamic_result_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type 'tensor<?x4xf32>', but the shape rule of 'neg' gives 'tensor<2x3xf32>'}}
  %0 = strata.neg %x : (tensor<2x3xf32>) -> tensor<?x4xf32>
  return
}

// -----

// Static operands, dynamic result: the rank must match the rule's too.
func.func @dynamic_result_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type 'tensor<?xf32>', but the shape rule of 'reduce_sum' gives 'tensor<f32>'}}
  %0 = strata.reduce_sum %x, axes = [0, 1] : (tensor<2x3xf32>) -> tensor<?xf32>
  return
}

// -----

// A dynamic operand skips the rule but still needs a Strata element type.
func.func @dynamic_operand_element_type(%x: tensor<?x3xui4>) {
  // expected-error @+1 {{operand #0 has unsupported element type 'ui4'}}
  %0 = strata.neg %x : (tensor<?x3xui4>) -> tensor<?x3xui4>
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

// -----

// iota: a dimension past the result's rank.
func.func @iota_dimension() {
  // expected-error @+1 {{[iota] dimension 2 is out of range for shape [2,3]}}
  %0 = strata.iota dimension = 2 : tensor<2x3xi32>
  return
}

// -----

// iota: bool has no index values (the dtype comes from the result type).
func.func @iota_bool() {
  // expected-error @+1 {{[iota] expects a numeric dtype, got bool}}
  %0 = strata.iota dimension = 0 : tensor<3xi1>
  return
}

// -----

// rev: a repeated dimension.
func.func @rev_repeat(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{[rev] dimensions [1,1] repeat dimension 1}}
  %0 = strata.rev %x, dimensions = [1, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// slice: a limit past the end of a dimension.
func.func @slice_limit(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{[slice] start 1 and limit 4 are invalid for dimension 1 of f32[2,3] (need 0 <= start <= limit <= 3)}}
  %0 = strata.slice %x, start = [0, 1], limit = [2, 4], strides = [1, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// slice: a zero stride.
func.func @slice_stride(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{[slice] strides [1,0] must be >= 1}}
  %0 = strata.slice %x, start = [0, 0], limit = [2, 3], strides = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// dynamic_slice: the slice sizes (the result's shape) do not fit in the operand.
func.func @dynamic_slice_sizes(%x: tensor<2x3xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{[dynamic_slice] slice_sizes [2,4] do not fit in f32[2,3] at dimension 1}}
  %0 = strata.dynamic_slice %x[%i, %i] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
  return
}

// -----

// dynamic_slice: one start index per dimension.
func.func @dynamic_slice_index_count(%x: tensor<2x3xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{[dynamic_slice] expects 2 start indices for f32[2,3], got 1}}
  %0 = strata.dynamic_slice %x[%i] : (tensor<2x3xf32>, tensor<i32>) -> tensor<1x1xf32>
  return
}

// -----

// dynamic_update_slice: a start index that is not an integer scalar.
func.func @dynamic_update_slice_index(%x: tensor<2x3xf32>, %u: tensor<1x2xf32>, %i: tensor<i32>, %f: tensor<f32>) {
  // expected-error @+1 {{[dynamic_update_slice] start index 1 must be an integer scalar, got f32[]}}
  %0 = strata.dynamic_update_slice %x, %u at [%i, %f] : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<f32>) -> tensor<2x3xf32>
  return
}

// -----

// dynamic_update_slice: an update larger than the operand.
func.func @dynamic_update_slice_fit(%x: tensor<2x3xf32>, %u: tensor<3x1xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{[dynamic_update_slice] update f32[3,1] does not fit in operand f32[2,3] at dimension 0}}
  %0 = strata.dynamic_update_slice %x, %u at [%i, %i] : (tensor<2x3xf32>, tensor<3x1xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  return
}

// -----

// pad: a padding value that is not a scalar.
func.func @pad_value(%x: tensor<2x3xf32>, %v: tensor<1xf32>) {
  // expected-error @+1 {{[pad] padding_value must be a scalar, got f32[1]}}
  %0 = strata.pad %x, %v, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  return
}

// -----

// pad: negative interior padding.
func.func @pad_interior(%x: tensor<2x3xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{[pad] interior [0,-1] must be non-negative}}
  %0 = strata.pad %x, %v, low = [0, 0], high = [0, 0], interior = [0, -1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return
}

// -----

// concatenate: operands that differ outside the concatenated dimension.
func.func @concatenate_shapes(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{[concatenate] operand shapes f32[2,3] and f32[2,4] differ outside dimension 0}}
  %0 = strata.concatenate(%a, %b), dimension = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

// concatenate: no operands at all.
func.func @concatenate_empty() {
  // expected-error @+1 {{[concatenate] expects at least one operand}}
  %0 = strata.concatenate(), dimension = 0 : () -> tensor<2xf32>
  return
}

// -----

// gather: a collapsed dimension whose slice size is not 1.
func.func @gather_collapsed(%x: tensor<5x3xf32>, %idx: tensor<4x1xi32>) {
  // expected-error @+1 {{[gather] collapsed dimension 0 must have slice size 1, got slice_sizes [2,3]}}
  %0 = strata.gather %x, %idx, offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], slice_sizes = [2, 3] : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return
}

// -----

// gather: floating-point indices.
func.func @gather_indices(%x: tensor<5x3xf32>, %idx: tensor<4x1xf32>) {
  // expected-error @+1 {{[gather] indices must have an integer dtype, got f32[4,1]}}
  %0 = strata.gather %x, %idx, offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  return
}

// -----

// scatter: updates whose batch dimension does not match the indices'.
func.func @scatter_batch(%x: tensor<5x3xf32>, %idx: tensor<4x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{[scatter] updates dimension 0 (size 2) must match indices dimension 0}}
  %0 = strata.scatter %x, %idx, %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0] : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return
}

// -----

// scatter_add: bool operands cannot be added.
func.func @scatter_add_bool(%x: tensor<5x3xi1>, %idx: tensor<4x1xi32>, %u: tensor<4x3xi1>) {
  // expected-error @+1 {{[scatter_add] expects a numeric operand}}
  %0 = strata.scatter_add %x, %idx, %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0] : (tensor<5x3xi1>, tensor<4x1xi32>, tensor<4x3xi1>) -> tensor<5x3xi1>
  return
}

// -----

// argmax: the index dtype (the result's element type) must be i32 or i64.
func.func @argmax_index_dtype(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{[argmax] index_dtype must be i32 or i64, got f32}}
  %0 = strata.argmax %x, axis = 1 : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// argmin: an empty axis has no smallest element.
func.func @argmin_empty(%x: tensor<2x0xf32>) {
  // expected-error @+1 {{[argmin] cannot take the argmin of an empty axis 1 of f32[2,0]}}
  %0 = strata.argmin %x, axis = 1 : (tensor<2x0xf32>) -> tensor<2xi32>
  return
}

// -----

// cumsum: an axis out of range.
func.func @cumsum_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{[cumsum] axis 2 is out of range for f32[2,3]}}
  %0 = strata.cumsum %x, axis = 2, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// cumprod: bool operands are rejected.
func.func @cumprod_bool(%x: tensor<2x3xi1>) {
  // expected-error @+1 {{[cumprod] expects a numeric operand, got bool[2,3]}}
  %0 = strata.cumprod %x, axis = 0, reverse = false : (tensor<2x3xi1>) -> tensor<2x3xi1>
  return
}

// -----

// cummax: an axis below -rank.
func.func @cummax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{[cummax] axis -3 is out of range for f32[2,3]}}
  %0 = strata.cummax %x, axis = -3, reverse = true : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// cummin: the result keeps the operand's type.
func.func @cummin_result(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{result #0 has type 'tensor<2x3xf32>', but the shape rule of 'cummin' gives 'tensor<2x3xi32>'}}
  %0 = strata.cummin %x, axis = 0, reverse = false : (tensor<2x3xi32>) -> tensor<2x3xf32>
  return
}

// -----

// sort: more keys than operands.
func.func @sort_num_keys(%k: tensor<2x3xf32>) {
  // expected-error @+1 {{[sort] num_keys 2 must be between 1 and the number of operands (1)}}
  %0 = strata.sort(%k), dimension = 0, num_keys = 2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// sort: operands of different shapes.
func.func @sort_shapes(%k: tensor<2x3xf32>, %v: tensor<3xi32>) {
  // expected-error @+1 {{[sort] operand shapes differ: f32[2,3] and i32[3]}}
  %0:2 = strata.sort(%k, %v), dimension = 0, num_keys = 1 : (tensor<2x3xf32>, tensor<3xi32>) -> (tensor<2x3xf32>, tensor<3xi32>)
  return
}

// -----

// sort: one result per operand.
func.func @sort_results(%k: tensor<2x3xf32>, %v: tensor<2x3xi32>) {
  // expected-error @+1 {{has 1 results, but the shape rule of 'sort' gives 2}}
  %0 = strata.sort(%k, %v), dimension = 0, num_keys = 1 : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
  return
}

// -----

// threefry2x32: the cipher works on ui32 words only.
func.func @threefry_dtype(%k: tensor<4xi32>, %x: tensor<4xui32>) {
  // expected-error @+1 {{[threefry2x32] expects u32 operands, got i32[4], i32[4], u32[4], u32[4]}}
  %0:2 = strata.threefry2x32 %k, %k, %x, %x : (tensor<4xi32>, tensor<4xi32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>)
  return
}

// -----

// shift_left: floating-point operands.
func.func @shift_left_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{[shift_left] expects integer operands, got f32[4] and f32[4]}}
  %0 = strata.shift_left %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// shift_right_logical: operand dtypes that differ.
func.func @shift_right_dtypes(%x: tensor<4xui32>, %n: tensor<4xi32>) {
  // expected-error @+1 {{[shift_right_logical] operand dtypes differ: u32[4] and i32[4]}}
  %0 = strata.shift_right_logical %x, %n : (tensor<4xui32>, tensor<4xi32>) -> tensor<4xui32>
  return
}

// -----

// bitcast_convert_type: the item sizes (operand and result element types) differ.
func.func @bitcast_itemsize(%x: tensor<4xf32>) {
  // expected-error @+1 {{[bitcast_convert_type] cannot bitcast f32[4] to f64: itemsizes differ (4 and 8 bytes)}}
  %0 = strata.bitcast_convert_type %x : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// stop_gradient: the result keeps the operand's type.
func.func @stop_gradient_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type 'tensor<3x2xf32>', but the shape rule of 'stop_gradient' gives 'tensor<2x3xf32>'}}
  %0 = strata.stop_gradient %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// checkpoint_name: the result keeps the operand's type.
func.func @checkpoint_name_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type 'tensor<2x3xf16>', but the shape rule of 'checkpoint_name' gives 'tensor<2x3xf32>'}}
  %0 = strata.checkpoint_name %x, name = "h" : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}

// -----

// fusion: a block argument whose type differs from its operand's.
func.func @fusion_arg_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.fusion' op block argument #0 has type 'tensor<4xf16>', but operand #0 has type 'tensor<4xf32>'}}
  %0 = "strata.fusion"(%x) ({
  ^bb0(%a: tensor<4xf16>):
    "strata.yield"(%x) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// fusion: fewer block arguments than operands.
func.func @fusion_arg_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.fusion' op has 1 operands but its block has 0 arguments}}
  %0 = "strata.fusion"(%x) ({
    %k = arith.constant dense<1.0> : tensor<4xf32>
    "strata.yield"(%k) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// fusion: a yielded type that differs from the result's.
func.func @fusion_yield_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.fusion' op yielded value #0 has type 'tensor<4xf32>', but result #0 has type 'tensor<2x2xf32>'}}
  %0 = strata.fusion (%a = %x) : (tensor<4xf32>) -> tensor<2x2xf32> {
    %e = strata.exp %a : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %e : tensor<4xf32>
  }
  return
}

// -----

// fusion: more yielded values than results.
func.func @fusion_yield_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.fusion' op yields 2 values but has 1 results}}
  %0 = strata.fusion (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    strata.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// fusion: the region is isolated from above; values come in as operands.
func.func @fusion_isolated(%x: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = strata.fusion () : () -> tensor<4xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    %e = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %e : tensor<4xf32>
  }
  return
}


// -----

// cond: a branch yields a type other than the result's.
func.func @cond_branch_type(%i: tensor<i32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.cond' op branch #1 yields 'tensor<4xf16>' for result #0, which has type 'tensor<4xf32>'}}
  %0 = "strata.cond"(%i) ({
    strata.yield %x : tensor<4xf32>
  }, {
    %h = arith.constant dense<1.0> : tensor<4xf16>
    strata.yield %h : tensor<4xf16>
  }) : (tensor<i32>) -> tensor<4xf32>
  return
}

// -----

// cond: a branch yields fewer values than the op has results.
func.func @cond_branch_count(%i: tensor<i32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.cond' op branch #0 yields 1 values but expects 2}}
  %0:2 = "strata.cond"(%i) ({
    strata.yield %x : tensor<4xf32>
  }) : (tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// cond: the index is not an i32 scalar.
func.func @cond_index(%i: tensor<2xi32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.cond' op index must be a rank-0 i32 tensor, got 'tensor<2xi32>'}}
  %0 = "strata.cond"(%i) ({
    strata.yield %x : tensor<4xf32>
  }) : (tensor<2xi32>) -> tensor<4xf32>
  return
}

// -----

// cond: branches take no block arguments.
func.func @cond_branch_args(%i: tensor<i32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.cond' op branch #0 has 1 block arguments but expects 0 (arguments)}}
  %0 = "strata.cond"(%i) ({
  ^bb0(%a: tensor<4xf32>):
    strata.yield %a : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  return
}

// -----

// while: the body yields a carry of another type.
func.func @while_body_type(%x: tensor<4xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{'strata.while' op body yields 'tensor<2x2xf32>' for carry #0, which has type 'tensor<4xf32>'}}
  %0 = strata.while %x : (tensor<4xf32>) -> tensor<4xf32> cond {
  ^bb0(%a: tensor<4xf32>):
    strata.yield %p : tensor<i1>
  } do {
  ^bb0(%a: tensor<4xf32>):
    %r = strata.reshape %a : (tensor<4xf32>) -> tensor<2x2xf32>
    strata.yield %r : tensor<2x2xf32>
  }
  return
}

// -----

// while: the condition is not a boolean scalar.
func.func @while_cond_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.while' op cond must yield one rank-0 i1 tensor, got ('tensor<4xf32>')}}
  %0 = strata.while %x : (tensor<4xf32>) -> tensor<4xf32> cond {
  ^bb0(%a: tensor<4xf32>):
    strata.yield %a : tensor<4xf32>
  } do {
  ^bb0(%a: tensor<4xf32>):
    strata.yield %a : tensor<4xf32>
  }
  return
}

// -----

// while: a cond block argument whose type differs from its carry's.
func.func @while_arg_type(%x: tensor<4xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{'strata.while' op cond block argument #0 has type 'tensor<4xi32>', but carry #0 has type 'tensor<4xf32>'}}
  %0 = strata.while %x : (tensor<4xf32>) -> tensor<4xf32> cond {
  ^bb0(%a: tensor<4xi32>):
    strata.yield %p : tensor<i1>
  } do {
  ^bb0(%a: tensor<4xf32>):
    strata.yield %a : tensor<4xf32>
  }
  return
}

// -----

// while: a result whose type differs from its carry's.
func.func @while_result_type(%x: tensor<4xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{'strata.while' op carry #0 has type 'tensor<4xf32>', but result #0 has type 'tensor<4xf64>'}}
  %0 = "strata.while"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    strata.yield %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<4xf32>):
    strata.yield %a : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// scan: an xs whose leading axis is not the length.
func.func @scan_xs_length(%h: tensor<4xf32>, %xs: tensor<5x4xf32>) {
  // expected-error @+1 {{'strata.scan' op xs #0 has type 'tensor<5x4xf32>', but needs a leading axis of length 3}}
  %0 = strata.scan init(%h) xs(%xs) length = 3, reverse = false : (tensor<4xf32>, tensor<5x4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %x: tensor<4xf32>):
    strata.yield %a : tensor<4xf32>
  }
  return
}

// -----

// scan: a body argument that is not the xs slice type.
func.func @scan_slice_type(%h: tensor<4xf32>, %xs: tensor<3x4xf32>) {
  // expected-error @+1 {{'strata.scan' op body block argument #1 has type 'tensor<3x4xf32>', but carry or xs slice #1 has type 'tensor<4xf32>'}}
  %0 = strata.scan init(%h) xs(%xs) length = 3, reverse = false : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %x: tensor<3x4xf32>):
    strata.yield %a : tensor<4xf32>
  }
  return
}

// -----

// scan: a ys slice that does not match the stacked result.
func.func @scan_ys_type(%h: tensor<4xf32>) {
  // expected-error @+1 {{'strata.scan' op body yields 'tensor<4xf32>' for carry or ys slice #1, which has type 'tensor<2xf32>'}}
  %0:2 = strata.scan init(%h) xs() length = 3, reverse = false : (tensor<4xf32>) -> (tensor<4xf32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<4xf32>):
    strata.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// scan: a negative length.
func.func @scan_negative_length(%h: tensor<4xf32>) {
  // expected-error @+1 {{'strata.scan' op length must be non-negative, got -1}}
  %0 = strata.scan init(%h) xs() length = -1, reverse = false : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    strata.yield %a : tensor<4xf32>
  }
  return
}

// -----

// yield: only inside fusion and the control-flow ops.
func.func @yield_parent(%x: tensor<4xf32>) {
  // expected-error @+1 {{'strata.yield' op expects parent op to be one of 'strata.fusion, strata.cond, strata.while, strata.scan'}}
  strata.yield %x : tensor<4xf32>
}

// -----

// conv_general_dilated: the shape rule's feature-group check.
func.func @conv_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{[conv_general_dilated] lhs feature dimension size divided by feature_group_count (4 / 2) must equal the rhs input feature dimension size 4}}
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0],
      lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3],
      rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 2,
      batch_group_count = 1 : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  return
}
