#include "vigilo/ivf/publication_writer.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "object_sink.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/json/write.h"

namespace vigilo::ivf {
namespace {

using parquet::ColumnKind;
using parquet::ColumnSpec;
using Kind = ColumnType::Kind;

std::vector<std::string_view> Views(const KeyColumn& keys, size_t begin, size_t end) {
  std::vector<std::string_view> out;
  out.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) out.push_back(keys.Bytes(i));
  return out;
}

Status WriteKeys(parquet::FileWriter& w, size_t column, const KeyColumn& keys, size_t begin, size_t end) {
  switch (keys.type.kind) {
    case Kind::kBoolean:
      return w.WriteBoolean(column, std::span<const uint8_t>(keys.booleans).subspan(begin, end - begin));
    case Kind::kLong:
      return w.WriteInt64(column, std::span<const int64_t>(keys.integers).subspan(begin, end - begin));
    case Kind::kInt:
    case Kind::kDate: {
      std::vector<int32_t> narrow;
      narrow.reserve(end - begin);
      for (size_t i = begin; i < end; ++i) {
        int64_t v = keys.integers[i];
        if (v < INT32_MIN || v > INT32_MAX) return OutOfRange("key " + std::to_string(v) + " does not fit an int");
        narrow.push_back(static_cast<int32_t>(v));
      }
      return w.WriteInt32(column, narrow);
    }
    case Kind::kBinary:
    case Kind::kString:
    case Kind::kFixed: return w.WriteByteArray(column, Views(keys, begin, end));
    default: return Internal("not a key type: " + keys.type.ToString());
  }
}

std::vector<std::string_view> CodeViews(const std::vector<uint8_t>& codes, size_t code_bytes, size_t begin,
                                        size_t end) {
  std::vector<std::string_view> out;
  out.reserve(end - begin);
  const char* base = reinterpret_cast<const char*>(codes.data());
  for (size_t i = begin; i < end; ++i) out.emplace_back(base + i * code_bytes, code_bytes);
  return out;
}

Status WriteParams(parquet::FileWriter& w, size_t offset_column, const std::vector<LvqParams>& params, size_t begin,
                   size_t end) {
  std::vector<float> offsets, scales;
  offsets.reserve(end - begin);
  scales.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    offsets.push_back(params[i].offset);
    scales.push_back(params[i].scale);
  }
  VIGILO_RETURN_IF_ERROR(w.WriteFloat(offset_column, offsets));
  return w.WriteFloat(offset_column + 1, scales);
}

ColumnSpec Required(std::string name, ColumnKind kind) {
  ColumnSpec c;
  c.name = std::move(name);
  c.kind = kind;
  return c;
}

std::vector<ColumnSpec> LvqColumns() {
  return {Required("offset", ColumnKind::kFloat), Required("scale", ColumnKind::kFloat),
          Required("code", ColumnKind::kByteArray)};
}

parquet::WriterOptions Options(parquet::CompressionCodec codec, uint32_t page_bytes = parquet::WriterOptions{}.page_size) {
  parquet::WriterOptions o;
  o.codec = codec;
  o.page_size = page_bytes;
  o.page_statistics = false;  // readers use the footer's chunk statistics only (publication-v1.md §3.3)
  // Keeps a postings footer small enough for the reader's speculative 64 KiB
  // tail read (docs/format/http-reading.md): LVQ codes are d bytes each.
  o.max_statistics_value_bytes = 64;
  return o;
}

}  // namespace

Result<ColumnSpec> ParquetColumnFor(const Field& field, bool optional) {
  ColumnSpec c;
  c.name = field.name;
  c.optional = optional;
  switch (field.type.kind) {
    case Kind::kBoolean: c.kind = ColumnKind::kBoolean; break;
    case Kind::kInt: c.kind = ColumnKind::kInt32; break;
    case Kind::kLong: c.kind = ColumnKind::kInt64; break;
    case Kind::kBinary: c.kind = ColumnKind::kByteArray; break;
    case Kind::kString: c.kind = ColumnKind::kString; break;
    case Kind::kDate: c.kind = ColumnKind::kDate; break;
    case Kind::kFixed:
      c.kind = ColumnKind::kFixedLenByteArray;
      c.type_length = static_cast<int32_t>(field.type.fixed_length);
      break;
    case Kind::kFloat: c.kind = ColumnKind::kFloat; break;
    case Kind::kDouble: c.kind = ColumnKind::kDouble; break;
    case Kind::kFloatList: c.kind = ColumnKind::kFloatList; break;
  }
  return c;
}

Result<ObjectDescriptor> WriteCentroids(store::OwnedWrites& writes, const std::vector<uint64_t>& cid_offsets,
                                        const LvqRows& centroids, uint64_t dimension,
                                        parquet::CompressionCodec codec) {
  size_t nlist = centroids.params.size();
  if (cid_offsets.size() < 2 || cid_offsets.back() != nlist || centroids.codes.size() != nlist * dimension) {
    return Internal("centroid rows do not match the hierarchy");
  }
  std::vector<ColumnSpec> columns = {Required("cid", ColumnKind::kInt32), Required("cid_bucket", ColumnKind::kInt32)};
  for (ColumnSpec& c : LvqColumns()) columns.push_back(std::move(c));
  const std::string path = "centroids.parquet";
  VIGILO_ASSIGN_OR_RETURN(auto sink, ObjectSink::Create(writes, path));
  VIGILO_ASSIGN_OR_RETURN(auto w, parquet::FileWriter::Open(columns, Options(codec), sink.get()));
  for (size_t r = 0; r + 1 < cid_offsets.size(); ++r) {
    auto begin = static_cast<size_t>(cid_offsets[r]), end = static_cast<size_t>(cid_offsets[r + 1]);
    std::vector<int32_t> cids, buckets(end - begin, static_cast<int32_t>(r));
    for (size_t c = begin; c < end; ++c) cids.push_back(static_cast<int32_t>(c));
    VIGILO_RETURN_IF_ERROR(w->BeginRowGroup());
    VIGILO_RETURN_IF_ERROR(w->WriteInt32(0, cids));
    VIGILO_RETURN_IF_ERROR(w->WriteInt32(1, buckets));
    VIGILO_RETURN_IF_ERROR(WriteParams(*w, 2, centroids.params, begin, end));
    VIGILO_RETURN_IF_ERROR(w->WriteByteArray(4, CodeViews(centroids.codes, dimension, begin, end)));
    VIGILO_RETURN_IF_ERROR(w->EndRowGroup());
  }
  VIGILO_RETURN_IF_ERROR(w->Finish());
  return sink->Commit();
}

struct PostingsWriter::OpenFile {
  std::string path;
  std::unique_ptr<ObjectSink> sink;
  std::unique_ptr<parquet::FileWriter> writer;
  uint64_t rows = 0;
  uint64_t row_groups = 0;
  uint64_t min_cid = 0;
  uint64_t max_cid = 0;
};

PostingsWriter::PostingsWriter(store::OwnedWrites& writes, IndexSpec index, std::vector<uint64_t> cid_offsets,
                               PostingsLayout layout, std::vector<ColumnSpec> columns)
    : writes_(writes), index_(std::move(index)), cid_offsets_(std::move(cid_offsets)), layout_(layout),
      columns_(std::move(columns)), code_bytes_(static_cast<size_t>(CodeBytes(index_.encoding, index_.dimension))) {}

PostingsWriter::~PostingsWriter() = default;

Result<std::unique_ptr<PostingsWriter>> PostingsWriter::Open(store::OwnedWrites& writes, const IndexSpec& index,
                                                             std::vector<uint64_t> cid_offsets,
                                                             PostingsLayout layout) {
  if (index.source_key.size() != 1) return Unimplemented("the postings writer takes exactly one source-key field");
  if (layout.max_row_group_rows == 0 || layout.max_file_bytes == 0 || layout.max_row_groups_per_file == 0) {
    return InvalidArgument("postings row-group and file caps must be positive");
  }
  std::vector<ColumnSpec> columns = {Required("cid", ColumnKind::kInt32)};
  VIGILO_ASSIGN_OR_RETURN(ColumnSpec key, ParquetColumnFor(index.source_key[0], false));
  columns.push_back(std::move(key));
  for (ColumnSpec& c : LvqColumns()) columns.push_back(std::move(c));
  return std::unique_ptr<PostingsWriter>(
      new PostingsWriter(writes, index, std::move(cid_offsets), layout, std::move(columns)));
}

Status PostingsWriter::OpenNext(uint64_t bucket) {
  if (bucket != bucket_) next_part_ = 0;
  bucket_ = bucket;
  char name[32];
  std::snprintf(name, sizeof name, "part-%06llu.parquet", static_cast<unsigned long long>(next_part_++));
  auto file = std::make_unique<OpenFile>();
  file->path = PostingsBucketPrefix(bucket) + name;
  VIGILO_ASSIGN_OR_RETURN(file->sink, ObjectSink::Create(writes_, file->path));
  VIGILO_ASSIGN_OR_RETURN(file->writer, parquet::FileWriter::Open(columns_, Options(layout_.codec, layout_.page_bytes), file->sink.get()));
  file_ = std::move(file);
  return Status::Ok();
}

Status PostingsWriter::CloseFile() {
  if (!file_) return Status::Ok();
  VIGILO_RETURN_IF_ERROR(file_->writer->Finish());
  VIGILO_ASSIGN_OR_RETURN(ObjectDescriptor object, file_->sink->Commit());
  done_.push_back(PostingsFile{std::move(object), bucket_, file_->min_cid, file_->max_cid, file_->rows});
  file_.reset();
  return Status::Ok();
}

Status PostingsWriter::WriteRowGroup(uint32_t cid, const LeafRows& rows, size_t begin, size_t end) {
  parquet::FileWriter& w = *file_->writer;
  std::vector<int32_t> cids(end - begin, static_cast<int32_t>(cid));
  VIGILO_RETURN_IF_ERROR(w.BeginRowGroup());
  VIGILO_RETURN_IF_ERROR(w.WriteInt32(0, cids));
  VIGILO_RETURN_IF_ERROR(WriteKeys(w, 1, rows.keys, begin, end));
  VIGILO_RETURN_IF_ERROR(WriteParams(w, 2, rows.params, begin, end));
  VIGILO_RETURN_IF_ERROR(w.WriteByteArray(4, CodeViews(rows.codes, code_bytes_, begin, end)));
  VIGILO_RETURN_IF_ERROR(w.EndRowGroup());
  if (file_->rows == 0) file_->min_cid = cid;
  file_->max_cid = cid;
  file_->rows += end - begin;
  ++file_->row_groups;
  return Status::Ok();
}

Status PostingsWriter::AddLeaf(uint32_t cid, const LeafRows& rows) {
  if (static_cast<int64_t>(cid) <= last_cid_) return Internal("postings leaves must arrive in ascending CID order");
  if (cid >= cid_offsets_.back()) return Internal("CID beyond nlist");
  size_t n = rows.rows();
  if (n == 0 || rows.keys.size() != n || rows.codes.size() != n * code_bytes_) {
    return Internal("leaf rows are empty or their columns disagree");
  }
  last_cid_ = cid;
  auto bucket = static_cast<uint64_t>(std::upper_bound(cid_offsets_.begin(), cid_offsets_.end(), cid) -
                                      cid_offsets_.begin() - 1);
  if (file_ && bucket != bucket_) VIGILO_RETURN_IF_ERROR(CloseFile());
  // Bytes a row adds, for the file cap: cid, key, offset, scale, code length prefix and code.
  uint64_t key_bytes = rows.keys.type.kind == Kind::kLong ? 8 : 4;
  if (!rows.keys.bytes.empty()) key_bytes = 4 + rows.keys.bytes.size() / n;
  uint64_t row_bytes = 4 + key_bytes + 8 + 4 + code_bytes_;
  for (size_t begin = 0; begin < n; begin += layout_.max_row_group_rows) {
    size_t end = std::min<size_t>(n, begin + layout_.max_row_group_rows);
    uint64_t estimate = (end - begin) * row_bytes + 4096;  // + page and chunk headers
    if (file_ && file_->rows > 0 &&
        (file_->sink->size() + estimate > layout_.max_file_bytes || file_->row_groups >= layout_.max_row_groups_per_file)) {
      VIGILO_RETURN_IF_ERROR(CloseFile());
    }
    if (!file_) VIGILO_RETURN_IF_ERROR(OpenNext(bucket));
    VIGILO_RETURN_IF_ERROR(WriteRowGroup(cid, rows, begin, end));
  }
  return Status::Ok();
}

Result<std::vector<PostingsFile>> PostingsWriter::Finish() {
  VIGILO_RETURN_IF_ERROR(CloseFile());
  return std::move(done_);
}

Result<Manifest> SealManifest(Manifest manifest) {
  manifest.artifact_uuid = Uuid();
  VIGILO_ASSIGN_OR_RETURN(std::string preimage, json::ToCanonical(ManifestToJson(manifest)));
  Blake3Hasher h;
  h.Update(std::string_view("vigilo/publication/v1/artifact\0", 31));
  h.Update(preimage);
  manifest.artifact_uuid = Uuid::V8FromHash(h.Finalize());
  VIGILO_RETURN_IF_ERROR(ValidateManifest(manifest));
  return manifest;
}

Result<Manifest> PublishManifest(store::OwnedWrites& writes, Manifest manifest) {
  VIGILO_ASSIGN_OR_RETURN(manifest, SealManifest(std::move(manifest)));
  VIGILO_ASSIGN_OR_RETURN(std::string bytes, EncodeManifest(manifest));
  std::span<const uint8_t> view(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  VIGILO_RETURN_IF_ERROR(writes.CreateIfAbsent(kManifestKey, view).status());
  return manifest;
}

}  // namespace vigilo::ivf
