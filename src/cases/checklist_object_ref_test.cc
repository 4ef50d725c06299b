// Rule checklist (docs/format/case-storage-checklist.md), "Object reference"
// and "Encoding": negative tests for rules the library enforces that the
// other test files did not check with a code, path and message.
#include <gtest/gtest.h>

#include <string>

#include "vigilo/cases/dataset.h"
#include "vigilo/cases/document.h"
#include "vigilo/cases/object_ref.h"
#include "vigilo/json/parse.h"

namespace vigilo::cases {
namespace {

::testing::AssertionResult Fails(const Status& s, StatusCode code, std::string_view path, std::string_view fragment) {
  if (s.ok()) return ::testing::AssertionFailure() << "expected " << StatusCodeName(code) << ", got ok";
  if (s.code() != code || s.path() != path || s.message().find(fragment) == std::string_view::npos) {
    return ::testing::AssertionFailure() << "expected " << StatusCodeName(code) << " at \"" << path << "\" with \""
                                         << fragment << "\", got " << s.ToString() << " (path \"" << s.path()
                                         << "\")";
  }
  return ::testing::AssertionSuccess();
}

ObjectRef Sample() {
  return ObjectRef::ForBytes("primary", "datasets/geo/attempts/x/g1/source-fields.json",
                             StorageFormat::kDatasetSourceFields, "hello\n");
}

Status DecodeWith(const std::string& field, json::Value value) {
  json::Value v = Sample().ToJson();
  v.as_object().Set(field, std::move(value));
  return ObjectRef::FromJson(v, "$.ref").status();
}

// V-REF-02: key rules (seed: "No empty, . or .. segments, backslashes, control
// characters, colon, query, or fragment delimiters", "at most 1,024 UTF-8 bytes").
TEST(ChecklistObjectRefTest, EveryKeyRuleIsEnforcedInTheReference) {
  const std::string p = "$.ref.key";
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("")), StatusCode::kInvalidFormat, p, "logical key is empty"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("a//b")), StatusCode::kInvalidFormat, p, "empty segment"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("/a")), StatusCode::kInvalidFormat, p, "empty segment"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("a/")), StatusCode::kInvalidFormat, p, "empty segment"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("./a")), StatusCode::kInvalidFormat, p, "'.' segment"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("a/..")), StatusCode::kInvalidFormat, p, "'..' segment"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("a\\b")), StatusCode::kInvalidFormat, p, "backslash"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("a\x01" "b")), StatusCode::kInvalidFormat, p, "control character"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("a\x7f")), StatusCode::kInvalidFormat, p, "control character"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("a?b")), StatusCode::kInvalidFormat, p, "query delimiter"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("a#b")), StatusCode::kInvalidFormat, p, "fragment delimiter"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("c:/x")), StatusCode::kInvalidFormat, p, "colon"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value("a\xff")), StatusCode::kInvalidFormat, p, "not valid UTF-8"));
  std::string two_byte;
  for (int i = 0; i < 512; ++i) two_byte += "\xc3\xa9";  // 1,024 bytes
  EXPECT_TRUE(DecodeWith("key", json::Value(two_byte)).ok());
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value(two_byte + "x")), StatusCode::kInvalidFormat, p, "1025 bytes"));
  EXPECT_TRUE(Fails(DecodeWith("key", json::Value::Int(1)), StatusCode::kInvalidFormat, p, "expected a string"));
}

// V-REF-01: "1–128 ASCII letters, digits, underscores, or hyphens".
TEST(ChecklistObjectRefTest, StorageAliasIsAsciiOnly) {
  const std::string p = "$.ref.storage_alias";
  EXPECT_TRUE(Fails(DecodeWith("storage_alias", json::Value("")), StatusCode::kInvalidFormat, p, "1-128"));
  EXPECT_TRUE(Fails(DecodeWith("storage_alias", json::Value("primary.store")), StatusCode::kInvalidFormat, p,
                    "only ASCII letters"));
  EXPECT_TRUE(Fails(DecodeWith("storage_alias", json::Value("s3://bucket")), StatusCode::kInvalidFormat, p,
                    "only ASCII letters"));
  EXPECT_TRUE(Fails(DecodeWith("storage_alias", json::Value("caf\xc3\xa9")), StatusCode::kInvalidFormat, p,
                    "only ASCII letters"));
  EXPECT_TRUE(DecodeWith("storage_alias", json::Value(std::string(128, 'a'))).ok());
  EXPECT_TRUE(DecodeWith("storage_alias", json::Value("A-z_0")).ok());
}

// V-REF-03: schema is "one of the encoding identifiers"; the identity scheme is not one.
TEST(ChecklistObjectRefTest, SchemaMustBeAStorageFormat) {
  EXPECT_TRUE(Fails(DecodeWith("schema", json::Value("vigilo/dataset-json/v1")), StatusCode::kInvalidFormat,
                    "$.ref.schema", "unknown schema identifier"));
  EXPECT_TRUE(Fails(DecodeWith("schema", json::Value::Int(1)), StatusCode::kInvalidFormat, "$.ref.schema",
                    "expected a string"));
  EXPECT_TRUE(Fails(DecodeWith("hash_scheme", json::Value("BLAKE3-256")), StatusCode::kInvalidFormat,
                    "$.ref.hash_scheme", "blake3-256"));
}

// V-REF-07: revision "without control characters" (C1 included) and valid UTF-8.
TEST(ChecklistObjectRefTest, RevisionIsUtf8WithoutControls) {
  EXPECT_TRUE(Fails(DecodeWith("revision", json::Value("\xff")), StatusCode::kInvalidFormat, "$.ref.revision",
                    "not valid UTF-8"));
  EXPECT_TRUE(Fails(DecodeWith("revision", json::Value("a\xc2\x85")), StatusCode::kInvalidFormat, "$.ref.revision",
                    "control character"));
  EXPECT_TRUE(DecodeWith("revision", json::Value("etag-\xc3\xa9")).ok());
}

// V-REF-08: ObjectRef::verify checks reference limits before the bytes, then
// the exact size, then the digest; errors name the key.
TEST(ChecklistObjectRefTest, VerifyRefusesTheBudgetBeforeLookingAtTheBytes) {
  ObjectRef ref = Sample();
  // Wrong bytes and an exceeded budget: the budget is reported, not the bytes.
  EXPECT_TRUE(Fails(ref.Verify("", 5).status(), StatusCode::kLimitExceeded, ref.key,
                    "the limit for vigilo/dataset-source-fields/v1 is 5"));
  EXPECT_TRUE(Fails(ref.Verify("hello", 6).status(), StatusCode::kIntegrityError, ref.key,
                    "5 bytes; the reference says 6"));
  EXPECT_TRUE(Fails(ref.Verify("hellO\n", 6).status(), StatusCode::kIntegrityError, ref.key, "does not match"));
  ObjectRef bad = ref;
  bad.digest = std::string(64, 'A');
  EXPECT_TRUE(Fails(bad.Verify("hello\n", 6).status(), StatusCode::kInvalidFormat, ".digest", "lowercase hex"));
  EXPECT_TRUE(ref.Verify("hello\n", 6).ok());
}

// V-ENC-01..05 on a dataset-half format (the run formats have their own tests):
// readers require the compact canonical bytes and reject duplicate keys,
// malformed UTF-8, a BOM, and a reference that names another schema.
Status DecodeSourceFields(const std::string& bytes, StorageFormat ref_schema = StorageFormat::kDatasetSourceFields) {
  auto object = ObjectRef::ForBytes("mem", "sf.json", ref_schema, bytes).Verify(bytes, 1 << 20);
  if (!object.ok()) return object.status();
  return DatasetSourceFields::Decode(*object).status();
}

TEST(ChecklistEncodingTest, MetadataReadersRequireCanonicalBytes) {
  const std::string good =
      R"({"cases_present":true,"fields":{"dataset_id":"geo"},"schema":"vigilo/dataset-source-fields/v1"})";
  ASSERT_TRUE(DecodeSourceFields(good).ok()) << DecodeSourceFields(good).ToString();
  // No trailing LF, leading whitespace, inner whitespace, key order, a needless escape.
  EXPECT_TRUE(Fails(DecodeSourceFields(good + "\n"), StatusCode::kNotCanonical, "sf.json",
                    "not the canonical JSON form; the canonical form ends here"));
  EXPECT_TRUE(Fails(DecodeSourceFields(" " + good), StatusCode::kNotCanonical, "sf.json",
                    "found byte 0x20 where the canonical form has '{'"));
  EXPECT_TRUE(Fails(DecodeSourceFields(R"({"cases_present": true,"fields":{"dataset_id":"geo"},"schema":"vigilo/dataset-source-fields/v1"})"),
                    StatusCode::kNotCanonical, "sf.json", "found byte 0x20 where the canonical form has 't'"));
  EXPECT_TRUE(Fails(DecodeSourceFields(R"({"fields":{"dataset_id":"geo"},"cases_present":true,"schema":"vigilo/dataset-source-fields/v1"})"),
                    StatusCode::kNotCanonical, "sf.json", "found 'f' where the canonical form has 'c'"));
  EXPECT_TRUE(Fails(DecodeSourceFields(R"({"cases_present":true,"fields":{"dataset_id":"g\u0065o"},"schema":"vigilo/dataset-source-fields/v1"})"),
                    StatusCode::kNotCanonical, "sf.json", "found '\\' where the canonical form has 'e'"));
  Status bom = DecodeSourceFields("\xef\xbb\xbf" + good);
  EXPECT_TRUE(Fails(bom, StatusCode::kParseError, "sf.json", "byte order mark"));
  Status dup = DecodeSourceFields(
      R"({"cases_present":true,"cases_present":true,"fields":{"dataset_id":"geo"},"schema":"vigilo/dataset-source-fields/v1"})");
  EXPECT_TRUE(Fails(dup, StatusCode::kParseError, "sf.json", "duplicate"));
  Status utf8 = DecodeSourceFields(
      "{\"cases_present\":true,\"fields\":{\"dataset_id\":\"geo\",\"note\":\"\xc3\"},\"schema\":\"vigilo/"
      "dataset-source-fields/v1\"}");
  EXPECT_TRUE(Fails(utf8, StatusCode::kParseError, "sf.json", "UTF-8"));
  EXPECT_TRUE(Fails(DecodeSourceFields(good, StorageFormat::kDatasetManifest), StatusCode::kInvalidFormat, "sf.json",
                    "the reference names schema"));
  EXPECT_TRUE(Fails(DecodeSourceFields("[]"), StatusCode::kInvalidFormat, "$", "expected an object"));
  EXPECT_TRUE(Fails(DecodeSourceFields(R"({"cases_present":true,"fields":{"dataset_id":"geo"}})"),
                    StatusCode::kInvalidFormat, "$.schema", "missing required field"));
}

}  // namespace
}  // namespace vigilo::cases
