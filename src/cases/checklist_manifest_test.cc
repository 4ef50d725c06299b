// Rule checklist (docs/format/case-storage-checklist.md), "Source fields" and
// "Dataset manifest": strict decoding of both dataset-level objects.
#include <gtest/gtest.h>

#include <string>

#include "runs_test_support.h"
#include "vigilo/cases/dataset.h"
#include "vigilo/cases/dataset_stream.h"
#include "vigilo/common/byte_source.h"

namespace vigilo::cases {
namespace {

using runs_test::Canon;
using runs_test::IsError;
using runs_test::J;
using runs_test::With;

::testing::AssertionResult Fails(const Status& s, StatusCode code, std::string_view path, std::string_view fragment) {
  ::testing::AssertionResult r = IsError(s, code, path);
  if (!r) return r;
  if (s.message().find(fragment) == std::string_view::npos) {
    return ::testing::AssertionFailure() << "message lacks \"" << fragment << "\": " << s.ToString();
  }
  return ::testing::AssertionSuccess();
}

// ---- Source fields: vigilo/dataset-source-fields/v1 ----

json::Value SourceFieldsJson() {
  return J(R"({"cases_present":true,"fields":{"dataset_id":"geo","dataset_version":"v1","owner":{"b":1,"a":[3,null]}},"schema":"vigilo/dataset-source-fields/v1"})");
}
Status SourceFieldsStatus(const json::Value& v) { return DatasetSourceFields::FromJson(v).status(); }

// V-SF-01: "exactly schema, cases_present, and fields".
TEST(ChecklistSourceFieldsTest, RequiresExactlyItsThreeFields) {
  ASSERT_TRUE(SourceFieldsStatus(SourceFieldsJson()).ok());
  for (std::string_view f : {"schema", "cases_present", "fields"}) {
    EXPECT_TRUE(Fails(SourceFieldsStatus(With(SourceFieldsJson(), f, std::nullopt)), StatusCode::kInvalidFormat,
                      "$." + std::string(f), "missing required field"));
  }
  EXPECT_TRUE(Fails(SourceFieldsStatus(With(SourceFieldsJson(), "cases", J("[]"))), StatusCode::kInvalidFormat,
                    "$.cases", "unexpected field"));
  EXPECT_TRUE(Fails(SourceFieldsStatus(With(SourceFieldsJson(), "cases_present", json::Value("yes"))),
                    StatusCode::kInvalidFormat, "$.cases_present", "expected a boolean"));
  EXPECT_TRUE(Fails(SourceFieldsStatus(With(SourceFieldsJson(), "fields", J("[]"))), StatusCode::kInvalidFormat,
                    "$.fields", "expected an object"));
  EXPECT_TRUE(Fails(SourceFieldsStatus(With(SourceFieldsJson(), "schema", json::Value("vigilo/dataset-source-fields/v2"))),
                    StatusCode::kInvalidFormat, "$.schema", "unknown schema identifier"));
  EXPECT_TRUE(Fails(SourceFieldsStatus(With(SourceFieldsJson(), "schema", json::Value("vigilo/dataset-manifest/v1"))),
                    StatusCode::kInvalidFormat, "$.schema", "expected schema"));
}

// V-SF-02: fields hold every top-level field "except cases"; dataset_id valid;
// dataset_version a string or null. Arbitrary other fields are kept as submitted.
TEST(ChecklistSourceFieldsTest, FieldsAreTheDocumentWithoutCases) {
  EXPECT_TRUE(Fails(SourceFieldsStatus(With(SourceFieldsJson(), "fields.cases", J("[]"))), StatusCode::kInvalidFormat,
                    "$.fields.cases", "must not contain cases"));
  EXPECT_TRUE(Fails(SourceFieldsStatus(With(SourceFieldsJson(), "fields.dataset_id", std::nullopt)),
                    StatusCode::kInvalidFormat, "$.fields.dataset_id", "missing required field"));
  EXPECT_TRUE(Fails(SourceFieldsStatus(With(SourceFieldsJson(), "fields.dataset_id", json::Value::Int(1))),
                    StatusCode::kInvalidFormat, "$.fields.dataset_id", "must be a string"));
  EXPECT_TRUE(Fails(SourceFieldsStatus(With(SourceFieldsJson(), "fields.dataset_id", json::Value(".hidden"))),
                    StatusCode::kInvalidFormat, "$.fields.dataset_id", "must not start with '.'"));
  EXPECT_TRUE(Fails(SourceFieldsStatus(With(SourceFieldsJson(), "fields.dataset_version", json::Value::Int(3))),
                    StatusCode::kInvalidFormat, "$.fields.dataset_version", "string or null"));
  EXPECT_TRUE(SourceFieldsStatus(With(SourceFieldsJson(), "fields.dataset_version", json::Value())).ok());
  EXPECT_TRUE(SourceFieldsStatus(With(SourceFieldsJson(), "fields.dataset_version", std::nullopt)).ok());
  // Presence and user metadata are retained exactly.
  auto sf = DatasetSourceFields::FromDocument(J(R"({"dataset_id":"geo","z":null,"owner":{"b":1,"a":[3,null]},"cases":[]})"));
  ASSERT_TRUE(sf.ok()) << sf.status().ToString();
  EXPECT_TRUE(sf->cases_present);
  EXPECT_EQ(Canon(sf->ToJson()),
            R"({"cases_present":true,"fields":{"dataset_id":"geo","owner":{"a":[3,null],"b":1},"z":null},"schema":"vigilo/dataset-source-fields/v1"})");
  auto absent = DatasetSourceFields::FromDocument(J(R"({"dataset_id":"geo"})"));
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->cases_present);
}

// V-SF-03: "Reject invalid top-level shapes" (the submitted document).
TEST(ChecklistSourceFieldsTest, RejectsInvalidTopLevelShapes) {
  EXPECT_TRUE(Fails(DatasetSourceFields::FromDocument(J("[1]")).status(), StatusCode::kInvalidFormat, "$",
                    "must be a JSON object"));
  EXPECT_TRUE(Fails(DatasetSourceFields::FromDocument(J(R"({"dataset_id":"geo","cases":{}})")).status(),
                    StatusCode::kInvalidFormat, "$.cases", "cases must be an array"));
  // The streaming reader of a submitted document applies the same rules.
  auto streamed = [](std::string_view text) {
    StringByteSource source(text);
    return ReadDatasetSourceFields(source).status();
  };
  EXPECT_TRUE(Fails(streamed("[1]"), StatusCode::kInvalidFormat, "$", "must be a JSON object"));
  EXPECT_TRUE(Fails(streamed(R"({"dataset_id":"geo","cases":{}})"), StatusCode::kInvalidFormat, "$.cases",
                    "cases must be an array"));
  EXPECT_TRUE(Fails(streamed(R"({"cases":[]})"), StatusCode::kInvalidFormat, "$.fields.dataset_id",
                    "missing required field"));
  EXPECT_TRUE(Fails(streamed(R"({"dataset_id":"geo","dataset_id":"geo"})"), StatusCode::kParseError, "",
                    "duplicate object key \"dataset_id\""));  // pass one names the byte, not a path
  EXPECT_TRUE(streamed(R"({"dataset_id":"geo","cases":[{"x":1}],"owner":"me"})").ok());
}

// ---- Dataset manifest: vigilo/dataset-manifest/v1 ----

DatasetManifest SampleManifest() {
  DatasetManifest m;
  m.dataset_id = "geo";
  m.dataset_version = "v1";
  m.dataset_version_id = *Uuid::Parse("0f4b2c1a-9e8d-8c7b-a6f5-e4d3c2b1a090");
  m.dataset_hash = std::string(64, 'a');
  m.case_count = 10;
  m.batch_limits = BatchLimits{100, 8u << 20};
  m.source_fields = ObjectRef::ForBytes("mem", "datasets/geo/attempts/a/g1/source-fields.json",
                                        StorageFormat::kDatasetSourceFields, "sf");
  m.batches = IndexRootDescriptor{0, 0, 10,
                                  ObjectRef::ForBytes("mem", "datasets/geo/attempts/a/g1/index/L0/p.json",
                                                      StorageFormat::kOrdinalIndex, "page")};
  return m;
}
json::Value ManifestJson() { return SampleManifest().ToJson(); }
Status ManifestStatus(const json::Value& v) { return DatasetManifest::FromJson(v).status(); }

TEST(ChecklistDatasetManifestTest, SampleRoundTripsCanonically) {
  std::string bytes = *SampleManifest().Encode();
  auto back = DatasetManifest::Decode(runs_test::Verified(bytes, StorageFormat::kDatasetManifest, "m.json"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back->Encode(), bytes);
}

// V-DM-01: "The root is a small JSON object with exactly" ten fields; it
// "does not embed case lists, batch lists, or upload progress".
TEST(ChecklistDatasetManifestTest, RequiresExactlyTheTenFields) {
  for (std::string_view f : {"schema", "dataset_id", "dataset_version", "dataset_version_id", "dataset_hash",
                             "identity_scheme", "case_count", "batch_limits", "source_fields", "batches"}) {
    EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), f, std::nullopt)), StatusCode::kInvalidFormat,
                      "$." + std::string(f), "missing required field"));
  }
  for (std::string_view f : {"cases", "batch_list", "upload_progress"}) {
    EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), f, J("[]"))), StatusCode::kInvalidFormat,
                      "$." + std::string(f), "unexpected field"));
  }
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "schema", json::Value("vigilo/dataset-manifest/v2"))),
                    StatusCode::kInvalidFormat, "$.schema", "unknown schema identifier"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "schema", json::Value("vigilo/run-plan-manifest/v1"))),
                    StatusCode::kInvalidFormat, "$.schema", "expected schema"));
  // Decode names the object key in front of the JSON path.
  std::string bad = Canon(With(ManifestJson(), "upload_progress", J("{}")));
  EXPECT_TRUE(Fails(DatasetManifest::Decode(runs_test::Verified(bad, StorageFormat::kDatasetManifest, "m.json")).status(),
                    StatusCode::kInvalidFormat, "m.json: $.upload_progress", "unexpected field"));
}

// V-DM-02: identity fields: dataset_id, dataset_version "string or null",
// dataset_version_id a UUID, dataset_hash 64 hex, identity_scheme vigilo/dataset-json/v1.
TEST(ChecklistDatasetManifestTest, IdentityFieldsHaveTheirForms) {
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "dataset_id", json::Value("a/b"))), StatusCode::kInvalidFormat,
                    "$.dataset_id", "dataset_id may contain only"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "dataset_version", json::Value::Int(5))),
                    StatusCode::kInvalidFormat, "$.dataset_version", "string or null"));
  EXPECT_TRUE(ManifestStatus(With(ManifestJson(), "dataset_version", json::Value())).ok());
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "dataset_version_id", json::Value("v1"))),
                    StatusCode::kInvalidFormat, "$.dataset_version_id", "UUID"));
  EXPECT_EQ(ManifestStatus(With(ManifestJson(), "dataset_version_id", json::Value("00000000-0000-0000-0000-000000000000")))
                .path(),
            "$.dataset_version_id");
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "dataset_hash", json::Value(std::string(64, 'A')))),
                    StatusCode::kInvalidFormat, "$.dataset_hash", "64 lowercase hex"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "dataset_hash", json::Value(std::string(63, 'a')))),
                    StatusCode::kInvalidFormat, "$.dataset_hash", "64 lowercase hex"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "identity_scheme", json::Value("vigilo/dataset-json/v2"))),
                    StatusCode::kInvalidFormat, "$.identity_scheme", "vigilo/dataset-json/v1"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "identity_scheme", json::Value("blake3-256"))),
                    StatusCode::kInvalidFormat, "$.identity_scheme", "vigilo/dataset-json/v1"));
}

// V-DM-03 / V-INT-01: case_count positive ("runs require a nonempty dataset")
// and "case_count <= 2,147,483,647".
TEST(ChecklistDatasetManifestTest, CaseCountIsPositiveInt32) {
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "case_count", json::Value::Int(0))), StatusCode::kOutOfRange,
                    "$.case_count", "out of range"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "case_count", json::Value::Int(-1))), StatusCode::kOutOfRange,
                    "$.case_count", "out of range"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "case_count", json::Value::Int(2147483648))),
                    StatusCode::kOutOfRange, "$.case_count", "2147483647"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "case_count", json::Value::Double(10.0))),
                    StatusCode::kInvalidFormat, "$.case_count", "expected an integer"));
  DatasetManifest m = SampleManifest();
  m.case_count = 0;
  EXPECT_TRUE(Fails(m.Validate(), StatusCode::kOutOfRange, "$.case_count", "at least one case"));
  // The largest representable dataset.
  json::Value top = With(With(ManifestJson(), "case_count", json::Value::Int(2147483647)), "batches.range_end",
                         json::Value::Int(2147483647));
  EXPECT_TRUE(ManifestStatus(top).ok()) << ManifestStatus(top).ToString();
}

// V-DM-04: batch_limits "containing exactly max_cases and max_bytes", within
// the override ceilings (1–65,536 cases, 256 bytes–64 MiB).
TEST(ChecklistDatasetManifestTest, BatchLimitsAreExactAndWithinTheCeilings) {
  const std::string p = "batch_limits.";
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), p + "max_bytes", std::nullopt)), StatusCode::kInvalidFormat,
                    "$.batch_limits.max_bytes", "missing required field"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), p + "max_records", json::Value::Int(1))),
                    StatusCode::kInvalidFormat, "$.batch_limits.max_records", "unexpected field"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), p + "max_cases", json::Value::Int(0))), StatusCode::kOutOfRange,
                    "$.batch_limits.max_cases", "out of range"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), p + "max_cases", json::Value::Int(65537))),
                    StatusCode::kOutOfRange, "$.batch_limits.max_cases", "1-65,536"));
  EXPECT_TRUE(ManifestStatus(With(ManifestJson(), p + "max_cases", json::Value::Int(65536))).ok());
  EXPECT_TRUE(ManifestStatus(With(ManifestJson(), p + "max_cases", json::Value::Int(1))).ok());
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), p + "max_bytes", json::Value::Int(255))),
                    StatusCode::kOutOfRange, "$.batch_limits.max_bytes", "256 bytes-64 MiB"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), p + "max_bytes", json::Value::Int((64 << 20) + 1))),
                    StatusCode::kOutOfRange, "$.batch_limits.max_bytes", "256 bytes-64 MiB"));
  EXPECT_TRUE(ManifestStatus(With(ManifestJson(), p + "max_bytes", json::Value::Int(256))).ok());
  EXPECT_TRUE(ManifestStatus(With(ManifestJson(), p + "max_bytes", json::Value::Int(64 << 20))).ok());
  EXPECT_TRUE(Fails(ValidateBatchLimits(BatchLimits{0, 1024}), StatusCode::kOutOfRange, ".max_cases", "1-65,536"));
}

// V-DM-05: source_fields is an object reference to the source-fields format;
// batches is a root index descriptor covering exactly [0, case_count).
TEST(ChecklistDatasetManifestTest, ReferencesAndTheBatchIndexDescriptor) {
  json::Value batch_ref =
      ObjectRef::ForBytes("mem", "datasets/geo/b.jsonl", StorageFormat::kCaseBatch, "b").ToJson();
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "source_fields", batch_ref)), StatusCode::kInvalidFormat,
                    "$.source_fields.schema", "vigilo/dataset-source-fields/v1"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "source_fields.bucket", json::Value("b"))),
                    StatusCode::kInvalidFormat, "$.source_fields.bucket", "unexpected field"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "batches.object", batch_ref)), StatusCode::kInvalidFormat,
                    "$.batches.object.schema", "vigilo/ordinal-index/v1"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "batches.range_end", json::Value::Int(9))),
                    StatusCode::kInvalidFormat, "$.batches", "exactly [0, case_count)"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "batches.range_start", json::Value::Int(1))),
                    StatusCode::kInvalidFormat, "$.batches", "exactly [0, case_count)"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "batches.level", json::Value::Int(8))),
                    StatusCode::kLimitExceeded, "$.batches.level", "height limit of 8"));
  EXPECT_TRUE(ManifestStatus(With(ManifestJson(), "batches.level", json::Value::Int(7))).ok());
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "batches.kind", json::Value("dataset-batches"))),
                    StatusCode::kInvalidFormat, "$.batches.kind", "unexpected field"));
  EXPECT_TRUE(Fails(ManifestStatus(With(ManifestJson(), "batches.entries", J("[]"))), StatusCode::kInvalidFormat,
                    "$.batches.entries", "unexpected field"));
}

}  // namespace
}  // namespace vigilo::cases
