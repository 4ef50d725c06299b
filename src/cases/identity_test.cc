#include "vigilo/cases/identity.h"

#include <gtest/gtest.h>

#include "vigilo/hash/blake3.h"
#include "vigilo/json/canonical.h"
#include "vigilo/json/parse.h"

namespace vigilo::cases {
namespace {

json::Value J(std::string_view text) { return *json::Parse(text); }

// Runs the builder over a whole parsed dataset document.
Result<DatasetIdentity> IdentityOf(std::string_view document) {
  json::Value doc = J(document);
  json::Object fields = doc.as_object();
  bool present = fields.Erase("cases");
  VIGILO_ASSIGN_OR_RETURN(DatasetIdentityBuilder builder, DatasetIdentityBuilder::Start(fields, present));
  if (present) {
    for (const json::Value& c : doc.as_object().Find("cases")->as_array()) {
      VIGILO_RETURN_IF_ERROR(builder.AddCase(c).status());
    }
  }
  return builder.Finish();
}

constexpr std::string_view kCaseA = R"({"id":"3f2b8c1e-6a4d-4e0f-9b7a-1c2d3e4f5a6b","input":{"prompt":"a"}})";
constexpr std::string_view kCaseB = R"({"id":"0b6e4a2c-9d8f-4c1b-8e3a-5f6a7b8c9d0e","input":{"prompt":"b"}})";

std::string Doc(std::string_view fields, std::string_view cases) {
  return "{" + std::string(fields) + ",\"cases\":[" + std::string(cases) + "]}";
}

TEST(DatasetIdentityTest, DatasetHashIsBlake3OfTheCanonicalDocument) {
  // Fields sorting before ("a_note", "Z") and after ("dataset_id") "cases", nested unsorted keys.
  for (std::string doc : {
           Doc(R"("dataset_id":"geo","a_note":{"z":1,"b":[2.50,true]},"Z":null,"dataset_version":"v1")",
               std::string(kCaseA) + "," + std::string(kCaseB)),
           Doc(R"("dataset_id":"geo")", ""),
           std::string(R"({"dataset_id":"geo","zeta":"no cases key"})"),
       }) {
    auto identity = IdentityOf(doc);
    ASSERT_TRUE(identity.ok()) << identity.status().ToString();
    EXPECT_EQ(identity->dataset_hash, Blake3Hex(*json::Canonicalize(doc))) << doc;
  }
}

TEST(DatasetIdentityTest, VersionUuidTracksMembershipAndDatasetId) {
  std::string ab = std::string(kCaseA) + "," + std::string(kCaseB);
  std::string ba = std::string(kCaseB) + "," + std::string(kCaseA);
  auto base = IdentityOf(Doc(R"("dataset_id":"geo","dataset_version":"v1")", ab));
  ASSERT_TRUE(base.ok());
  EXPECT_EQ(base->case_count, 2u);
  EXPECT_EQ(base->dataset_version_id.version(), 8);
  EXPECT_TRUE(base->dataset_version_id.is_rfc_variant());
  // The label and extra metadata do not change membership...
  EXPECT_EQ(IdentityOf(Doc(R"("dataset_id":"geo","dataset_version":"v2","owner":"me")", ab))->dataset_version_id,
            base->dataset_version_id);
  // ...but order, the dataset id and the cases do.
  EXPECT_NE(IdentityOf(Doc(R"("dataset_id":"geo","dataset_version":"v1")", ba))->dataset_version_id,
            base->dataset_version_id);
  EXPECT_NE(IdentityOf(Doc(R"("dataset_id":"geo2","dataset_version":"v1")", ab))->dataset_version_id,
            base->dataset_version_id);
  EXPECT_NE(IdentityOf(Doc(R"("dataset_id":"geo","dataset_version":"v1")", kCaseA))->dataset_version_id,
            base->dataset_version_id);
  // Metadata inside a case changes the dataset hash but not the version identity.
  std::string a_meta =
      R"({"id":"3f2b8c1e-6a4d-4e0f-9b7a-1c2d3e4f5a6b","input":{"prompt":"a"},"metadata":{"k":1}})";
  auto meta = IdentityOf(Doc(R"("dataset_id":"geo","dataset_version":"v1")", a_meta + "," + std::string(kCaseB)));
  EXPECT_EQ(meta->dataset_version_id, base->dataset_version_id);
  EXPECT_NE(meta->dataset_hash, base->dataset_hash);
}

TEST(DatasetIdentityTest, RejectsInvalidTopLevelShapes) {
  EXPECT_EQ(IdentityOf(R"({"cases":[]})").status().path(), "$.dataset_id");
  EXPECT_EQ(IdentityOf(R"({"dataset_id":5})").status().path(), "$.dataset_id");
  EXPECT_EQ(IdentityOf(R"({"dataset_id":"a/b"})").status().path(), "$.dataset_id");
  EXPECT_EQ(IdentityOf(R"({"dataset_id":".hidden"})").status().path(), "$.dataset_id");
  EXPECT_EQ(IdentityOf(R"({"dataset_id":"geo","dataset_version":3})").status().path(), "$.dataset_version");
  EXPECT_TRUE(IdentityOf(R"({"dataset_id":"geo","dataset_version":null})").ok());
  auto bad_case = IdentityOf(Doc(R"("dataset_id":"geo")", std::string(kCaseA) + R"(,{"id":"x","input":{"prompt":"p"}})"));
  EXPECT_EQ(bad_case.status().path(), "$.cases[1].id");
  json::Object fields = J(R"({"dataset_id":"geo"})").as_object();
  auto builder = DatasetIdentityBuilder::Start(fields, false);
  ASSERT_TRUE(builder.ok());
  EXPECT_EQ(builder->AddCase(J(kCaseA)).status().code(), StatusCode::kInvalidArgument);
}

TEST(ProjectionHasherTest, OrderCountAndContentMatter) {
  Uuid a = *Uuid::Parse("3f2b8c1e-6a4d-4e0f-9b7a-1c2d3e4f5a6b");
  Uuid b = *Uuid::Parse("0b6e4a2c-9d8f-4c1b-8e3a-5f6a7b8c9d0e");
  CaseHash h{};
  ProjectionHasher one, two, swapped, shifted;
  one.Update(0, a, h);
  two.Update(0, a, h);
  two.Update(1, b, h);
  swapped.Update(0, b, h);
  swapped.Update(1, a, h);
  shifted.Update(1, a, h);
  EXPECT_NE(one.Finish(), two.Finish());
  EXPECT_NE(two.Finish(), swapped.Finish());
  EXPECT_NE(one.Finish(), shifted.Finish());
  EXPECT_NE(ProjectionHasher().Finish(), one.Finish());
  EXPECT_EQ(one.Finish(), one.Finish());  // Finish does not consume
}

}  // namespace
}  // namespace vigilo::cases
