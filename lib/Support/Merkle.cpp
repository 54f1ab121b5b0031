//===- lib/Support/Merkle.cpp - Merkle trees over hashes ------------------===//
//
// Part of Plumb. See Merkle.h.
//
//===----------------------------------------------------------------------===//
#include "plumb/Support/Merkle.h"

#include "plumb/runtime/sha256.h"

#include <cstring>

namespace plumb {

std::string toHex(const Digest &d) {
  static const char *h = "0123456789abcdef";
  std::string s(64, '\0');
  for (int i = 0; i < 32; ++i) {
    s[2 * i] = h[d[i] >> 4];
    s[2 * i + 1] = h[d[i] & 15];
  }
  return s;
}

namespace {
/// The value of each hex digit (either case), else -1.
struct HexTable {
  int8_t v[256];
  constexpr HexTable() : v() {
    for (int c = 0; c < 256; ++c)
      v[c] = c >= '0' && c <= '9'   ? (int8_t)(c - '0')
             : c >= 'a' && c <= 'f' ? (int8_t)(c - 'a' + 10)
             : c >= 'A' && c <= 'F' ? (int8_t)(c - 'A' + 10)
                                    : (int8_t)-1;
  }
};
constexpr HexTable kHex;
} // namespace

bool fromHex(const char *s, size_t n, Digest &out) {
  if (n != 64)
    return false;
  int bad = 0;
  for (int i = 0; i < 32; ++i) {
    int hi = kHex.v[(uint8_t)s[2 * i]], lo = kHex.v[(uint8_t)s[2 * i + 1]];
    bad |= hi | lo; // negative if either is not a digit
    out[i] = (uint8_t)((unsigned)hi << 4 | (unsigned)lo);
  }
  return bad >= 0;
}

bool fromHex(const std::string &s, Digest &out) {
  return fromHex(s.data(), s.size(), out);
}

Digest sha256(const void *data, size_t n) {
  Digest d;
  plumb_sha256(data, n, d.data());
  return d;
}

Digest merkleLeaf(const Digest &item) {
  uint8_t buf[33];
  buf[0] = 0x00;
  std::memcpy(buf + 1, item.data(), 32);
  return sha256(buf, sizeof(buf));
}

Digest merkleNode(const Digest &left, const Digest &right) {
  uint8_t buf[65];
  buf[0] = 0x01;
  std::memcpy(buf + 1, left.data(), 32);
  std::memcpy(buf + 33, right.data(), 32);
  return sha256(buf, sizeof(buf));
}

static size_t splitPoint(size_t n) {
  size_t k = 1;
  while (k * 2 < n)
    k *= 2;
  return k;
}

size_t merkleSplit(size_t n) { return splitPoint(n); }

static Digest rootOf(const Digest *items, size_t n) {
  if (n == 1)
    return merkleLeaf(items[0]);
  size_t k = splitPoint(n);
  return merkleNode(rootOf(items, k), rootOf(items + k, n - k));
}

Digest merkleRoot(const std::vector<Digest> &items) {
  if (items.empty())
    return sha256("", 0);
  return rootOf(items.data(), items.size());
}

static void proofOf(const Digest *items, size_t n, size_t index,
                    std::vector<Digest> &out) {
  if (n <= 1)
    return;
  size_t k = splitPoint(n);
  if (index < k) {
    proofOf(items, k, index, out);
    out.push_back(rootOf(items + k, n - k));
  } else {
    proofOf(items + k, n - k, index - k, out);
    out.push_back(rootOf(items, k));
  }
}

std::vector<Digest> merkleProof(const std::vector<Digest> &items,
                                size_t index) {
  std::vector<Digest> out;
  if (index < items.size())
    proofOf(items.data(), items.size(), index, out);
  return out;
}

// Recomputes the root from the leaf and the proof, following the same splits
// top-down to know, at each level, whether the sibling is on the left.
static bool verifyRec(size_t n, size_t index, const Digest &leafHash,
                      const std::vector<Digest> &proof, size_t &pos,
                      Digest &out) {
  if (n == 1) {
    out = leafHash;
    return true;
  }
  size_t k = splitPoint(n);
  Digest sub;
  if (index < k) {
    if (!verifyRec(k, index, leafHash, proof, pos, sub) || pos >= proof.size())
      return false;
    out = merkleNode(sub, proof[pos++]);
  } else {
    if (!verifyRec(n - k, index - k, leafHash, proof, pos, sub) ||
        pos >= proof.size())
      return false;
    out = merkleNode(proof[pos++], sub);
  }
  return true;
}

bool merkleVerify(const Digest &root, size_t size, size_t index,
                  const Digest &item, const std::vector<Digest> &proof) {
  if (size == 0 || index >= size)
    return false;
  size_t pos = 0;
  Digest got;
  if (!verifyRec(size, index, merkleLeaf(item), proof, pos, got))
    return false;
  return pos == proof.size() && got == root;
}

static void frontierRec(size_t lo, size_t hi, unsigned depth,
                        std::vector<MerkleRange> &out) {
  if (depth == 0 || hi - lo <= 1) {
    out.push_back({lo, hi});
    return;
  }
  size_t k = splitPoint(hi - lo);
  frontierRec(lo, lo + k, depth - 1, out);
  frontierRec(lo + k, hi, depth - 1, out);
}

std::vector<MerkleRange> merkleFrontier(size_t lo, size_t hi, unsigned depth) {
  std::vector<MerkleRange> out;
  if (lo < hi)
    frontierRec(lo, hi, depth, out);
  return out;
}

Digest merkleSubtree(const std::vector<Digest> &items, size_t lo, size_t hi) {
  return rootOf(items.data() + lo, hi - lo);
}

static Digest foldRec(size_t lo, size_t hi, unsigned depth,
                      const std::vector<Digest> &values, size_t &pos) {
  if (depth == 0 || hi - lo <= 1) {
    const Digest &v = values[pos++];
    return hi - lo == 1 ? merkleLeaf(v) : v;
  }
  size_t k = splitPoint(hi - lo);
  Digest l = foldRec(lo, lo + k, depth - 1, values, pos);
  Digest r = foldRec(lo + k, hi, depth - 1, values, pos);
  return merkleNode(l, r);
}

bool merkleFold(size_t lo, size_t hi, unsigned depth,
                const std::vector<Digest> &values, Digest &out) {
  if (lo >= hi || values.size() != merkleFrontier(lo, hi, depth).size())
    return false;
  size_t pos = 0;
  out = foldRec(lo, hi, depth, values, pos);
  return true;
}

} // namespace plumb
