// Parquet: every key type, DuckDB's FLOAT[n] and DOUBLE[], and every bad row.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "input_test_support.h"
#include "vigilo/ivf/input.h"
#include "vigilo/parquet/writer.h"

namespace vigilo::ivf {
namespace {

namespace pq = vigilo::parquet;
using testing::InputTest;
using Kind = ColumnType::Kind;

std::string Testdata(const std::string& name) { return std::string(VIGILO_SOURCE_DIR) + "/src/ivf/testdata/" + name; }

void ExpectError(const Status& st, StatusCode code, std::string_view needle) {
  EXPECT_EQ(st.code(), code) << st.ToString();
  EXPECT_NE(st.message().find(needle), std::string_view::npos) << st.ToString();
  EXPECT_FALSE(st.path().empty()) << st.ToString();
}

class ParquetInputTest : public InputTest {
 protected:
  // Writes one file; `fill` writes each row group (given its index).
  std::string WriteFile(const std::string& name, std::vector<pq::ColumnSpec> columns, int groups,
                        const std::function<void(pq::FileWriter&, int)>& fill) {
    pq::MemorySink sink;
    auto w = pq::FileWriter::Open(std::move(columns), {}, &sink);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    for (int g = 0; g < groups; ++g) {
      EXPECT_TRUE((*w)->BeginRowGroup().ok());
      fill(**w, g);
      Status end = (*w)->EndRowGroup();
      EXPECT_TRUE(end.ok()) << end.ToString();
    }
    EXPECT_TRUE((*w)->Finish().ok());
    return Write(name, std::string(reinterpret_cast<const char*>(sink.bytes().data()), sink.bytes().size()));
  }

  // Two row groups of 3 rows; vectors [r, r + 0.5]; one column per key type.
  std::string WriteAllKeyTypes() {
    std::vector<pq::ColumnSpec> cols = {{"vector", pq::ColumnKind::kFloatList},
                                        {"b", pq::ColumnKind::kBoolean},
                                        {"i", pq::ColumnKind::kInt32},
                                        {"d", pq::ColumnKind::kDate},
                                        {"l", pq::ColumnKind::kInt64},
                                        {"s", pq::ColumnKind::kString},
                                        {"bin", pq::ColumnKind::kByteArray},
                                        {"fx", pq::ColumnKind::kFixedLenByteArray, false, false, 3},
                                        {"f", pq::ColumnKind::kFloat}};
    return WriteFile("keys.parquet", cols, 2, [](pq::FileWriter& w, int g) {
      std::vector<int64_t> offsets = {0, 2, 4, 6};
      std::vector<float> elems;
      std::vector<uint8_t> bools;
      std::vector<int32_t> ints;
      std::vector<int64_t> longs;
      std::vector<float> floats;
      std::vector<std::string> strings, fixed;
      for (int i = 0; i < 3; ++i) {
        int r = g * 3 + i;
        elems.push_back(static_cast<float>(r));
        elems.push_back(static_cast<float>(r) + 0.5f);
        bools.push_back(static_cast<uint8_t>(r % 2));
        ints.push_back(-r);
        longs.push_back(int64_t{1} << (40 + r));
        floats.push_back(1.0f);
        strings.push_back("k" + std::to_string(r));
        fixed.push_back(std::string("ab") + static_cast<char>('0' + r));
      }
      std::vector<std::string_view> sv(strings.begin(), strings.end()), fv(fixed.begin(), fixed.end());
      EXPECT_TRUE(w.WriteFloatList(0, offsets, elems).ok());
      EXPECT_TRUE(w.WriteBoolean(1, bools).ok());
      EXPECT_TRUE(w.WriteInt32(2, ints).ok());
      EXPECT_TRUE(w.WriteInt32(3, ints).ok());
      EXPECT_TRUE(w.WriteInt64(4, longs).ok());
      EXPECT_TRUE(w.WriteByteArray(5, sv).ok());
      EXPECT_TRUE(w.WriteByteArray(6, sv).ok());
      EXPECT_TRUE(w.WriteByteArray(7, fv).ok());
      EXPECT_TRUE(w.WriteFloat(8, floats).ok());
    });
  }

  // One row group; row `bad_row` of the vector column is made bad by `how`.
  enum class Bad { kNullVector, kNullElement, kShort, kEmpty, kNaN, kNullKey };
  std::string WriteWithBadRow(Bad how, int rows, int bad_row) {
    std::vector<pq::ColumnSpec> cols = {{"id", pq::ColumnKind::kInt64, /*optional=*/true},
                                        {"vector", pq::ColumnKind::kFloatList, /*optional=*/true,
                                         /*element_optional=*/true}};
    return WriteFile("bad.parquet", cols, 1, [&](pq::FileWriter& w, int) {
      std::vector<int64_t> ids, offsets = {0};
      std::vector<uint8_t> id_valid, valid, element_valid;
      std::vector<float> elems;
      for (int r = 0; r < rows; ++r) {
        ids.push_back(r);
        id_valid.push_back(how == Bad::kNullKey && r == bad_row ? 0 : 1);
        bool null_row = how == Bad::kNullVector && r == bad_row;
        valid.push_back(null_row ? 0 : 1);
        int n = null_row || (how == Bad::kEmpty && r == bad_row) ? 0 : how == Bad::kShort && r == bad_row ? 3 : 4;
        for (int j = 0; j < n; ++j) {
          bool nan = how == Bad::kNaN && r == bad_row && j == 2;
          elems.push_back(nan ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(r + j));
          element_valid.push_back(how == Bad::kNullElement && r == bad_row && j == 1 ? 0 : 1);
        }
        offsets.push_back(static_cast<int64_t>(elems.size()));
      }
      EXPECT_TRUE(w.WriteInt64(0, ids, id_valid).ok());
      Status st = w.WriteFloatList(1, offsets, elems, valid, element_valid);
      EXPECT_TRUE(st.ok()) << st.ToString();
    });
  }
};

TEST_F(ParquetInputTest, EveryKeyType) {
  std::string path = WriteAllKeyTypes();
  struct Case {
    const char* column;
    const char* type;
  };
  for (auto [column, type] : {Case{"b", "boolean"}, Case{"i", "int"}, Case{"d", "date"}, Case{"l", "long"},
                              Case{"s", "string"}, Case{"bin", "binary"}, Case{"fx", "fixed(3)"}}) {
    SCOPED_TRACE(column);
    auto input = OpenVectorInput(path, {.key_field = column, .block_rows = 4});
    ASSERT_TRUE(input.ok()) << input.status().ToString();
    EXPECT_EQ((*input)->key_field()->name, column);
    EXPECT_EQ((*input)->key_field()->type.ToString(), type);
    EXPECT_EQ((*input)->rows(), std::optional<uint64_t>(6));
    EXPECT_EQ((*input)->dimension(), 2u);
    auto blocks = testing::ReadBlocks(**input);
    ASSERT_TRUE(blocks.ok()) << blocks.status().ToString();
    ASSERT_EQ(blocks->size(), 2u);  // 4 + 2 rows: a block spans the row groups
    const KeyColumn& k0 = (*blocks)[0].keys;
    const KeyColumn& k1 = (*blocks)[1].keys;
    ASSERT_EQ(k0.size(), 4u);
    ASSERT_EQ(k1.size(), 2u);
    EXPECT_EQ((*blocks)[1].vectors, (std::vector<float>{4, 4.5, 5, 5.5}));
    std::string c = column;
    if (c == "b") {
      EXPECT_EQ(k0.booleans, (std::vector<uint8_t>{0, 1, 0, 1}));
    }
    if (c == "i" || c == "d") {
      EXPECT_EQ(k1.integers, (std::vector<int64_t>{-4, -5}));
    }
    if (c == "l") {
      EXPECT_EQ(k0.integers[3], int64_t{1} << 43);
    }
    if (c == "s" || c == "bin") {
      EXPECT_EQ(k1.Bytes(1), "k5");
    }
    if (c == "fx") {
      EXPECT_EQ(k0.Bytes(2), "ab2");
    }
  }
}

TEST_F(ParquetInputTest, NotAKeyOrNotAVector) {
  std::string path = WriteAllKeyTypes();
  ExpectError(OpenVectorInput(path, {.key_field = "f"}).status(), StatusCode::kInvalidFormat, "keys are boolean");
  ExpectError(OpenVectorInput(path, {.key_field = "nope"}).status(), StatusCode::kInvalidFormat,
              "no key column \"nope\"");
  ExpectError(OpenVectorInput(path, {.vector_field = "emb"}).status(), StatusCode::kInvalidFormat,
              "no vector column \"emb\" (columns: \"vector\", \"b\"");
  ExpectError(OpenVectorInput(path, {.vector_field = "f"}).status(), StatusCode::kInvalidFormat,
              "is a scalar FLOAT; it must be a list of FLOAT or DOUBLE");
  ExpectError(OpenVectorInput(path, {.vector_field = "l"}).status(), StatusCode::kInvalidFormat, "scalar INT64");
  ExpectError(OpenVectorInput(path, {.vector_field = "b", .key_field = "vector"}).status(),
              StatusCode::kInvalidFormat, "scalar BOOLEAN");
  EXPECT_EQ(OpenVectorInput(path, {.key_field = "vector"}).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ParquetInputTest, ListKeyIsRejected) {
  std::vector<pq::ColumnSpec> cols = {{"vector", pq::ColumnKind::kFloatList}, {"k", pq::ColumnKind::kFloatList}};
  std::string path = WriteFile("lk.parquet", cols, 1, [](pq::FileWriter& w, int) {
    std::vector<int64_t> offsets = {0, 1};
    std::vector<float> e = {1};
    EXPECT_TRUE(w.WriteFloatList(0, offsets, e).ok());
    EXPECT_TRUE(w.WriteFloatList(1, offsets, e).ok());
  });
  ExpectError(OpenVectorInput(path, {.key_field = "k"}).status(), StatusCode::kInvalidFormat,
              "not a top-level primitive column");
}

TEST_F(ParquetInputTest, BadRowsAreNamed) {
  struct Case {
    Bad how;
    const char* message;
  };
  for (auto [how, message] :
       {Case{Bad::kNullVector, "row 5: the vector \"vector\" is null"},
        Case{Bad::kNullElement, "row 5: element 1 of the vector is null"},
        Case{Bad::kShort, "row 5: the vector has 3 elements, the first row 4"},
        Case{Bad::kEmpty, "row 5: the vector has 0 elements, the first row 4"},
        Case{Bad::kNaN, "row 5: element 2 is NaN"}, Case{Bad::kNullKey, "row 5: the key \"id\" is null"}}) {
    SCOPED_TRACE(message);
    std::string path = WriteWithBadRow(how, 8, 5);
    ExpectError(testing::PassError(path, {.key_field = "id", .block_rows = 2}), StatusCode::kInvalidFormat, message);
    // The rows before it were handed out.
    auto input = OpenVectorInput(path, {.key_field = "id", .block_rows = 5});
    ASSERT_TRUE(input.ok()) << input.status().ToString();
    InputBlock block;
    EXPECT_TRUE(*(*input)->Next(&block));
    EXPECT_EQ(block.keys.integers, (std::vector<int64_t>{0, 1, 2, 3, 4}));
    EXPECT_FALSE((*input)->Next(&block).ok());
  }
  // In row 0 the same problems are found at open.
  ExpectError(OpenVectorInput(WriteWithBadRow(Bad::kNullVector, 3, 0), {}).status(), StatusCode::kInvalidFormat,
              "row 0: the vector \"vector\" is null");
  ExpectError(OpenVectorInput(WriteWithBadRow(Bad::kEmpty, 3, 0), {}).status(), StatusCode::kInvalidFormat,
              "row 0: dimension 0");
  ExpectError(OpenVectorInput(WriteWithBadRow(Bad::kNullKey, 3, 0), {.key_field = "id"}).status(),
              StatusCode::kInvalidFormat, "row 0: the key \"id\" is null");
}

TEST_F(ParquetInputTest, RowsCountAcrossRowGroups) {
  // A short vector in the second row group is reported by its file row.
  std::vector<pq::ColumnSpec> cols = {{"vector", pq::ColumnKind::kFloatList}};
  std::string path = WriteFile("rg.parquet", cols, 3, [](pq::FileWriter& w, int g) {
    std::vector<int64_t> offsets = {0, 2, 4, g == 1 ? 5 : 6};
    std::vector<float> e(static_cast<size_t>(offsets.back()), 1.0f);
    EXPECT_TRUE(w.WriteFloatList(0, offsets, e).ok());
  });
  ExpectError(testing::PassError(path, {}), StatusCode::kInvalidFormat, "row 5: the vector has 1 elements");
}

TEST_F(ParquetInputTest, EmptyAndNotParquet) {
  std::vector<pq::ColumnSpec> cols = {{"vector", pq::ColumnKind::kFloatList}};
  std::string path = WriteFile("empty.parquet", cols, 0, [](pq::FileWriter&, int) {});
  ExpectError(OpenVectorInput(path, {}).status(), StatusCode::kInvalidFormat, "no vectors");
  Status st = OpenVectorInput(Write("junk.parquet", "this is not parquet at all"), {}).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError) << st.ToString();
  EXPECT_NE(st.path().find("junk.parquet"), std::string_view::npos) << st.ToString();
}

TEST_F(ParquetInputTest, DuckDbFixedSizeFloatArray) {
  for (auto [column, type] : {std::pair{"id", "long"}, std::pair{"name", "string"}, std::pair{"flag", "boolean"},
                              std::pair{"day", "date"}, std::pair{"blob", "binary"}, std::pair{"small", "int"}}) {
    SCOPED_TRACE(column);
    auto input = OpenVectorInput(Testdata("duckdb_float_array.parquet"),
                                 {.vector_field = "vec", .key_field = column, .block_rows = 1000});
    ASSERT_TRUE(input.ok()) << input.status().ToString();
    EXPECT_EQ((*input)->dimension(), 4u);
    EXPECT_EQ((*input)->rows(), std::optional<uint64_t>(4200));
    EXPECT_EQ((*input)->key_field()->type.ToString(), type);
    auto blocks = testing::ReadBlocks(**input);
    ASSERT_TRUE(blocks.ok()) << blocks.status().ToString();
    ASSERT_EQ(blocks->size(), 5u);
    for (const auto& b : *blocks) {
      for (size_t r = 0; r < b.rows; ++r) {
        uint64_t i = b.first_row + r;
        for (uint64_t j = 0; j < 4; ++j) {
          ASSERT_EQ(b.vectors[r * 4 + j], static_cast<float>(static_cast<int64_t>((i * 7 + j) % 13) - 6));
        }
        std::string c = column;
        if (c == "id") {
          ASSERT_EQ(b.keys.integers[r], static_cast<int64_t>(i));
        }
        if (c == "name") {
          ASSERT_EQ(b.keys.Bytes(r), "w" + std::to_string(i));
        }
        if (c == "flag") {
          ASSERT_EQ(b.keys.booleans[r], i % 3 == 0 ? 1 : 0);
        }
        if (c == "day") {
          ASSERT_EQ(b.keys.integers[r], 10957 + static_cast<int64_t>(i));
        }
        if (c == "blob") {
          ASSERT_EQ(b.keys.Bytes(r), "b" + std::to_string(i % 100));
        }
        if (c == "small") {
          ASSERT_EQ(b.keys.integers[r], static_cast<int64_t>(i) - 2500);
        }
      }
    }
  }
}

TEST_F(ParquetInputTest, DuckDbDoubleListConvertsToFloat) {
  auto input = OpenVectorInput(Testdata("duckdb_double_list.parquet"), {.vector_field = "emb", .key_field = "id"});
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ((*input)->dimension(), 3u);
  EXPECT_EQ((*input)->key_field()->type.ToString(), "int");
  auto all = testing::ReadVectors(**input);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 30u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ((*all)[i * 3], static_cast<float>(i) / 4.0f);
    EXPECT_EQ((*all)[i * 3 + 1], static_cast<float>(-i) / 8.0f);
    EXPECT_EQ((*all)[i * 3 + 2], 0.5f);
  }
}

}  // namespace
}  // namespace vigilo::ivf
