func.func @bits(%u: tensor<4xui32>, %i: tensor<4xi8>, %f: tensor<4xf32>, %h: tensor<4xbf16>) {
  %0 = strata.shift_left %u, %u : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  %1 = strata.shift_right_logical %u, %u : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  %2 = strata.shift_right_logical %i, %i : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %3 = strata.bitcast_convert_type %f : (tensor<4xf32>) -> tensor<4xui32>
  %4 = strata.bitcast_convert_type %u : (tensor<4xui32>) -> tensor<4xf32>
  %5 = strata.bitcast_convert_type %h : (tensor<4xbf16>) -> tensor<4xf16>
  %6:2 = strata.threefry2x32 %u, %u, %u, %u : (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>)
  return
}
