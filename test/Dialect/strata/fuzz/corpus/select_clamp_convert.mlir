func.func @select_clamp_convert(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %p: tensor<2x3xi1>, %s: tensor<i1>, %lo: tensor<f32>, %hi: tensor<f32>) {
  %0 = strata.select %p, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = strata.select %s, %x, %y : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = strata.clamp %lo, %x, %hi : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = strata.clamp %x, %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  %5 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %6 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xf64>
  %7 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xi64>
  %8 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xi8>
  %9 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xui8>
  %10 = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  return
}
