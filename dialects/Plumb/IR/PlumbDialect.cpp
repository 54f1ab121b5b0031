//===- PlumbDialect.cpp - The plumb dialect -------------------------------===//
//
// Part of Plumb. Dialect registration, the tree attribute's syntax and
// constant materialisation.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plumb/IR/PlumbDialect.h"
#include "dialects/Plumb/IR/PlumbOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <mutex>

using namespace mlir;
using namespace plumb;

#include "dialects/Plumb/IR/PlumbDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Plumb/IR/PlumbAttrs.cpp.inc"

struct PlumbDialect::HashCache {
  std::mutex mutex;
  llvm::DenseMap<Attribute, std::array<uint8_t, 32>> digests;
};

bool PlumbDialect::lookupConstantHash(Attribute value,
                                      std::array<uint8_t, 32> &digest) const {
  std::lock_guard<std::mutex> lock(hashCache->mutex);
  auto it = hashCache->digests.find(value);
  if (it == hashCache->digests.end())
    return false;
  digest = it->second;
  return true;
}

void PlumbDialect::rememberConstantHash(
    Attribute value, const std::array<uint8_t, 32> &digest) const {
  std::lock_guard<std::mutex> lock(hashCache->mutex);
  hashCache->digests[value] = digest;
}

void PlumbDialect::initialize() {
  hashCache = std::make_shared<HashCache>();
  addOperations<
#define GET_OP_LIST
#include "dialects/Plumb/IR/PlumbOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Plumb/IR/PlumbAttrs.cpp.inc"
      >();
}

Operation *PlumbDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

//===----------------------------------------------------------------------===//
// #plumb.tree<seq> / #plumb.tree<blocked N>
//===----------------------------------------------------------------------===//

Attribute TreeAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  int64_t block = 0;
  if (succeeded(parser.parseOptionalKeyword("seq"))) {
    block = 0;
  } else if (succeeded(parser.parseOptionalKeyword("blocked"))) {
    if (parser.parseInteger(block))
      return {};
    if (block < 1) {
      parser.emitError(parser.getCurrentLocation(),
                       "blocked tree needs a block size >= 1");
      return {};
    }
  } else {
    parser.emitError(parser.getCurrentLocation(),
                     "expected 'seq' or 'blocked <N>'");
    return {};
  }
  if (parser.parseGreater())
    return {};
  return TreeAttr::getChecked(
      [&] { return parser.emitError(parser.getCurrentLocation()); },
      parser.getContext(), block);
}

void TreeAttr::print(AsmPrinter &printer) const {
  if (isSequential())
    printer << "<seq>";
  else
    printer << "<blocked " << getBlock() << ">";
}

LogicalResult TreeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t block) {
  if (block < 0)
    return emitError() << "tree block size must be >= 0 (0 = sequential), got "
                       << block;
  return success();
}
