// Primitives and their rule tables: the one place each primitive's behaviour is declared.
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "strata/array.h"

namespace strata {

/// Shape, dtype and weak-type flag of a value: what the abstract level and the verifier see.
struct AbstractValue {
  Shape shape;
  DType dtype = DType::Float32;
  bool weak_type = false;
  bool operator==(const AbstractValue &) const = default;
  std::string str() const { return type_str(dtype, shape); }
};
STRATA_EXPORT AbstractValue abstract_of(const Array &a);

/// A function of a flat list of arrays: the form the trace levels work on.
using FlatFn = std::function<std::vector<Array>(const std::vector<Array> &)>;

/// A sub-function parameter of a higher-order primitive (a loop body, a branch, a checkpointed
/// or jitted function): closed, so that any level may call it with values of its own. The
/// tracers it closed over were converted to its leading `num_consts` inputs when it was bound
/// (the primitive's first inputs are those consts). `in` and `out` are the avals it was traced
/// at, consts first. Compared and hashed by identity, as JAX's closed jaxprs are.
struct SubFn {
  std::string name; // what it is to its primitive, for printing: "body", "branch1", "fwd"
  FlatFn fn;
  std::vector<AbstractValue> in, out;
  size_t num_consts = 0;
};
using SubFnRef = std::shared_ptr<const SubFn>;

struct CheckpointPolicy; // strata/transforms.h
/// A checkpoint policy parameter (what a loop's or a checkpointed call's forward pass keeps for
/// its backward pass). A policy may hold a callback, so it is not static data: like a
/// sub-function, it is compared and hashed by identity.
using PolicyRef = std::shared_ptr<const CheckpointPolicy>;

/// A primitive parameter: static data such as axes, shapes, dtypes or dimension numbers,
/// sub-functions, or a checkpoint policy.
using ParamValue = std::variant<bool, int64_t, double, std::string, DType, std::vector<int64_t>,
                                SubFnRef, std::vector<SubFnRef>, PolicyRef>;

/// Named static parameters of one primitive application, kept sorted by name so that equal
/// parameter sets compare and hash equal (they become part of jit cache keys).
class STRATA_EXPORT Params {
public:
  Params() = default;
  Params(std::initializer_list<std::pair<std::string, ParamValue>> init);
  Params &set(std::string name, ParamValue value);
  bool has(std::string_view name) const;
  const ParamValue &at(std::string_view name) const;
  int64_t get_int(std::string_view name) const;
  double get_float(std::string_view name) const;
  bool get_bool(std::string_view name) const;
  DType get_dtype(std::string_view name) const;
  const std::string &get_string(std::string_view name) const;
  const std::vector<int64_t> &get_ints(std::string_view name) const;
  const SubFn &get_fn(std::string_view name) const;
  const std::vector<SubFnRef> &get_fns(std::string_view name) const;
  const CheckpointPolicy &get_policy(std::string_view name) const;
  const std::vector<std::pair<std::string, ParamValue>> &items() const { return items_; }
  std::string str() const;
  size_t hash() const;
  bool operator==(const Params &) const = default;

private:
  std::vector<std::pair<std::string, ParamValue>> items_;
};

/// One parameter value as Params::str prints it (a sub-function as its name, signature and
/// identity).
STRATA_EXPORT std::string param_str(const ParamValue &value);

/// Declared properties; categories such as "elementwise" come from these, never from a list.
enum Trait : uint32_t {
  kNone = 0,
  kElementwise = 1u << 0,       // output[i] depends only on inputs[i] (same shapes)
  kFusible = 1u << 1,           // may join a fused loop nest or kernel
  kLinear = 1u << 2,            // linear in all its floating inputs (transpose rule applies)
  kComparison = 1u << 3,        // returns bool
  kReduction = 1u << 4,         // reduces over axes
  kShapeOp = 1u << 5,           // moves data without arithmetic
  kRandom = 1u << 6,            // random bit generation
  kNonDifferentiable = 1u << 7, // integer/bool outputs only; zero tangents
  kSideEffect = 1u << 8,
  kControlFlow = 1u << 9, // structured control flow: its sub-functions become op regions
  kConcreteOutput =
      1u << 10, // outputs stay concrete values at every level (see strata/internal/trace.h)
  // Applies its sub-function parameter "fn" to its inputs (remat, custom_jvp_call, ...): a
  // level without a rule of its own for it traces straight through fn (call_through).
  kCall = 1u << 11,
};

struct Primitive;
using ShapeRule = std::function<std::vector<AbstractValue>(std::span<const AbstractValue> in,
                                                           const Params &params)>;
/// Reference CPU implementation; `out` holds the avals the shape rule produced.
using ImplRule = std::function<std::vector<Array>(std::span<const Array> in, const Params &params,
                                                  std::span<const AbstractValue> out)>;

/// Forward-mode rule: the output tangents, given the primal inputs, their tangents (an empty
/// Array stands for a zero tangent) and the primal outputs. Rules use public ops only, so they
/// are themselves differentiable and batchable.
using JvpRule = std::function<std::vector<Array>(
    std::span<const Array> primals, std::span<const Array> tangents, std::span<const Array> outs,
    const Params &params)>;
/// Forward-mode rule that computes the outputs too (JAX's form of a jvp rule): the outputs and
/// their tangents (empty where zero), given the primals and their tangents (empty where zero).
/// For primitives whose outputs and tangents come from one application of a transformed
/// primitive (a loop of the jvp'd body), so that the primal loop does not run a second time.
/// The jvp level uses it in place of JvpRule.
using FwdJvpRule = std::function<std::pair<std::vector<Array>, std::vector<Array>>(
    std::span<const Array> primals, std::span<const Array> tangents, const Params &params)>;
/// Reverse-mode rule: the input cotangents (empty where zero or not differentiable), given the
/// primal inputs and outputs and the output cotangents (empty where zero). wanted[i] says
/// whether the caller wants the cotangent of input i: a rule may leave the others empty, which
/// saves, e.g., a matmul per dot_general whose other operand is a constant.
using VjpRule = std::function<std::vector<Array>(
    std::span<const Array> primals, std::span<const Array> outs, std::span<const Array> cotangents,
    const std::vector<bool> &wanted, const Params &params)>;

/// What a FwdVjpRule returns: the outputs of the forward pass, and the pullback from the output
/// cotangents (zeros where an output has none; empty for outputs that are not floating) to the
/// input cotangents (empty where zero or not wanted).
struct FwdVjp {
  std::vector<Array> outs;
  std::function<std::vector<Array>(const std::vector<Array> &cotangents)> pullback;
};
/// Reverse-mode rule of a primitive whose backward pass needs values that only its own forward
/// pass produces (a loop's per-step carries, a checkpoint policy's kept values): it binds the
/// forward pass one level down itself, keeping what the pullback needs. JAX derives this split
/// by partial evaluation of a jaxpr; here the rule is written out. wanted[i] says whether the
/// caller wants the cotangent of input i. The grad level uses it in place of VjpRule.
using FwdVjpRule = std::function<FwdVjp(std::span<const Array> primals,
                                        const std::vector<bool> &wanted, const Params &params)>;

/// The batch axis of a value that vmap does not map over.
inline constexpr int64_t kNotBatched = INT64_MIN;
struct Primitive;
struct BatchContext {
  int64_t axis_size;     // the size of the mapped axis
  const Primitive *prim; // the primitive being batched
};
/// Batching rule: dims[i] is input i's batch axis or kNotBatched; returns the outputs and sets
/// out_dims to their batch axes.
using BatchRule = std::function<std::vector<Array>(
    const BatchContext &ctx, std::span<const Array> vals, std::span<const int64_t> dims,
    const Params &params, std::vector<int64_t> &out_dims)>;

/// A primitive with its rule table.
struct Primitive {
  std::string name;
  uint32_t traits = kNone;
  ShapeRule shape_rule;
  ImplRule impl;
  JvpRule jvp;
  FwdJvpRule fwd_jvp; // forward mode that computes the outputs too (see FwdJvpRule), if any
  VjpRule vjp;
  FwdVjpRule fwd_vjp; // reverse mode that runs the forward pass (see FwdVjpRule), if any
  BatchRule batch;

  bool has(Trait t) const { return (traits & t) != 0; }
};

/// Registers a primitive once (at static-initialization time, beside its definition) and
/// returns the stored instance. Registering the same name twice throws.
STRATA_EXPORT const Primitive &register_primitive(Primitive p);
/// Looks a primitive up by name; nullptr when unknown.
STRATA_EXPORT const Primitive *find_primitive(std::string_view name);
/// Every registered primitive, sorted by name.
STRATA_EXPORT std::vector<const Primitive *> all_primitives();

/// Applies a primitive: the highest trace level among the inputs handles it; with no
/// tracers, it runs eagerly (shape rule, then reference implementation).
STRATA_EXPORT std::vector<Array> bind(const Primitive &prim, std::vector<Array> inputs,
                                      const Params &params = {});
STRATA_EXPORT Array bind1(const Primitive &prim, std::vector<Array> inputs,
                          const Params &params = {});
/// Runs only the shape rule (what the abstract level does for one primitive).
STRATA_EXPORT std::vector<AbstractValue>
abstract_eval(const Primitive &prim, std::span<const AbstractValue> in, const Params &params = {});

} // namespace strata
