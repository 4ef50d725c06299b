#include "vigilo/hash/blake3.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "vigilo/common/hex.h"

namespace vigilo {
namespace {

// The official vectors (github.com/BLAKE3-team/BLAKE3, test_vectors.json).
// Read with a regex because the project's JSON parser sits above this layer.
struct VectorCase {
  size_t input_len = 0;
  std::string hash, keyed_hash, derive_key;  // 131-byte extended outputs, hex
};
struct Vectors {
  std::string key, context;
  std::vector<VectorCase> cases;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Vectors LoadVectors() {
  const std::string text = ReadFile(VIGILO_SHARED_DIR "/data/blake3/test_vectors.json");
  Vectors v;
  std::smatch m;
  // Top-level fields start a line; the _comment mentions them only in prose.
  if (std::regex_search(text, m, std::regex(R"re(\n\s*"key"\s*:\s*"([^"\\]*)")re"))) v.key = m[1];
  if (std::regex_search(text, m, std::regex(R"re(\n\s*"context_string"\s*:\s*"([^"\\]*)")re"))) {
    v.context = m[1];
  }
  // Each case is a flat {...} object inside "cases"; read its fields by name.
  const size_t cases_at = text.find("\"cases\"");
  if (cases_at == std::string::npos) return v;
  const std::string cases = text.substr(cases_at);
  const std::regex object(R"(\{([^{}]*)\})");
  const std::regex field(R"re("(\w+)"\s*:\s*(?:"([0-9a-f]*)"|(\d+)))re");
  for (auto it = std::sregex_iterator(cases.begin(), cases.end(), object); it != std::sregex_iterator(); ++it) {
    const std::string body = (*it)[1];
    std::map<std::string, std::string> f;
    for (auto fi = std::sregex_iterator(body.begin(), body.end(), field); fi != std::sregex_iterator(); ++fi) {
      f[(*fi)[1]] = (*fi)[2].matched ? (*fi)[2].str() : (*fi)[3].str();
    }
    v.cases.push_back({std::stoul(f["input_len"]), f["hash"], f["keyed_hash"], f["derive_key"]});
  }
  return v;
}

const Vectors& TheVectors() {
  static const Vectors v = LoadVectors();
  return v;
}

// The vectors' input convention: byte i is i % 251.
std::vector<uint8_t> Input(size_t len) {
  std::vector<uint8_t> out(len);
  for (size_t i = 0; i < len; ++i) out[i] = static_cast<uint8_t>(i % 251);
  return out;
}

std::array<uint8_t, 32> TestKey() {
  const std::string& k = TheVectors().key;
  std::array<uint8_t, 32> key{};
  EXPECT_EQ(k.size(), key.size());
  std::copy_n(k.begin(), std::min(k.size(), key.size()), key.begin());
  return key;
}

enum class Mode { kHash, kKeyed, kDeriveKey };

Blake3Hasher MakeHasher(Mode mode) {
  switch (mode) {
    case Mode::kHash: return Blake3Hasher();
    case Mode::kKeyed: return Blake3Hasher::Keyed(TestKey());
    case Mode::kDeriveKey: return Blake3Hasher::DeriveKey(TheVectors().context);
  }
  return Blake3Hasher();
}

const std::string& Expected(const VectorCase& c, Mode mode) {
  switch (mode) {
    case Mode::kHash: return c.hash;
    case Mode::kKeyed: return c.keyed_hash;
    case Mode::kDeriveKey: return c.derive_key;
  }
  return c.hash;
}

void CheckAllCases(Mode mode) {
  const Vectors& v = TheVectors();
  ASSERT_EQ(v.cases.size(), 35u) << "could not read " VIGILO_SHARED_DIR "/data/blake3/test_vectors.json";
  for (const VectorCase& c : v.cases) {
    SCOPED_TRACE("input_len=" + std::to_string(c.input_len));
    const std::string& want = Expected(c, mode);
    ASSERT_EQ(want.size(), 2u * 131);
    Blake3Hasher h = MakeHasher(mode);
    h.Update(Input(c.input_len));
    std::vector<uint8_t> xof(131);
    h.FinalizeXof(0, xof);
    EXPECT_EQ(HexEncode(xof), want);
    EXPECT_EQ(HexEncode(h.Finalize()), want.substr(0, 64));
    // Seeking into the extended output gives the matching suffix.
    std::vector<uint8_t> tail(131 - 37);
    h.FinalizeXof(37, tail);
    EXPECT_EQ(HexEncode(tail), want.substr(2 * 37));
  }
}

TEST(Blake3Test, VectorsFileHasKeyAndContext) {
  EXPECT_EQ(TheVectors().key, "whats the Elvish word for friend");
  EXPECT_EQ(TheVectors().context, "BLAKE3 2019-12-27 16:29:52 test vectors context");
}

TEST(Blake3Test, HashModeMatchesAllVectors) { CheckAllCases(Mode::kHash); }
TEST(Blake3Test, KeyedModeMatchesAllVectors) { CheckAllCases(Mode::kKeyed); }
TEST(Blake3Test, DeriveKeyModeMatchesAllVectors) { CheckAllCases(Mode::kDeriveKey); }

TEST(Blake3Test, FreeFunctionsMatchHasher) {
  const std::vector<uint8_t> data = Input(3000);
  Blake3Hasher h;
  h.Update(data);
  EXPECT_EQ(Blake3(data), h.Finalize());
  EXPECT_EQ(Blake3Hex(data), HexEncode(h.Finalize()));
  EXPECT_EQ(Blake3Hex(""), "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262");
  EXPECT_EQ(Blake3Hex(std::string_view("abc")), Blake3Hex(std::span<const uint8_t>(
                                                    reinterpret_cast<const uint8_t*>("abc"), 3)));
}

const std::string& LargestHashVector() {
  for (const VectorCase& c : TheVectors().cases) {
    if (c.input_len == 102400) return c.hash;
  }
  static const std::string none;
  return none;
}

// Chunks are 1024 bytes and blocks 64, so these sizes straddle every boundary.
constexpr size_t kAwkwardSizes[] = {1, 63, 64, 65, 1023, 1024, 1025};

TEST(Blake3Test, IncrementalPiecesGiveSameDigest) {
  const std::string& want = LargestHashVector();
  ASSERT_FALSE(want.empty());
  const std::vector<uint8_t> data = Input(102400);
  for (size_t piece : kAwkwardSizes) {
    SCOPED_TRACE("piece=" + std::to_string(piece));
    Blake3Hasher h;
    for (size_t at = 0; at < data.size(); at += piece) {
      h.Update(std::span(data).subspan(at, std::min(piece, data.size() - at)));
    }
    EXPECT_EQ(HexEncode(h.Finalize()), want.substr(0, 64));
  }
}

TEST(Blake3Test, SplitAtOnePointGivesSameDigest) {
  const std::vector<uint8_t> data = Input(4096);
  const auto want = Blake3(data);
  for (size_t split : kAwkwardSizes) {
    SCOPED_TRACE("split=" + std::to_string(split));
    Blake3Hasher h;
    h.Update(std::span(data).first(split));
    h.Update(std::span(data).subspan(split));
    EXPECT_EQ(h.Finalize(), want);
  }
}

TEST(Blake3Test, UpdateAfterFinalizeContinuesTheStream) {
  const std::vector<uint8_t> data = Input(5000);
  Blake3Hasher h;
  h.Update(std::span(data).first(1025));
  EXPECT_EQ(h.Finalize(), Blake3(std::span(data).first(1025)));
  h.Update(std::span(data).subspan(1025));
  EXPECT_EQ(h.Finalize(), Blake3(data));
  EXPECT_EQ(h.Finalize(), h.Finalize());  // idempotent
}

TEST(Blake3Test, CopyForksTheState) {
  Blake3Hasher a;
  a.Update("common prefix ");
  Blake3Hasher b = a;
  a.Update("one");
  b.Update("two");
  EXPECT_EQ(a.Finalize(), Blake3("common prefix one"));
  EXPECT_EQ(b.Finalize(), Blake3("common prefix two"));
}

TEST(Blake3Test, DeriveKeyContextNeedNotBeNulTerminated) {
  const std::string padded = TheVectors().context + "XYZ";
  const std::string_view context(padded.data(), TheVectors().context.size());
  Blake3Hasher a = Blake3Hasher::DeriveKey(context);
  Blake3Hasher b = Blake3Hasher::DeriveKey(TheVectors().context);
  EXPECT_EQ(a.Finalize(), b.Finalize());
}

}  // namespace
}  // namespace vigilo
