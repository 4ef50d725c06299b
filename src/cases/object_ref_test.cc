#include "vigilo/cases/object_ref.h"

#include <gtest/gtest.h>

#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::cases {
namespace {

ObjectRef Sample() {
  return ObjectRef::ForBytes("primary", "datasets/geo/batches/0000000000-0000000002.jsonl", StorageFormat::kCaseBatch,
                             "hello\n");
}

TEST(ObjectRefTest, JsonRoundTripIsCanonicalAndExact) {
  ObjectRef ref = Sample();
  EXPECT_EQ(ref.byte_count, 6u);
  std::string json = *json::ToCanonical(ref.ToJson());
  EXPECT_EQ(json,
            "{\"byte_count\":6,\"digest\":\"" + ref.digest +
                "\",\"hash_scheme\":\"blake3-256\",\"key\":\"datasets/geo/batches/0000000000-0000000002.jsonl\","
                "\"revision\":null,\"schema\":\"vigilo/case-batch/v1\",\"storage_alias\":\"primary\"}");
  auto back = ObjectRef::FromJson(*json::Parse(json), "$.object");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, ref);
}

Status DecodeWith(const std::string& field, json::Value value) {
  json::Value v = Sample().ToJson();
  if (value.is_null() && field.rfind("-", 0) == 0) {
    v.as_object().Erase(field.substr(1));
  } else {
    v.as_object().Set(field, std::move(value));
  }
  return ObjectRef::FromJson(v, "$.ref").status();
}

void ExpectRejected(const std::string& field, json::Value value, std::string_view path, std::string_view fragment) {
  Status s = DecodeWith(field, std::move(value));
  EXPECT_FALSE(s.ok()) << field;
  EXPECT_EQ(s.path(), path) << s.ToString();
  EXPECT_NE(s.message().find(fragment), std::string_view::npos) << s.ToString();
}

TEST(ObjectRefTest, RejectsEachRule) {
  ExpectRejected("storage_alias", json::Value("bad alias"), "$.ref.storage_alias", "storage alias");
  ExpectRejected("storage_alias", json::Value(std::string(129, 'a')), "$.ref.storage_alias", "1-128");
  ExpectRejected("key", json::Value("a/../b"), "$.ref.key", "'..' segment");
  ExpectRejected("key", json::Value("s3://bucket/x"), "$.ref.key", "colon");
  ExpectRejected("key", json::Value(std::string(1025, 'k')), "$.ref.key", "limit is 1024");
  ExpectRejected("schema", json::Value("vigilo/case-batch/v2"), "$.ref.schema", "unknown schema identifier");
  ExpectRejected("hash_scheme", json::Value("sha256"), "$.ref.hash_scheme", "blake3-256");
  ExpectRejected("digest", json::Value(std::string(64, 'A')), "$.ref.digest", "lowercase hex");
  ExpectRejected("digest", json::Value(std::string(63, 'a')), "$.ref.digest", "64");
  ExpectRejected("byte_count", json::Value::Int(0), "$.ref.byte_count", "range");
  ExpectRejected("byte_count", json::Value::Int(-5), "$.ref.byte_count", "range");
  ExpectRejected("byte_count", json::Value::Double(6.0), "$.ref.byte_count", "integer");
  ExpectRejected("revision", json::Value(""), "$.ref.revision", "nonempty");
  ExpectRejected("revision", json::Value(std::string(1025, 'r')), "$.ref.revision", "1024");
  ExpectRejected("revision", json::Value("a\tb"), "$.ref.revision", "control");
  ExpectRejected("revision", json::Value::Int(3), "$.ref.revision", "string or null");
  ExpectRejected("extra", json::Value::Int(1), "$.ref.extra", "unexpected field");
  ExpectRejected("-revision", json::Value(), "$.ref.revision", "missing required field");
  ExpectRejected("-digest", json::Value(), "$.ref.digest", "missing required field");
  EXPECT_TRUE(DecodeWith("revision", json::Value(std::string(1024, 'r'))).ok());
}

TEST(ObjectRefTest, VerifyChecksLimitThenSizeThenDigest) {
  ObjectRef ref = Sample();
  auto ok = ref.Verify("hello\n", 6);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->bytes(), "hello\n");
  EXPECT_EQ(ref.Verify("hello\n", 5).status().code(), StatusCode::kLimitExceeded);
  Status size = ref.Verify("hello", 100).status();
  EXPECT_EQ(size.code(), StatusCode::kIntegrityError);
  EXPECT_NE(size.message().find("5 bytes; the reference says 6"), std::string_view::npos);
  Status digest = ref.Verify("jello\n", 100).status();
  EXPECT_EQ(digest.code(), StatusCode::kIntegrityError);
  EXPECT_NE(digest.message().find("does not match"), std::string_view::npos);
  ObjectRef bad = ref;
  bad.byte_count = 0;
  EXPECT_EQ(bad.Verify("", 100).status().code(), StatusCode::kInvalidFormat);
}

}  // namespace
}  // namespace vigilo::cases
