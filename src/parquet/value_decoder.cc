#include "value_decoder.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "levels_reader.h"

namespace vigilo::parquet::decode {
namespace {

static_assert(std::endian::native == std::endian::little, "PLAIN values are copied as little-endian memory");

Status Truncated(const char* what, uint64_t offset) {
  return ParseError(std::string(what) + " runs past the end of the page").WithOffset(offset);
}

uint32_t LoadLe32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

template <typename T>
Status PlainFixed(std::span<const uint8_t> data, size_t count, std::vector<T>& out, Budget& budget,
                  size_t* consumed) {
  if (count > data.size() / sizeof(T)) return Truncated("PLAIN values", data.size());
  VIGILO_RETURN_IF_ERROR(AppendRaw(out, data.data(), count, budget));
  *consumed = count * sizeof(T);
  return Status::Ok();
}

Status PlainFixedBinary(std::span<const uint8_t> data, size_t count, size_t width, ColumnValues* out,
                        Budget& budget, size_t* consumed) {
  if (count > data.size() / width) return Truncated("PLAIN values", data.size());
  size_t old = out->binary.size();
  VIGILO_RETURN_IF_ERROR(Grow(out->binary, old + count * width, budget));
  if (count > 0) std::memcpy(out->binary.data() + old, data.data(), count * width);
  *consumed = count * width;
  return Status::Ok();
}

Status PlainByteArray(std::span<const uint8_t> data, size_t count, ColumnValues* out, Budget& budget,
                      size_t* consumed) {
  // Each value has a 4-byte length, so `count` is bounded by the bytes.
  if (count > data.size() / 4) return Truncated("PLAIN byte arrays", data.size());
  if (out->binary_offsets.empty()) VIGILO_RETURN_IF_ERROR(Grow(out->binary_offsets, 1, budget));
  size_t old_n = out->binary_offsets.size();
  size_t old_bytes = out->binary.size();
  VIGILO_RETURN_IF_ERROR(Reserve(out->binary_offsets, old_n + count, budget));
  // The values section must be consumed exactly (the caller checks), so a
  // valid page holds exactly this many value bytes; reserving them up front
  // makes the copy a single pass.
  VIGILO_RETURN_IF_ERROR(Reserve(out->binary, old_bytes + (data.size() - 4 * count), budget));
  // Appending into reserved capacity writes each byte once (Grow would zero
  // the bytes first).
  std::vector<uint8_t>& bin = out->binary;
  std::vector<uint64_t>& offsets = out->binary_offsets;
  const uint8_t* p = data.data();
  const uint8_t* end = p + data.size();
  uint64_t at = old_bytes;
  for (size_t i = 0; i < count; ++i) {
    auto pos = static_cast<size_t>(p - data.data());
    if (end - p < 4) return Truncated("a PLAIN byte array length", pos);
    uint32_t len = LoadLe32(p);
    if (len > static_cast<size_t>(end - p) - 4) return Truncated("a PLAIN byte array", pos);
    bin.insert(bin.end(), p + 4, p + 4 + len);
    at += len;
    offsets.push_back(at);
    p += 4 + size_t{len};
  }
  *consumed = static_cast<size_t>(p - data.data());
  return Status::Ok();
}

Status PlainBooleans(std::span<const uint8_t> data, size_t count, ColumnValues* out, Budget& budget,
                     size_t* consumed) {
  size_t bytes = count / 8 + (count % 8 != 0);
  if (bytes > data.size()) return Truncated("PLAIN booleans", data.size());
  size_t old = out->booleans.size();
  VIGILO_RETURN_IF_ERROR(Grow(out->booleans, old + count, budget));
  uint8_t* dst = out->booleans.data() + old;
  for (size_t i = 0; i < count; ++i) dst[i] = (data[i >> 3] >> (i & 7)) & 1;
  *consumed = bytes;
  return Status::Ok();
}

// Unsigned LEB128 of at most 10 bytes.
Result<uint64_t> ReadUleb(std::span<const uint8_t> data, size_t* pos) {
  uint64_t v = 0;
  size_t start = *pos;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= data.size()) return Truncated("a DELTA varint", start);
    uint8_t b = data[(*pos)++];
    if (shift == 63 && (b & 0x7e) != 0) return ParseError("DELTA varint overflows 64 bits").WithOffset(start);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
  return ParseError("DELTA varint is longer than 10 bytes").WithOffset(start);
}

uint64_t Unzigzag(uint64_t v) { return (v >> 1) ^ (~(v & 1) + 1); }

// Caps that keep the per-miniblock scratch small; writers use 128-value
// blocks of 4 miniblocks (32 values each) or similar.
constexpr uint64_t kMaxDeltaBlockSize = 1u << 16;
constexpr size_t kDeltaScratch = 1024;

// DELTA_BINARY_PACKED: decodes exactly `count` values of `bits` (32 or 64)
// bits into out[0..count); arithmetic wraps, as the format specifies.
template <typename T>
Status DeltaDecode(std::span<const uint8_t> data, size_t count, int bits, T* out, size_t* consumed) {
  size_t pos = 0;
  VIGILO_ASSIGN_OR_RETURN(uint64_t block_size, ReadUleb(data, &pos));
  VIGILO_ASSIGN_OR_RETURN(uint64_t miniblocks, ReadUleb(data, &pos));
  size_t total_at = pos;
  VIGILO_ASSIGN_OR_RETURN(uint64_t total, ReadUleb(data, &pos));
  VIGILO_ASSIGN_OR_RETURN(uint64_t first_zz, ReadUleb(data, &pos));
  if (block_size == 0 || block_size % 128 != 0 || block_size > kMaxDeltaBlockSize) {
    return InvalidFormat("DELTA_BINARY_PACKED block size " + std::to_string(block_size) +
                         " is not a multiple of 128 up to 65536")
        .WithOffset(0);
  }
  if (miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0) {
    return InvalidFormat("DELTA_BINARY_PACKED has " + std::to_string(miniblocks) + " miniblocks in a block of " +
                         std::to_string(block_size))
        .WithOffset(0);
  }
  if (total != count) {
    return InvalidFormat("DELTA_BINARY_PACKED holds " + std::to_string(total) + " values, the page needs " +
                         std::to_string(count))
        .WithOffset(total_at);
  }
  size_t per_mini = static_cast<size_t>(block_size / miniblocks);
  uint64_t value = Unzigzag(first_zz);
  size_t done = 0;
  if (count > 0) out[done++] = static_cast<T>(value);
  uint64_t deltas[kDeltaScratch];
  while (done < count) {
    VIGILO_ASSIGN_OR_RETURN(uint64_t min_zz, ReadUleb(data, &pos));
    uint64_t min_delta = Unzigzag(min_zz);
    if (data.size() - pos < miniblocks) return Truncated("DELTA_BINARY_PACKED bit widths", pos);
    size_t widths_at = pos;
    pos += static_cast<size_t>(miniblocks);
    for (size_t m = 0; m < miniblocks && done < count; ++m) {
      int width = data[widths_at + m];
      // Writers that take INT32 deltas in 64-bit arithmetic (DuckDB) need up
      // to 33 bits: a delta minus min_delta spans 2^33 - 2. The sum wraps to T.
      const int max_width = bits == 32 ? 33 : 64;
      if (width > max_width) {
        return InvalidFormat("DELTA_BINARY_PACKED miniblock bit width " + std::to_string(width) + " exceeds " +
                             std::to_string(max_width))
            .WithOffset(widths_at + m);
      }
      // Miniblocks are padded to full size, also the last one.
      size_t body = per_mini * static_cast<size_t>(width) / 8;
      if (data.size() - pos < body) return Truncated("a DELTA_BINARY_PACKED miniblock", pos);
      std::span<const uint8_t> packed = data.subspan(pos, body);
      size_t need = std::min(per_mini, count - done);
      for (size_t k = 0; k < need; k += kDeltaScratch) {
        size_t n = std::min(kDeltaScratch, need - k);
        // Each scratch window starts on a byte boundary (k is a multiple of 1024).
        UnpackBits(packed.subspan(k * static_cast<size_t>(width) / 8), width, n, deltas);
        for (size_t j = 0; j < n; ++j) {
          value += min_delta + deltas[j];
          out[done++] = static_cast<T>(value);
        }
      }
      pos += body;
    }
  }
  *consumed = pos;
  return Status::Ok();
}

// Copies a BYTE_ARRAY value set from `lengths` and the bytes that follow.
Status AppendByteArrays(std::span<const uint8_t> data, std::span<const int32_t> lengths, ColumnValues* out,
                        Budget& budget, size_t* consumed) {
  uint64_t total = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 0) return InvalidFormat("negative byte array length " + std::to_string(lengths[i]));
    total += static_cast<uint64_t>(lengths[i]);
  }
  if (total > data.size()) return Truncated("DELTA_LENGTH_BYTE_ARRAY data", data.size());
  if (out->type == Type::kByteArray) {
    if (out->binary_offsets.empty()) VIGILO_RETURN_IF_ERROR(Grow(out->binary_offsets, 1, budget));
    size_t old_n = out->binary_offsets.size();
    VIGILO_RETURN_IF_ERROR(Grow(out->binary_offsets, old_n + lengths.size(), budget));
    uint64_t at = out->binary.size();
    for (size_t i = 0; i < lengths.size(); ++i) {
      at += static_cast<uint64_t>(lengths[i]);
      out->binary_offsets[old_n + i] = at;
    }
  } else {
    return InvalidFormat("DELTA_LENGTH_BYTE_ARRAY is only valid for BYTE_ARRAY");
  }
  size_t old = out->binary.size();
  VIGILO_RETURN_IF_ERROR(Grow(out->binary, old + static_cast<size_t>(total), budget));
  if (total > 0) std::memcpy(out->binary.data() + old, data.data(), static_cast<size_t>(total));
  *consumed = static_cast<size_t>(total);
  return Status::Ok();
}

Status WithBase(Status st, size_t base) {
  if (st.ok()) return st;
  return std::move(st).WithOffset(base + st.offset().value_or(0));
}

}  // namespace

size_t FixedWidth(Type type, int32_t type_length) {
  switch (type) {
    case Type::kBoolean: return 1;
    case Type::kInt32:
    case Type::kFloat: return 4;
    case Type::kInt64:
    case Type::kDouble: return 8;
    case Type::kInt96: return 12;
    case Type::kFixedLenByteArray: return static_cast<size_t>(type_length);
    case Type::kByteArray: return 0;
  }
  return 0;
}

std::string EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kPlain: return "PLAIN";
    case Encoding::kPlainDictionary: return "PLAIN_DICTIONARY";
    case Encoding::kRle: return "RLE";
    case Encoding::kBitPacked: return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked: return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray: return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray: return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary: return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit: return "BYTE_STREAM_SPLIT";
  }
  return "encoding " + std::to_string(static_cast<int32_t>(encoding));
}

std::string TypeName(Type type) {
  const char* name = PhysicalTypeName(type);
  return name != nullptr ? name : "type " + std::to_string(static_cast<int32_t>(type));
}

Status DecodePlain(std::span<const uint8_t> data, size_t count, ColumnValues* out, Budget& budget, size_t* consumed) {
  switch (out->type) {
    case Type::kBoolean: return PlainBooleans(data, count, out, budget, consumed);
    case Type::kInt32: return PlainFixed(data, count, out->int32s, budget, consumed);
    case Type::kInt64: return PlainFixed(data, count, out->int64s, budget, consumed);
    case Type::kFloat: return PlainFixed(data, count, out->floats, budget, consumed);
    case Type::kDouble: return PlainFixed(data, count, out->doubles, budget, consumed);
    case Type::kByteArray: return PlainByteArray(data, count, out, budget, consumed);
    case Type::kInt96:
    case Type::kFixedLenByteArray:
      return PlainFixedBinary(data, count, FixedWidth(out->type, out->type_length), out, budget, consumed);
  }
  return Unimplemented("physical type " + TypeName(out->type) + " is not supported");
}

Status DecodeRleBooleans(std::span<const uint8_t> data, size_t count, ColumnValues* out, Budget& budget,
                         size_t* consumed) {
  if (data.size() < 4) return Truncated("the RLE boolean length", 0);
  uint32_t len = LoadLe32(data.data());
  if (len > data.size() - 4) return Truncated("RLE booleans", 0);
  size_t old = out->booleans.size();
  VIGILO_RETURN_IF_ERROR(Grow(out->booleans, old + count, budget));
  RleBitPackedDecoder decoder(data.subspan(4, len), 1);
  VIGILO_RETURN_IF_ERROR(WithBase(decoder.Decode(std::span(out->booleans).subspan(old)), 4));
  *consumed = 4 + size_t{len};
  return Status::Ok();
}

Status DecodeDictionaryIndices(std::span<const uint8_t> data, size_t count, const ColumnValues& dictionary,
                               std::vector<uint32_t>& indices, ColumnValues* out, Budget& budget, size_t* consumed) {
  if (data.empty()) {
    if (count == 0) {
      *consumed = 0;
      return Status::Ok();
    }
    return Truncated("the dictionary index bit width", 0);
  }
  int width = data[0];
  if (width > 32) {
    return InvalidFormat("dictionary index bit width " + std::to_string(width) + " exceeds 32").WithOffset(0);
  }
  VIGILO_ASSIGN_OR_RETURN(std::span<uint32_t> idx, Scratch(indices, count, budget));
  RleBitPackedDecoder decoder(data.subspan(1), width);
  VIGILO_RETURN_IF_ERROR(WithBase(decoder.Decode(idx), 1));
  *consumed = 1 + decoder.offset();

  size_t dict_size = dictionary.size();
  uint32_t max_index = 0;
  for (uint32_t i : idx) max_index = std::max(max_index, i);
  if (count > 0 && max_index >= dict_size) {
    size_t at = static_cast<size_t>(std::find_if(idx.begin(), idx.end(), [&](uint32_t v) { return v >= dict_size; }) -
                                    idx.begin());
    return InvalidFormat("dictionary index " + std::to_string(idx[at]) + " (value " + std::to_string(at) +
                         ") is out of range for a dictionary of " + std::to_string(dict_size) + " values")
        .WithOffset(0);
  }
  const uint32_t* ix = idx.data();
  auto gather = [&](auto& dst, const auto& src) -> Status {
    const auto* s = src.data();
    return AppendGenerated(dst, count, budget, [s, ix](size_t i) { return s[ix[i]]; });
  };
  switch (out->type) {
    case Type::kBoolean: return gather(out->booleans, dictionary.booleans);
    case Type::kInt32: return gather(out->int32s, dictionary.int32s);
    case Type::kInt64: return gather(out->int64s, dictionary.int64s);
    case Type::kFloat: return gather(out->floats, dictionary.floats);
    case Type::kDouble: return gather(out->doubles, dictionary.doubles);
    case Type::kInt96:
    case Type::kFixedLenByteArray: {
      size_t w = FixedWidth(out->type, out->type_length);
      size_t old = out->binary.size();
      VIGILO_RETURN_IF_ERROR(Grow(out->binary, old + count * w, budget));
      uint8_t* d = out->binary.data() + old;
      for (size_t i = 0; i < count; ++i) std::memcpy(d + i * w, dictionary.binary.data() + ix[i] * w, w);
      return Status::Ok();
    }
    case Type::kByteArray: {
      // Sum first: a large entry repeated by many indices is charged before
      // anything is copied.
      uint64_t total = 0;
      const uint64_t* off = dictionary.binary_offsets.data();
      for (size_t i = 0; i < count; ++i) total += off[ix[i] + 1] - off[ix[i]];
      if (total > std::numeric_limits<size_t>::max() / 2) return LimitExceeded("decoding the column chunk exceeds the memory budget");
      if (out->binary_offsets.empty()) VIGILO_RETURN_IF_ERROR(Grow(out->binary_offsets, 1, budget));
      size_t old_n = out->binary_offsets.size();
      size_t old_bytes = out->binary.size();
      VIGILO_RETURN_IF_ERROR(Grow(out->binary_offsets, old_n + count, budget));
      VIGILO_RETURN_IF_ERROR(Grow(out->binary, old_bytes + static_cast<size_t>(total), budget));
      uint64_t at = old_bytes;
      for (size_t i = 0; i < count; ++i) {
        uint64_t b = off[ix[i]];
        uint64_t len = off[ix[i] + 1] - b;
        if (len > 0) std::memcpy(out->binary.data() + at, dictionary.binary.data() + b, static_cast<size_t>(len));
        at += len;
        out->binary_offsets[old_n + i] = at;
      }
      return Status::Ok();
    }
  }
  return Unimplemented("physical type " + TypeName(out->type) + " is not supported");
}

Status DecodeDeltaBinaryPacked(std::span<const uint8_t> data, size_t count, ColumnValues* out, Budget& budget,
                               size_t* consumed) {
  if (out->type == Type::kInt32) {
    size_t old = out->int32s.size();
    VIGILO_RETURN_IF_ERROR(Grow(out->int32s, old + count, budget));
    return DeltaDecode(data, count, 32, out->int32s.data() + old, consumed);
  }
  if (out->type == Type::kInt64) {
    size_t old = out->int64s.size();
    VIGILO_RETURN_IF_ERROR(Grow(out->int64s, old + count, budget));
    return DeltaDecode(data, count, 64, out->int64s.data() + old, consumed);
  }
  return InvalidFormat("DELTA_BINARY_PACKED is not valid for " + TypeName(out->type));
}

Status DecodeDeltaInt32s(std::span<const uint8_t> data, size_t count, std::vector<int32_t>& out, Budget& budget,
                         size_t* consumed) {
  VIGILO_RETURN_IF_ERROR(Grow(out, count, budget));
  return DeltaDecode(data, count, 32, out.data(), consumed);
}

Status DecodeDeltaLengthByteArray(std::span<const uint8_t> data, size_t count, std::vector<int32_t>& lengths,
                                  ColumnValues* out, Budget& budget, size_t* consumed) {
  if (out->type != Type::kByteArray) {
    return InvalidFormat("DELTA_LENGTH_BYTE_ARRAY is not valid for " + TypeName(out->type));
  }
  size_t head = 0;
  VIGILO_RETURN_IF_ERROR(DecodeDeltaInt32s(data, count, lengths, budget, &head));
  size_t body = 0;
  VIGILO_RETURN_IF_ERROR(WithBase(AppendByteArrays(data.subspan(head), lengths, out, budget, &body), head));
  *consumed = head + body;
  return Status::Ok();
}

Status DecodeDeltaByteArray(std::span<const uint8_t> data, size_t count, std::vector<int32_t>& prefixes,
                            std::vector<int32_t>& suffixes, ColumnValues* out, Budget& budget, size_t* consumed) {
  bool fixed = out->type == Type::kFixedLenByteArray;
  if (out->type != Type::kByteArray && !fixed) {
    return InvalidFormat("DELTA_BYTE_ARRAY is not valid for " + TypeName(out->type));
  }
  size_t pos = 0;
  size_t n = 0;
  VIGILO_RETURN_IF_ERROR(DecodeDeltaInt32s(data, count, prefixes, budget, &n));
  pos += n;
  VIGILO_RETURN_IF_ERROR(WithBase(DecodeDeltaInt32s(data.subspan(pos), count, suffixes, budget, &n), pos));
  pos += n;
  // First pass: validate prefixes against the previous value's length and
  // size the output, so the budget sees the expansion before any copy.
  uint64_t suffix_bytes = 0;
  uint64_t total = 0;
  uint64_t prev_len = 0;
  for (size_t i = 0; i < count; ++i) {
    if (prefixes[i] < 0 || suffixes[i] < 0) {
      return InvalidFormat("negative DELTA_BYTE_ARRAY prefix or suffix length (value " + std::to_string(i) + ")")
          .WithOffset(0);
    }
    if (static_cast<uint64_t>(prefixes[i]) > prev_len) {
      return InvalidFormat("DELTA_BYTE_ARRAY prefix " + std::to_string(prefixes[i]) + " is longer than the previous value (value " +
                           std::to_string(i) + ")")
          .WithOffset(0);
    }
    prev_len = static_cast<uint64_t>(prefixes[i]) + static_cast<uint64_t>(suffixes[i]);
    if (fixed && prev_len != static_cast<uint64_t>(out->type_length)) {
      return InvalidFormat("DELTA_BYTE_ARRAY value " + std::to_string(i) + " has " + std::to_string(prev_len) +
                           " bytes, the column's type_length is " + std::to_string(out->type_length))
          .WithOffset(0);
    }
    suffix_bytes += static_cast<uint64_t>(suffixes[i]);
    total += prev_len;
    if (total > (uint64_t{1} << 62)) return LimitExceeded("decoding the column chunk exceeds the memory budget");
  }
  if (suffix_bytes > data.size() - pos) return Truncated("DELTA_BYTE_ARRAY suffixes", pos);
  size_t old_bytes = out->binary.size();
  size_t old_n = 0;
  if (!fixed) {
    if (out->binary_offsets.empty()) VIGILO_RETURN_IF_ERROR(Grow(out->binary_offsets, 1, budget));
    old_n = out->binary_offsets.size();
    VIGILO_RETURN_IF_ERROR(Grow(out->binary_offsets, old_n + count, budget));
  }
  VIGILO_RETURN_IF_ERROR(Grow(out->binary, old_bytes + static_cast<size_t>(total), budget));
  uint8_t* base = out->binary.data();
  uint64_t at = old_bytes;
  uint64_t prev_at = old_bytes;
  const uint8_t* suffix = data.data() + pos;
  for (size_t i = 0; i < count; ++i) {
    auto p = static_cast<size_t>(prefixes[i]);
    auto s = static_cast<size_t>(suffixes[i]);
    // The prefix is copied from the previous value, which ends at `at`; the
    // ranges do not overlap because the new value starts where it ends.
    if (p > 0) std::memmove(base + at, base + prev_at, p);
    if (s > 0) std::memcpy(base + at + p, suffix, s);
    suffix += s;
    prev_at = at;
    at += p + s;
    if (!fixed) out->binary_offsets[old_n + i] = at;
  }
  *consumed = pos + static_cast<size_t>(suffix_bytes);
  return Status::Ok();
}

Status DecodeByteStreamSplit(std::span<const uint8_t> data, size_t count, ColumnValues* out, Budget& budget,
                             size_t* consumed) {
  if (out->type == Type::kBoolean || out->type == Type::kByteArray || out->type == Type::kInt96) {
    return InvalidFormat("BYTE_STREAM_SPLIT is not valid for " + TypeName(out->type));
  }
  size_t width = FixedWidth(out->type, out->type_length);
  if (count > data.size() / width) return Truncated("BYTE_STREAM_SPLIT values", data.size());
  // Stream k holds byte k of every value: value i's byte k is data[k * count + i].
  const uint8_t* src = data.data();
  auto split = [&](auto& dst) -> Status {
    using T = typename std::remove_reference_t<decltype(dst)>::value_type;
    return AppendGenerated(dst, count, budget, [src, count](size_t i) {
      uint8_t tmp[sizeof(T)];
      for (size_t k = 0; k < sizeof(T); ++k) tmp[k] = src[k * count + i];
      T v;
      std::memcpy(&v, tmp, sizeof(T));
      return v;
    });
  };
  *consumed = count * width;
  switch (out->type) {
    case Type::kInt32: return split(out->int32s);
    case Type::kInt64: return split(out->int64s);
    case Type::kFloat: return split(out->floats);
    case Type::kDouble: return split(out->doubles);
    default: break;
  }
  size_t old = out->binary.size();
  VIGILO_RETURN_IF_ERROR(Grow(out->binary, old + count * width, budget));
  uint8_t* d = out->binary.data() + old;
  for (size_t k = 0; k < width; ++k) {
    const uint8_t* stream = data.data() + k * count;
    for (size_t i = 0; i < count; ++i) d[i * width + k] = stream[i];
  }
  return Status::Ok();
}

}  // namespace vigilo::parquet::decode
