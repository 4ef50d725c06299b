// Rule checklist (docs/format/case-storage-checklist.md), "Case batch":
// header and record rules the other batch tests did not pin with a code,
// path and message, and the positive rules about what a record retains.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "vigilo/cases/case_batch.h"
#include "vigilo/common/hex.h"
#include "vigilo/json/parse.h"

namespace vigilo::cases {
namespace {

constexpr std::string_view kKey = "datasets/geo/batches/b.jsonl";

json::Value J(std::string_view text) { return *json::Parse(text); }

std::string CaseText(int i, std::string_view prompt = "hello") {
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i + 1);
  return "{\"id\":\"" + std::string(id) + "\",\"input\":{\"prompt\":\"" + std::string(prompt) + "\"}}";
}

std::string HashHex(const std::string& case_text) { return HexEncode(NormalizedCaseHash(*ValidateCase(J(case_text)))); }

std::string Header(int64_t start, int64_t end, std::string_view dataset_id = "geo") {
  return "{\"dataset_id\":\"" + std::string(dataset_id) + "\",\"ordinal_end\":" + std::to_string(end) +
         ",\"ordinal_start\":" + std::to_string(start) + ",\"schema\":\"vigilo/case-batch/v1\"}\n";
}

std::string Record(int64_t ordinal, const std::string& source) {
  return "{\"case_hash\":\"" + HashHex(source) + "\",\"case_ordinal\":" + std::to_string(ordinal) +
         ",\"source\":" + source + "}\n";
}

VerifiedObject Verified(const std::string& bytes) {
  return *ObjectRef::ForBytes("primary", std::string(kKey), StorageFormat::kCaseBatch, bytes).Verify(bytes, 1 << 30);
}

Status ReadAll(const std::string& bytes, BatchLimits limits = {}) {
  VIGILO_ASSIGN_OR_RETURN(DecodedCaseBatch decoded, DecodeCaseBatch(Verified(bytes)));
  VIGILO_ASSIGN_OR_RETURN(CaseBatchReader reader, decoded.Validate(limits));
  return reader.ValidateRemaining();
}

::testing::AssertionResult Fails(const Status& s, StatusCode code, std::string_view path, std::string_view fragment) {
  if (s.ok()) return ::testing::AssertionFailure() << "expected " << StatusCodeName(code) << ", got ok";
  if (s.code() != code || s.path() != path || s.message().find(fragment) == std::string_view::npos) {
    return ::testing::AssertionFailure() << "expected " << StatusCodeName(code) << " at \"" << path << "\" with \""
                                         << fragment << "\", got " << s.ToString() << " (path \"" << s.path()
                                         << "\")";
  }
  return ::testing::AssertionSuccess();
}

std::string Line(int n) { return std::string(kKey) + " line " + std::to_string(n) + ": "; }

// V-BATCH-01: "a header with exactly schema, dataset_id, ordinal_start, and ordinal_end".
TEST(ChecklistBatchHeaderTest, HeaderFieldsAndForms) {
  const std::string rec = Record(0, CaseText(0));
  ASSERT_TRUE(ReadAll(Header(0, 1) + rec).ok());
  EXPECT_TRUE(Fails(ReadAll(Header(0, 1, "a/b") + rec), StatusCode::kInvalidFormat, Line(1) + "$.dataset_id",
                    "dataset_id may contain only"));
  EXPECT_TRUE(Fails(ReadAll(Header(0, 1, ".geo") + rec), StatusCode::kInvalidFormat, Line(1) + "$.dataset_id",
                    "must not start with '.'"));
  EXPECT_TRUE(Fails(ReadAll("{\"dataset_id\":\"geo\",\"ordinal_end\":1,\"ordinal_start\":0}\n" + rec),
                    StatusCode::kInvalidFormat, Line(1) + "$.schema", "missing required field"));
  EXPECT_TRUE(Fails(ReadAll("{\"dataset_id\":\"geo\",\"ordinal_end\":1,\"ordinal_start\":0.0,\"schema\":\"vigilo/"
                            "case-batch/v1\"}\n" + rec),
                    StatusCode::kInvalidFormat, Line(1) + "$.ordinal_start", "expected an integer"));
  EXPECT_TRUE(Fails(ReadAll("[0,1]\n" + rec), StatusCode::kInvalidFormat, Line(1) + "$", "expected an object"));
  // The header line needs its LF too.
  std::string h = Header(0, 1);
  EXPECT_TRUE(Fails(ReadAll(h.substr(0, h.size() - 1)), StatusCode::kInvalidFormat, kKey, "header line has no LF"));
}

// V-BATCH-03, V-BATCH-06: "Remaining lines contain exactly case_ordinal, case_hash, and source".
TEST(ChecklistBatchRecordTest, RecordFieldsAndForms) {
  const std::string c = CaseText(0);
  const std::string hash = HashHex(c);
  auto line = [&](const std::string& body) { return Header(0, 1) + body + "\n"; };
  EXPECT_TRUE(Fails(ReadAll(line("{\"case_hash\":\"" + hash + "\",\"case_ordinal\":0}")), StatusCode::kInvalidFormat,
                    Line(2) + "$.source", "missing required field"));
  EXPECT_TRUE(Fails(ReadAll(line("{\"case_hash\":\"" + hash + "\",\"case_ordinal\":0,\"source\":5}")),
                    StatusCode::kInvalidFormat, Line(2) + "$.source", "expected an object"));
  EXPECT_TRUE(Fails(ReadAll(line("{\"case_hash\":\"" + hash + "\",\"case_ordinal\":-1,\"source\":" + c + "}")),
                    StatusCode::kOutOfRange, Line(2) + "$.case_ordinal", "out of range"));
  EXPECT_TRUE(Fails(ReadAll(line("{\"case_hash\":\"" + hash + "\",\"case_ordinal\":\"0\",\"source\":" + c + "}")),
                    StatusCode::kInvalidFormat, Line(2) + "$.case_ordinal", "expected an integer"));
  EXPECT_TRUE(Fails(ReadAll(line("{\"case_hash\":7,\"case_ordinal\":0,\"source\":" + c + "}")),
                    StatusCode::kInvalidFormat, Line(2) + "$.case_hash", "expected a string"));
  EXPECT_TRUE(Fails(ReadAll(line("{\"case_hash\":\"" + hash + "\",\"case_id\":\"x\",\"case_ordinal\":0,\"source\":" +
                                 c + "}")),
                    StatusCode::kInvalidFormat, Line(2) + "$.case_id", "unexpected field"));
  // "Validate the typed case": a source with an unknown top-level field.
  std::string extra = "{\"color\":\"red\",\"id\":\"00000000-0000-4000-8000-000000000001\",\"input\":{\"prompt\":\"p\"}}";
  EXPECT_TRUE(Fails(ReadAll(line("{\"case_hash\":\"" + hash + "\",\"case_ordinal\":0,\"source\":" + extra + "}")),
                    StatusCode::kInvalidFormat, Line(2) + "$.source.color", "unexpected field"));
}

// V-ENC-03, V-ENC-05 and V-BATCH-15: "LF terminators including the last line", "no
// literal newlines inside strings", truncated records.
TEST(ChecklistBatchRecordTest, LineStructureIsExact) {
  const std::string r0 = Record(0, CaseText(0));
  const std::string r1 = Record(1, CaseText(1));
  // A blank line between records is not a record.
  EXPECT_TRUE(Fails(ReadAll(Header(0, 2) + r0 + "\n" + r1), StatusCode::kParseError, std::string(kKey) + " line 3",
                    "unexpected end of input, expected a value"));
  // A trailing blank line after the last record.
  EXPECT_TRUE(Fails(ReadAll(Header(0, 1) + r0 + "\n"), StatusCode::kInvalidFormat, std::string(kKey) + " line 3",
                    "more records than the header's range [0, 1)"));
  // A literal LF inside a string splits the record.
  std::string raw = CaseText(0, "a\nb");
  std::string split = "{\"case_hash\":\"" + std::string(64, 'a') + "\",\"case_ordinal\":0,\"source\":" + raw + "}\n";
  EXPECT_TRUE(Fails(ReadAll(Header(0, 1) + split), StatusCode::kParseError, std::string(kKey) + " line 2",
                    "unexpected end of input inside a string"));
  // A header that declares records the object does not hold.
  EXPECT_TRUE(Fails(ReadAll(Header(0, 1)), StatusCode::kInvalidFormat, kKey, "ends after 0 records"));
  // Truncated in the middle of the second record.
  EXPECT_TRUE(Fails(ReadAll(Header(0, 2) + r0 + r1.substr(0, 30)), StatusCode::kInvalidFormat,
                    std::string(kKey) + " line 3", "truncated record"));
}

// V-INT-01: ordinals are signed 32-bit; "every exclusive case end within that bound".
TEST(ChecklistBatchRecordTest, TheLastRepresentableOrdinal) {
  const std::string c = CaseText(0);
  EXPECT_TRUE(ReadAll(Header(2147483646, 2147483647) + Record(2147483646, c)).ok());
  EXPECT_TRUE(Fails(ReadAll(Header(2147483646, 2147483648) + Record(2147483646, c)), StatusCode::kOutOfRange,
                    Line(1) + "$.ordinal_end", "out of range"));
  CaseBatchBuilder at_end("geo", 2147483646, {});
  EXPECT_TRUE(*at_end.Add(J(c)));
  auto over = at_end.Add(J(CaseText(1)));
  EXPECT_TRUE(Fails(over.status(), StatusCode::kOutOfRange, "", "case ordinal would exceed 2,147,483,647"));
  EXPECT_EQ(at_end.record_count(), 1u);
}

// V-BATCH-12: "fails explicit size admission; do not truncate or silently omit it".
TEST(ChecklistBatchBuilderTest, OversizedRecordNamesItsCase) {
  CaseBatchBuilder builder("geo", 7, BatchLimits{100, 256});
  auto added = builder.Add(J(CaseText(0, std::string(300, 'p'))));
  EXPECT_TRUE(Fails(added.status(), StatusCode::kLimitExceeded, "$.cases[7]", "the batch limit is 256"));
  EXPECT_EQ(builder.record_count(), 0u);
  EXPECT_EQ(builder.next_ordinal(), 7);
}

// V-BATCH-14: "explicit validate checks its header and limits before creating that reader".
TEST(ChecklistBatchBuilderTest, AdmissionErrorsNameTheObject) {
  CaseBatchBuilder builder("geo", 0, {});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(*builder.Add(J(CaseText(i))));
  std::string bytes = *builder.Finish();
  auto decoded = DecodeCaseBatch(Verified(bytes));
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(Fails(decoded->Validate(BatchLimits{2, 1 << 20}).status(), StatusCode::kLimitExceeded, kKey,
                    "declares 3 records; the admitted limit is 2"));
  EXPECT_TRUE(Fails(decoded->Validate(BatchLimits{3, bytes.size() - 1}).status(), StatusCode::kLimitExceeded, kKey,
                    "the admitted limit is " + std::to_string(bytes.size() - 1)));
}

// V-BATCH-07, V-BATCH-09 (positive): "source is the original parsed case object, recursively
// key-sorted but retaining field presence, tag order, nulls, and user metadata";
// the case hash is the normalized one, and "Cases with distinct IDs may share a content hash".
TEST(ChecklistBatchRecordTest, SourceIsRetainedAsSubmitted) {
  std::string submitted =
      R"({"tags":["b","a"],"input":{"prompt":"p"},"expected":null,"metadata":{"z":1,"a":null},"id":"00000000-0000-4000-8000-000000000001"})";
  std::string twin = R"({"id":"00000000-0000-4000-8000-000000000002","input":{"prompt":"p"},"tags":["a","b"]})";
  CaseBatchBuilder builder("geo", 0, {});
  ASSERT_TRUE(*builder.Add(J(submitted)));
  ASSERT_TRUE(*builder.Add(J(twin)));
  std::string bytes = *builder.Finish();
  EXPECT_NE(bytes.find(R"("source":{"expected":null,"id":"00000000-0000-4000-8000-000000000001","input":{"prompt":"p"},"metadata":{"a":null,"z":1},"tags":["b","a"]})"),
            std::string::npos)
      << bytes;
  auto decoded = DecodeCaseBatch(Verified(bytes));
  ASSERT_TRUE(decoded.ok());
  auto reader = decoded->Validate({});
  ASSERT_TRUE(reader.ok());
  auto first = reader->Next();
  auto second = reader->Next();
  ASSERT_TRUE(first.ok() && first->has_value() && second.ok() && second->has_value());
  EXPECT_EQ((*first)->source, J(submitted));
  EXPECT_EQ((*first)->case_hash, (*second)->case_hash);  // distinct IDs, same content
  EXPECT_EQ(bytes.find("\"task_type\""), std::string::npos);  // no typed defaults serialized back
}

}  // namespace
}  // namespace vigilo::cases
