// Generated op definitions and interface methods of the strata dialect.
#include "dialects/strata/StrataOps.h"

#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::strata;

#include "dialects/strata/StrataInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/strata/StrataOps.cpp.inc"

//===----------------------------------------------------------------------------------===//
// FusionOp
//===----------------------------------------------------------------------------------===//

// strata.fusion (%a = %x, %b = %y) attr-dict : (T0, T1) -> R { body }
ParseResult FusionOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  if (parser.parseLParen())
    return failure();
  if (failed(parser.parseOptionalRParen())) {
    do {
      OpAsmParser::Argument arg;
      OpAsmParser::UnresolvedOperand operand;
      if (parser.parseArgument(arg) || parser.parseEqual() || parser.parseOperand(operand))
        return failure();
      args.push_back(arg);
      operands.push_back(operand);
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRParen())
      return failure();
  }
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon())
    return failure();
  SMLoc typeLoc = parser.getCurrentLocation();
  FunctionType type;
  if (parser.parseType(type))
    return failure();
  if (type.getNumInputs() != operands.size())
    return parser.emitError(typeLoc) << "expected " << operands.size()
                                     << " input types, got " << type.getNumInputs();
  for (auto [arg, t] : llvm::zip(args, type.getInputs()))
    arg.type = t;
  if (parser.resolveOperands(operands, type.getInputs(), typeLoc, result.operands))
    return failure();
  result.addTypes(type.getResults());
  return parser.parseRegion(*result.addRegion(), args, /*enableNameShadowing=*/false);
}

void FusionOp::print(OpAsmPrinter &p) {
  p << " (";
  Region &region = getRegion();
  if (!region.empty() && region.front().getNumArguments() == getInputs().size()) {
    llvm::interleaveComma(llvm::zip(region.front().getArguments(), getInputs()), p,
                          [&](auto pair) {
                            p << std::get<0>(pair) << " = " << std::get<1>(pair);
                          });
  } else {
    p << getInputs();
  }
  p << ")";
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : ";
  p.printFunctionalType(getInputs().getTypes(), getResultTypes());
  p << ' ';
  p.printRegion(region, /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/true);
}

LogicalResult FusionOp::verify() {
  Block &block = getBlock();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "has " << getInputs().size() << " operands but its block has "
                         << block.getNumArguments() << " arguments";
  for (auto [i, arg, input] : llvm::enumerate(block.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError() << "block argument #" << i << " has type " << arg.getType()
                           << ", but operand #" << i << " has type " << input.getType();
  auto yield = dyn_cast_or_null<YieldOp>(block.empty() ? nullptr : &block.back());
  if (!yield)
    return emitOpError() << "expects its block to end with strata.yield";
  if (yield.getValues().size() != getNumResults())
    return emitOpError() << "yields " << yield.getValues().size() << " values but has "
                         << getNumResults() << " results";
  for (auto [i, value, result] : llvm::enumerate(yield.getValues(), getResults()))
    if (value.getType() != result.getType())
      return emitOpError() << "yielded value #" << i << " has type " << value.getType()
                           << ", but result #" << i << " has type " << result.getType();
  return success();
}
