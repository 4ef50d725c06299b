// What every format shares: format names, options, and identical blocks for
// the same data in all five formats, across block boundaries and passes.
#include "vigilo/ivf/input.h"

#include <gtest/gtest.h>

#include "input_test_support.h"

namespace vigilo::ivf {
namespace {

using testing::InputTest;
using testing::Matrix;

TEST(InputFormatTest, NamesAndExtensions) {
  EXPECT_EQ(*DetectInputFormat("a/b.parquet"), InputFormat::kParquet);
  EXPECT_EQ(*DetectInputFormat("x.fvecs"), InputFormat::kFvecs);
  EXPECT_EQ(*DetectInputFormat("x.bvecs"), InputFormat::kBvecs);
  EXPECT_EQ(*DetectInputFormat("dir.d/x.npy"), InputFormat::kNpy);
  EXPECT_EQ(*DetectInputFormat("x.jsonl"), InputFormat::kJsonl);
  for (const char* bad : {"x.json", "x", "x.PARQUET", ".npy", "dir.npy/x", "x.csv"}) {
    EXPECT_EQ(DetectInputFormat(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
  for (auto f : {InputFormat::kParquet, InputFormat::kFvecs, InputFormat::kBvecs, InputFormat::kNpy,
                 InputFormat::kJsonl}) {
    EXPECT_EQ(*ParseInputFormat(InputFormatName(f)), f);
  }
  EXPECT_EQ(ParseInputFormat("ivecs").status().code(), StatusCode::kInvalidArgument);
}

TEST(KeyColumnTest, SizeAndBytes) {
  KeyColumn k;
  k.Clear(ColumnType{ColumnType::Kind::kString, 0});
  EXPECT_EQ(k.size(), 0u);
  for (std::string_view s : {"ab", "", "c"}) {
    k.bytes.insert(k.bytes.end(), s.begin(), s.end());
    k.offsets.push_back(k.bytes.size());
  }
  EXPECT_EQ(k.size(), 3u);
  EXPECT_EQ(k.Bytes(0), "ab");
  EXPECT_EQ(k.Bytes(1), "");
  EXPECT_EQ(k.Bytes(2), "c");
  k.Clear(ColumnType{ColumnType::Kind::kLong, 0});
  k.integers = {5, 6};
  EXPECT_EQ(k.size(), 2u);
}

class InputOptionsTest : public InputTest {};

TEST_F(InputOptionsTest, RejectsBadOptions) {
  Matrix m = testing::MakeMatrix(3, 2, false);
  std::string fvecs = Write("a.fvecs", testing::FvecsBytes(m));
  EXPECT_EQ(OpenVectorInput(fvecs, {.block_rows = 0}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(OpenVectorInput(fvecs, {.vector_field = ""}).status().code(), StatusCode::kInvalidArgument);
  for (const char* name : {"a.fvecs", "a.bvecs", "a.npy"}) {
    auto st = OpenVectorInput(Path(name), {.key_field = "id"}).status();
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << name;
    EXPECT_NE(st.message().find("no named fields"), std::string_view::npos) << st.ToString();
  }
  EXPECT_EQ(OpenVectorInput(Path("a.txt"), {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(OpenVectorInput(Path("missing.fvecs"), {}).status().code(), StatusCode::kNotFound);
  // The explicit format wins over the extension.
  std::string odd = Write("vectors.bin", testing::FvecsBytes(m));
  auto input = OpenVectorInput(odd, {.format = InputFormat::kFvecs});
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ((*input)->dimension(), 2u);
}

// The five formats written from the same matrix (byte-valued, so bvecs and
// '|u1' hold it too).
class SameDataTest : public InputTest {
 protected:
  void SetUp() override {
    InputTest::SetUp();
    m_ = testing::MakeMatrix(1003, 7, /*bytes=*/true);
    paths_ = {Write("v.fvecs", testing::FvecsBytes(m_)), Write("v.bvecs", testing::BvecsBytes(m_)),
              Write("v.npy", testing::NpyFile(testing::NpyDict("<f4", m_.rows, m_.dim), testing::NpyData(m_, "<f4"))),
              Write("u1.npy", testing::NpyFile(testing::NpyDict("|u1", m_.rows, m_.dim), testing::NpyData(m_, "|u1"))),
              Write("v.jsonl", testing::JsonlBytes(m_, ""))};
    testing::WriteParquet(Path("v.parquet"), m_, 300);
    paths_.push_back(Path("v.parquet"));
  }
  Matrix m_;
  std::vector<std::string> paths_;
};

TEST_F(SameDataTest, AllFormatsYieldIdenticalBlocks) {
  for (size_t block_rows : {size_t{1}, size_t{7}, size_t{300}, size_t{301}, size_t{1003}, size_t{4096}}) {
    std::vector<InputBlock> reference;
    for (const auto& path : paths_) {
      SCOPED_TRACE(path + " block_rows=" + std::to_string(block_rows));
      auto input = OpenVectorInput(path, {.block_rows = block_rows});
      ASSERT_TRUE(input.ok()) << input.status().ToString();
      EXPECT_EQ((*input)->dimension(), 7u);
      EXPECT_FALSE((*input)->key_field().has_value());
      auto blocks = testing::ReadBlocks(**input);
      ASSERT_TRUE(blocks.ok()) << blocks.status().ToString();
      EXPECT_EQ((*input)->rows(), std::optional<uint64_t>(1003));
      // Every block but the last is full; first_row counts up.
      ASSERT_EQ(blocks->size(), (1003 + block_rows - 1) / block_rows);
      uint64_t row = 0;
      for (size_t b = 0; b < blocks->size(); ++b) {
        const InputBlock& block = (*blocks)[b];
        EXPECT_EQ(block.first_row, row);
        EXPECT_EQ(block.rows, b + 1 < blocks->size() ? block_rows : 1003 - row);
        ASSERT_EQ(block.vectors.size(), block.rows * 7);
        EXPECT_EQ(0, std::memcmp(block.vectors.data(), m_.values.data() + row * 7, block.vectors.size() * 4));
        EXPECT_EQ(block.keys.size(), 0u);
        row += block.rows;
      }
      if (reference.empty()) {
        reference = std::move(*blocks);
      } else {
        for (size_t b = 0; b < reference.size(); ++b) {
          EXPECT_EQ((*blocks)[b].vectors, reference[b].vectors);
          EXPECT_EQ((*blocks)[b].first_row, reference[b].first_row);
        }
      }
    }
  }
}

TEST_F(SameDataTest, RewindRepeatsThePassFromAnyPoint) {
  for (const auto& path : paths_) {
    SCOPED_TRACE(path);
    auto input = OpenVectorInput(path, {.block_rows = 256});
    ASSERT_TRUE(input.ok()) << input.status().ToString();
    auto first = testing::ReadVectors(**input);
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    EXPECT_EQ(*first, m_.values);
    // Past the end Next keeps saying false with an empty block.
    InputBlock block;
    EXPECT_FALSE(*(*input)->Next(&block));
    EXPECT_EQ(block.rows, 0u);
    EXPECT_TRUE(block.vectors.empty());
    // Rewind after the end, and in the middle of a pass.
    ASSERT_TRUE((*input)->Rewind().ok());
    ASSERT_TRUE(*(*input)->Next(&block));
    ASSERT_TRUE(*(*input)->Next(&block));
    EXPECT_EQ(block.first_row, 256u);
    ASSERT_TRUE((*input)->Rewind().ok());
    auto second = testing::ReadVectors(**input);
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(*second, m_.values);
  }
}

// Fractional values: fvecs, '<f4', '<f8', JSONL and Parquet agree bit for bit.
TEST_F(InputTest, FractionalValuesAgreeAcrossFormats) {
  Matrix m = testing::MakeMatrix(50, 16, /*bytes=*/false);
  std::vector<std::string> paths = {
      Write("f.fvecs", testing::FvecsBytes(m)),
      Write("f4.npy", testing::NpyFile(testing::NpyDict("<f4", m.rows, m.dim), testing::NpyData(m, "<f4"), 2)),
      Write("f8.npy", testing::NpyFile(testing::NpyDict("<f8", m.rows, m.dim), testing::NpyData(m, "<f8"), 3)),
      Write("f.jsonl", testing::JsonlBytes(m))};
  testing::WriteParquet(Path("f.parquet"), m, 16);
  paths.push_back(Path("f.parquet"));
  for (const auto& path : paths) {
    auto input = OpenVectorInput(path, {.block_rows = 9});
    ASSERT_TRUE(input.ok()) << input.status().ToString();
    auto all = testing::ReadVectors(**input);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(*all, m.values) << path;
  }
}

}  // namespace
}  // namespace vigilo::ivf
