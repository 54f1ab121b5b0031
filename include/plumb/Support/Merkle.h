//===- include/plumb/Support/Merkle.h - Merkle trees over hashes -*- C++ -*-===//
//
// Part of Plumb. The Merkle tree used for graph hashes and traces, in the
// style of RFC 6962 (Certificate Transparency):
//
//   leaf(d)      = SHA-256(0x00 || d)            d: a 32-byte item hash
//   node(l, r)   = SHA-256(0x01 || l || r)
//   root([])     = SHA-256("")
//   root([d])    = leaf(d)
//   root(D[0:n]) = node(root(D[0:k]), root(D[k:n])), k = the largest power
//                  of two smaller than n
//
// Domain separation keeps a leaf from ever equalling an inner node. An
// inclusion proof of item i lists the sibling hashes from the leaf upwards.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_SUPPORT_MERKLE_H
#define PLUMB_SUPPORT_MERKLE_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace plumb {

using Digest = std::array<uint8_t, 32>;

std::string toHex(const Digest &d);
/// Parses 64 hex digits; false on anything else.
bool fromHex(const std::string &s, Digest &out);
Digest sha256(const void *data, size_t n);

Digest merkleLeaf(const Digest &item);
Digest merkleNode(const Digest &left, const Digest &right);
Digest merkleRoot(const std::vector<Digest> &items);

/// Sibling hashes proving items[index] is in the tree (leaf upwards).
std::vector<Digest> merkleProof(const std::vector<Digest> &items,
                                size_t index);
/// Checks a proof that `item` is at `index` of a tree of `size` items.
bool merkleVerify(const Digest &root, size_t size, size_t index,
                  const Digest &item, const std::vector<Digest> &proof);

} // namespace plumb

#endif // PLUMB_SUPPORT_MERKLE_H
