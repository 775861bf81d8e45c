// The windowed-reduction ops' shape rules, reported by the shared verifier.
// RUN: strata-opt %s -split-input-file -verify-diagnostics

// A result shape the shape rule does not give.
func.func @bad_result(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{result #0 has type 'tensor<2x2xf32>', but the shape rule of 'reduce_window_max' gives 'tensor<2x3xf32>'}}
  %0 = strata.reduce_window_max %x, window_dimensions = [2, 2], window_strides = [2, 2], padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1], window_dilation = [1, 1] : (tensor<4x6xf32>) -> tensor<2x2xf32>
  return
}

// -----

// A window attribute with the wrong number of entries.
func.func @bad_window(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{[reduce_window_sum] window_strides has 1 entries for the 2 dimensions of f32[4,6]}}
  %0 = strata.reduce_window_sum %x, window_dimensions = [2, 2], window_strides = [2], padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1], window_dilation = [1, 1] : (tensor<4x6xf32>) -> tensor<2x3xf32>
  return
}

// -----

// A source that does not have the windows' shape.
func.func @bad_source(%g: tensor<2x2xf32>, %x: tensor<4x6xf32>) {
  // expected-error @+1 {{[select_and_scatter_add] source f32[2,2] must have shape f32[2,3]}}
  %0 = strata.select_and_scatter_add %g, %x, select_prim = "ge", window_dimensions = [2, 2], window_strides = [2, 2], padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1], window_dilation = [1, 1] : (tensor<2x2xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return
}
