// strata.host_callback's verifier: the id indexes the runtime's registry, so it is never negative.
// RUN: strata-opt %s -split-input-file -verify-diagnostics

// A negative callback id.
func.func @negative_id(%x: tensor<3xf32>) {
  // expected-error @+1 {{attribute 'callback_id' failed to satisfy constraint}}
  strata.host_callback(%x) callback_id = -1 : (tensor<3xf32>) -> ()
  return
}
