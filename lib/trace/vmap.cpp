// Batching: the vmap level carries (value, batch axis) and applies batch rules.
#include "strata/lax.h"
#include "strata/ops.h"
#include "strata/transforms.h"
#include "trace/transforms_impl.h"

namespace strata {
namespace {

class BatchTracer : public Tracer {
public:
  BatchTracer(std::shared_ptr<TraceLevel> l, Array v, int64_t d)
      : Tracer(std::move(l)), val(std::move(v)), bdim(d) {}
  Array val;
  int64_t bdim; // the batch axis of val
};

class BatchLevel : public TraceLevel {
public:
  explicit BatchLevel(int64_t size) : axis_size(size) {}
  std::string name() const override { return "vmap"; }
  int64_t axis_size;

  Array wrap(Array val, int64_t bdim) {
    Shape s = val.shape();
    s.erase(s.begin() + bdim);
    DType dt = val.dtype();
    bool weak = val.weak_type();
    return Array::from_tracer(
        std::make_shared<BatchTracer>(shared_from_this(), std::move(val), bdim), s, dt, weak);
  }

  // Splits inputs into values and batch axes (kNotBatched for values not of this level);
  // true when any is of this level.
  bool unwrap(std::span<const Array> inputs, std::vector<Array> &vals, std::vector<int64_t> &dims) {
    bool any = false;
    for (const Array &x : inputs) {
      auto *t = tracer_of<BatchTracer>(x, this);
      vals.push_back(t ? t->val : x);
      dims.push_back(t ? t->bdim : kNotBatched);
      any = any || t;
    }
    return any;
  }

  std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                             const Params &params) override {
    std::vector<Array> vals;
    std::vector<int64_t> dims;
    if (!unwrap(inputs, vals, dims))
      return bind(prim, vals, params);
    if (!prim.batch)
      fail(prim.name, "has no batch rule");
    BatchContext ctx{axis_size, &prim};
    std::vector<int64_t> out_dims;
    std::vector<Array> outs = prim.batch(ctx, vals, dims, params, out_dims);
    std::vector<Array> result;
    for (size_t i = 0; i < outs.size(); ++i)
      result.push_back(out_dims[i] == kNotBatched ? outs[i] : wrap(outs[i], out_dims[i]));
    return result;
  }
};

} // namespace

std::vector<Array> vmap_flat(const FlatFn &f, const std::vector<Array> &inputs,
                             const std::vector<int64_t> &in_axes,
                             const std::vector<int64_t> &out_axes,
                             const std::vector<int> &arg_of_leaf) {
  if (in_axes.size() != inputs.size())
    fail("vmap", "in_axes has ", in_axes.size(), " entries for ", inputs.size(), " arguments");
  int64_t size = -1;
  std::vector<int64_t> axes(inputs.size(), kNotBatched);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (in_axes[i] == kNotBatched)
      continue;
    int64_t r = inputs[i].ndim();
    if (in_axes[i] < -r || in_axes[i] >= r)
      fail("vmap", "in_axes ", in_axes[i], " is out of range for ",
           detail::describe_input(i, arg_of_leaf), " of type ", inputs[i].type_str());
    axes[i] = in_axes[i] < 0 ? in_axes[i] + r : in_axes[i];
    int64_t n = inputs[i].shape()[axes[i]];
    if (size >= 0 && n != size)
      fail("vmap", "batch sizes disagree: ", detail::describe_input(i, arg_of_leaf), " of type ",
           inputs[i].type_str(), " has size ", n, " on axis ", axes[i], ", earlier arguments have ",
           size);
    size = n;
  }
  if (size < 0)
    fail("vmap", "no argument is batched (all in_axes are not-batched)");
  auto level = std::make_shared<BatchLevel>(size);
  std::vector<Array> outs;
  {
    LevelGuard guard(level);
    std::vector<Array> in;
    for (size_t i = 0; i < inputs.size(); ++i)
      in.push_back(axes[i] == kNotBatched ? inputs[i] : level->wrap(inputs[i], axes[i]));
    outs = f(in);
  }
  if (!out_axes.empty() && out_axes.size() != outs.size())
    fail("vmap", "out_axes has ", out_axes.size(), " entries for ", outs.size(), " outputs");
  std::vector<Array> result;
  for (size_t i = 0; i < outs.size(); ++i) {
    int64_t want = out_axes.empty() ? 0 : out_axes[i];
    Array v;
    int64_t d;
    if (auto *t = tracer_of<BatchTracer>(outs[i], level.get())) {
      v = t->val;
      d = t->bdim;
    } else { // unbatched output: broadcast along a new batch axis
      Shape s = outs[i].shape();
      s.insert(s.begin(), size);
      std::vector<int64_t> bd;
      for (int64_t k = 0; k < outs[i].ndim(); ++k)
        bd.push_back(k + 1);
      v = lax::broadcast_in_dim(outs[i], s, bd);
      d = 0;
    }
    int64_t r = v.ndim();
    if (want < -r || want >= r)
      fail("vmap", "out_axes ", want, " is out of range for output ", i, " of rank ", r - 1);
    want = want < 0 ? want + r : want;
    result.push_back(move_axis(v, d, want));
  }
  return result;
}

} // namespace strata
