#include "builder_spill.h"

#include <cstdio>
#include <cstring>
#include <memory>

namespace vigilo::ivf {
namespace {

using Kind = ColumnType::Kind;

bool IsInteger(Kind k) { return k == Kind::kInt || k == Kind::kLong || k == Kind::kDate; }

template <typename T>
void Put(std::string& out, T v) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));  // little-endian hosts only (x86-64, aarch64; the builder's targets)
  out.append(buf, sizeof(T));
}

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};

}  // namespace

SpillWriter::SpillWriter(std::filesystem::path dir, uint64_t buckets, uint64_t nlist, size_t code_bytes,
                         size_t buffer_bytes_per_bucket)
    : dir_(std::move(dir)), code_bytes_(code_bytes), buffer_bytes_(buffer_bytes_per_bucket),
      buffers_(buckets), cid_rows_(nlist, 0), cid_bytes_(nlist, 0) {}

std::filesystem::path SpillWriter::BucketPath(uint64_t bucket) const {
  return dir_ / ("bucket-" + std::to_string(bucket) + ".spill");
}

Status SpillWriter::Append(uint64_t bucket, uint32_t cid, const KeyColumn& keys, size_t row, uint64_t position,
                           LvqParams params, const uint8_t* code) {
  std::string& out = buffers_[bucket];
  size_t before = out.size();
  Put<uint32_t>(out, cid);
  if (keys.size() == 0) {
    Put<int64_t>(out, static_cast<int64_t>(position));
  } else if (IsInteger(keys.type.kind)) {
    Put<int64_t>(out, keys.integers[row]);
  } else if (keys.type.kind == Kind::kBoolean) {
    Put<uint8_t>(out, keys.booleans[row]);
  } else {
    std::string_view b = keys.Bytes(row);
    Put<uint32_t>(out, static_cast<uint32_t>(b.size()));
    out.append(b);
  }
  Put<float>(out, params.offset);
  Put<float>(out, params.scale);
  out.append(reinterpret_cast<const char*>(code), code_bytes_);
  cid_rows_[cid] += 1;
  cid_bytes_[cid] += out.size() - before;
  return out.size() >= buffer_bytes_ ? FlushBucket(bucket) : Status::Ok();
}

Status SpillWriter::FlushBucket(uint64_t bucket) {
  std::string& out = buffers_[bucket];
  if (out.empty()) return Status::Ok();
  std::filesystem::path path = BucketPath(bucket);
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "ab"));
  if (!f) return IoError("cannot open spill file " + path.string());
  if (std::fwrite(out.data(), 1, out.size(), f.get()) != out.size()) {
    return IoError("cannot write spill file " + path.string() + " (disk full?)");
  }
  if (std::fclose(f.release()) != 0) return IoError("cannot write spill file " + path.string());
  out.clear();
  return Status::Ok();
}

Status SpillWriter::Flush() {
  for (uint64_t b = 0; b < buffers_.size(); ++b) VIGILO_RETURN_IF_ERROR(FlushBucket(b));
  return Status::Ok();
}

Status GatherBucketRows(const std::filesystem::path& path, ColumnType key_type, size_t code_bytes, uint32_t first,
                        uint32_t last, std::vector<LeafRows>& rows) {
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return IoError("cannot open spill file " + path.string());
  rows.assign(last - first + 1, LeafRows{});
  for (LeafRows& r : rows) r.keys.Clear(key_type);
  std::vector<char> buf(1 << 20);
  std::string pending;  // read but not yet parsed from `pos` on
  size_t pos = 0;
  // Ensures n unparsed bytes; false at a clean end of file.
  auto need = [&](size_t n) -> Result<bool> {
    while (pending.size() - pos < n) {
      if (pos > 0) {  // keep the buffer small: drop what was parsed
        pending.erase(0, pos);
        pos = 0;
      }
      size_t got = std::fread(buf.data(), 1, buf.size(), f.get());
      if (got == 0) {
        if (std::ferror(f.get())) return IoError("cannot read spill file " + path.string());
        if (pending.size() == pos) return false;
        return Internal("spill file " + path.string() + " ends inside a record");
      }
      pending.append(buf.data(), got);
    }
    return true;
  };
  auto take = [&](void* out, size_t n) {
    std::memcpy(out, pending.data() + pos, n);
    pos += n;
  };
  const bool integer_key = IsInteger(key_type.kind), boolean_key = key_type.kind == Kind::kBoolean;
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(bool more, need(4));
    if (!more) break;
    uint32_t cid = 0;
    take(&cid, 4);
    size_t key_bytes = integer_key ? 8 : boolean_key ? 1 : 0;
    if (!integer_key && !boolean_key) {
      VIGILO_ASSIGN_OR_RETURN(bool ok, need(4));
      if (!ok) return Internal("truncated spill record");
      uint32_t length = 0;
      take(&length, 4);
      key_bytes = length;
    }
    VIGILO_ASSIGN_OR_RETURN(bool ok, need(key_bytes + 8 + code_bytes));
    if (!ok) return Internal("truncated spill record");
    if (cid < first || cid > last) {
      pos += key_bytes + 8 + code_bytes;
      continue;
    }
    LeafRows& r = rows[cid - first];
    const auto* at = reinterpret_cast<const uint8_t*>(pending.data());
    if (integer_key) {
      int64_t v = 0;
      take(&v, 8);
      r.keys.integers.push_back(v);
    } else if (boolean_key) {
      uint8_t v = 0;
      take(&v, 1);
      r.keys.booleans.push_back(v);
    } else {
      r.keys.bytes.insert(r.keys.bytes.end(), at + pos, at + pos + key_bytes);
      r.keys.offsets.push_back(r.keys.bytes.size());
      pos += key_bytes;
    }
    LvqParams p;
    take(&p.offset, 4);
    take(&p.scale, 4);
    r.params.push_back(p);
    r.codes.insert(r.codes.end(), at + pos, at + pos + code_bytes);
    pos += code_bytes;
  }
  return Status::Ok();
}

}  // namespace vigilo::ivf
