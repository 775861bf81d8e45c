// Bindings of the jit core (include/strata/jit.h): JitFunction (one per jitted Python
// function), Lowered, and the cache counters.
#include "common.h"

#include "strata/jit.h"

namespace strata::python {
namespace {
// trace(list of Arrays) -> (output leaves, output structure); the structure rides in `aux`,
// kept with the cached executable.
TraceFn trace_fn(py::object f) {
  auto held = hold(std::move(f));
  return [held](const std::vector<Array> &in, std::shared_ptr<void> &aux) {
    py::gil_scoped_acquire gil;
    py::tuple r = (*held)(py::cast(in));
    if (r.size() != 2)
      throw py::type_error("[jit] the trace function must return (leaves, structure)");
    aux = std::static_pointer_cast<void>(hold(r[1]));
    return to_array_list(r[0]);
  };
}
py::dict stats_dict(const JitStats &s) {
  py::dict d;
  d["hits"] = s.hits;
  d["misses"] = s.misses;
  d["inline_calls"] = s.inline_calls;
  d["compile_seconds"] = s.compile_seconds;
  d["entries"] = s.entries;
  d["evictions"] = s.evictions;
  return d;
}
} // namespace

void init_jit(py::module_ &m) {
  using py::arg;
  py::class_<Lowered>(m, "Lowered", "The text of every compilation stage of a jitted call.")
      .def("as_text", &Lowered::as_text, arg("stage") = "strata",
           "Stages: strata, optimized, linalg, bufferized, llvm, llvm-ir.")
      .def("stages", &Lowered::stages);
  py::class_<JitFunction>(m, "JitFunction", "The compiled-executable cache of one function.")
      .def(py::init([](const std::string &name) {
             JitOptions o;
             o.name = name;
             return JitFunction(o);
           }),
           arg("name") = "jit_fn")
      .def(
          "call",
          [](JitFunction &self, py::object trace, py::handle args, const std::string &key) {
            auto [outs, aux] = self.call(trace_fn(std::move(trace)), to_array_list(args), key);
            py::object structure = aux ? *static_cast<py::object *>(aux.get()) : py::none();
            return py::make_tuple(py::cast(outs), structure);
          },
          arg("trace"), arg("args"), arg("static_key"),
          "Runs for the dynamic leaves `args`: cached, or traced with trace(leaves) -> "
          "(output leaves, output structure) and compiled. Returns (outputs, structure).")
      .def(
          "lower",
          [](JitFunction &self, py::object trace, py::handle args, const std::string &key) {
            return self.lower(trace_fn(std::move(trace)), to_array_list(args), key);
          },
          arg("trace"), arg("args"), arg("static_key"))
      .def("stats", [](const JitFunction &self) { return stats_dict(self.stats()); })
      .def("explain", &JitFunction::explain);
  m.def("jit_cache_stats", [] { return stats_dict(jit_cache_stats()); });
  m.def("clear_jit_cache", &clear_jit_cache);
  m.def("set_jit_cache_capacity", &set_jit_cache_capacity, arg("capacity"));
}

} // namespace strata::python
