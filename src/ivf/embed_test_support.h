// Fixtures of the embedding tests: a tiny wink-format model (a few words × 4
// dimensions) packed as an npm tarball made here (ustar + gzip), and an
// independent float64 reference of the contract's pooling.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "common/scratch_test_support.h"

namespace vigilo::ivf::embed_test {

struct TarFile {
  std::string name;
  std::string content;
};

inline std::string Octal(uint64_t v, size_t width) {
  std::string s(width - 1, '0');
  for (size_t i = width - 1; i-- > 0; v >>= 3) s[i] = static_cast<char>('0' + (v & 7));
  return s;
}

// One ustar header block for `name` of `size` bytes (valid checksum).
inline std::string TarHeader(const std::string& name, uint64_t size, char type = '0') {
  std::string h(512, '\0');
  std::memcpy(h.data(), name.data(), std::min<size_t>(name.size(), 100));
  std::memcpy(h.data() + 100, "0000644", 7);
  std::memcpy(h.data() + 108, "0000000", 7);
  std::memcpy(h.data() + 116, "0000000", 7);
  std::string sz = Octal(size, 12);
  std::memcpy(h.data() + 124, sz.data(), 11);
  std::memcpy(h.data() + 136, "00000000000", 11);
  h[156] = type;
  std::memcpy(h.data() + 257, "ustar\0" "00", 8);
  std::memset(h.data() + 148, ' ', 8);
  unsigned sum = 0;
  for (char c : h) sum += static_cast<unsigned char>(c);
  std::string cs = Octal(sum, 7);
  std::memcpy(h.data() + 148, cs.data(), 6);
  h[154] = '\0';
  return h;
}

inline std::string Tar(const std::vector<TarFile>& files, bool end_blocks = true) {
  std::string out;
  for (const TarFile& f : files) {
    out += TarHeader(f.name, f.content.size());
    out += f.content;
    out.append((512 - f.content.size() % 512) % 512, '\0');
  }
  if (end_blocks) out.append(1024, '\0');
  return out;
}

inline std::string Gzip(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Probe texts a person can read, for tests that name a probe's words (an
// import chooses cheaper ones by default).
inline std::vector<std::string> ReadableProbeInputs() {
  return {"a small domesticated feline", "a large body of salt water", "The quick brown fox jumps over the lazy dog.",
          "don't stop: well-known caf\xc3\xa9 in 1984", "the capital city of France"};
}

// The fixture vocabulary: 4-dimensional vectors written as decimals the way
// the wink package writes them. It holds a word of every readable probe.
struct FixtureWord {
  std::string word;
  std::vector<std::string> components;  // decimal text
};

inline std::vector<FixtureWord> FixtureWords() {
  return {
      {"the", {"0.1", "-0.2", "0.3", "0.4"}},
      {",", {"1", "1", "1", "1"}},
      {"a", {"0.25", "0.5", "-0.125", "1.5"}},
      {"small", {"-0.038194", "-0.24487", "0.72812", "-0.39961"}},
      {"feline", {"0.083172", "0.043953", "-0.39141", "0.3344"}},
      {"cat", {"0.7", "0.1", "0.1", "0.2"}},
      {"salt", {"-1.25", "2.5", "0.003", "1e-3"}},
      {"water", {"3.14159", "-2.71828", "1.41421", "0.57721"}},
      {"fox", {"0.33333", "0.66667", "-0.11111", "0.22222"}},
      {"don", {"0.9", "0.8", "0.7", "0.6"}},
      {"t", {"-0.9", "0.05", "0.05", "0.01"}},
      {"caf\xc3\xa9", {"0.12", "0.34", "0.56", "0.78"}},
      {"1984", {"-0.5", "-0.5", "0.5", "0.5"}},
      {"france", {"0.011", "0.022", "0.033", "0.044"}},
      {"capital", {"2", "0", "0", "-2"}},
      {"well", {"0.2", "0.2", "0.2", "-0.2"}},
  };
}

inline std::string WinkJson(const std::vector<FixtureWord>& words, int dimensions = 4) {
  std::string j = "{\"precision\":8,\"l2NormIndex\":" + std::to_string(dimensions) +
                  ",\"wordIndex\":" + std::to_string(dimensions + 1) + ",\"size\":" + std::to_string(words.size()) +
                  ",\"dimensions\":" + std::to_string(dimensions) + ",\"words\":[";
  for (size_t i = 0; i < words.size(); ++i) j += (i ? ",\"" : "\"") + words[i].word + "\"";
  j += "],\"vectors\":{";
  for (size_t i = 0; i < words.size(); ++i) {
    j += (i ? ",\"" : "\"") + words[i].word + "\":[";
    for (const std::string& c : words[i].components) j += c + ",";
    j += "1.0," + std::to_string(i) + "]";
  }
  j += "},\"unkVector\":[0,0,0,0,0,-1]}";
  return j;
}

inline std::string PackageJson(const std::string& main = "./fixture.json") {
  return "{\"name\":\"wink-fixture\",\"version\":\"0.0.1\",\"main\":\"" + main + "\"}";
}

inline std::string FixtureTarball(const std::string& model_json) {
  return Gzip(Tar({{"package/package.json", PackageJson()}, {"package/fixture.json", model_json}}));
}

inline std::filesystem::path WriteTemp(const std::string& name, const std::string& bytes) {
  const std::filesystem::path dir = test_support::ProcessScratchDir("vigilo_embed_test");
  std::filesystem::path p = dir / name;
  std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return p;
}

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// The contract's poolings, computed here independently from the fixture's
// decimals: each component parsed with strtof (correctly rounded decimal ->
// float32). Mean: summed in float64, divided by the count, L2 in float64,
// rounded once. Sif (the import's default, c = 750): each word's float32
// scaled by rank / (rank + c) in float64 and rounded to float32 (rank: its
// 1-based place in FixtureWords), the direction the Zipf-weighted (1 / rank)
// sum of all scaled words, normalized and rounded to float32; then the
// text's scaled rows summed, the component along the direction removed, L2.
enum class ReferencePooling { kMean, kSif };

inline std::vector<float> ReferenceEmbedding(const std::vector<std::string>& words,
                                             ReferencePooling pooling = ReferencePooling::kSif) {
  const std::vector<FixtureWord> vocabulary = FixtureWords();
  const size_t dim = vocabulary.front().components.size();
  auto stored = [&](size_t i) {
    std::vector<double> v(dim);
    const double rank = static_cast<double>(i + 1);
    for (size_t d = 0; d < dim; ++d) {
      float f = std::strtof(vocabulary[i].components[d].c_str(), nullptr);
      v[d] = pooling == ReferencePooling::kMean ? static_cast<double>(f)
                                                : static_cast<double>(static_cast<float>(rank / (rank + 750.0) * f));
    }
    return v;
  };
  std::vector<double> sum(dim, 0.0);
  for (const std::string& w : words) {
    size_t i = 0;
    while (i < vocabulary.size() && vocabulary[i].word != w) ++i;
    if (i == vocabulary.size()) ADD_FAILURE() << "no fixture word " << w;
    if (i == vocabulary.size()) return {};
    std::vector<double> v = stored(i);
    for (size_t d = 0; d < dim; ++d) sum[d] += v[d];
  }
  if (pooling == ReferencePooling::kMean) {
    for (size_t d = 0; d < dim; ++d) sum[d] /= static_cast<double>(words.size());
  } else {
    std::vector<double> m(dim, 0.0);
    for (size_t i = 0; i < vocabulary.size(); ++i) {
      std::vector<double> v = stored(i);
      for (size_t d = 0; d < dim; ++d) m[d] += 1.0 / static_cast<double>(i + 1) * v[d];
    }
    double mm = 0;
    for (double x : m) mm += x * x;
    std::vector<double> u(dim);
    for (size_t d = 0; d < dim; ++d) u[d] = static_cast<double>(static_cast<float>(m[d] / std::sqrt(mm)));
    double along = 0;
    for (size_t d = 0; d < dim; ++d) along += sum[d] * u[d];
    for (size_t d = 0; d < dim; ++d) sum[d] -= along * u[d];
  }
  double ss = 0;
  for (size_t d = 0; d < dim; ++d) ss += sum[d] * sum[d];
  double norm = std::sqrt(ss);
  std::vector<float> out(dim);
  for (size_t d = 0; d < dim; ++d) out[d] = static_cast<float>(sum[d] / norm);
  return out;
}

}  // namespace vigilo::ivf::embed_test
