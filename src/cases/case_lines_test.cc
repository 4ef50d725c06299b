#include "vigilo/cases/case_lines.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vigilo/cases/case_id_check.h"
#include "vigilo/cases/dataset_stream.h"
#include "vigilo/cases/identity.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/json/canonical.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::cases {
namespace {

CaseLinesOptions Options(std::string derive = "") {
  CaseLinesOptions o;
  o.dataset_id = "lines-ds";
  o.derive_ids_from = std::move(derive);
  return o;
}

// Runs ForEachCaseLine over `text`; the canonical JSON of each case, in order.
Result<std::vector<std::string>> Cases(std::string_view text, const CaseLinesOptions& options) {
  StringByteSource source(text);
  std::vector<std::string> out;
  Status s = ForEachCaseLine(source, options, [&](const json::Value& c) -> Status {
    VIGILO_ASSIGN_OR_RETURN(std::string canonical, json::ToCanonical(c));
    out.push_back(std::move(canonical));
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

void ExpectError(const Status& s, StatusCode code, std::string_view path, std::string_view message,
                 std::optional<uint64_t> offset) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), code) << s.ToString();
  EXPECT_EQ(s.path(), path) << s.ToString();
  EXPECT_EQ(s.message(), message) << s.ToString();
  EXPECT_EQ(s.offset(), offset) << s.ToString();
}

Status LinesError(std::string_view text, const CaseLinesOptions& options = Options()) {
  auto r = Cases(text, options);
  return r.ok() ? Status::Ok() : r.status();
}

constexpr char kA[] = R"({"id":"00000000-0000-4000-8000-000000000001","input":{"prompt":"a"}})";
constexpr char kB[] = R"({"id":"00000000-0000-4000-8000-000000000002","input":{"prompt":"b"}})";

// --- UUIDv5 -----------------------------------------------------------------

// Expected values computed independently with Python 3's uuid module:
//   ns = uuid.uuid5(uuid.NAMESPACE_URL, "urn:vigilo:derived-case-id:v1")
//   uuid.uuid5(ns, NAME)
TEST(DeriveCaseIdTest, NamespaceIsUuid5OfTheDocumentedUrn) {
  EXPECT_EQ(DerivedCaseIdNamespace().ToString(), "b5c927e9-66b2-513c-8ed0-f71fe444c8f2");
  auto url_ns = Uuid::Parse("6ba7b811-9dad-11d1-80b4-00c04fd430c8");  // RFC 9562 NameSpace_URL
  ASSERT_TRUE(url_ns.ok());
  auto ns = NameBasedUuidV5(*url_ns, "urn:vigilo:derived-case-id:v1");
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  EXPECT_EQ(*ns, DerivedCaseIdNamespace());
}

TEST(DeriveCaseIdTest, Rfc9562ExampleUnderTheDnsNamespace) {
  // RFC 9562 appendix A.4: UUIDv5(NameSpace_DNS, "www.example.com").
  auto dns_ns = Uuid::Parse("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
  ASSERT_TRUE(dns_ns.ok());
  auto id = NameBasedUuidV5(*dns_ns, "www.example.com");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->ToString(), "2ed6657d-e927-568b-95e1-2665a8aea6a2");
}

TEST(DeriveCaseIdTest, MatchesPythonUuid5) {
  // (name, python3: uuid.uuid5(ns, name)) with ns as above.
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"case-0001", "6999b6e1-17c2-5112-b119-4a3083702031"},
      {"42", "eb0c1aea-421a-54d4-96a5-af0e44d79314"},
      {"-7", "8dcd310c-4a82-5da1-a15c-624c399e0d47"},
      {"18446744073709551615", "e353713b-242b-5646-9d59-ecd93b82fff7"},
      {"\xc3\xa9", "38e466a0-3b6f-5767-bf5f-2ce77c218976"},  // "é" as UTF-8
  };
  for (const auto& [name, expected] : vectors) {
    auto id = DeriveCaseId(name);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    EXPECT_EQ(id->ToString(), expected) << name;
    EXPECT_EQ(id->version(), 5);
    EXPECT_TRUE(id->is_rfc_variant());
  }
}

// --- options ----------------------------------------------------------------

TEST(CaseLinesOptionsTest, ValidOptions) {
  EXPECT_TRUE(ValidateCaseLinesOptions(Options()).ok());
  EXPECT_TRUE(ValidateCaseLinesOptions(Options("metadata.source_id")).ok());
  CaseLinesOptions o = Options();
  o.dataset_version = "";
  EXPECT_TRUE(ValidateCaseLinesOptions(o).ok());
}

TEST(CaseLinesOptionsTest, RefusesABadDatasetIdOrVersion) {
  CaseLinesOptions o = Options();
  o.dataset_id = ".hidden";
  ExpectError(ValidateCaseLinesOptions(o), StatusCode::kInvalidArgument, "dataset_id",
              "dataset_id must not start with '.'", std::nullopt);
  o = Options();
  o.dataset_version = "v\xff";
  ExpectError(ValidateCaseLinesOptions(o), StatusCode::kInvalidArgument, "dataset_version",
              "dataset_version must be valid UTF-8", std::nullopt);
  o = Options();
  o.limits.max_source_fields_bytes = 40;
  o.dataset_version = "a-long-version-label";  // {"dataset_id":"lines-ds","dataset_version":"…"}: 63 bytes
  ExpectError(ValidateCaseLinesOptions(o), StatusCode::kLimitExceeded, "dataset_version",
              "the dataset's top-level fields exceed 40 canonical bytes (the source-fields budget)", std::nullopt);
}

TEST(CaseLinesOptionsTest, RefusesDeriveIdsOutsideMetadataOrNested) {
  for (std::string bad : {"metadata.", "metadata", "id", "source_id", "input.prompt", "metadata.a.b", ".metadata.a",
                          "Metadata.a", "metadata.\xff"}) {
    ExpectError(ValidateCaseLinesOptions(Options(bad)), StatusCode::kInvalidArgument, "derive_ids_from",
                "derive_ids_from must be \"metadata.FIELD\", one field directly under metadata (nonempty, UTF-8, "
                "no '.'), got \"" + bad + "\"",
                std::nullopt);
  }
  // Checked before any input is read.
  StringByteSource source(kA);
  int calls = 0;
  Status s = ForEachCaseLine(source, Options("id"), [&](const json::Value&) {
    ++calls;
    return Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(calls, 0);
}

TEST(CaseLinesSourceFieldsTest, AbsentVersionIsAbsentNotNull) {
  auto sf = CaseLinesSourceFields(Options());
  ASSERT_TRUE(sf.ok()) << sf.status().ToString();
  EXPECT_TRUE(sf->cases_present);
  EXPECT_EQ(*json::ToCanonical(json::Value(sf->fields)), R"({"dataset_id":"lines-ds"})");
  CaseLinesOptions o = Options();
  o.dataset_version = "2026-12";
  sf = CaseLinesSourceFields(o);
  ASSERT_TRUE(sf.ok());
  EXPECT_EQ(*json::ToCanonical(json::Value(sf->fields)), R"({"dataset_id":"lines-ds","dataset_version":"2026-12"})");
  o.dataset_id = "";
  EXPECT_EQ(CaseLinesSourceFields(o).status().code(), StatusCode::kInvalidArgument);
}

// --- line rules -------------------------------------------------------------

TEST(CaseLinesTest, ReadsCasesInOrder) {
  const std::string a_canonical = kA;
  const std::string b_canonical = kB;
  for (std::string text : {std::string(kA) + "\n" + kB + "\n",  // final LF
                           std::string(kA) + "\n" + kB,         // no final LF: accepted
                           std::string(kA) + "\r\n" + kB + "\r\n",  // CR LF: CR is JSON whitespace
                           std::string("  ") + kA + " \t\n" + kB}) {
    auto cases = Cases(text, Options());
    ASSERT_TRUE(cases.ok()) << cases.status().ToString();
    EXPECT_EQ(*cases, (std::vector<std::string>{a_canonical, b_canonical}));
  }
  auto none = Cases("", Options());
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(CaseLinesTest, RefusesBlankLinesBeforeACase) {
  const std::string a = kA;
  const uint64_t second = a.size() + 1;
  const std::string blank =
      "blank line before line 3; every line but blank ones at the end of the input must be one case object";
  ExpectError(LinesError(a + "\n\n" + kB), StatusCode::kInvalidFormat, "line 2", blank, second);
  ExpectError(LinesError(a + "\n \t\r\n" + kB), StatusCode::kInvalidFormat, "line 2", blank, second);
  // The first of several blank lines is named, with the case that follows them.
  ExpectError(LinesError(a + "\n\n\r\n" + kB), StatusCode::kInvalidFormat, "line 2",
              "blank line before line 4; every line but blank ones at the end of the input must be one case object",
              second);
  ExpectError(LinesError("\n" + a), StatusCode::kInvalidFormat, "line 1",
              "blank line before line 2; every line but blank ones at the end of the input must be one case object", 0);
}

// Issue 34: editors and Windows tools end files with an empty line or CR LF;
// blank lines at the end carry no case and are accepted, so line N is still
// case N-1 and nothing a user wrote is dropped.
TEST(CaseLinesTest, AcceptsTrailingBlankLinesAndCrLf) {
  const std::vector<std::string> expected = {kA, kB};
  for (std::string text : {std::string(kA) + "\n" + kB + "\n\n",              // a trailing empty line
                           std::string(kA) + "\r\n" + kB + "\r\n\r\n",       // CR LF, and an empty CR LF line
                           std::string(kA) + "\n" + kB + "\n \t\n\n",         // several whitespace-only lines
                           std::string(kA) + "\r\n" + kB + "\r\n\r"}) {       // a last CR without LF
    auto cases = Cases(text, Options());
    ASSERT_TRUE(cases.ok()) << cases.status().ToString();
    EXPECT_EQ(*cases, expected);
  }
  auto only_blank = Cases("\n\r\n", Options());
  ASSERT_TRUE(only_blank.ok()) << only_blank.status().ToString();
  EXPECT_TRUE(only_blank->empty());
}

TEST(CaseLinesTest, RefusesALineThatIsNotAnObject) {
  const std::string a = kA;
  ExpectError(LinesError(a + "\n[" + kB + "]\n"), StatusCode::kInvalidFormat, "line 2",
              "is a JSON array, not an object; every line must be one case object", a.size() + 1);
  ExpectError(LinesError("\"x\""), StatusCode::kInvalidFormat, "line 1",
              "is a JSON string, not an object; every line must be one case object", 0);
  // Two objects on one line: trailing data, at its byte.
  Status two = LinesError(a + "\n{} {}\n");
  EXPECT_EQ(two.code(), StatusCode::kParseError) << two.ToString();
  EXPECT_EQ(two.path(), "line 2");
  EXPECT_EQ(two.offset(), a.size() + 1 + 3);
}

TEST(CaseLinesTest, RefusesInvalidUtf8DuplicateKeysAndABom) {
  const std::string a = kA;
  Status utf8 = LinesError(a + "\n{\"input\":{\"prompt\":\"\xc3\"}}\n");
  EXPECT_EQ(utf8.code(), StatusCode::kParseError) << utf8.ToString();
  EXPECT_EQ(utf8.path(), "line 2");
  EXPECT_NE(utf8.message().find("UTF-8"), std::string_view::npos) << utf8.ToString();
  EXPECT_EQ(utf8.offset(), a.size() + 1 + 20);  // the 0xC3 byte

  ExpectError(LinesError(a + "\n{\"a\":1,\"a\":2}"), StatusCode::kParseError, "line 2", "duplicate object key \"a\"",
              a.size() + 1 + 7);

  // A BOM is skipped at the start of the input only (issue 34); on any other
  // line it is refused with the fix.
  ExpectError(LinesError(a + "\n\xef\xbb\xbf" + a), StatusCode::kParseError, "line 2",
              "starts with a byte order mark (U+FEFF), which only the start of the input may have (it is skipped "
              "there); inputs joined together each keep theirs: remove it from this line",
              a.size() + 1);
}

TEST(CaseLinesTest, SkipsAByteOrderMarkAtTheStartOfTheInput) {
  auto with = Cases("\xef\xbb\xbf" + std::string(kA) + "\n" + kB + "\n", Options());
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  EXPECT_EQ(*with, (std::vector<std::string>{kA, kB}));
  // The identity is that of the same lines without it.
  auto open = [](std::string text) {
    return [text]() -> Result<std::unique_ptr<ByteSource>> { return std::unique_ptr<ByteSource>(std::make_unique<StringByteSource>(text)); };
  };
  const std::string plain = std::string(kA) + "\n" + kB + "\n";
  auto a = ComputeCaseLinesIdentity(open("\xef\xbb\xbf" + plain), Options());
  auto b = ComputeCaseLinesIdentity(open(plain), Options());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->dataset_hash, b->dataset_hash);
  // Offsets stay those of the input bytes: an error on line 1 counts the BOM.
  ExpectError(LinesError("\xef\xbb\xbf[1]"), StatusCode::kInvalidFormat, "line 1",
              "is a JSON array, not an object; every line must be one case object", 3);
}

TEST(CaseLinesTest, LimitsEachLineToMaxCaseBytes) {
  const std::string a = kA;
  CaseLinesOptions o = Options();
  o.limits.max_case_bytes = a.size();
  auto fits = Cases(a + "\n" + a, o);  // exactly the limit (with and without the LF)
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  EXPECT_EQ(fits->size(), 2u);
  const std::string too_long = "the line is longer than " + std::to_string(a.size()) +
                               " bytes (the per-case limit, max_case_bytes)";
  ExpectError(LinesError(a + "\n" + a + " \n", o), StatusCode::kLimitExceeded, "line 2", too_long, a.size() + 1);
  ExpectError(LinesError(a + "\n" + a + " ", o), StatusCode::kLimitExceeded, "line 2", too_long, a.size() + 1);
}

// Endless spaces, failing after `fail_after` bytes: a reader that kept
// reading a line past its limit would report this IoError instead.
class EndlessSpaces final : public ByteSource {
 public:
  explicit EndlessSpaces(size_t fail_after) : left_(fail_after) {}
  Result<size_t> Read(std::span<char> buf) override {
    if (left_ == 0) return IoError("read past the line limit");
    size_t n = std::min(buf.size(), left_);
    std::fill_n(buf.data(), n, ' ');
    left_ -= n;
    return n;
  }

 private:
  size_t left_;
};

TEST(CaseLinesTest, AnOverlongLineFailsBeforeTheRestIsRead) {
  CaseLinesOptions o = Options();
  o.limits.max_case_bytes = 100;
  EndlessSpaces source(1u << 20);
  Status s = ForEachCaseLine(source, o, [](const json::Value&) { return Status::Ok(); });
  ExpectError(s, StatusCode::kLimitExceeded, "line 1",
              "the line is longer than 100 bytes (the per-case limit, max_case_bytes)", 0);
}

TEST(CaseLinesTest, NestingIsBoundedByTheTokenizerDepth) {
  CaseLinesOptions o = Options();
  o.limits.tokenizer.max_depth = 2;
  const std::string ok = R"({"a":{}})";
  Status s = LinesError(ok + "\n" + R"({"a":{"b":{}}})", o);
  EXPECT_EQ(s.code(), StatusCode::kLimitExceeded) << s.ToString();
  EXPECT_EQ(s.path(), "line 2");
}

TEST(CaseLinesTest, NamesTheLineOfACaseErrorAndStops) {
  const std::string text = std::string(kA) + "\n" + kB + "\n" + kA;
  StringByteSource source(text);
  int calls = 0;
  Status s = ForEachCaseLine(source, Options(), [&](const json::Value&) -> Status {
    if (++calls == 2) return InvalidFormat("stop here").WithPath("$.cases[1].input");
    return Status::Ok();
  });
  // Issue 34: a missing field of JSON Lines names its line (and the line's offset).
  ExpectError(s, StatusCode::kInvalidFormat, "line 2: $.cases[1].input", "stop here", sizeof(kA));
  EXPECT_EQ(calls, 2);
  // An error that names no case, or another case, is passed through.
  StringByteSource again(text);
  Status other = ForEachCaseLine(again, Options(), [&](const json::Value&) -> Status {
    return IoError("elsewhere").WithPath("$.cases[10]");
  });
  ExpectError(other, StatusCode::kIoError, "$.cases[10]", "elsewhere", std::nullopt);
}

TEST(CaseLinesTest, AMissingFieldNamesItsLine) {
  auto open = [](std::string text) {
    return [text]() -> Result<std::unique_ptr<ByteSource>> { return std::unique_ptr<ByteSource>(std::make_unique<StringByteSource>(text)); };
  };
  auto id = ComputeCaseLinesIdentity(open(std::string(kA) + "\n" + R"({"id":"00000000-0000-4000-8000-000000000002"})"),
                                     Options());
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(id.status().path(), "line 2: $.cases[1].input") << id.status().ToString();
  EXPECT_EQ(id.status().message(), "missing required field");
}

// Issue 34: a JSON Lines case is stored inside a batch record, one level
// deeper than submitted; a line is admitted only if its record can be read.
TEST(CaseLinesTest, NestingIsDecidedAtTheStoredDepth) {
  auto nested = [](size_t depth) {  // a case object nesting `depth` levels
    std::string inner;
    for (size_t i = 2; i < depth; ++i) inner += "[";
    for (size_t i = 2; i < depth; ++i) inner += "]";
    return R"({"id":"00000000-0000-4000-8000-000000000001","input":{"prompt":"a","deep":)" +
           (depth > 2 ? inner : std::string("0")) + "}}";
  };
  ASSERT_TRUE(json::Parse(nested(127)).ok());  // the line itself is valid JSON
  ASSERT_FALSE(json::Parse(nested(128)).ok());
  auto fits = Cases(nested(126) + "\n", Options());
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  // Its stored record nests 127 levels: readable.
  json::Object record;
  record.Set("source", *json::Parse(nested(126)));
  std::string record_text;
  ASSERT_TRUE(json::WriteCanonical(json::Value(std::move(record)), &record_text).ok());
  EXPECT_TRUE(json::Parse(record_text).ok());

  const std::string a = kA;
  Status deep = LinesError(a + "\n" + nested(127) + "\n");
  EXPECT_EQ(deep.code(), StatusCode::kLimitExceeded) << deep.ToString();
  EXPECT_EQ(deep.path(), "line 2");
  EXPECT_EQ(deep.message(),
            "the case nests deeper than 126 levels; it is stored inside a batch record one level deeper, and stored "
            "JSON nests at most 127 levels");
  ASSERT_TRUE(deep.offset().has_value());
  EXPECT_GT(*deep.offset(), a.size());
}

// --- derive-ids -------------------------------------------------------------

TEST(CaseLinesDeriveTest, InsertsTheDerivedId) {
  auto cases = Cases("{\"input\":{\"prompt\":\"a\"},\"metadata\":{\"source_id\":\"case-0001\",\"x\":[1]}}\n"
                     "{\"metadata\":{\"source_id\":42},\"input\":{\"prompt\":\"b\"}}\n"
                     "{\"metadata\":{\"source_id\":-7},\"input\":{\"prompt\":\"c\"}}\n",
                     Options("metadata.source_id"));
  ASSERT_TRUE(cases.ok()) << cases.status().ToString();
  // Ids from MatchesPythonUuid5 (python3 uuid.uuid5).
  EXPECT_EQ(*cases,
            (std::vector<std::string>{
                R"({"id":"6999b6e1-17c2-5112-b119-4a3083702031","input":{"prompt":"a"},"metadata":{"source_id":"case-0001","x":[1]}})",
                R"({"id":"eb0c1aea-421a-54d4-96a5-af0e44d79314","input":{"prompt":"b"},"metadata":{"source_id":42}})",
                R"({"id":"8dcd310c-4a82-5da1-a15c-624c399e0d47","input":{"prompt":"c"},"metadata":{"source_id":-7}})",
            }));
}

TEST(CaseLinesDeriveTest, EqualValuesGiveEqualIds) {
  // The string "42" and the integer 42 name the same case; duplicates are the
  // ingestion's duplicate-ID check's to find, not this reader's.
  auto cases = Cases("{\"input\":{\"prompt\":\"a\"},\"metadata\":{\"k\":\"42\"}}\n"
                     "{\"input\":{\"prompt\":\"b\"},\"metadata\":{\"k\":42}}\n",
                     Options("metadata.k"));
  ASSERT_TRUE(cases.ok()) << cases.status().ToString();
  ASSERT_EQ(cases->size(), 2u);
  const std::string id = "\"id\":\"eb0c1aea-421a-54d4-96a5-af0e44d79314\"";
  EXPECT_NE((*cases)[0].find(id), std::string::npos);
  EXPECT_NE((*cases)[1].find(id), std::string::npos);
}

// Issue 34: with derived ids, a duplicate is named by the user's own values
// and lines, not by the UUIDs the user never wrote.
TEST(CaseLinesDeriveTest, ADuplicateNamesTheUsersValueAndLines) {
  const std::string text =
      "{\"input\":{\"prompt\":\"a\"},\"metadata\":{\"k\":\"evalset-00001\"}}\n"
      "{\"input\":{\"prompt\":\"b\"},\"metadata\":{\"k\":\"evalset-00002\"}}\n"
      "{\"input\":{\"prompt\":\"c\"},\"metadata\":{\"k\":\"evalset-00001\"}}\n";
  const CaseLinesOptions options = Options("metadata.k");
  // The duplicate-ID check as ingestion runs it, over the derived ids.
  auto check = CaseIdUniquenessCheck::Start(BudgetConfig::Defaults(), std::filesystem::temp_directory_path());
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  StringByteSource first_pass(text);
  int32_t ordinal = 0;
  ASSERT_TRUE(ForEachCaseLine(first_pass, options, [&](const json::Value& c) {
                return check->Add(*Uuid::Parse(c.as_object().Find("id")->as_string()), ordinal++);
              }).ok());
  Status duplicate = check->Finish();
  ASSERT_EQ(duplicate.path(), "$.cases[2].id") << duplicate.ToString();
  const std::string uuid = DeriveCaseId("evalset-00001")->ToString();
  EXPECT_NE(duplicate.message().find(uuid), std::string_view::npos);

  StringByteSource again(text);
  Status named = NameDerivedDuplicate(duplicate, again, options);
  EXPECT_EQ(named.code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(named.path(), "line 3: $.cases[2].id");
  EXPECT_EQ(named.message(), "metadata.k \"evalset-00001\" repeats the value on line 1, and equal values derive "
                             "equal case ids (`derive_ids` gave both " + uuid + ") (1 case repeats an earlier id)");
  // Without derived ids, or for another error, nothing changes.
  StringByteSource third(text);
  EXPECT_EQ(NameDerivedDuplicate(duplicate, third, Options()).ToString(), duplicate.ToString());
  StringByteSource fourth(text);
  Status other = InvalidFormat("x").WithPath("$.cases[2].id");
  EXPECT_EQ(NameDerivedDuplicate(other, fourth, options).ToString(), other.ToString());
}

TEST(CaseLinesDeriveTest, RefusesACaseThatHasAnId) {
  const std::string a = kA;
  const std::string first = R"({"input":{"prompt":"a"},"metadata":{"k":"x"}})";
  ExpectError(LinesError(first + "\n" + a, Options("metadata.k")), StatusCode::kInvalidArgument, "line 2",
              "the case already has an \"id\"; `derive_ids` metadata.k would replace it", first.size() + 1);
}

TEST(CaseLinesDeriveTest, RefusesAMissingOrUnusableField) {
  const CaseLinesOptions o = Options("metadata.k");
  const std::string first = R"({"input":{"prompt":"a"},"metadata":{"k":1}})";
  const auto expect = [&](std::string line, std::string message) {
    ExpectError(LinesError(first + "\n" + line, o), StatusCode::kInvalidFormat, "line 2", message, first.size() + 1);
  };
  expect(R"({"input":{"prompt":"a"}})", "has no metadata, so no metadata.k to derive its id from");
  expect(R"({"input":{"prompt":"a"},"metadata":[1]})",
         "metadata is an array, not an object, so there is no metadata.k to derive its id from");
  expect(R"({"input":{"prompt":"a"},"metadata":{"K":1}})", "has no metadata.k to derive its id from");
  expect(R"({"input":{"prompt":"a"},"metadata":{"k":""}})", "metadata.k is an empty string; it cannot name a case");
  expect(R"({"input":{"prompt":"a"},"metadata":{"k":true}})",
         "metadata.k is a boolean; a derived id needs a string or an integer");
  expect(R"({"input":{"prompt":"a"},"metadata":{"k":null}})",
         "metadata.k is null; a derived id needs a string or an integer");
  for (std::string number : {"1.0", "1e3", "18446744073709551616"}) {
    expect(R"({"input":{"prompt":"a"},"metadata":{"k":)" + number + "}}",
           "metadata.k is a number with a fraction, an exponent or beyond 64 bits; a derived id needs a string or "
           "an integer");
  }
}

// --- identity ---------------------------------------------------------------

// The identity of JSON Lines input: source fields from the options, cases from the lines.
Result<DatasetIdentity> LinesIdentity(std::string_view text, const CaseLinesOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(DatasetSourceFields sf, CaseLinesSourceFields(options));
  VIGILO_ASSIGN_OR_RETURN(DatasetIdentityBuilder builder, DatasetIdentityBuilder::Start(sf.fields, sf.cases_present));
  StringByteSource source(text);
  VIGILO_RETURN_IF_ERROR(ForEachCaseLine(source, options, [&](const json::Value& c) {
    return builder.AddCase(c).status();
  }));
  return builder.Finish();
}

// What ComputeDatasetIdentity does with a file, over the document's bytes.
Result<DatasetIdentity> DocumentIdentity(std::string_view document) {
  StringByteSource first(document);
  VIGILO_ASSIGN_OR_RETURN(DatasetSourceFields sf, ReadDatasetSourceFields(first));
  VIGILO_ASSIGN_OR_RETURN(DatasetIdentityBuilder builder, DatasetIdentityBuilder::Start(sf.fields, sf.cases_present));
  StringByteSource second(document);
  VIGILO_RETURN_IF_ERROR(ForEachDatasetCase(second, DatasetStreamLimits{}, [&](const json::Value& c) {
    return builder.AddCase(c).status();
  }));
  return builder.Finish();
}

void ExpectSameIdentity(std::string_view lines, const CaseLinesOptions& options, const std::string& document) {
  auto from_lines = LinesIdentity(lines, options);
  ASSERT_TRUE(from_lines.ok()) << from_lines.status().ToString();
  auto from_document = DocumentIdentity(document);
  ASSERT_TRUE(from_document.ok()) << from_document.status().ToString();
  EXPECT_EQ(from_lines->dataset_hash, from_document->dataset_hash);
  EXPECT_EQ(from_lines->dataset_version_id, from_document->dataset_version_id);
  EXPECT_EQ(from_lines->case_count, from_document->case_count);
  // And the documented rule: dataset_hash is plain BLAKE3 of the document's canonical JSON.
  auto canonical = json::Canonicalize(document);
  ASSERT_TRUE(canonical.ok()) << canonical.status().ToString();
  EXPECT_EQ(from_lines->dataset_hash, Blake3Hex(*canonical));
}

TEST(CaseLinesIdentityTest, HashesTheSubmittedDocument) {
  // Lines with whitespace, CR LF and unsorted keys: only the parsed values count.
  const std::string lines = std::string(" ") + kB + "\r\n" +
                            R"({"input":{"prompt":"a"},"tags":["t"],"id":"00000000-0000-4000-8000-000000000001"})";
  CaseLinesOptions o = Options();
  ExpectSameIdentity(lines, o,
                     std::string(R"({"dataset_id":"lines-ds","cases":[)") + kB + "," +
                         R"({"id":"00000000-0000-4000-8000-000000000001","input":{"prompt":"a"},"tags":["t"]}]})");
  o.dataset_version = "v1";
  ExpectSameIdentity(lines, o,
                     std::string(R"({"cases":[)") + kB + "," +
                         R"({"id":"00000000-0000-4000-8000-000000000001","input":{"prompt":"a"},"tags":["t"]}],)" +
                         R"("dataset_version":"v1","dataset_id":"lines-ds"})");
  // Empty input: {"cases":[],"dataset_id":…}.
  ExpectSameIdentity("", Options(), R"({"cases":[],"dataset_id":"lines-ds"})");
}

TEST(CaseLinesIdentityTest, AbsentVersionDiffersFromNull) {
  auto absent = LinesIdentity(kA, Options());
  auto null_version = DocumentIdentity(std::string(R"({"cases":[)") + kA + R"(],"dataset_id":"lines-ds","dataset_version":null})");
  ASSERT_TRUE(absent.ok() && null_version.ok());
  EXPECT_NE(absent->dataset_hash, null_version->dataset_hash);
}

TEST(CaseLinesIdentityTest, TheDerivedIdIsPartOfTheHashedDocument) {
  const std::string lines = R"({"input":{"prompt":"a"},"metadata":{"source_id":"case-0001"}})";
  ExpectSameIdentity(lines, Options("metadata.source_id"),
                     R"({"cases":[{"id":"6999b6e1-17c2-5112-b119-4a3083702031","input":{"prompt":"a"},)"
                     R"("metadata":{"source_id":"case-0001"}}],"dataset_id":"lines-ds"})");
}

}  // namespace
}  // namespace vigilo::cases
