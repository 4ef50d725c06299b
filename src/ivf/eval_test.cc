// Ground-truth files, recall@k and the timed evaluation passes.
#include "vigilo/ivf/eval.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "store_test_support.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/kmeans_random.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::ivf {
namespace {

class EvalTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("vigilo_eval_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  template <typename T>
  static std::string Bytes(std::initializer_list<T> values) {
    std::string out;
    for (T v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
    return out;
  }
  static std::string Npy(const std::string& descr, const std::string& shape, const std::string& data) {
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + dict.size() + 1) % 64 != 0) dict.push_back(' ');
    dict.push_back('\n');
    std::string out = "\x93NUMPY";
    out.push_back('\x01');
    out.push_back('\x00');
    out.push_back(static_cast<char>(dict.size() & 0xff));
    out.push_back(static_cast<char>(dict.size() >> 8));
    return out + dict + data;
  }
  static void ExpectError(const Result<GroundTruth>& r, StatusCode code, const std::string& text) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    EXPECT_NE(r.status().ToString().find(text), std::string::npos) << r.status().ToString();
  }

  std::filesystem::path dir_;
};

TEST_F(EvalTest, ReadsIvecs) {
  auto gt = ReadGroundTruth(Write("gt.ivecs", Bytes<int32_t>({3, 5, 1, 9, 3, 0, 2, 7})));
  ASSERT_TRUE(gt.ok()) << gt.status().ToString();
  EXPECT_EQ(gt->queries, 2u);
  EXPECT_EQ(gt->k, 3u);
  EXPECT_EQ(std::vector<int64_t>(gt->Row(1).begin(), gt->Row(1).end()), (std::vector<int64_t>{0, 2, 7}));
}

TEST_F(EvalTest, RefusesBadIvecs) {
  ExpectError(ReadGroundTruth(Write("a.ivecs", Bytes<int32_t>({2, 1, 2, 3, 1, 2, 3}))), StatusCode::kInvalidFormat,
              "row 1 has 3 ids; row 0 has 2");
  ExpectError(ReadGroundTruth(Write("b.ivecs", Bytes<int32_t>({2, 1, 2, 2, 1}))), StatusCode::kInvalidFormat,
              "row 1 is truncated");
  ExpectError(ReadGroundTruth(Write("c.ivecs", Bytes<int32_t>({2, 1, -4}))), StatusCode::kInvalidFormat,
              "row 0 has a negative id");
  ExpectError(ReadGroundTruth(Write("d.ivecs", Bytes<int32_t>({0}))), StatusCode::kInvalidFormat, "declares 0 ids");
  ExpectError(ReadGroundTruth(Write("e.ivecs", "")), StatusCode::kInvalidFormat, "holds no rows");
  ExpectError(ReadGroundTruth(Write("f.ivecs", Bytes<int32_t>({1, 5}) + "xy")), StatusCode::kInvalidFormat,
              "row 1 is truncated");
  ExpectError(ReadGroundTruth(Write("gt.txt", "1 2 3")), StatusCode::kInvalidArgument, ".ivecs, .npy or .jsonl");
}

TEST_F(EvalTest, ReadsNpyIdsOfEveryIntegerType) {
  for (const std::string descr : {"<i4", "<u4"}) {
    auto gt = ReadGroundTruth(Write("gt.npy", Npy(descr, "(2, 2)", Bytes<int32_t>({4, 1, 0, 8}))));
    ASSERT_TRUE(gt.ok()) << descr << " " << gt.status().ToString();
    EXPECT_EQ(gt->ids, (std::vector<int64_t>{4, 1, 0, 8}));
  }
  for (const std::string descr : {"<i8", "<u8"}) {
    auto gt = ReadGroundTruth(Write("gt.npy", Npy(descr, "(1, 3)", Bytes<int64_t>({7, 3000000000LL, 2}))));
    ASSERT_TRUE(gt.ok()) << descr << " " << gt.status().ToString();
    EXPECT_EQ(gt->ids, (std::vector<int64_t>{7, 3000000000LL, 2}));
  }
}

TEST_F(EvalTest, RefusesBadNpy) {
  ExpectError(ReadGroundTruth(Write("a.npy", Npy("<f4", "(1, 2)", Bytes<float>({1, 2})))), StatusCode::kInvalidFormat,
              "is not an id type");
  ExpectError(ReadGroundTruth(Write("b.npy", Npy("<i4", "(2, 2)", Bytes<int32_t>({1, 2, 3})))),
              StatusCode::kInvalidFormat, "row 1 is truncated");
  ExpectError(ReadGroundTruth(Write("c.npy", Npy("<i4", "(1, 2)", Bytes<int32_t>({1, 2, 3})))),
              StatusCode::kInvalidFormat, "bytes after the rows");
  ExpectError(ReadGroundTruth(Write("d.npy", Npy("<i8", "(1, 1)", Bytes<int64_t>({-1})))), StatusCode::kInvalidFormat,
              "negative or too large id");
  ExpectError(ReadGroundTruth(Write("e.npy", Npy("<i4", "(4,)", Bytes<int32_t>({1, 2, 3, 4})))),
              StatusCode::kInvalidFormat, "2-D");
  ExpectError(ReadGroundTruth(Write("f.npy", Npy("<i4", "(0, 3)", ""))), StatusCode::kInvalidFormat, "no ids");
}

TEST(RecallTest, CountsTheIntersectionWithTheFirstK) {
  std::vector<int64_t> truth{1, 2, 3, 4, 5, 6};
  EXPECT_DOUBLE_EQ(RecallAtK(std::vector<int64_t>{3, 1, 9}, truth, 3), 2.0 / 3);
  EXPECT_DOUBLE_EQ(RecallAtK(std::vector<int64_t>{4, 5, 6}, truth, 3), 0.0);      // beyond k is not a hit
  EXPECT_DOUBLE_EQ(RecallAtK(std::vector<int64_t>{1, 1, 1}, truth, 3), 1.0 / 3);  // a repeat counts once
  EXPECT_DOUBLE_EQ(RecallAtK(std::vector<int64_t>{2}, truth, 3), 1.0 / 3);        // fewer found than k
}

// On a real publication: the ground truth is the engine's own exhaustive
// answer, so probing every list has recall exactly 1 and fewer lists less.
TEST_F(EvalTest, EvaluatesAPublicationPerNprobe) {
  constexpr size_t kN = 2000, kD = 8;
  Xoshiro256 rng(5);
  std::string base;
  for (size_t i = 0; i < kN; ++i) {
    int32_t d = kD;
    base.append(reinterpret_cast<const char*>(&d), 4);
    for (size_t j = 0; j < kD; ++j) {
      float v = static_cast<float>(rng.NextDouble() * 10);
      base.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  BuildOptions o;
  o.input = Write("base.fvecs", base);
  o.metric = Metric::kL2Squared;
  o.encoding = Encoding::kLvq8;
  o.nlist = 32;
  o.scratch = dir_.string();
  store::MemoryStore store;
  auto built = BuildPublication(o, store);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  PublicationReader reader(built->manifest);
  RecordingStore objects(store);
  std::vector<std::vector<float>> queries;
  for (int q = 0; q < 20; ++q) {
    std::vector<float> v(kD);
    for (float& x : v) x = static_cast<float>(rng.NextDouble() * 10);
    queries.push_back(v);
  }
  QueryOptions all;
  all.k = 10;
  all.nprobe = 32;
  auto exact = RunQuery(reader, objects, queries, all);
  ASSERT_TRUE(exact.ok());
  GroundTruth truth{queries.size(), 10, exact->keys.integers};
  for (size_t batch : {size_t{1}, size_t{7}, size_t{0}}) {
    EvalOptions eo;
    eo.nprobes = {1, 32};
    eo.batch = batch;
    eo.warmup = 3;
    auto points = EvaluateRecall(reader, objects, queries, truth, eo);
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    ASSERT_EQ(points->size(), 2u);
    EXPECT_LT((*points)[0].recall, 0.9) << "batch " << batch;
    EXPECT_EQ((*points)[1].recall, 1.0) << "batch " << batch;
    EXPECT_EQ((*points)[1].list_recall, 1.0) << "batch " << batch;
    EXPECT_GE((*points)[0].list_recall, (*points)[0].recall) << "batch " << batch;
    EXPECT_LT((*points)[0].bytes_per_query, (*points)[1].bytes_per_query);
    EXPECT_GT((*points)[0].rows_per_query, 0) << "batch " << batch;
    EXPECT_LT((*points)[0].rows_per_query, (*points)[1].rows_per_query) << "batch " << batch;
    EXPECT_EQ((*points)[1].rows_per_query, static_cast<double>(kN)) << "batch " << batch;  // every list
    EXPECT_GT((*points)[0].qps, 0);
    EXPECT_EQ((*points)[1].queries, 20u);
  }
  EXPECT_EQ(objects.heads, 0);

  // A pass reads what it reads wherever it comes in the sweep: a reader's
  // first reads of the publication (here the postings footers, fetched once
  // per file) fall in the warm-up at the widest nprobe, not in the first
  // timed pass. (Two warm-up queries at nprobe 1 reach fewer files than the
  // timed pass's twenty.)
  ASSERT_GE(built->manifest.postings.size(), 3u);
  {
    EvalOptions narrow_first, wide_first;
    narrow_first.nprobes = {1, 32};
    wide_first.nprobes = {32, 1};
    narrow_first.warmup = wide_first.warmup = 2;
    PublicationReader fresh(built->manifest), other(built->manifest);
    auto a = EvaluateRecall(fresh, objects, queries, truth, narrow_first);
    auto b = EvaluateRecall(other, objects, queries, truth, wide_first);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ((*a)[0].requests_per_query, (*b)[1].requests_per_query);
    EXPECT_EQ((*a)[0].bytes_per_query, (*b)[1].bytes_per_query);
    EXPECT_EQ((*a)[1].requests_per_query, (*b)[0].requests_per_query);
  }

  // Held postings (EvalOptions::hold_postings_max_bytes): the same recall
  // and rows, every pass reading the row groups in place with no request.
  {
    EvalOptions fetching, holding;
    fetching.nprobes = holding.nprobes = {1, 32};
    fetching.warmup = holding.warmup = 2;
    holding.hold_postings_max_bytes = UINT64_MAX;
    PublicationReader fetcher(built->manifest), holder(built->manifest);
    auto a = EvaluateRecall(fetcher, objects, queries, truth, fetching);
    auto b = EvaluateRecall(holder, objects, queries, truth, holding);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    for (const PostingsFile& f : built->manifest.postings) EXPECT_TRUE(holder.HoldsPostings(f.object.path));
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ((*a)[i].recall, (*b)[i].recall) << i;
      EXPECT_EQ((*a)[i].rows_per_query, (*b)[i].rows_per_query) << i;
      EXPECT_GT((*a)[i].requests_per_query, 0) << i;
      EXPECT_EQ((*b)[i].requests_per_query, 0) << i;
      EXPECT_GT((*b)[i].bytes_per_query, 0) << i;  // the row groups' spans, read in place
    }
  }

  // List recall at nprobe 1, counted independently: with k as large as the
  // publication, a query returns every row of the one list it probes.
  QueryOptions whole_list;
  whole_list.k = kN;
  whole_list.nprobe = 1;
  double in_list = 0;
  for (size_t q = 0; q < queries.size(); ++q) {
    auto rows = RunQuery(reader, objects, {queries[q]}, whole_list);
    ASSERT_TRUE(rows.ok());
    for (int64_t id : truth.Row(q)) {
      in_list += std::count(rows->keys.integers.begin(), rows->keys.integers.end(), id) != 0 ? 1 : 0;
    }
  }
  EvalOptions one;
  one.nprobes = {1};
  one.warmup = 0;
  auto point = EvaluateRecall(reader, objects, queries, truth, one);
  ASSERT_TRUE(point.ok());
  EXPECT_DOUBLE_EQ((*point)[0].list_recall, in_list / (10.0 * static_cast<double>(queries.size())));
  EXPECT_LT((*point)[0].list_recall, 1.0);

  // A cancel mid-way (issue 34: SIGINT on index eval) stops before the next query run.
  store::CancelToken never;
  CancellingStore counting(store, never, 0);
  EvalOptions passes;
  passes.nprobes = {1, 8};
  passes.warmup = 0;
  passes.cancel = &never;
  ASSERT_TRUE(EvaluateRecall(reader, counting, queries, truth, passes).ok());
  store::CancelToken cancel;
  CancellingStore cancelling(store, cancel, counting.gets / 2);
  passes.cancel = &cancel;
  EXPECT_EQ(EvaluateRecall(reader, cancelling, queries, truth, passes).status().code(), StatusCode::kCancelled);
  EXPECT_LT(cancelling.gets, counting.gets);

  EvalOptions eo;
  eo.k = 11;
  EXPECT_EQ(EvaluateRecall(reader, objects, queries, truth, eo).status().code(), StatusCode::kInvalidArgument);
  GroundTruth short_truth{5, 10, std::vector<int64_t>(50)};
  EXPECT_EQ(EvaluateRecall(reader, objects, queries, short_truth, {}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
// Ground truth as JSON Lines: integers are row positions (ReadGroundTruth);
// strings are a user's ids, which only ReadGroundTruthIds reads.
TEST_F(EvalTest, ReadsJsonlGroundTruth) {
  auto rows = ReadGroundTruth(Write("rows.jsonl", "[3,1,2]\n[0,4,5]\n"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->queries, 2u);
  EXPECT_EQ(rows->k, 3u);
  EXPECT_EQ(rows->ids, (std::vector<int64_t>{3, 1, 2, 0, 4, 5}));
  auto ids = ReadGroundTruthIds(Write("ids.jsonl", "[\"b\",\"a\"]\n[\"c\",\"\\u00e9\"]\n"));
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_EQ(ids->ids, (std::vector<std::string>{"\"b\"", "\"a\"", "\"c\"", "\"\xc3\xa9\""}));
  auto integers = ReadGroundTruthIds(Write("ints.ivecs", Bytes<int32_t>({2, 7, 9})));
  ASSERT_TRUE(integers.ok());
  EXPECT_EQ(integers->ids, (std::vector<std::string>{"7", "9"}));
  ExpectError(ReadGroundTruth(Write("s.jsonl", "[\"doc-1\"]\n")), StatusCode::kInvalidFormat,
              "row 0 holds the string id \"doc-1\"; ids other than row positions are compared by the source "
              "column that holds them (`id_column`)");
  ExpectError(ReadGroundTruth(Write("ragged.jsonl", "[1,2]\n[3]\n")), StatusCode::kInvalidFormat,
              "it has 1 ids; row 0 has 2");
  ExpectError(ReadGroundTruth(Write("mixed.jsonl", "[1,\"a\"]\n")), StatusCode::kInvalidFormat,
              "id 1 is a string; row 0's ids are integers");
  ExpectError(ReadGroundTruth(Write("obj.jsonl", "{\"ids\":[1]}\n")), StatusCode::kInvalidFormat,
              "a ground-truth line is a non-empty JSON array of ids");
  ExpectError(ReadGroundTruth(Write("neg.jsonl", "[-1]\n")), StatusCode::kInvalidFormat, "negative id");
  ExpectError(ReadGroundTruth(Write("empty.jsonl", "")), StatusCode::kInvalidFormat, "");
}

// A publication built with an id column: ground truth in the user's ids,
// translated through that column, gives exactly the recall of the same
// ground truth in row positions; ids the column lacks or holds twice are
// refused.
TEST_F(EvalTest, GroundTruthByIdColumnMatchesGroundTruthByRow) {
  constexpr size_t kN = 1500, kD = 6;
  Xoshiro256 rng(9);
  std::string lines;
  std::vector<std::string> id_of(kN);
  for (size_t i = 0; i < kN; ++i) {
    id_of[i] = "doc-" + std::to_string((i * 7919) % kN);  // a permutation: unique, not the row
    lines += "{\"id\":\"" + id_of[i] + "\",\"vector\":[";
    for (size_t j = 0; j < kD; ++j) lines += (j ? "," : "") + std::to_string(rng.NextDouble() * 10);
    lines += "]}\n";
  }
  lines += "";
  BuildOptions o;
  o.input = Write("base.jsonl", lines);
  o.metric = Metric::kL2Squared;
  o.nlist = 24;
  o.scratch = dir_.string();
  o.id_column = "id";
  o.source_layout.row_group_rows = 100;
  store::MemoryStore store;
  auto built = BuildPublication(o, store);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  PublicationReader reader(built->manifest);
  std::vector<std::vector<float>> queries;
  for (int q = 0; q < 15; ++q) {
    std::vector<float> v(kD);
    for (float& x : v) x = static_cast<float>(rng.NextDouble() * 10);
    queries.push_back(v);
  }
  QueryOptions all;
  all.k = 10;
  all.nprobe = 24;
  auto exact = RunQuery(reader, store, queries, all);
  ASSERT_TRUE(exact.ok());
  GroundTruth by_row{queries.size(), 10, exact->keys.integers};
  IdGroundTruth by_id{queries.size(), 10, {}};
  for (int64_t row : by_row.ids) by_id.ids.push_back("\"" + id_of[static_cast<size_t>(row)] + "\"");
  auto translated = GroundTruthInRows(reader, store, by_id, "id", 10);
  ASSERT_TRUE(translated.ok()) << translated.status().ToString();
  EXPECT_EQ(translated->ids, by_row.ids);
  EvalOptions eo;
  eo.nprobes = {1, 4};
  eo.warmup = 0;
  auto rows = EvaluateRecall(reader, store, queries, by_row, eo);
  auto ids = EvaluateRecall(reader, store, queries, *translated, eo);
  ASSERT_TRUE(rows.ok() && ids.ok());
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ((*ids)[i].recall, (*rows)[i].recall);
    EXPECT_EQ((*ids)[i].list_recall, (*rows)[i].list_recall);
  }
  EXPECT_LT((*rows)[0].recall, 1.0);

  store::CancelToken cancelled;
  cancelled.Cancel();
  EXPECT_EQ(GroundTruthInRows(reader, store, by_id, "id", 10, &cancelled).status().code(), StatusCode::kCancelled);

  IdGroundTruth missing = by_id;
  missing.ids[12] = "\"doc-none\"";
  auto refused = GroundTruthInRows(reader, store, missing, "id", 10);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(),
            "ground-truth row 1 names the id \"doc-none\", which `id_column` \"id\" (string) does not hold");
  IdGroundTruth integers = by_id;
  integers.ids[0] = "17";
  EXPECT_EQ(GroundTruthInRows(reader, store, integers, "id", 10).status().message(),
            "ground-truth row 0 names the id 17, which `id_column` \"id\" (string) does not hold");
  EXPECT_EQ(GroundTruthInRows(reader, store, by_id, "title", 10).status().message(),
            "`id_column` \"title\" is not a payload column of the publication's source table (its columns: "
            "\"id\")");
  EXPECT_EQ(GroundTruthInRows(reader, store, by_id, "_row", 10).status().code(), StatusCode::kInvalidArgument);

  // Two rows with one id: refused when the ground truth names it.
  std::string twice = "{\"id\":\"a\",\"vector\":[1,2]}\n{\"id\":\"b\",\"vector\":[2,1]}\n"
                      "{\"id\":\"a\",\"vector\":[3,3]}\n";
  BuildOptions t = o;
  t.input = Write("twice.jsonl", twice);
  t.nlist = 1;
  store::MemoryStore twice_store;
  auto twice_built = BuildPublication(t, twice_store);
  ASSERT_TRUE(twice_built.ok()) << twice_built.status().ToString();
  PublicationReader twice_reader(twice_built->manifest);
  EXPECT_EQ(GroundTruthInRows(twice_reader, twice_store, IdGroundTruth{1, 1, {"\"b\""}}, "id", 1)->ids,
            (std::vector<int64_t>{1}));
  EXPECT_EQ(GroundTruthInRows(twice_reader, twice_store, IdGroundTruth{1, 1, {"\"a\""}}, "id", 1).status().message(),
            "`id_column` \"id\" holds \"a\" at rows 0 and 2; recall by id needs the ids the ground truth names to "
            "be unique");
}

}  // namespace vigilo::ivf
