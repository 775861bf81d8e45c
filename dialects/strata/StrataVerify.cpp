// The one verifier of every strata op: it runs the op's primitive shape rule from libstrata.
//
// Types and attributes are translated into the core library's terms (AbstractValue, Params),
// the rule runs, and its strata::Error message becomes the op's diagnostic. libstrata throws
// and MLIR is built without exceptions, so every exception is caught here, before it could
// unwind through an MLIR frame.
#include "dialects/strata/StrataOps.h"

#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "strata/error.h"
#include "strata/primitive.h"

using namespace mlir;

namespace {

std::string str(StringRef s) { return s.str(); }

/// The builtin element type of each dtype: the one mapping, read both ways.
Type toElementType(MLIRContext *ctx, ::strata::DType d) {
  using ::strata::DType;
  switch (d) {
  case DType::Bool:
    return IntegerType::get(ctx, 1);
  case DType::Int8:
    return IntegerType::get(ctx, 8);
  case DType::Int32:
    return IntegerType::get(ctx, 32);
  case DType::Int64:
    return IntegerType::get(ctx, 64);
  case DType::UInt8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case DType::UInt32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case DType::Float16:
    return Float16Type::get(ctx);
  case DType::BFloat16:
    return BFloat16Type::get(ctx);
  case DType::Float32:
    return Float32Type::get(ctx);
  case DType::Float64:
    return Float64Type::get(ctx);
  }
  return {};
}

/// The DType of a builtin element type, or nothing for a type Strata has no dtype for
/// (types are uniqued, so comparing against each dtype's type is exact).
std::optional<::strata::DType> toDType(Type t) {
  for (int i = 0; i < ::strata::kNumDTypes; ++i) {
    auto d = static_cast<::strata::DType>(i);
    if (toElementType(t.getContext(), d) == t)
      return d;
  }
  return std::nullopt;
}

/// The abstract value of a statically shaped tensor type with a Strata element type; on
/// failure, emits an error that names `what` ("operand #0", "result #0").
FailureOr<::strata::AbstractValue> toAbstractValue(Operation *op, Type type, const Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return op->emitOpError() << what << " must be a ranked tensor, got " << type;
  if (!tensor.hasStaticShape())
    return op->emitOpError() << what << " must have a static shape, got " << type;
  std::optional<::strata::DType> dtype = toDType(tensor.getElementType());
  if (!dtype)
    return op->emitOpError() << what << " has unsupported element type " << tensor.getElementType()
                             << " (expected i1, i8, i32, i64, ui8, ui32, f16, bf16, f32 or f64)";
  return ::strata::AbstractValue{::strata::Shape(tensor.getShape()), *dtype, false};
}

/// Adds one attribute to `params` under its own name; fails for kinds no primitive takes.
LogicalResult addParam(Operation *op, StringRef name, Attribute attr, ::strata::Params &params) {
  if (auto a = dyn_cast<DenseI64ArrayAttr>(attr)) {
    params.set(str(name), std::vector<int64_t>(a.asArrayRef()));
  } else if (auto b = dyn_cast<BoolAttr>(attr)) {
    params.set(str(name), b.getValue());
  } else if (auto i = dyn_cast<IntegerAttr>(attr)) {
    params.set(str(name), i.getValue().getSExtValue());
  } else if (auto f = dyn_cast<FloatAttr>(attr)) {
    params.set(str(name), f.getValueAsDouble());
  } else if (auto s = dyn_cast<StringAttr>(attr)) {
    params.set(str(name), s.str());
  } else if (auto t = dyn_cast<TypeAttr>(attr)) {
    std::optional<::strata::DType> dtype = toDType(t.getValue());
    if (!dtype)
      return op->emitOpError() << "attribute '" << name << "' has unsupported element type "
                               << t.getValue();
    params.set(str(name), *dtype);
  } else {
    return op->emitOpError() << "attribute '" << name
                             << "' has no primitive parameter form: " << attr;
  }
  return success();
}

} // namespace

namespace mlir::strata {

DictionaryAttr resultShapeParam(Operation *op, StringRef name) {
  Builder b(op->getContext());
  auto type = cast<ShapedType>(op->getResult(0).getType());
  return b.getDictionaryAttr({b.getNamedAttr(name, b.getDenseI64ArrayAttr(type.getShape()))});
}

LogicalResult verifyPrimitiveOp(Operation *op) {
  auto iface = cast<PrimitiveOpInterface>(op);
  StringRef name = iface.getPrimitiveName();
  const ::strata::Primitive *prim = ::strata::find_primitive({name.data(), name.size()});
  if (!prim)
    return op->emitOpError() << "has no primitive named '" << name << "' in libstrata";

  std::vector<::strata::AbstractValue> in;
  for (OpOperand &operand : op->getOpOperands()) {
    auto aval = toAbstractValue(op, operand.get().getType(),
                                "operand #" + Twine(operand.getOperandNumber()));
    if (failed(aval))
      return failure();
    in.push_back(*aval);
  }
  std::vector<::strata::AbstractValue> results;
  for (OpResult result : op->getResults()) {
    auto aval = toAbstractValue(op, result.getType(), "result #" + Twine(result.getResultNumber()));
    if (failed(aval))
      return failure();
    results.push_back(*aval);
  }

  // Inherent attributes are the primitive's parameters; discardable ones are not.
  ::strata::Params params;
  for (StringAttr attrName : op->getName().getAttributeNames())
    if (std::optional<Attribute> attr = op->getInherentAttr(attrName); attr && *attr)
      if (failed(addParam(op, attrName.getValue(), *attr, params)))
        return failure();
  for (NamedAttribute implied : iface.getImpliedParams())
    if (failed(addParam(op, implied.getName().getValue(), implied.getValue(), params)))
      return failure();

  std::vector<::strata::AbstractValue> expected;
  try {
    expected = ::strata::abstract_eval(*prim, in, params);
  } catch (const std::exception &e) {
    // strata::Error carries "[prim] what is wrong, with the shapes"; anything else is a bug in
    // the rule, reported rather than allowed to unwind through MLIR.
    return op->emitOpError() << e.what();
  } catch (...) {
    return op->emitOpError() << "the shape rule of '" << name << "' failed";
  }

  if (expected.size() != results.size())
    return op->emitOpError() << "has " << results.size() << " results, but the shape rule of '"
                             << name << "' gives " << expected.size();
  for (size_t i = 0; i < results.size(); ++i) {
    const ::strata::AbstractValue &want = expected[i];
    if (results[i].shape == want.shape && results[i].dtype == want.dtype)
      continue;
    auto wantType = RankedTensorType::get(want.shape, toElementType(op->getContext(), want.dtype));
    return op->emitOpError() << "result #" << i << " has type " << op->getResult(i).getType()
                             << ", but the shape rule of '" << name << "' gives " << wantType;
  }
  return success();
}

} // namespace mlir::strata
