// Bindings of the flat transform core (include/strata/transforms.h) under strata._core: the
// Python package builds grad, vjp, jvp, vmap, ... over pytrees on top of these.
#include "common.h"

#include <pybind11/functional.h>

namespace strata::python {
namespace {
// A FlatFn as a Python callable taking a sequence of array-likes.
py::cpp_function callable(FlatFn f) {
  return py::cpp_function([f = std::move(f)](py::handle xs) { return f(to_array_list(xs)); });
}
int64_t axis_of(py::handle h) { return h.is_none() ? kNotBatched : index_of(h); }

py::tuple shape_tuple(const Shape &s) {
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i)
    t[i] = s[i];
  return t;
}

py::object param_value(const ParamValue &v) {
  struct V {
    py::object operator()(bool b) const { return py::bool_(b); }
    py::object operator()(int64_t i) const { return py::int_(i); }
    py::object operator()(double d) const { return py::float_(d); }
    py::object operator()(const std::string &s) const { return py::str(s); }
    py::object operator()(DType t) const { return numpy_dtype(t); }
    py::object operator()(const std::vector<int64_t> &v) const { return shape_tuple(v); }
    // Sub-functions and policies are shown as their description (name, signature, identity).
    py::object operator()(const SubFnRef &f) const { return py::str(param_str(f)); }
    py::object operator()(const std::vector<SubFnRef> &fs) const { return py::str(param_str(fs)); }
    py::object operator()(const PolicyRef &p) const { return py::str(param_str(p)); }
  };
  return std::visit(V{}, v);
}

// A Python policy(name, avals, params) -> bool as a checkpoint callback: avals are
// (shape, dtype, weak_type) tuples of the primitive's inputs, params a dict of its parameters.
CheckpointPolicy callback_policy(py::object f) {
  auto held = hold(std::move(f));
  return CheckpointPolicy::callback(
      [held](const Primitive &prim, std::span<const AbstractValue> in, const Params &params) {
        py::gil_scoped_acquire gil;
        py::list avals;
        for (const AbstractValue &a : in)
          avals.append(py::make_tuple(shape_tuple(a.shape), numpy_dtype(a.dtype), a.weak_type));
        py::dict ps;
        for (const auto &[k, v] : params.items())
          ps[py::str(k)] = param_value(v);
        return py::bool_((*held)(prim.name, avals, ps)).cast<bool>();
      });
}
} // namespace

std::shared_ptr<py::object> hold(py::object obj) {
  return std::shared_ptr<py::object>(new py::object(std::move(obj)), [](py::object *o) {
    if (!Py_IsInitialized()) {
      o->release(); // the interpreter is gone: leak the reference rather than touch it
      delete o;
      return;
    }
    py::gil_scoped_acquire gil;
    delete o;
  });
}

FlatFn flat_fn(py::object f) {
  auto held = hold(std::move(f));
  return [held](const std::vector<Array> &in) {
    py::gil_scoped_acquire gil;
    py::object out = (*held)(py::cast(in));
    return to_array_list(out);
  };
}

std::function<std::vector<Array>(const std::vector<Array> &, const std::vector<Array> &)>
flat_fn2(py::object f) {
  auto held = hold(std::move(f));
  return [held](const std::vector<Array> &a, const std::vector<Array> &b) {
    py::gil_scoped_acquire gil;
    py::object out = (*held)(py::cast(a), py::cast(b));
    return to_array_list(out);
  };
}

void init_transforms(py::module_ &m) {
  using py::arg;
  m.def(
      "jvp_flat",
      [](py::object f, py::handle primals, py::handle tangents) {
        return jvp_flat(flat_fn(std::move(f)), to_array_list(primals), to_array_list(tangents));
      },
      arg("f"), arg("primals"), arg("tangents"),
      "f(list) -> list at primals: (outputs, output tangents).");
  m.def(
      "vjp_flat",
      [](py::object f, py::handle primals, const std::string &name, bool reusable) {
        VjpResult r = vjp_flat(flat_fn(std::move(f)), to_array_list(primals), name, reusable);
        return py::make_tuple(py::cast(r.outputs), callable(r.pullback));
      },
      arg("f"), arg("primals"), arg("name") = "vjp", arg("reusable") = true,
      "(outputs, pullback); pullback(output cotangents) -> input cotangents.");
  m.def(
      "vmap_flat",
      [](py::object f, py::handle inputs, py::handle in_axes, py::handle out_axes,
         std::vector<int> arg_of_leaf) {
        std::vector<int64_t> ins, outs;
        for (py::handle h : in_axes)
          ins.push_back(axis_of(h));
        for (py::handle h : out_axes)
          outs.push_back(axis_of(h));
        return vmap_flat(flat_fn(std::move(f)), to_array_list(inputs), ins, outs, arg_of_leaf);
      },
      arg("f"), arg("inputs"), arg("in_axes"), arg("out_axes") = py::list(),
      arg("arg_of_leaf") = std::vector<int>{},
      "in_axes[i]: input i's batch axis or None; outputs stacked at axis 0 (out_axes empty).");
  m.def(
      "eval_shape_flat",
      [](py::object f, py::handle avals) {
        std::vector<AbstractValue> in;
        for (py::handle h : avals) {
          py::tuple t = py::reinterpret_borrow<py::tuple>(h);
          AbstractValue a;
          a.shape = to_shape(t[0]);
          a.dtype = dtype_from_py(t[1]);
          a.weak_type = t.size() > 2 && t[2].cast<bool>();
          in.push_back(a);
        }
        py::list out;
        for (const AbstractValue &a : eval_shape_flat(flat_fn(std::move(f)), in)) {
          py::tuple shape(a.shape.size());
          for (size_t i = 0; i < a.shape.size(); ++i)
            shape[i] = a.shape[i];
          out.append(py::make_tuple(shape, numpy_dtype(a.dtype), a.weak_type));
        }
        return out;
      },
      arg("f"), arg("avals"), "avals: (shape, dtype[, weak]) tuples; returns the outputs' too.");
  m.def(
      "checkpoint_flat",
      [](py::object f, py::object policy) {
        CheckpointPolicy p;
        if (py::isinstance<py::str>(policy)) {
          std::string s = policy.cast<std::string>();
          if (s == "dots")
            p = CheckpointPolicy::dots();
          else if (s == "everything")
            p = CheckpointPolicy::everything();
          else if (s != "nothing")
            throw py::value_error("[checkpoint] unknown policy '" + s +
                                  "' (use 'nothing', 'dots', 'everything', a list of names or "
                                  "a callable)");
        } else if (PyCallable_Check(policy.ptr())) {
          p = callback_policy(policy);
        } else if (!policy.is_none()) {
          p = CheckpointPolicy::save_names(policy.cast<std::vector<std::string>>());
        }
        return callable(checkpoint_flat(flat_fn(std::move(f)), p));
      },
      arg("f"), arg("policy") = py::none(),
      "policy: None/'nothing', 'dots', 'everything', a list of checkpoint_name names, or "
      "policy(primitive name, input avals, params dict) -> bool.");
  // A context manager: ops on concrete values run eagerly inside it (jax.ensure_compile_time_eval).
  struct Scope {
    std::unique_ptr<CompileTimeEval> eval;
  };
  py::class_<Scope>(m, "compile_time_eval",
                    "A context: inside it, ops whose inputs are all concrete run eagerly.")
      .def(py::init<>())
      .def("__enter__", [](Scope &s) { s.eval = std::make_unique<CompileTimeEval>(); })
      .def("__exit__", [](Scope &s, py::args) { s.eval.reset(); });
  m.def("set_debug_nans", &set_debug_nans, arg("nans"), arg("infs"),
        "Turns the eval-level NaN/Inf checks of jax_debug_nans / jax_debug_infs on or off.");
  m.def(
      "custom_jvp_flat",
      [](py::object f, py::object rule) {
        return callable(custom_jvp_flat(flat_fn(std::move(f)), flat_fn2(std::move(rule))));
      },
      arg("f"), arg("rule"));
  m.def(
      "custom_vjp_flat",
      [](py::object f, py::object fwd, size_t num_outputs, py::object bwd) {
        return callable(custom_vjp_flat(flat_fn(std::move(f)), flat_fn(std::move(fwd)), num_outputs,
                                        flat_fn2(std::move(bwd))));
      },
      arg("f"), arg("fwd"), arg("num_outputs"), arg("bwd"));
  m.def(
      "check_grad_output",
      [](py::handle x, const std::string &op) { detail::check_grad_output(to_array(x), op); },
      arg("x"), arg("op"));
  m.def(
      "check_grad_inputs",
      [](py::handle xs, const std::string &op, std::vector<int> arg_of_leaf) {
        detail::check_grad_inputs(to_array_list(xs), op, arg_of_leaf);
      },
      arg("xs"), arg("op"), arg("arg_of_leaf") = std::vector<int>{});
}

} // namespace strata::python
