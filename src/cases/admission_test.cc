// Admission (issue 20): what the packer accepts, a reader with default
// settings accepts too, and what neither can hold is refused up front with an
// error that names the case, field, key or setting. The packing path here is
// the one `vigilo dataset pack` takes: the two streaming passes over the
// submitted document, DatasetWriter, then ReadDataset to verify.
#include <gtest/gtest.h>

#include <string>

#include "vigilo/cases/dataset_reader.h"
#include "vigilo/cases/dataset_stream.h"
#include "vigilo/cases/dataset_writer.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/json/parse.h"
#include "store_test_support.h"
#include "writer_test_support.h"

namespace vigilo::cases {
namespace {

namespace bb = budget_bounds;
using test::TestStore;

constexpr std::string_view kPrefix = "datasets/geo/a/g1/";

std::string CaseId(int i) {
  std::string n = std::to_string(i + 1);
  return "00000000-0000-4000-8000-" + std::string(12 - n.size(), '0') + n;
}

std::string CaseJson(int i, const std::string& prompt) {
  return R"({"id":")" + CaseId(i) + R"(","input":{"prompt":")" + prompt + R"("}})";
}

std::string Document(const std::string& cases, const std::string& extra_fields = "") {
  return R"({"dataset_id":"geo",)" + extra_fields + R"("cases":[)" + cases + "]}";
}

// Both passes over `doc` into `store`, as the packer does them.
Result<WrittenDataset> Pack(TestStore& store, const std::string& doc, const BudgetConfig& budget,
                            const DatasetStreamLimits& limits = {}) {
  StringByteSource first(doc);
  VIGILO_ASSIGN_OR_RETURN(DatasetSourceFields sf, ReadDatasetSourceFields(first, limits));
  VIGILO_ASSIGN_OR_RETURN(DatasetWriter writer, DatasetWriter::Start(std::move(sf), budget, TestScratchDir(),
                                                                     std::string(kPrefix), store.Sink()));
  StringByteSource second(doc);
  VIGILO_RETURN_IF_ERROR(
      ForEachDatasetCase(second, limits, [&](const json::Value& c) { return writer.AddCase(c); }));
  return writer.Finish();
}

Result<ReadDatasetSummary> Verify(TestStore& store, const WrittenDataset& written) {
  return ReadDataset(written.manifest_ref, BudgetConfig::Defaults(), TestScratchDir(), store.BytesFetch());
}

// --- 1: values longer than the 256 KiB stream window ---

TEST(AdmissionTest, A300KiBPromptPacksAndVerifies) {
  const std::string prompt(300 << 10, 'q');
  TestStore store;
  auto written = Pack(store, Document(CaseJson(0, "short") + "," + CaseJson(1, prompt)), BudgetConfig::Defaults());
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  std::string seen;
  auto summary = ReadDataset(written->manifest_ref, BudgetConfig::Defaults(), TestScratchDir(), store.BytesFetch(),
                             [&](const CaseRecord& r) -> Status {
                               if (r.case_ordinal == 1) {
                                 seen = r.source.as_object().Find("input")->as_object().Find("prompt")->as_string();
                               }
                               return Status::Ok();
                             });
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->manifest.case_count, 2);
  EXPECT_EQ(seen, prompt);
}

TEST(AdmissionTest, A300KiBTopLevelFieldIsRead) {
  const std::string note(300 << 10, 'n');
  const std::string doc = Document(CaseJson(0, "p"), R"("note":")" + note + R"(",)");
  StringByteSource source(doc);
  auto sf = ReadDatasetSourceFields(source);
  ASSERT_TRUE(sf.ok()) << sf.status().ToString();
  EXPECT_EQ(sf->fields.Find("note")->as_string(), note);
}

// A case whose record cannot fit a batch gets the seed's size-admission
// error, naming its ordinal, its id and the batch limit.
TEST(AdmissionTest, ACaseLargerThanABatchIsRefusedByName) {
  const std::string prompt(9 << 20, 'q');
  const std::string doc = Document(CaseJson(0, "short") + "," + CaseJson(1, prompt));
  DatasetStreamLimits limits;
  limits.max_case_bytes = bb::kMaxBatchBytes;  // as the packer reads: the batch builder decides
  TestStore store;
  auto written = Pack(store, doc, BudgetConfig::Defaults(), limits);
  ASSERT_EQ(written.status().code(), StatusCode::kLimitExceeded) << written.status().ToString();
  EXPECT_EQ(written.status().path(), "$.cases[1]");
  const std::string message(written.status().message());
  EXPECT_NE(message.find(CaseId(1)), std::string::npos) << message;
  EXPECT_NE(message.find("the batch limit is 8388608"), std::string::npos) << message;
  EXPECT_FALSE(store.Has(std::string(kPrefix) + "manifest.json"));
}

// Over the stream's own input bound the case cannot be read whole, so its
// id is unknown; the error still says which case.
TEST(AdmissionTest, ACaseOverTheStreamBoundNamesItsOrdinal) {
  const std::string doc = Document(CaseJson(0, "short") + "," + CaseJson(1, std::string(9 << 20, 'q')));
  StringByteSource source(doc);
  Status s = ForEachDatasetCase(source, DatasetStreamLimits{}, [](const json::Value&) { return Status::Ok(); });
  EXPECT_EQ(s.code(), StatusCode::kLimitExceeded) << s.ToString();
  EXPECT_EQ(s.path(), "$.cases[1]");
}

// --- 2: a larger published policy is read with default settings ---

TEST(AdmissionTest, A16MiBBatchPolicyVerifiesWithDefaultSettings) {
  BudgetConfig budget = BudgetConfig::Defaults();
  budget.case_batch_max_bytes = 16 * bb::kMiB;
  TestStore store;
  auto written = Pack(store, Document(CaseJson(0, "a") + "," + CaseJson(1, "b")), budget);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->manifest.batch_limits.max_bytes, 16 * bb::kMiB);
  auto summary = Verify(store, *written);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->manifest.case_count, 2);
}

// --- 3: nesting the writer accepts is nesting the reader accepts ---

// A document whose field "deep" makes the whole document `depth` levels deep.
std::string DeepDocument(size_t depth) {
  std::string deep = std::string(depth - 1, '[') + std::string(depth - 1, ']');
  return Document(CaseJson(0, "p"), R"("deep":)" + deep + ",");
}

TEST(AdmissionTest, FieldDepth126PacksAndVerifies) {
  TestStore store;
  auto written = Pack(store, DeepDocument(126), BudgetConfig::Defaults());
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  auto summary = Verify(store, *written);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
}

TEST(AdmissionTest, FieldDepth127IsRefusedAtAdmission) {
  TestStore store;
  auto written = Pack(store, DeepDocument(127), BudgetConfig::Defaults());
  ASSERT_EQ(written.status().code(), StatusCode::kLimitExceeded) << written.status().ToString();
  EXPECT_EQ(written.status().path(), "$.fields.deep");
  EXPECT_EQ(written.status().message(),
            "field \"deep\" nests 126 levels; the source-fields object holds it 2 levels down and readers accept at "
            "most 127, so a field may nest at most 125 levels (126 in the submitted document)");
  EXPECT_EQ(store.writes, 0);
  // The in-memory path refuses it too.
  auto sf = DatasetSourceFields::FromDocument(*json::Parse(DeepDocument(127)));
  EXPECT_EQ(sf.status().code(), StatusCode::kLimitExceeded);
}

TEST(AdmissionTest, FieldDepth128IsRefusedByTheTokenizer) {
  TestStore store;
  auto written = Pack(store, DeepDocument(128), BudgetConfig::Defaults());
  ASSERT_EQ(written.status().code(), StatusCode::kLimitExceeded) << written.status().ToString();
  EXPECT_EQ(written.status().message(), "nesting deeper than 127 levels");
  EXPECT_EQ(written.status().path(), "$.deep");
  EXPECT_EQ(store.writes, 0);
}

// --- 4: a byte order mark ---

TEST(AdmissionTest, AByteOrderMarkGetsTheParsersMessage) {
  const std::string doc = "\xef\xbb\xbf" + Document(CaseJson(0, "p"));
  StringByteSource source(doc);
  auto sf = ReadDatasetSourceFields(source);
  EXPECT_EQ(sf.status().code(), json::Parse(doc).status().code()) << sf.status().ToString();
  EXPECT_EQ(sf.status().message(), "a byte order mark is not allowed");
  EXPECT_EQ(sf.status().offset(), 0u);
}

// --- 5: logical_key_max_bytes ---

// The longest keys are the batch and index-page keys: 35 bytes after the prefix
// ("batches/0000000000-0000000001.jsonl", "index/L8/0000000000-0000000001.json").
TEST(AdmissionTest, LogicalKeyLimitIsAppliedBeforeAnythingIsWritten) {
  BudgetConfig budget = BudgetConfig::Defaults();
  budget.logical_key_max_bytes = kPrefix.size() + 34;
  TestStore store;
  auto written = Pack(store, Document(CaseJson(0, "p")), budget);
  ASSERT_EQ(written.status().code(), StatusCode::kLimitExceeded) << written.status().ToString();
  EXPECT_EQ(written.status().path(), "logical_key_max_bytes");
  EXPECT_EQ(written.status().message(),
            "the batch key \"datasets/geo/a/g1/batches/0000000000-2147483647.jsonl\" is 53 bytes, more than "
            "logical_key_max_bytes (52)");
  EXPECT_EQ(store.writes, 0);

  budget.logical_key_max_bytes = kPrefix.size() + 35;
  TestStore fits;
  auto ok = Pack(fits, Document(CaseJson(0, "p")), budget);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_TRUE(Verify(fits, *ok).ok());
}

}  // namespace
}  // namespace vigilo::cases
