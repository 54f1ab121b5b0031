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
#include <utility>
#include <vector>

namespace plumb {

using Digest = std::array<uint8_t, 32>;

std::string toHex(const Digest &d);
/// Parses 64 hex digits; false on anything else.
bool fromHex(const std::string &s, Digest &out);
bool fromHex(const char *s, size_t n, Digest &out);
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

/// Where a tree (or subtree) of n >= 2 items splits: the largest power of
/// two smaller than n (the left subtree's item count).
size_t merkleSplit(size_t n);

/// A subtree is a range of items [lo, hi) reached from the whole tree
/// [0, n) by splitting (its hash is merkleRoot of items[lo, hi)). Its
/// frontier `depth` levels down lists, in order, the ranges of its
/// descendants `depth` splits below it; a range of one item is a leaf and
/// stays as it is (so a subtree of one item is its own frontier). With
/// depth 4 it has at most 16 ranges.
using MerkleRange = std::pair<size_t, size_t>;
std::vector<MerkleRange> merkleFrontier(size_t lo, size_t hi, unsigned depth);

/// merkleRoot of items[lo, hi) (lo < hi <= items.size()): the hash of the
/// subtree [lo, hi) when it is one.
Digest merkleSubtree(const std::vector<Digest> &items, size_t lo, size_t hi);

/// Recomputes the hash of subtree [lo, hi) from its frontier `depth` levels
/// down (merkleFrontier), given one value per frontier range in order: for
/// a range of one item the item itself (its leaf hash is computed here),
/// else the range's subtree hash. False if the count does not match.
bool merkleFold(size_t lo, size_t hi, unsigned depth,
                const std::vector<Digest> &values, Digest &out);

} // namespace plumb

#endif // PLUMB_SUPPORT_MERKLE_H
