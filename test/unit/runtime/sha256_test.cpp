//===- test/unit/runtime/sha256_test.cpp - SHA-256 vectors ----------------===//
//
// Part of Plumb. FIPS 180-4 / NIST example vectors and split-update
// equivalence.
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

static std::string hex(const uint8_t *d) {
  static const char *h = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 32; ++i)
    s += h[d[i] >> 4], s += h[d[i] & 15];
  return s;
}

TEST(Sha256, NistVectors) {
  uint8_t d[32];
  plumb_sha256("", 0, d);
  EXPECT_EQ(hex(d),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  plumb_sha256("abc", 3, d);
  EXPECT_EQ(hex(d),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  plumb_sha256(two.data(), two.size(), d);
  EXPECT_EQ(hex(d),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::string million(1000000, 'a');
  plumb_sha256(million.data(), million.size(), d);
  EXPECT_EQ(hex(d),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, SplitUpdatesMatchOneShot) {
  std::vector<uint8_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = (uint8_t)(i * 131 + 7);
  uint8_t ref[32];
  plumb_sha256(data.data(), data.size(), ref);
  for (size_t cut : {0, 1, 55, 56, 63, 64, 65, 127, 999}) {
    plumb_sha256_ctx c;
    plumb_sha256_init(&c);
    plumb_sha256_update(&c, data.data(), cut);
    plumb_sha256_update(&c, data.data() + cut, data.size() - cut);
    uint8_t d[32];
    plumb_sha256_final(&c, d);
    EXPECT_EQ(hex(d), hex(ref)) << "cut at " << cut;
  }
}
