// Hostile-input tests for the footer path: truncations, bit flips and
// size/depth bombs must end in an error Status, never a crash, a hang or a
// large allocation. Run under ASan/UBSan as well as in release.
#include <gtest/gtest.h>

#include <random>

#include "test_metadata.h"
#include "vigilo/parquet/footer.h"

namespace vigilo::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

void PutLe32(Bytes& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// "PAR1" + data + footer bytes + their length + "PAR1".
Bytes FileWithFooter(uint64_t data_size, std::span<const uint8_t> footer) {
  Bytes file(kMagic, kMagic + 4);
  file.resize(4 + data_size, 0);
  file.insert(file.end(), footer.begin(), footer.end());
  PutLe32(file, static_cast<uint32_t>(footer.size()));
  file.insert(file.end(), kMagic, kMagic + 4);
  return file;
}

TEST(FooterRobustness, EveryTruncationOfTheEncodedFooterIsAnError) {
  Bytes footer = *EncodeFileMetaData(testing::RichMetaData());
  for (size_t n = 0; n < footer.size(); ++n) {
    Bytes file = FileWithFooter(testing::RichDataSize(), std::span(footer).first(n));
    auto r = ParseFooter(file, file.size());
    ASSERT_FALSE(r.ok()) << "prefix " << n;
    EXPECT_EQ(r.status().code(), StatusCode::kParseError) << n;
    ASSERT_TRUE(r.status().offset().has_value()) << r.status().ToString();
    EXPECT_LE(*r.status().offset(), file.size());
  }
}

TEST(FooterRobustness, EveryShortTailAsksForMore) {
  Bytes file = testing::BuildFile(testing::RichMetaData(), testing::RichDataSize());
  uint64_t needed = file.size() - testing::FooterOffset(testing::RichDataSize());
  for (size_t t = 0; t < needed; ++t) {
    auto r = ParseFooter(std::span(file).last(t), file.size());
    ASSERT_TRUE(r.ok()) << t << ": " << r.status().ToString();
    uint64_t want = t < kTrailerSize ? kTrailerSize : needed;
    EXPECT_EQ(std::get<NeedMoreBytes>(*r).tail_bytes, want) << t;
  }
}

TEST(FooterRobustness, EveryTruncationOfTheFileIsAnError) {
  Bytes file = testing::BuildFile(testing::SingleColumnMetaData(3, 10), 10);
  for (size_t k = 0; k < file.size(); ++k) {
    std::span<const uint8_t> cut(file.data(), k);
    auto r = ParseFooter(cut, k);
    EXPECT_FALSE(r.ok()) << k;
  }
}

TEST(FooterRobustness, RandomBitFlipsParseOrFailCleanly) {
  FileMetaData md = testing::RichMetaData();
  Bytes file = testing::BuildFile(md, testing::RichDataSize());
  size_t footer = testing::FooterOffset(testing::RichDataSize());
  std::mt19937_64 rng(20240601);
  int parsed = 0;
  int failed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    Bytes mutated = file;
    int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      size_t at = footer + rng() % (mutated.size() - footer);
      mutated[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
    }
    auto r = ParseFooter(mutated, mutated.size());
    if (!r.ok()) {
      ++failed;
      continue;
    }
    const Footer* f = std::get_if<Footer>(&*r);
    if (f == nullptr) continue;  // a flipped length may ask for more
    ++parsed;
    // Whatever parsed must survive its own round trip.
    auto again = EncodeFileMetaData(f->metadata);
    ASSERT_TRUE(again.ok());
    auto redecoded = DecodeFileMetaData(*again);
    ASSERT_TRUE(redecoded.ok()) << redecoded.status().ToString();
    EXPECT_EQ(*redecoded, f->metadata);
  }
  EXPECT_GT(failed, 0);
  EXPECT_GT(parsed, 0);  // flips in statistics bytes, names of unmatched fields, ...
}

TEST(FooterRobustness, RandomPageHeaderBytes) {
  std::mt19937_64 rng(7);
  auto seed = *EncodePageHeader(PageHeader{});
  for (int iter = 0; iter < 20000; ++iter) {
    Bytes b = seed;
    b.resize(rng() % 64, 0);
    for (uint8_t& x : b) {
      if (rng() % 4 == 0) x = static_cast<uint8_t>(rng());
    }
    size_t size = 0;
    auto r = DecodePageHeader(b, &size);
    if (r.ok()) {
      EXPECT_LE(size, b.size());
    }
  }
}

// FileMetaData bytes: version, then field `field` as a list header declaring
// `size` elements of `element`, then a few bytes.
Bytes ListBomb(int16_t field, CompactType element, uint32_t size) {
  CompactWriter w;
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kI32, 1);
  w.WriteI32(1);
  w.WriteFieldHeader(CompactType::kList, field);
  w.WriteListHeader(element, size);
  Bytes out = w.bytes();
  out.insert(out.end(), {0, 0, 0, 0});
  return out;
}

TEST(FooterRobustness, ListSizeBombsFailBeforeReserving) {
  for (int field : {2, 4, 5, 7}) {
    Bytes bomb = ListBomb(static_cast<int16_t>(field), CompactType::kStruct, INT32_MAX);
    ASSERT_LE(bomb.size(), 14u);
    auto st = DecodeFileMetaData(bomb).status();
    EXPECT_EQ(st.code(), StatusCode::kParseError) << field;
    EXPECT_NE(st.message().find("list size"), std::string_view::npos) << st.ToString();
  }
  // Same through ParseFooter.
  Bytes bomb = ListBomb(2, CompactType::kStruct, INT32_MAX);
  Bytes file = FileWithFooter(0, bomb);
  EXPECT_EQ(ParseFooter(file, file.size()).status().code(), StatusCode::kParseError);
}

TEST(FooterRobustness, ManySmallElementsHitTheMemoryBudget) {
  // 100k minimal SchemaElements ({name: ""}) of 3 bytes each.
  CompactWriter w;
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kI32, 1);
  w.WriteI32(1);
  w.WriteFieldHeader(CompactType::kList, 2);
  w.WriteListHeader(CompactType::kStruct, 100000);
  for (int i = 0; i < 100000; ++i) {
    w.BeginStruct();
    w.WriteFieldHeader(CompactType::kBinary, 4);
    w.WriteString("");
    w.EndStruct();
  }
  w.WriteFieldHeader(CompactType::kI64, 3);
  w.WriteI64(0);
  w.WriteFieldHeader(CompactType::kList, 4);
  w.WriteListHeader(CompactType::kStruct, 0);
  w.EndStruct();
  Bytes bytes = *std::move(w).Finish();
  EXPECT_TRUE(DecodeFileMetaData(bytes).ok());
  DecodeOptions tight;
  tight.max_decoded_bytes = 1 << 20;
  EXPECT_EQ(DecodeFileMetaData(bytes, tight).status().code(), StatusCode::kLimitExceeded);
}

TEST(FooterRobustness, DepthBombs) {
  // An unknown field 20 holding 100k nested structs.
  Bytes deep = {0x15, 0x02};  // version = 1
  deep.push_back(0x0c);       // long form: struct ...
  deep.push_back(0x28);       // ... field id 20
  deep.insert(deep.end(), 100000, 0x1c);
  auto st = DecodeFileMetaData(deep).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_NE(st.message().find("nesting"), std::string_view::npos) << st.ToString();
  // And nested lists in an unknown field.
  Bytes lists = {0x15, 0x02, 0x09, 0x28};
  lists.insert(lists.end(), 100000, 0x19);
  EXPECT_NE(DecodeFileMetaData(lists).status().message().find("nesting"), std::string_view::npos);
  Bytes file = FileWithFooter(0, deep);
  EXPECT_EQ(ParseFooter(file, file.size()).status().code(), StatusCode::kParseError);
}

}  // namespace
}  // namespace vigilo::parquet
