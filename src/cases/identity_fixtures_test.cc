// The library against tests/fixtures/identity/: expected.json there is derived
// independently (derive.pl: serde_json oracle + b3sum), and normalized/<i>.json
// is handwritten, so a change to any identity algorithm fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "vigilo/cases/dataset_stream.h"
#include "vigilo/cases/identity.h"
#include "vigilo/cases/run_chunks.h"
#include "vigilo/cases/typed_case.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/common/hex.h"
#include "vigilo/json/parse.h"

namespace vigilo::cases {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(VIGILO_SOURCE_DIR) / "tests/fixtures/identity";

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> FixtureNames() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kFixtures)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class IdentityFixtureTest : public testing::TestWithParam<std::string> {};

TEST_P(IdentityFixtureTest, LibraryMatchesTheIndependentDerivation) {
  const fs::path dir = kFixtures / GetParam();
  auto expected = json::Parse(Slurp(dir / "expected.json"));
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  const json::Object& want = expected->as_object();

  // The streaming path the CLI uses.
  auto identity = ComputeDatasetIdentity((dir / "dataset.json").string());
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(identity->dataset_hash, want.Find("dataset_hash")->as_string());
  EXPECT_EQ(identity->dataset_version_id.ToString(), want.Find("dataset_version_id")->as_string());
  EXPECT_EQ(identity->case_count, *want.Find("case_count")->as_number().AsUint64());

  // Per case: the normalized preimage and its hash; then the projection.
  const json::Array& hashes = want.Find("case_hashes")->as_array();
  const json::Object& projection = want.Find("projection")->as_object();
  const auto first_ordinal = static_cast<int32_t>(*projection.Find("ordinal_start")->as_number().AsUint64());
  std::vector<ProjectedCase> projected;
  auto source = FileByteSource::Open((dir / "dataset.json").string());
  ASSERT_TRUE(source.ok());
  Status walked = ForEachDatasetCase(**source, {}, [&](const json::Value& c) -> Status {
    const size_t i = projected.size();
    VIGILO_ASSIGN_OR_RETURN(TypedCase typed, ValidateCase(c));
    EXPECT_EQ(NormalizedCaseJson(typed), Slurp(dir / "normalized" / (std::to_string(i) + ".json"))) << i;
    CaseHash hash = NormalizedCaseHash(typed);
    EXPECT_LT(i, hashes.size());
    if (i < hashes.size()) {
      EXPECT_EQ(HexEncode(hash), hashes[i].as_string()) << i;
    }
    ProjectedCase p;
    p.case_ordinal = first_ordinal + static_cast<int32_t>(i);
    p.id = typed.id;
    p.case_hash = hash;
    projected.push_back(p);
    return Status::Ok();
  });
  ASSERT_TRUE(walked.ok()) << walked.ToString();
  EXPECT_EQ(projected.size(), hashes.size());
  if (!projected.empty()) {
    auto projection_hash = ComputeCaseProjectionHash(projected);
    ASSERT_TRUE(projection_hash.ok()) << projection_hash.status().ToString();
    EXPECT_EQ(*projection_hash, projection.Find("hash")->as_string());
  } else {
    ProjectionHasher empty;
    EXPECT_EQ(HexEncode(empty.Finish()), projection.Find("hash")->as_string());
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, IdentityFixtureTest, testing::ValuesIn(FixtureNames()),
                         [](const testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(IdentityFixtureSetTest, CoversTheCasesThatMatter) {
  // Guards against a fixture folder being dropped unnoticed.
  EXPECT_EQ(FixtureNames(), (std::vector<std::string>{"empty-array", "empty-no-cases", "escapes-floats", "minimal",
                                                      "mixed", "small-dataset"}));
}

}  // namespace
}  // namespace vigilo::cases
