//===- PlumbAttrs.td - Attributes of the plumb dialect -------*- tablegen -*-===//
//
// Part of Plumb. The reduction-tree attribute: the order of every
// floating-point addition of a reduction is part of the IR.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_ATTRS_TD
#define PLUMB_ATTRS_TD

include "PlumbBase.td"

def Plumb_TreeAttr : AttrDef<Plumb_Dialect, "Tree"> {
  let mnemonic = "tree";
  let summary = "A fixed reduction tree";
  let description = [{
    `#plumb.tree<blocked 64>`: the n terms of a reduction, in the order the op
    defines, are split into chunks of 64 consecutive terms; each chunk is
    accumulated sequentially from -0.0 (products with fma); the chunk results
    are padded with -0.0 to a power of two and combined by stride-halving
    (v[i] = v[i] + v[i+s] for s = P/2, ..., 1). `#plumb.tree<seq>` is a single
    chunk: a plain left-to-right sum. The tree is part of a node's identity:
    kernels on every target implement exactly this order.
  }];
  let parameters = (ins "int64_t":$block);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True for the single-chunk (left-to-right) tree.
    bool isSequential() const { return getBlock() == 0; }
  }];
}

#endif // PLUMB_ATTRS_TD
