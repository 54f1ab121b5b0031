//===- test/unit/support/MerkleTest.cpp - Merkle trees --------------------===//
#include "plumb/Support/Merkle.h"

#include <gtest/gtest.h>

#include <cctype>

using namespace plumb;

static std::vector<Digest> items(size_t n) {
  std::vector<Digest> v;
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = i * 0x9E3779B97F4A7C15ull + 1;
    v.push_back(sha256(&x, sizeof(x)));
  }
  return v;
}

TEST(Merkle, SmallTreesByHand) {
  auto v = items(3);
  EXPECT_EQ(merkleRoot({}), sha256("", 0));
  EXPECT_EQ(merkleRoot({v[0]}), merkleLeaf(v[0]));
  EXPECT_EQ(merkleRoot({v[0], v[1]}),
            merkleNode(merkleLeaf(v[0]), merkleLeaf(v[1])));
  // Three items split 2 + 1.
  EXPECT_EQ(merkleRoot(v),
            merkleNode(merkleNode(merkleLeaf(v[0]), merkleLeaf(v[1])),
                       merkleLeaf(v[2])));
}

TEST(Merkle, ProofsVerifyForEverySizeAndIndex) {
  for (size_t n = 1; n <= 33; ++n) {
    auto v = items(n);
    Digest root = merkleRoot(v);
    for (size_t i = 0; i < n; ++i) {
      auto proof = merkleProof(v, i);
      EXPECT_TRUE(merkleVerify(root, n, i, v[i], proof)) << n << " " << i;
      // Wrong item, index, size or a tampered proof fail.
      EXPECT_FALSE(merkleVerify(root, n, i, v[(i + 1) % n], proof) && n > 1);
      if (n > 1)
        EXPECT_FALSE(merkleVerify(root, n, (i + 1) % n, v[i], proof));
      if (!proof.empty()) {
        auto bad = proof;
        bad[0][0] ^= 1;
        EXPECT_FALSE(merkleVerify(root, n, i, v[i], bad));
        bad = proof;
        bad.pop_back();
        EXPECT_FALSE(merkleVerify(root, n, i, v[i], bad));
      }
    }
  }
}

TEST(Merkle, HexRoundTrip) {
  Digest d = sha256("abc", 3);
  EXPECT_EQ(toHex(d),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Digest back;
  ASSERT_TRUE(fromHex(toHex(d), back));
  EXPECT_EQ(back, d);
  EXPECT_FALSE(fromHex("xyz", back));
  // Either case; exactly 64 digits; any other character anywhere fails.
  std::string hex = toHex(d), upper = hex;
  for (char &c : upper)
    c = (char)std::toupper((unsigned char)c);
  ASSERT_TRUE(fromHex(upper.data(), upper.size(), back));
  EXPECT_EQ(back, d);
  EXPECT_FALSE(fromHex(hex.data(), 63, back));
  EXPECT_FALSE(fromHex((hex + "0").data(), 65, back));
  for (size_t i : {size_t(0), size_t(1), size_t(31), size_t(63)})
    for (char bad : {'g', 'G', ' ', '/', ':', '@', '`', '\0', '\xff'}) {
      std::string h = hex;
      h[i] = bad;
      EXPECT_FALSE(fromHex(h, back)) << i << " " << (int)bad;
    }
}
