// Footer and deep checks of a publication's objects (publication-v1.md §3, §6).
#include "vigilo/ivf/publication_check.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "vigilo/common/hex.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/footer.h"
#include "vigilo/parquet/schema.h"

namespace vigilo::ivf {
namespace {

using parquet::Footer;
using parquet::Type;
using Kind = ColumnType::Kind;

constexpr uint64_t kTailGuess = 64 * 1024;
constexpr uint64_t kHashBlock = 1 << 20;

Status At(Status s, const std::string& where) {
  if (s.ok()) return s;
  std::string path(s.path());
  return std::move(s).WithPath(path.empty() ? where : where + ": " + path);
}

std::string RowGroup(const std::string& path, size_t rg) { return path + ": row group " + std::to_string(rg); }

Result<Footer> ReadFooter(ObjectReader& reader, const ObjectDescriptor& d, ObjectCheckReport& report) {
  return ReadObjectFooter(reader, d, &report.bytes_read);
}

}  // namespace

Result<parquet::Footer> ReadObjectFooter(ObjectReader& reader, const ObjectDescriptor& d, uint64_t* bytes_read) {
  VIGILO_ASSIGN_OR_RETURN(uint64_t size, reader.Size(d.path));
  if (size != d.size) {
    return IntegrityError("object is " + std::to_string(size) + " bytes; the manifest says " + std::to_string(d.size))
        .WithPath(d.path);
  }
  uint64_t tail = std::min(size, kTailGuess);
  for (int attempt = 0; attempt < 2; ++attempt) {
    VIGILO_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, reader.Read(d.path, size - tail, tail));
    if (bytes_read != nullptr) *bytes_read += bytes.size();
    auto parsed = parquet::ParseFooter(bytes, size);
    if (!parsed.ok()) return At(parsed.status(), d.path);
    if (auto* footer = std::get_if<Footer>(&*parsed)) return std::move(*footer);
    tail = std::get<parquet::NeedMoreBytes>(*parsed).tail_bytes;
  }
  return Internal("footer still incomplete after the requested tail").WithPath(d.path);
}

namespace {

// One expected leaf column.
struct Expected {
  std::string name;
  ColumnType type;
  bool required;
};

Status CheckColumn(const Footer& f, size_t leaf, const Expected& want, const std::string& where) {
  const auto& schema = f.metadata.schema;
  const parquet::LeafColumn& lc = f.schema.leaves[leaf];
  const parquet::SchemaElement& e = schema[lc.schema_index];
  std::vector<std::string_view> path = parquet::LeafPath(schema, f.schema, lc);
  auto fail = [&](const std::string& why) {
    return InvalidFormat("column " + std::to_string(leaf) + " must be " + want.name + " (" + want.type.ToString() +
                         (want.required ? ", required" : "") + "): " + why)
        .WithPath(where);
  };
  bool is_list = want.type.kind == Kind::kFloatList;
  if (path.empty() || path[0] != want.name) return fail("it is named \"" + std::string(path.empty() ? "" : path[0]) + "\"");
  if (is_list ? (path.size() != 3 || lc.max_repetition_level != 1) : path.size() != 1) {
    return fail("wrong nesting");
  }
  // A list's nullability is its top-level group's.
  const parquet::SchemaElement& field = is_list ? schema[f.schema.parent[f.schema.parent[lc.schema_index]]] : e;
  bool required = field.repetition_type == parquet::FieldRepetitionType::kRequired;
  if (want.required && !required) return fail("it is not REQUIRED");
  Type physical = Type::kBoolean;
  switch (want.type.kind) {
    case Kind::kBoolean: physical = Type::kBoolean; break;
    case Kind::kInt:
    case Kind::kDate: physical = Type::kInt32; break;
    case Kind::kLong: physical = Type::kInt64; break;
    case Kind::kBinary:
    case Kind::kString: physical = Type::kByteArray; break;
    case Kind::kFixed: physical = Type::kFixedLenByteArray; break;
    case Kind::kFloat:
    case Kind::kFloatList: physical = Type::kFloat; break;
    case Kind::kDouble: physical = Type::kDouble; break;
  }
  if (e.type != physical) return fail("wrong physical type");
  if (want.type.kind == Kind::kFixed && e.type_length != static_cast<int32_t>(want.type.fixed_length)) {
    return fail("wrong type_length");
  }
  bool is_string = (e.logical_type && e.logical_type->kind == parquet::LogicalType::Kind::kString) ||
                   e.converted_type == parquet::ConvertedType::kUtf8;
  bool is_date = (e.logical_type && e.logical_type->kind == parquet::LogicalType::Kind::kDate) ||
                 e.converted_type == parquet::ConvertedType::kDate;
  if ((want.type.kind == Kind::kString) != is_string) return fail(is_string ? "it is a string" : "it is not a string");
  if ((want.type.kind == Kind::kDate) != is_date) return fail(is_date ? "it is a date" : "it is not a date");
  return Status::Ok();
}

Status CheckSchema(const Footer& f, const std::vector<Expected>& columns, const std::string& where) {
  if (f.schema.leaves.size() != columns.size()) {
    return InvalidFormat("expected " + std::to_string(columns.size()) + " columns, found " +
                         std::to_string(f.schema.leaves.size()))
        .WithPath(where);
  }
  for (size_t i = 0; i < columns.size(); ++i) VIGILO_RETURN_IF_ERROR(CheckColumn(f, i, columns[i], where));
  return Status::Ok();
}

std::vector<Expected> LvqColumns() {
  return {{"offset", {Kind::kFloat}, true}, {"scale", {Kind::kFloat}, true}, {"code", {Kind::kBinary}, true}};
}

std::optional<int32_t> Int32Stat(const std::optional<std::string>& v) {
  if (!v || v->size() != 4) return std::nullopt;
  uint32_t u = 0;
  for (int i = 3; i >= 0; --i) u = (u << 8) | static_cast<uint8_t>((*v)[static_cast<size_t>(i)]);
  return static_cast<int32_t>(u);
}

}  // namespace

Result<int32_t> PostingsRowGroupCid(const parquet::RowGroup& rg, const std::string& where) {
  const auto& meta = rg.columns[0].meta_data;
  if (!meta || !meta->statistics) return InvalidFormat("cid has no statistics").WithPath(where);
  const parquet::Statistics& s = *meta->statistics;
  auto min = Int32Stat(s.min_value), max = Int32Stat(s.max_value);
  if (!min || !max) return InvalidFormat("cid statistics lack min_value/max_value").WithPath(where);
  if (*min != *max) {
    return InvalidFormat("row group holds CIDs " + std::to_string(*min) + " to " + std::to_string(*max) +
                         "; exactly one is allowed")
        .WithPath(where);
  }
  if (s.null_count != 0) return InvalidFormat("cid statistics must record null_count 0").WithPath(where);
  if (s.is_min_value_exact == false || s.is_max_value_exact == false) {
    return InvalidFormat("cid statistics are not exact").WithPath(where);
  }
  if ((s.min && Int32Stat(s.min) != min) || (s.max && Int32Stat(s.max) != max)) {
    return InvalidFormat("legacy cid statistics disagree with min_value/max_value").WithPath(where);
  }
  return *min;
}

namespace {

Result<parquet::DecodedColumn> Decode(ObjectReader& reader, const std::string& path, const Footer& f, size_t rg,
                                      size_t leaf, ObjectCheckReport& report) {
  VIGILO_ASSIGN_OR_RETURN(auto plan, parquet::PlanRowGroup(f, rg));
  const parquet::ByteRange& range = plan[leaf].range;
  VIGILO_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, reader.Read(path, range.offset, range.length));
  report.bytes_read += bytes.size();
  auto decoded = parquet::DecodeColumnChunk(f, rg, leaf, bytes);
  if (!decoded.ok()) return At(decoded.status(), RowGroup(path, rg));
  return decoded;
}

Status CheckCodeLengths(const parquet::DecodedColumn& codes, uint64_t want, const std::string& where) {
  for (size_t i = 0; i < codes.values.size(); ++i) {
    if (codes.values.Binary(i).size() != want) {
      return InvalidFormat("row " + std::to_string(i) + " has a " + std::to_string(codes.values.Binary(i).size()) +
                           "-byte code; " + std::to_string(want) + " bytes are required")
          .WithPath(where);
    }
  }
  return Status::Ok();
}

Status CheckSha256(ObjectReader& reader, const ObjectDescriptor& d, ObjectCheckReport& report) {
  Sha256Hasher h;
  for (uint64_t at = 0; at < d.size; at += kHashBlock) {
    VIGILO_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, reader.Read(d.path, at, std::min(kHashBlock, d.size - at)));
    report.bytes_read += bytes.size();
    h.Update(bytes);
  }
  VIGILO_ASSIGN_OR_RETURN(auto digest, h.Finalize());
  std::string hex = HexEncode(digest);
  if (hex != d.sha256) {
    return IntegrityError("SHA-256 " + hex + " does not match the manifest's " + d.sha256).WithPath(d.path);
  }
  return Status::Ok();
}

Status CheckCentroids(const Manifest& m, ObjectReader& reader, bool deep, ObjectCheckReport& report) {
  const ObjectDescriptor& d = m.hierarchy.centroids;
  VIGILO_ASSIGN_OR_RETURN(Footer f, ReadFooter(reader, d, report));
  std::vector<Expected> columns = {{"cid", {Kind::kInt}, true}, {"cid_bucket", {Kind::kInt}, true}};
  for (Expected& e : LvqColumns()) columns.push_back(std::move(e));
  VIGILO_RETURN_IF_ERROR(CheckSchema(f, columns, d.path));
  const auto& off = m.hierarchy.cid_offsets;
  const auto& groups = f.metadata.row_groups;
  if (groups.size() != m.hierarchy.roots()) {
    return InvalidFormat("centroids have " + std::to_string(groups.size()) + " row groups; there are " +
                         std::to_string(m.hierarchy.roots()) + " roots")
        .WithPath(d.path);
  }
  for (size_t r = 0; r < groups.size(); ++r) {
    uint64_t want = off[r + 1] - off[r];
    if (static_cast<uint64_t>(groups[r].num_rows) != want) {
      return InvalidFormat("row group has " + std::to_string(groups[r].num_rows) + " rows; root " +
                           std::to_string(r) + "'s interval has " + std::to_string(want))
          .WithPath(RowGroup(d.path, r));
    }
    report.row_groups++;
    if (!deep) continue;
    VIGILO_ASSIGN_OR_RETURN(auto cids, Decode(reader, d.path, f, r, 0, report));
    VIGILO_ASSIGN_OR_RETURN(auto buckets, Decode(reader, d.path, f, r, 1, report));
    for (size_t i = 0; i < want; ++i) {
      if (cids.values.int32s[i] != static_cast<int32_t>(off[r] + i) ||
          buckets.values.int32s[i] != static_cast<int32_t>(r)) {
        return InvalidFormat("row " + std::to_string(i) + " is (cid_bucket " +
                             std::to_string(buckets.values.int32s[i]) + ", cid " +
                             std::to_string(cids.values.int32s[i]) + "); rows must be ordered (cid_bucket, cid) "
                             "with cid = row")
            .WithPath(RowGroup(d.path, r));
      }
    }
    VIGILO_ASSIGN_OR_RETURN(auto codes, Decode(reader, d.path, f, r, 4, report));
    VIGILO_RETURN_IF_ERROR(CheckCodeLengths(codes, m.index.dimension, RowGroup(d.path, r)));
  }
  report.objects++;
  return deep ? CheckSha256(reader, d, report) : Status::Ok();
}

Status CheckPostingsFile(const Manifest& m, const PostingsFile& file, ObjectReader& reader, bool deep,
                         ObjectCheckReport& report) {
  const std::string& path = file.object.path;
  VIGILO_ASSIGN_OR_RETURN(Footer f, ReadFooter(reader, file.object, report));
  std::vector<Expected> columns = {{"cid", {Kind::kInt}, true}};
  for (const Field& k : m.index.source_key) columns.push_back({k.name, k.type, true});
  for (Expected& e : LvqColumns()) columns.push_back(std::move(e));
  VIGILO_RETURN_IF_ERROR(CheckSchema(f, columns, path));
  uint64_t rows = 0;
  int32_t previous = -1;
  const auto& groups = f.metadata.row_groups;
  if (groups.empty()) return InvalidFormat("postings file has no row groups").WithPath(path);
  size_t code_leaf = columns.size() - 1;
  for (size_t g = 0; g < groups.size(); ++g) {
    std::string where = RowGroup(path, g);
    VIGILO_ASSIGN_OR_RETURN(int32_t cid, PostingsRowGroupCid(groups[g], where));
    if (cid < previous) return InvalidFormat("row-group CIDs must not decrease within a file").WithPath(where);
    if (g == 0 && static_cast<uint64_t>(cid) != file.min_cid) {
      return InvalidFormat("first row group holds CID " + std::to_string(cid) + "; the manifest's min-cid is " +
                           std::to_string(file.min_cid))
          .WithPath(where);
    }
    if (g + 1 == groups.size() && static_cast<uint64_t>(cid) != file.max_cid) {
      return InvalidFormat("last row group holds CID " + std::to_string(cid) + "; the manifest's max-cid is " +
                           std::to_string(file.max_cid))
          .WithPath(where);
    }
    previous = cid;
    rows += static_cast<uint64_t>(groups[g].num_rows);
    report.row_groups++;
    if (!deep) continue;
    VIGILO_ASSIGN_OR_RETURN(auto cids, Decode(reader, path, f, g, 0, report));
    for (int32_t v : cids.values.int32s) {
      if (v != cid) return InvalidFormat("a cid value differs from the row group's statistics").WithPath(where);
    }
    VIGILO_ASSIGN_OR_RETURN(auto codes, Decode(reader, path, f, g, code_leaf, report));
    VIGILO_RETURN_IF_ERROR(CheckCodeLengths(codes, CodeBytes(m.index.encoding, m.index.dimension), where));
  }
  if (rows != file.rows) {
    return InvalidFormat("file holds " + std::to_string(rows) + " rows; the manifest says " +
                         std::to_string(file.rows))
        .WithPath(path);
  }
  report.objects++;
  return deep ? CheckSha256(reader, file.object, report) : Status::Ok();
}

Status CheckSourceFile(const SourceSpec& s, const SourceFile& file, ObjectReader& reader, bool deep,
                       ObjectCheckReport& report) {
  const std::string& path = file.object.path;
  VIGILO_ASSIGN_OR_RETURN(Footer f, ReadFooter(reader, file.object, report));
  std::vector<Expected> columns;
  size_t key_leaf = 0;
  for (const Field& c : s.columns) {
    if (c.name == s.key) key_leaf = columns.size();
    columns.push_back({c.name, c.type, c.name == s.key});
  }
  VIGILO_RETURN_IF_ERROR(CheckSchema(f, columns, path));
  const auto& groups = f.metadata.row_groups;
  uint64_t want_rows = file.row_end - file.row_begin, rows = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    auto n = static_cast<uint64_t>(groups[g].num_rows);
    uint64_t expected = std::min(s.row_group_rows, want_rows - std::min(want_rows, rows));
    if (n != expected) {
      return InvalidFormat("row group has " + std::to_string(n) + " rows; " + std::to_string(expected) +
                           " are required (row-group-rows " + std::to_string(s.row_group_rows) + ")")
          .WithPath(RowGroup(path, g));
    }
    if (deep) {
      VIGILO_ASSIGN_OR_RETURN(auto keys, Decode(reader, path, f, g, key_leaf, report));
      for (size_t i = 0; i < n; ++i) {
        uint64_t position = file.row_begin + rows + i;
        if (keys.values.int64s[i] != static_cast<int64_t>(position)) {
          return InvalidFormat("the key at row " + std::to_string(position) + " is " +
                               std::to_string(keys.values.int64s[i]) + "; keys must equal their row position")
              .WithPath(RowGroup(path, g));
        }
      }
    }
    rows += n;
    report.row_groups++;
  }
  if (rows != want_rows) {
    return InvalidFormat("file holds " + std::to_string(rows) + " rows; its range holds " + std::to_string(want_rows))
        .WithPath(path);
  }
  report.objects++;
  return deep ? CheckSha256(reader, file.object, report) : Status::Ok();
}

}  // namespace

Result<uint64_t> DirectoryObjectReader::Size(const std::string& path) {
  std::error_code ec;
  auto size = std::filesystem::file_size(std::filesystem::path(root_) / path, ec);
  if (ec) return NotFound("cannot read object: " + ec.message()).WithPath(path);
  return static_cast<uint64_t>(size);
}

Result<std::vector<uint8_t>> DirectoryObjectReader::Read(const std::string& path, uint64_t offset, uint64_t length) {
  std::string full = (std::filesystem::path(root_) / path).string();
  int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NotFound(std::string("cannot open object: ") + std::strerror(errno)).WithPath(path);
  std::vector<uint8_t> out(length);
  uint64_t done = 0;
  while (done < length) {
    ssize_t n = ::pread(fd, out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return IoError("short read").WithPath(path);
    }
    done += static_cast<uint64_t>(n);
  }
  ::close(fd);
  return out;
}

Result<ObjectCheckReport> CheckPublicationObjects(const Manifest& m, ObjectReader& reader, bool deep) {
  ObjectCheckReport report;
  VIGILO_RETURN_IF_ERROR(CheckCentroids(m, reader, deep, report));
  for (const PostingsFile& file : m.postings) VIGILO_RETURN_IF_ERROR(CheckPostingsFile(m, file, reader, deep, report));
  if (m.source) {
    for (const SourceFile& file : m.source->files) {
      VIGILO_RETURN_IF_ERROR(CheckSourceFile(*m.source, file, reader, deep, report));
    }
  }
  return report;
}

}  // namespace vigilo::ivf
