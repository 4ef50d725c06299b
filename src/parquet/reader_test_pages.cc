#include "reader_test_pages.h"

#include <zlib.h>

#include <algorithm>
#include <cassert>

#include "vigilo/parquet/compression.h"
#include "vigilo/parquet/footer.h"
#include "levels_reader.h"

namespace vigilo::parquet::testing {
namespace {

void PutUleb(Bytes& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

uint64_t Zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }

// LSB-first packing of `values` at `width` bits, appended to `out`.
void PackBits(Bytes& out, const std::vector<uint64_t>& values, int width) {
  size_t base = out.size();
  out.resize(base + (values.size() * static_cast<size_t>(width) + 7) / 8, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    for (int b = 0; b < width; ++b) {
      if ((values[i] >> b) & 1) {
        size_t bit = i * static_cast<size_t>(width) + static_cast<size_t>(b);
        out[base + bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
      }
    }
  }
}

Bytes Page(PageHeader header, const Bytes& body, const PageOptions& options) {
  Bytes payload = *Compress(options.codec, body);
  header.compressed_page_size = static_cast<int32_t>(payload.size());
  if (options.crc) {
    header.crc = static_cast<int32_t>(crc32(0L, payload.data(), static_cast<uInt>(payload.size())));
  }
  if (options.crc_override) header.crc = options.crc_override;
  Bytes out = *EncodePageHeader(header);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

}  // namespace

Bytes RleHybrid(const std::vector<uint32_t>& values, int bit_width) {
  Bytes out;
  std::vector<uint64_t> literals;
  auto flush = [&] {
    if (literals.empty()) return;
    while (literals.size() % 8 != 0) literals.push_back(0);
    PutUleb(out, (literals.size() / 8) << 1 | 1);
    PackBits(out, literals, bit_width);
    literals.clear();
  };
  size_t i = 0;
  while (i < values.size()) {
    size_t run = 1;
    while (i + run < values.size() && values[i + run] == values[i]) ++run;
    if (run >= 8 && literals.size() % 8 == 0) {
      flush();
      PutUleb(out, run << 1);
      for (int k = 0; k < (bit_width + 7) / 8; ++k) out.push_back(static_cast<uint8_t>(values[i] >> (8 * k)));
      i += run;
    } else {
      literals.push_back(values[i++]);
    }
  }
  flush();
  return out;
}

Bytes LengthPrefixed(const Bytes& stream) {
  auto n = static_cast<uint32_t>(stream.size());
  Bytes out(4 + stream.size());
  for (size_t k = 0; k < 4; ++k) out[k] = static_cast<uint8_t>(n >> (8 * k));
  std::copy(stream.begin(), stream.end(), out.begin() + 4);
  return out;
}

Bytes LevelsV1(const std::vector<uint32_t>& levels, int max_level) {
  return LengthPrefixed(LevelsV2(levels, max_level));
}

Bytes LevelsV2(const std::vector<uint32_t>& levels, int max_level) {
  return RleHybrid(levels, BitWidthFor(static_cast<uint64_t>(max_level)));
}

Bytes PlainStrings(const std::vector<std::string>& values) {
  Bytes out;
  for (const std::string& s : values) {
    auto n = static_cast<uint32_t>(s.size());
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<uint8_t>(n >> (8 * k)));
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

Bytes PlainBooleans(const std::vector<bool>& values) {
  Bytes out((values.size() + 7) / 8, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i]) out[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  return out;
}

Bytes DictIndices(const std::vector<uint32_t>& indices, int bit_width) {
  Bytes out = {static_cast<uint8_t>(bit_width)};
  Bytes runs = RleHybrid(indices, bit_width);
  out.insert(out.end(), runs.begin(), runs.end());
  return out;
}

Bytes DeltaBinaryPacked(const std::vector<int64_t>& values, int bits, uint32_t block, uint32_t miniblocks) {
  Bytes out;
  PutUleb(out, block);
  PutUleb(out, miniblocks);
  PutUleb(out, values.size());
  PutUleb(out, Zigzag(values.empty() ? 0 : values[0]));
  // Deltas with the column's wrapping arithmetic, as signed values.
  std::vector<int64_t> deltas;
  for (size_t i = 1; i < values.size(); ++i) {
    if (bits == 32) {
      uint32_t d = static_cast<uint32_t>(values[i]) - static_cast<uint32_t>(values[i - 1]);
      deltas.push_back(static_cast<int32_t>(d));
    } else {
      deltas.push_back(static_cast<int64_t>(static_cast<uint64_t>(values[i]) - static_cast<uint64_t>(values[i - 1])));
    }
  }
  size_t per_mini = block / miniblocks;
  for (size_t b = 0; b < deltas.size(); b += block) {
    size_t end = std::min(deltas.size(), b + block);
    int64_t min_delta = *std::min_element(deltas.begin() + static_cast<ptrdiff_t>(b),
                                          deltas.begin() + static_cast<ptrdiff_t>(end));
    PutUleb(out, Zigzag(min_delta));
    std::vector<std::vector<uint64_t>> minis;
    std::vector<int> widths;
    for (size_t m = 0; m < miniblocks; ++m) {
      size_t s = b + m * per_mini;
      std::vector<uint64_t> rel;
      uint64_t mx = 0;
      for (size_t k = s; k < std::min(end, s + per_mini); ++k) {
        uint64_t r = static_cast<uint64_t>(deltas[k]) - static_cast<uint64_t>(min_delta);
        if (bits == 32) r &= 0xffffffffu;
        rel.push_back(r);
        mx = std::max(mx, r);
      }
      widths.push_back(rel.empty() ? 0 : BitWidthFor(mx));
      while (!rel.empty() && rel.size() < per_mini) rel.push_back(0);
      minis.push_back(std::move(rel));
    }
    for (int w : widths) out.push_back(static_cast<uint8_t>(w));
    for (size_t m = 0; m < miniblocks; ++m) {
      if (!minis[m].empty()) PackBits(out, minis[m], widths[m]);
    }
  }
  return out;
}

Bytes DeltaLengthByteArray(const std::vector<std::string>& values) {
  std::vector<int64_t> lengths;
  for (const std::string& s : values) lengths.push_back(static_cast<int64_t>(s.size()));
  Bytes out = DeltaBinaryPacked(lengths, 32);
  for (const std::string& s : values) out.insert(out.end(), s.begin(), s.end());
  return out;
}

Bytes DeltaByteArray(const std::vector<std::string>& values) {
  std::vector<int64_t> prefixes;
  std::vector<std::string> suffixes;
  std::string prev;
  for (const std::string& s : values) {
    size_t p = 0;
    while (p < prev.size() && p < s.size() && prev[p] == s[p]) ++p;
    prefixes.push_back(static_cast<int64_t>(p));
    suffixes.push_back(s.substr(p));
    prev = s;
  }
  Bytes out = DeltaBinaryPacked(prefixes, 32);
  Bytes rest = DeltaLengthByteArray(suffixes);
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

Bytes ByteStreamSplit(const Bytes& plain, size_t width) {
  size_t n = plain.size() / width;
  Bytes out(plain.size());
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < width; ++k) out[k * n + i] = plain[i * width + k];
  }
  return out;
}

Bytes DataPageV1(int32_t num_values, Encoding encoding, const Bytes& body, const PageOptions& options) {
  PageHeader h;
  h.type = PageType::kDataPage;
  h.uncompressed_page_size = static_cast<int32_t>(body.size());
  DataPageHeader dp;
  dp.num_values = num_values;
  dp.encoding = encoding;
  h.data_page_header = dp;
  return Page(h, body, options);
}

Bytes DataPageV2(int32_t num_values, int32_t num_nulls, int32_t num_rows, Encoding encoding, const Bytes& rep,
                 const Bytes& def, const Bytes& values, const PageOptions& options, std::optional<bool> is_compressed) {
  PageHeader h;
  h.type = PageType::kDataPageV2;
  h.uncompressed_page_size = static_cast<int32_t>(rep.size() + def.size() + values.size());
  DataPageHeaderV2 dp;
  dp.num_values = num_values;
  dp.num_nulls = num_nulls;
  dp.num_rows = num_rows;
  dp.encoding = encoding;
  dp.repetition_levels_byte_length = static_cast<int32_t>(rep.size());
  dp.definition_levels_byte_length = static_cast<int32_t>(def.size());
  dp.is_compressed = is_compressed;
  h.data_page_header_v2 = dp;
  bool compress = is_compressed.value_or(true);
  Bytes payload = compress ? *Compress(options.codec, values) : values;
  Bytes body = Concat({rep, def, payload});
  h.compressed_page_size = static_cast<int32_t>(body.size());
  if (options.crc) h.crc = static_cast<int32_t>(crc32(0L, body.data(), static_cast<uInt>(body.size())));
  if (options.crc_override) h.crc = options.crc_override;
  Bytes out = *EncodePageHeader(h);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

Bytes DictionaryPage(int32_t num_values, const Bytes& plain_values, const PageOptions& options) {
  PageHeader h;
  h.type = PageType::kDictionaryPage;
  h.uncompressed_page_size = static_cast<int32_t>(plain_values.size());
  DictionaryPageHeader dp;
  dp.num_values = num_values;
  dp.encoding = Encoding::kPlain;
  h.dictionary_page_header = dp;
  return Page(h, plain_values, options);
}

Bytes Concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Bytes BuildOneColumnFile(const OneColumnFile& spec) {
  FileMetaData md;
  md.schema = spec.schema;
  md.num_rows = spec.num_rows;
  md.created_by = "vigilo reader tests";
  RowGroup rg;
  rg.num_rows = spec.num_rows;
  rg.total_byte_size = static_cast<int64_t>(spec.chunk.size());
  ColumnChunk cc;
  ColumnMetaData cm;
  cm.type = spec.type;
  cm.encodings = {Encoding::kPlain, Encoding::kRle};
  cm.path_in_schema = spec.path;
  cm.codec = spec.codec;
  cm.num_values = spec.num_values;
  cm.total_uncompressed_size = static_cast<int64_t>(spec.chunk.size());
  cm.total_compressed_size = static_cast<int64_t>(spec.chunk.size());
  cm.data_page_offset = 4 + static_cast<int64_t>(spec.dictionary_page_bytes);
  if (spec.dictionary_page_bytes > 0) cm.dictionary_page_offset = 4;
  cm.statistics = spec.statistics;
  cc.file_offset = 4;
  cc.meta_data = cm;
  rg.columns.push_back(cc);
  md.row_groups.push_back(rg);
  Bytes footer = *EncodeFooter(md);
  Bytes file(4 + spec.chunk.size() + footer.size());
  std::memcpy(file.data(), kMagic, 4);
  std::copy(spec.chunk.begin(), spec.chunk.end(), file.begin() + 4);
  std::copy(footer.begin(), footer.end(), file.begin() + 4 + static_cast<ptrdiff_t>(spec.chunk.size()));
  return file;
}

SchemaElement Root(int32_t children) {
  SchemaElement e;
  e.name = "schema";
  e.num_children = children;
  return e;
}

SchemaElement Leaf(const std::string& name, Type type, FieldRepetitionType rep) {
  SchemaElement e;
  e.name = name;
  e.type = type;
  e.repetition_type = rep;
  return e;
}

SchemaElement Group(const std::string& name, int32_t children, FieldRepetitionType rep) {
  SchemaElement e;
  e.name = name;
  e.num_children = children;
  e.repetition_type = rep;
  return e;
}

}  // namespace vigilo::parquet::testing
