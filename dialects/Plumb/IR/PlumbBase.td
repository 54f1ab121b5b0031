//===- PlumbBase.td - The plumb dialect and its base classes -*- tablegen -*-===//
//
// Part of Plumb. The `plumb` dialect: statically shaped tensor operations with
// ONNX semantics and exact, documented floating-point behaviour.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_BASE_TD
#define PLUMB_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "PlumbInterfaces.td"

def Plumb_Dialect : Dialect {
  let name = "plumb";
  let cppNamespace = "::plumb";
  let summary = "Deterministic tensor operations with ONNX semantics";
  let description = [{
    Every value is a ranked tensor with a static shape and an element type of
    f32, i64, i32 or i1. Every floating-point operation follows the Plumb
    determinism contract (docs/determinism.md): IEEE binary32 with
    round-to-nearest-even and subnormals, fma only where named, reductions in
    the order fixed by a `#plumb.tree` attribute, our own elementwise math, and
    NaN results canonicalised to 0x7FC00000.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let extraClassDeclaration = [{
    /// Content hashes of constants (lib/Canonical constantHash), kept for
    /// the context's lifetime, which is the lifetime of its attributes:
    /// the canonical pipeline and the node table hash each weight once.
    bool lookupConstantHash(::mlir::Attribute value,
                            std::array<uint8_t, 32> &digest) const;
    void rememberConstantHash(::mlir::Attribute value,
                              const std::array<uint8_t, 32> &digest) const;

  private:
    struct HashCache;
    std::shared_ptr<HashCache> hashCache;
  public:
  }];
}

// Every op implements the cost interface (docs/gas.md): the declaration is
// here, so an op without a getCounts() implementation does not link.
class Plumb_Op<string mnemonic, list<Trait> traits = []>
    : Op<Plumb_Dialect, mnemonic,
         !listconcat(traits,
                     [DeclareOpInterfaceMethods<Plumb_CostOpInterface>])>;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Plumb_Tensor : StaticShapeTensorOf<[F32, I64, I32, I1]>;
def Plumb_FloatTensor : StaticShapeTensorOf<[F32]>;
def Plumb_IntTensor : StaticShapeTensorOf<[I64, I32]>;
def Plumb_BoolTensor : StaticShapeTensorOf<[I1]>;
def Plumb_NumTensor : StaticShapeTensorOf<[F32, I64, I32]>;
def Plumb_IndexTensor : StaticShapeTensorOf<[I64, I32]>;

#endif // PLUMB_BASE_TD
