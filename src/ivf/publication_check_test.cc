// CheckPublicationObjects: a publication written by the publication writer
// (into a MemoryStore) passes the footer and deep levels, and each §3 rule
// broken in a real object fails with its specific error naming the object
// (and row group).
#include "vigilo/ivf/publication_check.h"

#include <gtest/gtest.h>

#include <functional>

#include "store_test_support.h"
#include "vigilo/common/hex.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/publication_inspect.h"
#include "vigilo/ivf/publication_writer.h"
#include "vigilo/ivf/source_writer.h"
#include "vigilo/store/memory_store.h"
#include "vigilo/store/owned_writes.h"

namespace vigilo::ivf {
namespace {

using parquet::ColumnKind;
using parquet::ColumnSpec;

constexpr uint64_t kDim = 3;
const std::vector<uint64_t> kOffsets = {0, 2, 5};

class PublicationCheckTest : public testing::Test {
 protected:
  void SetUp() override { Build(); }

  // 5 leaves in roots [0,2) [2,5); leaves 0, 1 and 4 have postings (2 + 1 + 3 rows).
  void Build() {
    std::vector<float> leaves(5 * kDim);
    for (size_t i = 0; i < leaves.size(); ++i) leaves[i] = static_cast<float>(i % 7);
    auto lvq = EncodeLvqRows(Encoding::kLvq8, leaves, kDim);
    ASSERT_TRUE(lvq.ok());
    auto centroids = WriteCentroids(writes_, kOffsets, *lvq, kDim, parquet::CompressionCodec::kUncompressed);
    ASSERT_TRUE(centroids.ok());
    m_.index = IndexSpec{"vector", Metric::kL2Squared, Encoding::kLvq8, kDim, 5, 6,
                         {Field{"id", ColumnType{ColumnType::Kind::kLong, 0}}}};
    m_.artifact_uuid = *Uuid::Parse("0b1c2d3e-4f50-4617-8283-94a5b6c7d8e9");
    m_.hierarchy = Hierarchy{kOffsets, *centroids};
    auto w = PostingsWriter::Open(writes_, m_.index, kOffsets, {});
    ASSERT_TRUE(w.ok());
    int64_t key = 0;
    for (auto [cid, n] : {std::pair<uint32_t, size_t>{0, 2}, {1, 1}, {4, 3}}) {
      LeafRows rows;
      rows.keys.Clear(ColumnType{ColumnType::Kind::kLong, 0});
      for (size_t i = 0; i < n; ++i) {
        rows.keys.integers.push_back(key++);
        rows.params.push_back(LvqParams{0, 1});
      }
      rows.codes.assign(n * kDim, 9);
      ASSERT_TRUE((*w)->AddLeaf(cid, rows).ok());
    }
    auto files = (*w)->Finish();
    ASSERT_TRUE(files.ok());
    m_.postings = *files;
    ASSERT_TRUE(ValidateManifest(m_).ok()) << ValidateManifest(m_).ToString();
  }

  Status Check(bool deep) { return CheckPublicationObjects(m_, store_, deep).status(); }

  // Replaces the object at `path` by a file with these columns and row
  // groups (each a list of rows: cid, key, offset, scale, code), and points
  // the manifest's descriptor at the new bytes.
  void ReplacePostings(size_t file, const std::vector<ColumnSpec>& columns,
                       const std::vector<std::vector<int32_t>>& groups, size_t code_bytes = kDim) {
    parquet::MemorySink sink;
    auto w = parquet::FileWriter::Open(columns, {}, &sink);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    int64_t key = 0;
    for (const auto& cids : groups) {
      ASSERT_TRUE((*w)->BeginRowGroup().ok());
      std::vector<int64_t> keys;
      std::vector<float> zeros(cids.size(), 0.f);
      std::string code(code_bytes, '\x01');
      std::vector<std::string_view> codes(cids.size(), code);
      for (size_t i = 0; i < cids.size(); ++i) keys.push_back(key++);
      ASSERT_TRUE((*w)->WriteInt32(0, cids).ok());
      size_t c = 1;
      if (columns.size() == 5) {
        ASSERT_TRUE((*w)->WriteInt64(c++, keys).ok());
      }
      ASSERT_TRUE((*w)->WriteFloat(c++, zeros).ok());
      ASSERT_TRUE((*w)->WriteFloat(c++, zeros).ok());
      ASSERT_TRUE((*w)->WriteByteArray(c, codes).ok());
      ASSERT_TRUE((*w)->EndRowGroup().ok());
    }
    ASSERT_TRUE((*w)->Finish().ok());
    std::string bytes(sink.bytes().begin(), sink.bytes().end());
    Overwrite(m_.postings[file].object, bytes);
  }

  void Overwrite(ObjectDescriptor& d, const std::string& bytes) {
    store_.Overwrite(d.path, bytes);
    Sha256Hasher h;
    h.Update(bytes);
    d.size = bytes.size();
    d.sha256 = HexEncode(*h.Finalize());
  }

  store::MemoryStore store_;
  store::OwnedWrites writes_{store_};
  Manifest m_;
};

ColumnSpec Col(const char* name, ColumnKind kind) {
  ColumnSpec c;
  c.name = name;
  c.kind = kind;
  return c;
}
std::vector<ColumnSpec> PostingsColumns() {
  return {Col("cid", ColumnKind::kInt32), Col("id", ColumnKind::kInt64), Col("offset", ColumnKind::kFloat),
          Col("scale", ColumnKind::kFloat), Col("code", ColumnKind::kByteArray)};
}

::testing::AssertionResult Fails(const Status& s, StatusCode code, const std::string& path, const std::string& text) {
  if (s.code() == code && s.path() == path && s.message().find(text) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "expected " << StatusCodeName(code) << " at \"" << path << "\" with \""
                                       << text << "\", got " << s.ToString() << " (path \"" << s.path() << "\")";
}

const char* const kBucket1 = "ivf_postings/cid_bucket=000001/part-000000.parquet";

TEST_F(PublicationCheckTest, AWrittenPublicationPasses) {
  // The writers created exactly the three objects, each recorded as this write's.
  EXPECT_EQ(store_.Keys(), (std::vector<std::string>{"centroids.parquet", m_.postings[0].object.path, kBucket1}));
  EXPECT_EQ(writes_.created(), (std::vector<std::string>{"centroids.parquet", m_.postings[0].object.path, kBucket1}));
  RecordingStore reads(store_);
  auto shallow = CheckPublicationObjects(m_, reads, false);
  ASSERT_TRUE(shallow.ok()) << shallow.status().ToString();
  EXPECT_EQ(shallow->objects, 3u);
  EXPECT_EQ(shallow->row_groups, 2u + 2u + 1u);
  EXPECT_EQ(reads.gets, 3);  // one footer tail each, whose Get also checks the size
  EXPECT_EQ(shallow->bytes_read, reads.BytesRead());
  reads.gets = 0;
  auto deep = CheckPublicationObjects(m_, reads, true);
  ASSERT_TRUE(deep.ok()) << deep.status().ToString();
  // Every byte hashed; these objects are smaller than the read-ahead window,
  // so the footer's Get already held each whole and nothing is fetched twice.
  uint64_t total = m_.hierarchy.centroids.size;
  for (const auto& file : m_.postings) total += file.object.size;
  EXPECT_EQ(deep->bytes_hashed, total);
  EXPECT_EQ(reads.gets, 3);
  EXPECT_EQ(deep->bytes_read, shallow->bytes_read);
  EXPECT_EQ(reads.heads, 0);
}

TEST_F(PublicationCheckTest, InspectReportsListsAndBuckets) {
  auto shape = InspectPublication(m_, store_);
  ASSERT_TRUE(shape.ok()) << shape.status().ToString();
  EXPECT_EQ(shape->list_rows, (std::vector<uint64_t>{2, 1, 0, 0, 3}));
  EXPECT_EQ(shape->empty_lists, 2u);
  EXPECT_EQ(shape->lists.count, 5u);
  EXPECT_EQ(shape->lists.min, 0u);
  EXPECT_EQ(shape->lists.p50, 1u);
  EXPECT_EQ(shape->lists.max, 3u);
  EXPECT_DOUBLE_EQ(shape->lists.mean, 1.2);
  EXPECT_EQ(shape->buckets.min, 3u);  // roots [0,2) and [2,5) hold 3 rows each
  EXPECT_EQ(shape->buckets.max, 3u);
  EXPECT_EQ(shape->postings_row_groups, 3u);
  EXPECT_EQ(shape->postings_bytes, m_.postings[0].object.size + m_.postings[1].object.size);
}

TEST(SummarizeTest, NearestRankPercentiles) {
  std::vector<uint64_t> v;
  for (uint64_t i = 1; i <= 100; ++i) v.push_back(101 - i);
  SizeSummary s = Summarize(v);
  EXPECT_EQ(s.p50, 50u);
  EXPECT_EQ(s.p90, 90u);
  EXPECT_EQ(s.p99, 99u);
  EXPECT_EQ(s.max, 100u);
  EXPECT_EQ(Summarize({}).count, 0u);
  EXPECT_EQ(Summarize({7}).p99, 7u);
}

// P-POS-04: statistics must be present, exact and agree; the footer is
// rewritten around the same column chunks with the cid statistics edited.
TEST_F(PublicationCheckTest, CidStatisticsMustBeExactAndComplete) {
  std::string original = *store_.Peek(m_.postings[0].object.path);
  auto edit = [&](const std::function<void(parquet::Statistics&)>& change) {
    auto bytes = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(original.data()), original.size());
    auto parsed = parquet::ParseFooter(bytes, bytes.size());
    ASSERT_TRUE(parsed.ok());
    parquet::Footer footer = std::get<parquet::Footer>(*parsed);
    change(*footer.metadata.row_groups[0].columns[0].meta_data->statistics);
    auto tail = parquet::EncodeFooter(footer.metadata);
    ASSERT_TRUE(tail.ok());
    std::string rewritten = original.substr(0, footer.offset) + std::string(tail->begin(), tail->end());
    Overwrite(m_.postings[0].object, rewritten);
  };
  const std::string rg0 = m_.postings[0].object.path + ": row group 0";
  edit([](parquet::Statistics& s) { s.min_value.reset(); });
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, rg0, "lack min_value/max_value"));
  edit([](parquet::Statistics& s) { s.null_count.reset(); });
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, rg0, "null_count 0"));
  edit([](parquet::Statistics& s) { s.is_max_value_exact = false; });
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, rg0, "not exact"));
  edit([](parquet::Statistics& s) { s.min = std::string("\x07\0\0\0", 4); });
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, rg0, "legacy cid statistics disagree"));
}

// P-CEN-02 (deep): centroid rows ordered (cid_bucket, cid) with cid = row.
TEST_F(PublicationCheckTest, CentroidRowsMustBeInCidOrder) {
  std::vector<ColumnSpec> columns = {Col("cid", ColumnKind::kInt32), Col("cid_bucket", ColumnKind::kInt32),
                                     Col("offset", ColumnKind::kFloat), Col("scale", ColumnKind::kFloat),
                                     Col("code", ColumnKind::kByteArray)};
  parquet::MemorySink sink;
  auto w = parquet::FileWriter::Open(columns, {}, &sink);
  ASSERT_TRUE(w.ok());
  std::string code(kDim, '\x02');
  for (auto [cids, bucket] : {std::pair<std::vector<int32_t>, int32_t>{{1, 0}, 0}, {{2, 3, 4}, 1}}) {
    std::vector<int32_t> buckets(cids.size(), bucket);
    std::vector<float> zeros(cids.size(), 0.f);
    std::vector<std::string_view> codes(cids.size(), code);
    ASSERT_TRUE((*w)->BeginRowGroup().ok());
    ASSERT_TRUE((*w)->WriteInt32(0, cids).ok());
    ASSERT_TRUE((*w)->WriteInt32(1, buckets).ok());
    ASSERT_TRUE((*w)->WriteFloat(2, zeros).ok());
    ASSERT_TRUE((*w)->WriteFloat(3, zeros).ok());
    ASSERT_TRUE((*w)->WriteByteArray(4, codes).ok());
    ASSERT_TRUE((*w)->EndRowGroup().ok());
  }
  ASSERT_TRUE((*w)->Finish().ok());
  Overwrite(m_.hierarchy.centroids, std::string(sink.bytes().begin(), sink.bytes().end()));
  EXPECT_TRUE(Check(false).ok());
  EXPECT_TRUE(Fails(Check(true), StatusCode::kInvalidFormat, "centroids.parquet: row group 0",
                    "row 0 is (cid_bucket 0, cid 1); rows must be ordered (cid_bucket, cid)"));
}

// P-OBJ-02 / size: the object's size must be the manifest's (the expected
// size of every Get; the store names the difference).
TEST_F(PublicationCheckTest, SizeMismatchIsAnIntegrityError) {
  const uint64_t size = m_.postings[1].object.size;
  m_.postings[1].object.size += 1;
  EXPECT_TRUE(Fails(Check(false), StatusCode::kIntegrityError, kBucket1,
                    "object is " + std::to_string(size) + " bytes, expected " + std::to_string(size + 1)));
  m_.postings[1].object.size -= 2;
  EXPECT_TRUE(Fails(Check(false), StatusCode::kIntegrityError, kBucket1,
                    "object is " + std::to_string(size) + " bytes, expected " + std::to_string(size - 1)));
}

// P-OBJ-03 (deep): the whole-object SHA-256.
TEST_F(PublicationCheckTest, DigestMismatchIsFoundByTheDeepLevel) {
  m_.postings[1].object.sha256 = std::string(64, '0');
  EXPECT_TRUE(Check(false).ok());
  EXPECT_TRUE(Fails(Check(true), StatusCode::kIntegrityError, kBucket1, "does not match the manifest's 0000"));
}

TEST_F(PublicationCheckTest, ABrokenFooterIsAParseError) {
  std::string bytes = *store_.Peek(kBucket1);
  bytes[bytes.size() - 1] = 'X';
  Overwrite(m_.postings[1].object, bytes);
  Status s = Check(false);
  EXPECT_EQ(s.code(), StatusCode::kParseError) << s.ToString();
  EXPECT_EQ(s.path().substr(0, std::string(kBucket1).size()), kBucket1);
}

// P-POS-03: exactly one CID per row group.
TEST_F(PublicationCheckTest, TwoCidsInARowGroupFail) {
  ReplacePostings(0, PostingsColumns(), {{0, 1, 1}});
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat,
                    "ivf_postings/cid_bucket=000000/part-000000.parquet: row group 0",
                    "holds CIDs 0 to 1; exactly one is allowed"));
}

// P-POS-05: row groups non-decreasing, first = min-cid, last = max-cid.
TEST_F(PublicationCheckTest, RowGroupCidsMustMatchTheFileRange) {
  ReplacePostings(0, PostingsColumns(), {{1}, {0, 0}});
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat,
                    "ivf_postings/cid_bucket=000000/part-000000.parquet: row group 0",
                    "first row group holds CID 1; the manifest's min-cid is 0"));
  ReplacePostings(0, PostingsColumns(), {{0, 0}, {0}});
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat,
                    "ivf_postings/cid_bucket=000000/part-000000.parquet: row group 1",
                    "last row group holds CID 0; the manifest's max-cid is 1"));
}

// P-POS-06: the file's rows equal the descriptor's.
TEST_F(PublicationCheckTest, RowCountMustMatchTheDescriptor) {
  ReplacePostings(0, PostingsColumns(), {{0, 0}, {1, 1}});
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, "ivf_postings/cid_bucket=000000/part-000000.parquet",
                    "file holds 4 rows; the manifest says 3"));
}

// P-POS-01: the column list and types.
TEST_F(PublicationCheckTest, PostingsSchemaIsExact) {
  auto columns = PostingsColumns();
  columns.erase(columns.begin() + 1);  // no key column
  ReplacePostings(0, columns, {{0, 0}, {1}});
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, "ivf_postings/cid_bucket=000000/part-000000.parquet",
                    "expected 5 columns, found 4"));
  columns = PostingsColumns();
  columns[3].name = "scales";
  ReplacePostings(0, columns, {{0, 0}, {1}});
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, "ivf_postings/cid_bucket=000000/part-000000.parquet",
                    "column 3 must be scale (float, required): it is named \"scales\""));
  columns = PostingsColumns();
  columns[0].optional = true;
  ReplacePostings(0, columns, {{0, 0}, {1}});
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, "ivf_postings/cid_bucket=000000/part-000000.parquet",
                    "column 0 must be cid (int, required): it is not REQUIRED"));
  columns = PostingsColumns();
  columns[4].kind = ColumnKind::kString;
  ReplacePostings(0, columns, {{0, 0}, {1}});
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, "ivf_postings/cid_bucket=000000/part-000000.parquet",
                    "column 4 must be code (binary, required): it is a string"));
}

// P-POS-02 (deep): code lengths.
TEST_F(PublicationCheckTest, CodeLengthIsCheckedDeep) {
  ReplacePostings(0, PostingsColumns(), {{0, 0}, {1}}, kDim + 1);
  EXPECT_TRUE(Check(false).ok());
  EXPECT_TRUE(Fails(Check(true), StatusCode::kInvalidFormat,
                    "ivf_postings/cid_bucket=000000/part-000000.parquet: row group 0",
                    "row 0 has a 4-byte code; 3 bytes are required"));
}

// A centroids.parquet of the fixture's 5 leaves in root order, with these
// columns (the format's by default) and code length.
std::vector<ColumnSpec> CentroidColumns() {
  return {Col("cid", ColumnKind::kInt32), Col("cid_bucket", ColumnKind::kInt32), Col("offset", ColumnKind::kFloat),
          Col("scale", ColumnKind::kFloat), Col("code", ColumnKind::kByteArray)};
}
std::string CentroidBytes(const std::vector<ColumnSpec>& columns, size_t code_bytes) {
  parquet::MemorySink sink;
  auto w = parquet::FileWriter::Open(columns, {}, &sink);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  std::string code(code_bytes, '\x02');
  for (auto [cids, bucket] : {std::pair<std::vector<int32_t>, int32_t>{{0, 1}, 0}, {{2, 3, 4}, 1}}) {
    std::vector<int32_t> buckets(cids.size(), bucket);
    std::vector<float> zeros(cids.size(), 0.f);
    std::vector<std::string_view> codes(cids.size(), code);
    EXPECT_TRUE((*w)->BeginRowGroup().ok());
    EXPECT_TRUE((*w)->WriteInt32(0, cids).ok());
    EXPECT_TRUE((*w)->WriteInt32(1, buckets).ok());
    EXPECT_TRUE((*w)->WriteFloat(2, zeros).ok());
    EXPECT_TRUE((*w)->WriteFloat(3, zeros).ok());
    EXPECT_TRUE((*w)->WriteByteArray(4, codes).ok());
    EXPECT_TRUE((*w)->EndRowGroup().ok());
  }
  EXPECT_TRUE((*w)->Finish().ok());
  return std::string(sink.bytes().begin(), sink.bytes().end());
}

// P-CEN-01: the centroid schema is checked at its own call site (not only
// through the postings' CheckSchema): a wrong name, a missing column, an
// OPTIONAL column and a wrong type each fail naming centroids.parquet.
TEST_F(PublicationCheckTest, CentroidSchemaIsExact) {
  Overwrite(m_.hierarchy.centroids, CentroidBytes(CentroidColumns(), kDim));
  ASSERT_TRUE(Check(true).ok()) << Check(true).ToString();
  auto columns = CentroidColumns();
  columns[1].name = "bucket";
  Overwrite(m_.hierarchy.centroids, CentroidBytes(columns, kDim));
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, "centroids.parquet",
                    "column 1 must be cid_bucket (int, required): it is named \"bucket\""));
  columns = CentroidColumns();
  columns[0].optional = true;
  Overwrite(m_.hierarchy.centroids, CentroidBytes(columns, kDim));
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, "centroids.parquet",
                    "column 0 must be cid (int, required): it is not REQUIRED"));
  columns = CentroidColumns();
  columns[4].kind = ColumnKind::kString;
  Overwrite(m_.hierarchy.centroids, CentroidBytes(columns, kDim));
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, "centroids.parquet",
                    "column 4 must be code (binary, required): it is a string"));
}

// P-CEN-05 (deep): every centroid code is LVQ8, `dimension` bytes.
TEST_F(PublicationCheckTest, CentroidCodeLengthIsCheckedDeep) {
  Overwrite(m_.hierarchy.centroids, CentroidBytes(CentroidColumns(), kDim + 1));
  EXPECT_TRUE(Check(false).ok()) << Check(false).ToString();
  EXPECT_TRUE(Fails(Check(true), StatusCode::kInvalidFormat, "centroids.parquet: row group 0",
                    "row 0 has a 4-byte code; 3 bytes are required"));
}

// P-CEN-03 / P-CEN-04: one row group per root, sized as its interval.
TEST_F(PublicationCheckTest, CentroidRowGroupsFollowTheRoots) {
  m_.hierarchy.cid_offsets = {0, 3, 5};
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, "centroids.parquet: row group 0",
                    "row group has 2 rows; root 0's interval has 3"));
  m_.hierarchy.cid_offsets = {0, 5};
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, "centroids.parquet",
                    "centroids have 2 row groups; there are 1 roots"));
}

TEST_F(PublicationCheckTest, AMissingObjectIsNotFound) {
  ASSERT_TRUE(store_.Delete(kBucket1).ok());
  EXPECT_TRUE(Fails(Check(false), StatusCode::kNotFound, kBucket1, "no such object"));
}

// A source table of the 6 rows (key id, payload word) with row-group-rows 4.
class SourceCheckTest : public PublicationCheckTest {
 protected:
  void SetUp() override {
    PublicationCheckTest::SetUp();
    std::vector<Field> fields{Field{"id", ColumnType{ColumnType::Kind::kLong, 0}},
                              Field{"word", ColumnType{ColumnType::Kind::kString, 0}}};
    SourceLayout layout;
    layout.row_group_rows = 4;
    auto w = SourceWriter::Open(writes_, fields, "id", layout);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    parquet::DecodedColumn keys, words;
    keys.num_rows = words.num_rows = 6;
    keys.values.type = parquet::Type::kInt64;
    words.values.type = parquet::Type::kByteArray;
    words.values.binary_offsets = {0};
    for (int64_t i = 0; i < 6; ++i) {
      keys.values.int64s.push_back(i);
      words.values.binary.push_back(static_cast<uint8_t>('a' + i));
      words.values.binary_offsets.push_back(words.values.binary.size());
    }
    ASSERT_TRUE((*w)->Append({&keys, &words}).ok());
    auto spec = (*w)->Finish();
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    m_.source = *spec;
    ASSERT_TRUE(ValidateManifest(m_).ok()) << ValidateManifest(m_).ToString();
  }
  // Replaces source file 0 by one with these row groups of keys.
  void ReplaceSource(const std::vector<std::vector<int64_t>>& groups, bool key_optional = false) {
    std::vector<ColumnSpec> columns = {Col("id", ColumnKind::kInt64), Col("word", ColumnKind::kString)};
    columns[0].optional = key_optional;
    columns[1].optional = true;
    parquet::MemorySink sink;
    auto w = parquet::FileWriter::Open(columns, {}, &sink);
    ASSERT_TRUE(w.ok());
    for (const auto& keys : groups) {
      std::vector<std::string_view> words(keys.size(), "w");
      ASSERT_TRUE((*w)->BeginRowGroup().ok());
      ASSERT_TRUE((*w)->WriteInt64(0, keys).ok());
      ASSERT_TRUE((*w)->WriteByteArray(1, words).ok());
      ASSERT_TRUE((*w)->EndRowGroup().ok());
    }
    ASSERT_TRUE((*w)->Finish().ok());
    Overwrite(m_.source->files[0].object, std::string(sink.bytes().begin(), sink.bytes().end()));
  }
};

const char* const kSource0 = "source/part-000000.parquet";

TEST_F(SourceCheckTest, AWrittenSourceTablePasses) {
  ASSERT_EQ(m_.source->files.size(), 1u);
  EXPECT_TRUE(Check(true).ok()) << Check(true).ToString();
}

// P-SFI-01: the key column is REQUIRED.
TEST_F(SourceCheckTest, TheKeyMustBeRequired) {
  ReplaceSource({{0, 1, 2, 3}, {4, 5}}, true);
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, kSource0,
                    "column 0 must be id (long, required): it is not REQUIRED"));
}

// P-SRC-11 / P-SFI-02: row groups of exactly row-group-rows, the last one the remainder.
TEST_F(SourceCheckTest, RowGroupsHoldRowGroupRows) {
  ReplaceSource({{0, 1, 2}, {3, 4, 5}});
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, std::string(kSource0) + ": row group 0",
                    "row group has 3 rows; 4 are required (row-group-rows 4)"));
  ReplaceSource({{0, 1, 2, 3}, {4}});  // the last group one row short of the range
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, std::string(kSource0) + ": row group 1",
                    "row group has 1 rows; 2 are required"));
  ReplaceSource({{0, 1, 2, 3}, {4, 5}, {6}});  // a row beyond the range
  EXPECT_TRUE(Fails(Check(false), StatusCode::kInvalidFormat, std::string(kSource0) + ": row group 2",
                    "row group has 1 rows; 0 are required"));
}

// P-SRC-12 (deep): the key at position p is p.
TEST_F(SourceCheckTest, KeysAreTheirRowPositions) {
  ReplaceSource({{0, 1, 3, 2}, {4, 5}});
  EXPECT_TRUE(Check(false).ok());
  EXPECT_TRUE(Fails(Check(true), StatusCode::kInvalidFormat, std::string(kSource0) + ": row group 0",
                    "the key at row 2 is 3; keys must equal their row position"));
}

// The source writer itself refuses keys that are not positions.
TEST_F(SourceCheckTest, TheWriterRefusesOtherKeys) {
  store::MemoryStore other;
  store::OwnedWrites writes(other);
  auto w = SourceWriter::Open(writes, {Field{"id", ColumnType{ColumnType::Kind::kLong, 0}}}, "id", {});
  ASSERT_TRUE(w.ok());
  parquet::DecodedColumn keys;
  keys.num_rows = 2;
  keys.values.type = parquet::Type::kInt64;
  keys.values.int64s = {0, 5};
  Status s = (*w)->Append({&keys});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("at row 1 is 5"), std::string::npos) << s.ToString();
  EXPECT_EQ(other.object_count(), 0u);
}

}  // namespace
}  // namespace vigilo::ivf
