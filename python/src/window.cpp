// Bindings of strata::lax's windowed reductions (lib/primitives/window.cpp) under
// strata._core.lax, private as in JAX (_reduce_window_sum, ...): strata.lax.reduce_window
// (python/strata/_window.py) chooses among them.
#include "common.h"

namespace strata::python {
namespace {
std::vector<int64_t> ints(py::handle seq) {
  std::vector<int64_t> v;
  for (py::handle h : seq)
    v.push_back(index_of(h));
  return v;
}

/// The window from Python sequences: padding as (low, high) pairs.
lax::WindowDims window_of(py::handle dims, py::handle strides, py::handle padding,
                          py::handle base_dilation, py::handle window_dilation) {
  lax::WindowDims w;
  w.dimensions = ints(dims);
  w.strides = ints(strides);
  for (py::handle p : padding) {
    std::vector<int64_t> pr = ints(p);
    if (pr.size() != 2)
      throw py::value_error("[reduce_window] padding entries are (low, high) pairs");
    w.padding.push_back({pr[0], pr[1]});
  }
  w.base_dilation = ints(base_dilation);
  w.window_dilation = ints(window_dilation);
  return w;
}

bool select_ge(const std::string &select_prim) {
  if (select_prim != "ge" && select_prim != "le")
    throw py::value_error("[select_and_scatter_add] select_prim must be 'ge' or 'le', got '" +
                          select_prim + "'");
  return select_prim == "ge";
}
} // namespace

void init_window(py::module_ &root) {
  using py::arg;
  py::module_ m = root.attr("lax").cast<py::module_>();
#define STRATA_PY_WINDOW(NAME, DOC)                                                                \
  m.def(                                                                                           \
      "_" #NAME,                                                                                   \
      [](py::handle x, py::handle dims, py::handle strides, py::handle padding, py::handle bd,     \
         py::handle wd) {                                                                          \
        return lax::NAME(to_array(x), window_of(dims, strides, padding, bd, wd));                  \
      },                                                                                           \
      arg("operand"), arg("window_dimensions"), arg("window_strides"), arg("padding"),             \
      arg("base_dilation"), arg("window_dilation"), DOC)
  STRATA_PY_WINDOW(reduce_window_sum, "Sum of every window (padding adds 0).");
  STRATA_PY_WINDOW(reduce_window_max, "Maximum of every window (padding is -inf).");
  STRATA_PY_WINDOW(reduce_window_min, "Minimum of every window (padding is +inf).");
#undef STRATA_PY_WINDOW
  m.def(
      "_reduce_window_flat",
      [](py::handle operands, py::handle init_values, py::object computation, py::handle dims,
         py::handle strides, py::handle padding, py::handle bd, py::handle wd) {
        return lax::reduce_window(to_array_list(operands), to_array_list(init_values),
                                  flat_fn(std::move(computation)),
                                  window_of(dims, strides, padding, bd, wd));
      },
      arg("operands"), arg("init_values"), arg("computation"), arg("window_dimensions"),
      arg("window_strides"), arg("padding"), arg("base_dilation"), arg("window_dilation"),
      "The general reduce_window: computation maps [accumulators..., elements...] to the new "
      "accumulators.");
  m.def(
      "_select_and_gather_add",
      [](py::handle tangents, py::handle operand, const std::string &select_prim, py::handle dims,
         py::handle strides, py::handle padding, py::handle bd, py::handle wd) {
        return lax::select_and_gather_add(to_array(tangents), to_array(operand),
                                          select_ge(select_prim),
                                          window_of(dims, strides, padding, bd, wd));
      },
      arg("tangents"), arg("operand"), arg("select_prim"), arg("window_dimensions"),
      arg("window_strides"), arg("padding"), arg("base_dilation"), arg("window_dilation"),
      "Each window's tangent at the element select ('ge': first maximum, 'le': first minimum) "
      "picks in operand.");
  m.def(
      "_select_and_scatter_add",
      [](py::handle source, py::handle operand, const std::string &select_prim, py::handle dims,
         py::handle strides, py::handle padding, py::handle bd, py::handle wd) {
        return lax::select_and_scatter_add(to_array(source), to_array(operand),
                                           select_ge(select_prim),
                                           window_of(dims, strides, padding, bd, wd));
      },
      arg("source"), arg("operand"), arg("select_prim"), arg("window_dimensions"),
      arg("window_strides"), arg("padding"), arg("base_dilation"), arg("window_dilation"),
      "Each window's source value added at the element select picks in operand.");
}

} // namespace strata::python
