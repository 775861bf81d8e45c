// Bindings of the flat control-flow core (include/strata/control_flow.h) under strata._core:
// strata.lax builds cond, switch, while_loop, fori_loop and scan over pytrees on top of these.
// The Python sub-functions become FlatFns with flat_fn (each holds its callable and takes the
// GIL when called), so they stay callable when a transform replays them after the call returns.
#include "common.h"

#include "strata/control_flow.h"

namespace strata::python {
namespace {
std::vector<FlatFn> flat_fns(py::handle fns) {
  std::vector<FlatFn> out;
  for (py::handle f : fns)
    out.push_back(flat_fn(py::reinterpret_borrow<py::object>(f)));
  return out;
}
lax::LoopGradOptions grad_options(int64_t checkpoint_every) {
  lax::LoopGradOptions o;
  o.checkpoint_every = checkpoint_every;
  return o;
}
} // namespace

void init_control_flow(py::module_ &m) {
  using py::arg;
  m.def(
      "cond_flat",
      [](py::handle pred, py::object true_fn, py::object false_fn, py::handle operands) {
        return lax::cond_flat(to_array(pred), flat_fn(std::move(true_fn)),
                              flat_fn(std::move(false_fn)), to_array_list(operands));
      },
      arg("pred"), arg("true_fn"), arg("false_fn"), arg("operands"),
      "pred ? true_fn(operands) : false_fn(operands); the functions map lists to lists.");
  m.def(
      "switch_flat",
      [](py::handle index, py::handle branches, py::handle operands) {
        return lax::switch_flat(to_array(index), flat_fns(branches), to_array_list(operands));
      },
      arg("index"), arg("branches"), arg("operands"),
      "branches[clamp(index, 0, n - 1)](operands).");
  m.def(
      "while_loop_flat",
      [](py::object cond_fn, py::object body_fn, py::handle init, int64_t checkpoint_every) {
        return lax::while_loop_flat(flat_fn(std::move(cond_fn)), flat_fn(std::move(body_fn)),
                                    to_array_list(init), grad_options(checkpoint_every));
      },
      arg("cond_fn"), arg("body_fn"), arg("init"), arg("checkpoint_every") = 1,
      "while cond_fn(carry)[0]: carry = body_fn(carry).");
  m.def(
      "fori_loop_flat",
      [](py::handle lo, py::handle hi, py::object body_fn, py::handle init,
         int64_t checkpoint_every) {
        FlatFn body = flat_fn(std::move(body_fn));
        std::vector<Array> carry = to_array_list(init);
        // Python ints are static bounds (a scan); anything else is traced (a while_loop).
        if (py::isinstance<py::int_>(lo) && py::isinstance<py::int_>(hi))
          return lax::fori_loop_flat(lo.cast<int64_t>(), hi.cast<int64_t>(), body, carry,
                                     grad_options(checkpoint_every));
        return lax::fori_loop_flat(to_array(lo), to_array(hi), body, carry,
                                   grad_options(checkpoint_every));
      },
      arg("lower"), arg("upper"), arg("body_fn"), arg("init"), arg("checkpoint_every") = 1,
      "for i in [lower, upper): carry = body_fn([i] + carry); int bounds are static.");
  m.def(
      "scan_flat",
      [](py::object f, py::handle init, py::handle xs, std::optional<int64_t> length, bool reverse,
         int64_t unroll, int64_t checkpoint_every) {
        auto [carry, ys] =
            lax::scan_flat(flat_fn(std::move(f)), to_array_list(init), to_array_list(xs), length,
                           reverse, unroll, grad_options(checkpoint_every));
        return py::make_tuple(py::cast(carry), py::cast(ys));
      },
      arg("f"), arg("init"), arg("xs"), arg("length") = py::none(), arg("reverse") = false,
      arg("unroll") = 1, arg("checkpoint_every") = 1,
      "f(carry + x slices) -> carry + y slices over axis 0 of xs; returns (carry, stacked ys).");
}

} // namespace strata::python
