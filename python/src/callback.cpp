// Bindings of host callbacks (include/strata/callback.h) under strata._core: strata.debug and
// strata.pure_callback build on these.
#include "common.h"

#include "strata/callback.h"

namespace strata::python {

void init_callback(py::module_ &m) {
  using py::arg;
  m.def(
      "debug_callback",
      [](py::object fn, py::handle args) {
        // The callback takes the GIL itself (it may run from compiled code on this thread).
        FlatFn f = flat_fn(std::move(fn));
        debug_callback([f](const std::vector<Array> &in) { return f(in); }, to_array_list(args));
      },
      arg("fn"), arg("args"),
      "Calls fn(list of Arrays) -> [] with the runtime values of args, for its effect.");
  m.def(
      "pure_callback",
      [](py::object fn, py::handle result_avals, py::handle args, const std::string &vmap_method) {
        std::vector<AbstractValue> results;
        for (py::handle h : result_avals) {
          py::tuple t = py::reinterpret_borrow<py::tuple>(h);
          results.push_back({to_shape(t[0]), dtype_from_py(t[1]), false});
        }
        VmapMethod method = VmapMethod::None;
        if (vmap_method == "sequential" || vmap_method == "sequential_unrolled")
          method = VmapMethod::Sequential;
        else if (vmap_method == "expand_dims")
          method = VmapMethod::ExpandDims;
        else if (vmap_method == "broadcast_all")
          method = VmapMethod::BroadcastAll;
        else if (!vmap_method.empty())
          throw py::value_error("[pure_callback] vmap_method must be None, 'sequential', "
                                "'sequential_unrolled', 'expand_dims' or 'broadcast_all', got '" +
                                vmap_method + "'");
        return pure_callback(flat_fn(std::move(fn)), std::move(results), to_array_list(args),
                             method);
      },
      arg("fn"), arg("result_avals"), arg("args"), arg("vmap_method") = "",
      "fn(list of Arrays) -> arrays of result_avals ((shape, dtype) pairs), run on the host.");
}

} // namespace strata::python
