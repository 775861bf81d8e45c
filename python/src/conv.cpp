// strata._core.lax's convolution binding (lax::conv_general_dilated); strata/_lax_conv.py
// gives it JAX's signature (string padding, string dimension numbers).
#include "common.h"
#include "strata/lax.h"

namespace strata::python {

void init_conv(py::module_ &root) {
  py::module_ m = root.attr("lax").cast<py::module_>();
  using py::arg;
  m.def(
      "_conv_general_dilated",
      [](py::handle lhs, py::handle rhs, py::handle window_strides, py::handle padding,
         py::handle lhs_dilation, py::handle rhs_dilation, py::handle lhs_spec, py::handle rhs_spec,
         py::handle out_spec, int64_t feature_group_count, int64_t batch_group_count,
         py::handle preferred_element_type) {
        std::vector<std::pair<int64_t, int64_t>> pads;
        for (py::handle p : py::reinterpret_borrow<py::sequence>(padding)) {
          py::sequence pair = py::reinterpret_borrow<py::sequence>(p);
          pads.push_back({pair[0].cast<int64_t>(), pair[1].cast<int64_t>()});
        }
        return lax::conv_general_dilated(
            to_array(lhs), to_array(rhs), to_shape(window_strides), pads, to_shape(lhs_dilation),
            to_shape(rhs_dilation),
            lax::ConvDimensionNumbers{to_shape(lhs_spec), to_shape(rhs_spec), to_shape(out_spec)},
            feature_group_count, batch_group_count, optional_dtype(preferred_element_type));
      },
      arg("lhs"), arg("rhs"), arg("window_strides"), arg("padding"), arg("lhs_dilation"),
      arg("rhs_dilation"), arg("lhs_spec"), arg("rhs_spec"), arg("out_spec"),
      arg("feature_group_count"), arg("batch_group_count"), arg("preferred_element_type"),
      "The conv_general_dilated primitive with explicit (low, high) padding and dimension "
      "numbers as permutations.");
}

} // namespace strata::python
