// `vigilo index eval --base`: the exact ground truth computed by vigilo
// itself over the build's input vectors gives the recall a ground-truth file
// computed here independently gives, is cached under XDG_CACHE_HOME (a second
// run says it used the cache) and nothing is written beside the publication.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cli_test_support.h"

namespace {

using vigilo::cli_test::CliDirTest;
using vigilo::cli_test::CliRun;
using vigilo::cli_test::RunVigilo;

constexpr int kExitUsage = 2;

using Vectors = std::vector<std::vector<float>>;

// Deterministic vectors from a 64-bit LCG: values in [-4, 4) at 1/64 steps.
Vectors RandomVectors(size_t n, size_t d, uint64_t seed) {
  Vectors out(n, std::vector<float>(d));
  uint64_t s = seed;
  for (auto& v : out) {
    for (float& x : v) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      x = static_cast<float>(static_cast<int>((s >> 33) % 512) - 256) / 64.0f;
    }
  }
  return out;
}

std::string Fvecs(const Vectors& vs) {
  std::string out;
  for (const auto& v : vs) {
    auto d = static_cast<int32_t>(v.size());
    out.append(reinterpret_cast<const char*>(&d), 4);
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * 4);
  }
  return out;
}

std::string FloatJson(float f) {
  std::string s = std::to_string(f);
  return s;
}

// The k nearest keys of each query by brute force in double: squared L2, or
// cosine distance (1 - cos); ties to the lower key.
std::vector<std::vector<int64_t>> BruteForce(const Vectors& base, const std::vector<int64_t>& keys,
                                             const Vectors& queries, size_t k, bool cosine) {
  auto norm = [](const std::vector<float>& v) {
    double s = 0;
    for (float x : v) s += static_cast<double>(x) * x;
    return std::sqrt(s);
  };
  std::vector<std::vector<int64_t>> out;
  for (const auto& q : queries) {
    std::vector<std::pair<double, int64_t>> all;
    for (size_t i = 0; i < base.size(); ++i) {
      double dist = 0;
      if (cosine) {
        double dot = 0;
        for (size_t t = 0; t < q.size(); ++t) dot += static_cast<double>(q[t]) * base[i][t];
        dist = 1 - dot / (norm(q) * norm(base[i]));
      } else {
        for (size_t t = 0; t < q.size(); ++t) {
          double x = static_cast<double>(q[t]) - base[i][t];
          dist += x * x;
        }
      }
      all.emplace_back(dist, keys[i]);
    }
    std::sort(all.begin(), all.end());
    std::vector<int64_t> row;
    for (size_t j = 0; j < k; ++j) row.push_back(all[j].second);
    out.push_back(row);
  }
  return out;
}

std::string Ivecs(const std::vector<std::vector<int64_t>>& rows) {
  std::string out;
  for (const auto& row : rows) {
    auto k = static_cast<int32_t>(row.size());
    out.append(reinterpret_cast<const char*>(&k), 4);
    for (int64_t id : row) {
      auto v = static_cast<int32_t>(id);
      out.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  return out;
}

// The "nprobe" and "recall" members of each JSON line: what does not depend on timing.
std::string Recalls(const std::string& json_lines) {
  std::string out;
  size_t at = 0;
  while ((at = json_lines.find("{", at)) != std::string::npos) {
    size_t end = json_lines.find('\n', at);
    std::string line = json_lines.substr(at, end - at);
    auto member = [&](const std::string& name) {
      size_t p = line.find("\"" + name + "\":");
      if (p == std::string::npos) return std::string("?");
      p += name.size() + 3;
      return line.substr(p, line.find_first_of(",}", p) - p);
    };
    out += member("nprobe") + ":" + member("recall") + "\n";
    at = end;
  }
  return out;
}

std::vector<std::string> Tree(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    out.push_back(std::filesystem::relative(e.path(), dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ArtifactUuid(const std::string& manifest) {
  const std::string tag = "\"artifact-uuid\":\"";
  size_t p = manifest.find(tag);
  return p == std::string::npos ? "" : manifest.substr(p + tag.size(), 36);
}

class IndexEvalCliTest : public CliDirTest {
 protected:
  CliRun Eval(const std::string& args) const {
    return RunVigilo({dir_, "XDG_CACHE_HOME=" + Path("cache"), true}, "index eval " + args);
  }
  // The .npy the cache holds, as int64 ids (after the header).
  std::vector<int64_t> CachedIds(const std::string& path, size_t count) const {
    std::string bytes = vigilo::cli_test::ReadFile(path);
    std::vector<int64_t> ids(count);
    if (bytes.size() < count * 8) return {};
    std::memcpy(ids.data(), bytes.data() + bytes.size() - count * 8, count * 8);
    return ids;
  }
};

TEST_F(IndexEvalCliTest, L2RowKeysMatchAnIndependentGroundTruthAndAreCachedOutsideThePublication) {
  const Vectors base = RandomVectors(600, 8, 1), queries = RandomVectors(25, 8, 2);
  Write("base.fvecs", Fvecs(base));
  Write("queries.fvecs", Fvecs(queries));
  std::vector<int64_t> rows(base.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int64_t>(i);
  auto truth = BruteForce(base, rows, queries, 10, false);
  Write("truth.ivecs", Ivecs(truth));
  CliRun built = Vigilo("index build base.fvecs --metric l2_squared --nlist 12 -q -o pub");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const std::vector<std::string> publication = Tree(Path("pub"));

  const std::string flags = "pub --queries queries.fvecs --nprobe 1,3,12 --warmup 0 --json";
  CliRun given = Eval(flags + " --ground-truth truth.ivecs");
  ASSERT_EQ(given.exit_code, 0) << given.err;
  ASSERT_EQ(Recalls(given.out).size() > 0 && Recalls(given.out).find('?') == std::string::npos, true) << given.out;

  CliRun computed = Eval(flags + " --base base.fvecs --threads 3");
  ASSERT_EQ(computed.exit_code, 0) << computed.err;
  EXPECT_EQ(Recalls(computed.out), Recalls(given.out));
  const std::string uuid = ArtifactUuid(Read("pub/manifest.json"));
  ASSERT_EQ(uuid.size(), 36u);
  std::vector<std::string> cached = Tree(Path("cache"));
  ASSERT_EQ(cached.size(), 3u) << ::testing::PrintToString(cached);  // vigilo, vigilo/ground-truth, the file
  const std::string file = cached[2];
  EXPECT_EQ(file.rfind("vigilo/ground-truth/" + uuid + "-k10-", 0), 0u) << file;
  EXPECT_EQ(file.substr(file.size() - 4), ".npy");
  const std::string cache_path = Path("cache") + "/" + file;
  EXPECT_EQ(computed.err, "vigilo: ground truth: computed over 600 base vectors, cached in " + cache_path + "\n");
  // The cache holds exactly the neighbours computed here, and the publication is untouched.
  std::vector<int64_t> flat;
  for (const auto& row : truth) flat.insert(flat.end(), row.begin(), row.end());
  EXPECT_EQ(CachedIds(cache_path, flat.size()), flat);
  EXPECT_EQ(Tree(Path("pub")), publication);

  // A second run reads the cache and says so; other queries or k get their own file.
  CliRun again = Eval(flags + " --base base.fvecs");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err, "vigilo: ground truth: from the cache " + cache_path + "\n");
  EXPECT_EQ(Recalls(again.out), Recalls(given.out));
  CliRun other_k = Eval(flags + " --base base.fvecs -k 3");
  ASSERT_EQ(other_k.exit_code, 0) << other_k.err;
  EXPECT_EQ(Tree(Path("cache")).size(), 4u);
  EXPECT_EQ(Tree(Path("pub")), publication);
}

TEST_F(IndexEvalCliTest, CosineWithAUserKeyColumnReadsTheKeys) {
  // JSONL rows whose key "id" is not the row position: the keys are read from the input.
  const Vectors base = RandomVectors(300, 6, 3), queries = RandomVectors(15, 6, 4);
  std::string jsonl, qjsonl;
  std::vector<int64_t> keys;
  for (size_t i = 0; i < base.size(); ++i) {
    keys.push_back(static_cast<int64_t>(base.size() - 1 - i));
    jsonl += "{\"id\":" + std::to_string(keys.back()) + ",\"emb\":[";
    for (size_t t = 0; t < base[i].size(); ++t) jsonl += (t ? "," : "") + FloatJson(base[i][t]);
    jsonl += "]}\n";
  }
  for (const auto& q : queries) {
    qjsonl += "[";
    for (size_t t = 0; t < q.size(); ++t) qjsonl += (t ? "," : "") + FloatJson(q[t]);
    qjsonl += "]\n";
  }
  Write("base.jsonl", jsonl);
  Write("queries.jsonl", qjsonl);
  Write("truth.ivecs", Ivecs(BruteForce(base, keys, queries, 5, true)));
  CliRun built = Vigilo("index build base.jsonl --key id --metric cosine --nlist 6 -q -o pub");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  ASSERT_NE(Read("pub/manifest.json").find("\"metric\":\"cosine\""), std::string::npos);

  const std::string flags = "pub --queries queries.jsonl -k 5 --nprobe 1,6 --warmup 0 --json";
  CliRun given = Eval(flags + " --ground-truth truth.ivecs");
  ASSERT_EQ(given.exit_code, 0) << given.err;
  CliRun computed = Eval(flags + " --base base.jsonl");
  ASSERT_EQ(computed.exit_code, 0) << computed.err;
  EXPECT_EQ(Recalls(computed.out), Recalls(given.out));
  EXPECT_NE(Recalls(given.out).find("6:1.0\n"), std::string::npos) << given.out;  // every list probed
}

TEST_F(IndexEvalCliTest, TheBaseMustBeTheBuildsInput) {
  const Vectors base = RandomVectors(100, 4, 5);
  Write("base.fvecs", Fvecs(base));
  Write("short.fvecs", Fvecs(Vectors(base.begin(), base.begin() + 99)));
  Write("wide.fvecs", Fvecs(RandomVectors(100, 5, 5)));
  Write("q.fvecs", Fvecs(RandomVectors(3, 4, 6)));
  ASSERT_EQ(Vigilo("index build base.fvecs --nlist 4 -q -o pub").exit_code, 0);
  CliRun shorter = Eval("pub --queries q.fvecs --base short.fvecs --warmup 0");
  EXPECT_EQ(shorter.exit_code, kExitUsage);
  EXPECT_EQ(shorter.err,
            "vigilo: invalid_argument: short.fvecs: --base holds 99 vectors, the publication 100: it is not the "
            "build's input\n");
  CliRun wider = Eval("pub --queries q.fvecs --base wide.fvecs --warmup 0");
  EXPECT_EQ(wider.exit_code, kExitUsage);
  EXPECT_EQ(wider.err,
            "vigilo: invalid_argument: wide.fvecs: --base holds vectors of dimension 5, the publication 4\n");
  CliRun neither = Eval("pub --queries q.fvecs");
  EXPECT_EQ(neither.exit_code, kExitUsage);
  EXPECT_EQ(neither.err,
            "vigilo: invalid_argument: index eval: give --ground-truth FILE, or --base FILE to compute it from the "
            "build's input vectors\n");
  EXPECT_TRUE(Tree(Path("cache/vigilo/ground-truth")).empty());
}

// Issue 34 item 11: a user's own ids (strings here) cannot key a source
// table; the refusal names --id-column, which builds the working layout in
// one flag: keyed by row position, the ids returned with every hit, and
// ground truth in those ids evaluated as ground truth in row positions is.
TEST_F(IndexEvalCliTest, UsersOwnIdsAreOneFlagAwayAndEvalComparesByThem) {
  const Vectors base = RandomVectors(400, 6, 7), queries = RandomVectors(12, 6, 8);
  std::vector<std::string> ids;
  std::string jsonl, qjsonl;
  for (size_t i = 0; i < base.size(); ++i) {
    ids.push_back("case-" + std::to_string((i * 37) % base.size()));
    jsonl += "{\"id\":\"" + ids.back() + "\",\"emb\":[";
    for (size_t t = 0; t < base[i].size(); ++t) jsonl += (t ? "," : "") + FloatJson(base[i][t]);
    jsonl += "]}\n";
  }
  for (const auto& q : queries) {
    qjsonl += "[";
    for (size_t t = 0; t < q.size(); ++t) qjsonl += (t ? "," : "") + FloatJson(q[t]);
    qjsonl += "]\n";
  }
  Write("base.jsonl", jsonl);
  Write("queries.jsonl", qjsonl);
  std::vector<int64_t> rows(base.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int64_t>(i);
  const auto truth = BruteForce(base, rows, queries, 10, false);
  Write("truth.ivecs", Ivecs(truth));
  std::string truth_ids;
  for (const auto& row : truth) {
    truth_ids += "[";
    for (size_t j = 0; j < row.size(); ++j) truth_ids += (j ? ",\"" : "\"") + ids[static_cast<size_t>(row[j])] + "\"";
    truth_ids += "]\n";
  }
  Write("truth-ids.jsonl", truth_ids);

  CliRun refused = Vigilo("index build base.jsonl --key id --source --metric l2_squared --nlist 8 -q -o pub");
  EXPECT_EQ(refused.exit_code, kExitUsage);
  EXPECT_EQ(refused.err,
            "vigilo: invalid_argument: --source needs a long key dense from zero; the key \"id\" is string; to keep "
            "these ids, pass --id-column id instead of --key id: the publication is then keyed by row position "
            "(_row), and every hit returns \"id\"\n");
  EXPECT_FALSE(std::filesystem::exists(Path("pub")));

  CliRun built = Vigilo("index build base.jsonl --id-column id --metric l2_squared --nlist 8 -q --json -o pub");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_NE(built.out.find("\"id_column\":\"id\""), std::string::npos) << built.out;
  const std::string manifest = Read("pub/manifest.json");
  EXPECT_NE(manifest.find("\"source-key\":[{\"name\":\"_row\",\"type\":\"long\"}]"), std::string::npos);

  // Every hit carries the user's id of its row, without --columns.
  CliRun hits = Vigilo("index query pub --queries queries.jsonl -k 5 --nprobe 8 --json");
  ASSERT_EQ(hits.exit_code, 0) << hits.err;
  size_t lines = 0;
  for (size_t at = 0; (at = hits.out.find("{", at)) != std::string::npos; ++lines) {
    const std::string line = hits.out.substr(at, hits.out.find('\n', at) - at);
    const size_t row_at = line.find("\"_row\":") + 7;
    const size_t row = std::stoul(line.substr(row_at));
    EXPECT_NE(line.find("\"id\":\"" + ids[row] + "\""), std::string::npos) << line;
    at += line.size();
  }
  EXPECT_EQ(lines, queries.size() * 5);

  const std::string flags = "pub --queries queries.jsonl --nprobe 1,2,8 --warmup 0 --json";
  CliRun by_row = Eval(flags + " --ground-truth truth.ivecs");
  ASSERT_EQ(by_row.exit_code, 0) << by_row.err;
  CliRun by_id = Eval(flags + " --ground-truth truth-ids.jsonl --id-column id");
  ASSERT_EQ(by_id.exit_code, 0) << by_id.err;
  EXPECT_EQ(Recalls(by_id.out), Recalls(by_row.out));
  EXPECT_NE(Recalls(by_id.out).find("8:1.0\n"), std::string::npos) << by_id.out;  // every list probed
  CliRun computed = Eval(flags + " --base base.jsonl");
  ASSERT_EQ(computed.exit_code, 0) << computed.err;
  EXPECT_EQ(Recalls(computed.out), Recalls(by_row.out));
  // Ids without --id-column are not row positions: said, with the flag to use.
  CliRun plain = Eval(flags + " --ground-truth truth-ids.jsonl");
  EXPECT_EQ(plain.exit_code, 4);
  EXPECT_NE(plain.err.find("holds the string id \"" + ids[static_cast<size_t>(truth[0][0])] +
                           "\"; ids other than row positions are compared by the source column that holds them "
                           "(--id-column)"),
            std::string::npos)
      << plain.err;
}

}  // namespace
