//===- test/unit/target/ManifestTest.cpp - manifest.json ------------------===//
//
// Part of Plumb. The manifest round-trips through its JSON form with a fixed
// key order, and a malformed manifest is refused with the field named.
//
//===----------------------------------------------------------------------===//
#include "plumb/Bundle/Manifest.h"

#include <gtest/gtest.h>

using namespace plumb::bundle;

namespace {

Manifest sample() {
  Manifest m;
  m.plumbVersion = "0.1.0";
  m.contract = "plumb-det-v1";
  m.modelAbi = 1;
  m.graphHash = std::string(64, 'a');
  m.sourceName = "m \"quoted\".onnx";
  m.sourceSha256 = std::string(64, 'b');
  m.importOptions = {"--dim", "n=1"};
  m.hasGas = true;
  m.gasSchedule = "plumb-gas-v1";
  m.gasTotal = 18446744073709551615ull; // the largest gas
  m.inputs = {{"x", "float32", {1, 3}, false}, {"sr", "int64", {}, true}};
  m.outputs = {{"y", "bool", {2}, false}};
  m.nodes = {{0, std::string(64, 'c'), "plumb.relu", true, 7},
             {1, std::string(64, 'd'), "plumb.if", true, 9}};
  m.arenaBytes = 128;
  m.tracedArenaBytes = 256;
  m.weightsBytes = 64;
  m.weightsAlignment = 64;
  m.weightsSha256 = std::string(64, 'e');
  m.weights = {{0, 12, {"w0", "w1"}}};
  m.targets = {{"cpu", "cpu/model.cpp", true, "cpu/model.so", "g++ 12",
                "-O2", ""},
               {"cuda", "cuda/model.cu", false, "", "", "", "nvcc not found"}};
  m.files = {{"cpu/model.cpp", std::string(64, '1')},
             {"weights.bin", std::string(64, '2')}};
  return m;
}

TEST(Manifest, RoundTrips) {
  Manifest m = sample(), back;
  std::string text = manifestToJson(m), err;
  ASSERT_TRUE(manifestFromJson(text, back, err)) << err;
  EXPECT_EQ(manifestToJson(back), text);
  EXPECT_EQ(back.gasTotal, m.gasTotal);
  EXPECT_EQ(back.arenaBytes, 128);
  EXPECT_EQ(back.tracedArenaBytes, 256);
  EXPECT_EQ(back.inputs[1].bound, true);
  EXPECT_EQ(back.weights[0].resources, m.weights[0].resources);
  EXPECT_EQ(back.target("cuda")->reason, "nvcc not found");
  EXPECT_EQ(back.fileHash("weights.bin"), std::string(64, '2'));
  EXPECT_EQ(back.fileHash("nope"), "");
  // Fixed key order, starting with the format.
  EXPECT_EQ(text.find("{\n  \"format\": \"plumb-bundle\",\n  \"version\": 1,"),
            0u);
}

TEST(Manifest, NoGas) {
  Manifest m = sample(), back;
  m.hasGas = false;
  for (auto &n : m.nodes)
    n.hasGas = false;
  std::string err;
  ASSERT_TRUE(manifestFromJson(manifestToJson(m), back, err)) << err;
  EXPECT_FALSE(back.hasGas);
  EXPECT_FALSE(back.nodes[0].hasGas);
}

TEST(Manifest, RefusesMalformed) {
  Manifest out;
  std::string err;
  EXPECT_FALSE(manifestFromJson("{", out, err));
  EXPECT_NE(err.find("not valid JSON"), std::string::npos);
  EXPECT_FALSE(manifestFromJson("[]", out, err));
  EXPECT_EQ(err, "not a JSON object");
  EXPECT_FALSE(manifestFromJson("{\"format\": \"other\", \"version\": 1}", out,
                                err));
  EXPECT_NE(err.find("not a Plumb bundle manifest"), std::string::npos);
  EXPECT_FALSE(manifestFromJson("{\"format\": \"plumb-bundle\", \"version\": 2}",
                                out, err));
  EXPECT_NE(err.find("version 2 is not supported"), std::string::npos);
  std::string text = manifestToJson(sample());
  std::string broken = text;
  broken.replace(broken.find("\"graph_hash\""), 12, "\"graph_hush\"");
  EXPECT_FALSE(manifestFromJson(broken, out, err));
  EXPECT_EQ(err, "'graph_hash' is missing or not a string");
  broken = text;
  broken.replace(broken.find("\"total\": "), 29, "\"total\": -1");
  EXPECT_FALSE(manifestFromJson(broken, out, err));
}

} // namespace
