#include "vigilo/cases/case_batch.h"

#include <gtest/gtest.h>

#include "vigilo/common/hex.h"
#include "vigilo/json/parse.h"

namespace vigilo::cases {
namespace {

json::Value J(std::string_view text) { return *json::Parse(text); }

std::string CaseText(int i, std::string_view prompt = "hello") {
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i + 1);
  return "{\"id\":\"" + std::string(id) + "\",\"input\":{\"prompt\":\"" + std::string(prompt) + "\"}}";
}

VerifiedObject Verified(const std::string& bytes) {
  return *ObjectRef::ForBytes("primary", "datasets/geo/batches/b.jsonl", StorageFormat::kCaseBatch, bytes)
              .Verify(bytes, 1 << 30);
}

Result<std::string> BuildBatch(int n, int32_t start = 0, BatchLimits limits = {}) {
  CaseBatchBuilder builder("geo", start, limits);
  for (int i = 0; i < n; ++i) {
    VIGILO_ASSIGN_OR_RETURN(bool added, builder.Add(J(CaseText(i))));
    if (!added) return LimitExceeded("batch full");
  }
  return builder.Finish();
}

TEST(CaseBatchTest, BuildsExactBytes) {
  std::string bytes = *BuildBatch(2, 5);
  std::string case0 = CaseText(0);
  auto hash0 = NormalizedCaseHash(*ValidateCase(J(case0)));
  std::string expected_first_lines =
      "{\"dataset_id\":\"geo\",\"ordinal_end\":7,\"ordinal_start\":5,\"schema\":\"vigilo/case-batch/v1\"}\n"
      "{\"case_hash\":\"" + HexEncode(hash0) + "\",\"case_ordinal\":5,\"source\":" + case0 + "}\n";
  EXPECT_EQ(bytes.substr(0, expected_first_lines.size()), expected_first_lines);
  EXPECT_EQ(bytes.back(), '\n');
  EXPECT_EQ(std::count(bytes.begin(), bytes.end(), '\n'), 3);
}

TEST(CaseBatchTest, RoundTripsThroughTheReader) {
  std::string bytes = *BuildBatch(3, 10);
  auto decoded = DecodeCaseBatch(Verified(bytes));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->header().ordinal_start, 10);
  EXPECT_EQ(decoded->header().ordinal_end, 13);
  auto reader = decoded->Validate(BatchLimits{});
  ASSERT_TRUE(reader.ok());
  for (int i = 0; i < 3; ++i) {
    auto rec = reader->Next();
    ASSERT_TRUE(rec.ok()) << rec.status().ToString();
    ASSERT_TRUE(rec->has_value());
    EXPECT_EQ((*rec)->case_ordinal, 10 + i);
    EXPECT_EQ((*rec)->source, J(CaseText(i)));
  }
  auto end = reader->Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
}

TEST(CaseBatchTest, ClosesBeforeTheCaseCap) {
  CaseBatchBuilder builder("geo", 0, BatchLimits{2, 1 << 20});
  EXPECT_TRUE(*builder.Add(J(CaseText(0))));
  EXPECT_TRUE(*builder.Add(J(CaseText(1))));
  EXPECT_FALSE(*builder.Add(J(CaseText(2))));
  EXPECT_EQ(builder.record_count(), 2u);
  EXPECT_EQ(builder.next_ordinal(), 2);
}

TEST(CaseBatchTest, ClosesBeforeTheByteCapCountingHeaderAndLfs) {
  std::string two = *BuildBatch(2);
  // A cap of exactly the two-record size admits two records and refuses a third.
  CaseBatchBuilder exact("geo", 0, BatchLimits{100, two.size()});
  EXPECT_TRUE(*exact.Add(J(CaseText(0))));
  EXPECT_TRUE(*exact.Add(J(CaseText(1))));
  EXPECT_EQ(exact.encoded_bytes(), two.size());
  EXPECT_FALSE(*exact.Add(J(CaseText(2))));
  EXPECT_EQ(*exact.Finish(), two);
  // One byte less and the second record no longer fits.
  CaseBatchBuilder tight("geo", 0, BatchLimits{100, two.size() - 1});
  EXPECT_TRUE(*tight.Add(J(CaseText(0))));
  EXPECT_FALSE(*tight.Add(J(CaseText(1))));
}

TEST(CaseBatchTest, OversizedSingleCaseFailsAdmission) {
  std::string one = *BuildBatch(1);
  CaseBatchBuilder builder("geo", 0, BatchLimits{100, one.size() - 1});
  auto added = builder.Add(J(CaseText(0)));
  EXPECT_EQ(added.status().code(), StatusCode::kLimitExceeded);
  EXPECT_NE(added.status().message().find("batch limit"), std::string_view::npos);
  EXPECT_EQ(builder.record_count(), 0u);
  EXPECT_EQ(builder.Finish().status().code(), StatusCode::kInvalidArgument);  // never an empty batch
}

TEST(CaseBatchTest, BuilderRejectsInvalidCasesAndWrongHashes) {
  CaseBatchBuilder builder("geo", 0, {});
  EXPECT_EQ(builder.Add(J(R"({"id":"x","input":{"prompt":"p"}})")).status().path(), "$.source.id");
  CaseHash wrong{};
  EXPECT_EQ(builder.Add(J(CaseText(0)), wrong).status().code(), StatusCode::kIntegrityError);
}

// Decodes and fully validates `bytes`; returns the first error.
Status ReadAll(const std::string& bytes, BatchLimits limits = {}) {
  VIGILO_ASSIGN_OR_RETURN(DecodedCaseBatch decoded, DecodeCaseBatch(Verified(bytes)));
  VIGILO_ASSIGN_OR_RETURN(CaseBatchReader reader, decoded.Validate(limits));
  return reader.ValidateRemaining();
}

void ExpectError(const std::string& bytes, StatusCode code, std::string_view fragment) {
  Status s = ReadAll(bytes);
  EXPECT_EQ(s.code(), code) << s.ToString();
  EXPECT_NE(s.ToString().find(fragment), std::string::npos) << s.ToString();
}

std::string Header(int start, int end) {
  return "{\"dataset_id\":\"geo\",\"ordinal_end\":" + std::to_string(end) + ",\"ordinal_start\":" +
         std::to_string(start) + ",\"schema\":\"vigilo/case-batch/v1\"}\n";
}

std::string Record(int ordinal, int case_index, std::string_view hash_override = "") {
  std::string c = CaseText(case_index);
  std::string hash = hash_override.empty() ? HexEncode(NormalizedCaseHash(*ValidateCase(J(c))))
                                           : std::string(hash_override);
  return "{\"case_hash\":\"" + hash + "\",\"case_ordinal\":" + std::to_string(ordinal) + ",\"source\":" + c + "}\n";
}

TEST(CaseBatchTest, ReaderRejectsEveryViolation) {
  EXPECT_TRUE(ReadAll(Header(0, 2) + Record(0, 0) + Record(1, 1)).ok());
  ExpectError(Header(0, 2) + Record(0, 0), StatusCode::kInvalidFormat, "ends after 1 records");
  ExpectError(Header(0, 1) + Record(0, 0) + Record(1, 1), StatusCode::kInvalidFormat, "more records");
  ExpectError(Header(0, 2) + Record(0, 0) + Record(2, 1), StatusCode::kInvalidFormat, "consecutive");
  ExpectError(Header(0, 2) + Record(0, 0) + Record(0, 1), StatusCode::kInvalidFormat, "consecutive");
  ExpectError(Header(0, 1) + Record(0, 0, std::string(64, 'a')), StatusCode::kIntegrityError, "recomputed");
  ExpectError(Header(0, 1) + Record(0, 0, "ABC"), StatusCode::kInvalidFormat, "64 lowercase hex");
  std::string rec = Record(0, 0);
  ExpectError(Header(0, 1) + rec.substr(0, rec.size() - 1), StatusCode::kInvalidFormat, "no LF");  // truncated
  ExpectError(Header(0, 1) + rec.substr(0, 40) + "\n", StatusCode::kParseError, "line 2");
  ExpectError(Header(0, 1) + "{\"case_ordinal\":0}\n", StatusCode::kInvalidFormat, "$.case_hash");
  ExpectError(Header(0, 1) + rec.substr(0, rec.size() - 2) + ",\"x\":1}\n", StatusCode::kInvalidFormat,
              "unexpected field");
  ExpectError(Header(0, 1) + rec.substr(0, rec.size() - 1) + "\r\n", StatusCode::kNotCanonical, "line 2");
  ExpectError(Header(0, 1) + " " + rec, StatusCode::kNotCanonical, "line 2");
  std::string dup = rec;
  dup.insert(1, "\"case_ordinal\":0,");
  ExpectError(Header(0, 1) + dup, StatusCode::kParseError, "duplicate");
  ExpectError(Header(0, 1) + "{\"case_hash\":\"\xff\"}\n", StatusCode::kParseError, "UTF-8");
  std::string bad_case = "{\"case_hash\":\"" + std::string(64, 'a') +
                         "\",\"case_ordinal\":0,\"source\":{\"id\":\"x\",\"input\":{\"prompt\":\"p\"}}}\n";
  ExpectError(Header(0, 1) + bad_case, StatusCode::kInvalidFormat, "$.source.id");
}

TEST(CaseBatchTest, HeaderViolations) {
  std::string rec = Record(0, 0);
  ExpectError("\xef\xbb\xbf" + Header(0, 1) + rec, StatusCode::kParseError, "byte order mark");
  ExpectError(Header(0, 1).substr(0, Header(0, 1).size() - 1), StatusCode::kInvalidFormat, "header line has no LF");
  ExpectError(Header(1, 1) + rec, StatusCode::kInvalidFormat, "positive record count");
  ExpectError(Header(2, 1) + rec, StatusCode::kInvalidFormat, "positive record count");
  ExpectError("{\"dataset_id\":\"geo\",\"ordinal_end\":1,\"ordinal_start\":-1,\"schema\":\"vigilo/case-batch/v1\"}\n" +
                  rec,
              StatusCode::kOutOfRange, "$.ordinal_start");
  ExpectError("{\"dataset_id\":\"geo\",\"ordinal_end\":2147483648,\"ordinal_start\":0,\"schema\":\"vigilo/case-"
              "batch/v1\"}\n" + rec,
              StatusCode::kOutOfRange, "$.ordinal_end");
  ExpectError("{\"dataset_id\":\"geo\",\"ordinal_end\":1,\"ordinal_start\":0,\"schema\":\"vigilo/case-batch/v9\"}\n" +
                  rec,
              StatusCode::kInvalidFormat, "unknown schema identifier");
  ExpectError("{\"dataset_id\":\"geo\",\"ordinal_end\":1,\"ordinal_start\":0,\"schema\":\"vigilo/gate-counts/v1\"}\n" +
                  rec,
              StatusCode::kInvalidFormat, "expected schema");
  ExpectError("{\"dataset_id\":\"geo\",\"extra\":1,\"ordinal_end\":1,\"ordinal_start\":0,\"schema\":\"vigilo/case-"
              "batch/v1\"}\n" + rec,
              StatusCode::kInvalidFormat, "unexpected field");
  ExpectError("{\"ordinal_end\":1,\"ordinal_start\":0,\"schema\":\"vigilo/case-batch/v1\"}\n" + rec,
              StatusCode::kInvalidFormat, "$.dataset_id");
  ExpectError("{\"ordinal_start\":0,\"dataset_id\":\"geo\",\"ordinal_end\":1,\"schema\":\"vigilo/case-batch/v1\"}\n" +
                  rec,
              StatusCode::kNotCanonical, "line 1");
}

TEST(CaseBatchTest, AdmissionLimitsAreCheckedBeforeReading) {
  std::string bytes = *BuildBatch(3);
  auto decoded = DecodeCaseBatch(Verified(bytes));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->Validate(BatchLimits{2, 1 << 20}).status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(decoded->Validate(BatchLimits{3, bytes.size() - 1}).status().code(), StatusCode::kLimitExceeded);
  EXPECT_TRUE(decoded->Validate(BatchLimits{3, bytes.size()}).ok());
  // A reference to another schema cannot be decoded as a batch.
  auto other = ObjectRef::ForBytes("primary", "k", StorageFormat::kGateCounts, bytes).Verify(bytes, 1 << 20);
  EXPECT_EQ(DecodeCaseBatch(std::move(other).value()).status().code(), StatusCode::kInvalidFormat);
}

}  // namespace
}  // namespace vigilo::cases
