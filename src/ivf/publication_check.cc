// Footer and deep checks of a publication's objects (publication-v1.md §3, §6).
#include "vigilo/ivf/publication_check.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <variant>

#include "column_schema.h"
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

// Path `where` for a status that names no place yet (the store's errors
// name the object already).
Status Named(Status s, const std::string& where) {
  if (s.ok() || !s.path().empty()) return s;
  return std::move(s).WithPath(where);
}

// The speculative footer read: the last min(size, 64 KiB, max_read) bytes.
// As an object's first Get it is also its size check.
ByteRange TailGuess(const ObjectDescriptor& d, uint64_t max_read) {
  uint64_t tail = std::min({d.size, kTailGuess, max_read});
  return ByteRange{d.size - tail, tail};
}

// The footer from `tail` (the object's last tail.size() bytes), reading the
// longer tail a large footer needs once through `read`.
template <typename Read>
Result<Footer> FooterFromTail(Read&& read, const ObjectDescriptor& d, store::Bytes tail, uint64_t* bytes_read,
                              uint64_t max_read) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto parsed = parquet::ParseFooter(tail.span(), d.size);
    if (!parsed.ok()) return At(parsed.status(), d.path);
    if (auto* footer = std::get_if<Footer>(&*parsed)) return std::move(*footer);
    uint64_t need = std::get<parquet::NeedMoreBytes>(*parsed).tail_bytes;
    if (need > max_read) {
      return LimitExceeded("the footer needs the last " + std::to_string(need) + " bytes; at most " +
                           std::to_string(max_read) + " are read at once")
          .WithPath(d.path);
    }
    if (attempt == 1) break;
    auto more = read(d, d.size - need, need);
    if (!more.ok()) return Named(more.status(), d.path);
    if (bytes_read != nullptr) *bytes_read += more->size();
    tail = std::move(*more);
  }
  return Internal("footer still incomplete after the requested tail").WithPath(d.path);
}

}  // namespace

Result<store::Bytes> ReadObjectRange(store::ObjectStore& store, const ObjectDescriptor& d, uint64_t offset,
                                     uint64_t length) {
  store::GetOptions get;
  get.range = ByteRange{offset, length};
  get.max_bytes = length;
  get.expected_size = d.size;
  // Checks, inspection and evaluation read each range once: a store keeps
  // nothing of it (the local store then unmaps each object once its bytes are
  // dropped, so reading a whole publication back does not hold all of it
  // mapped: a build's peak RSS stays flat in N).
  get.reuse = false;
  auto bytes = store.Get(d.path, get);
  if (!bytes.ok()) return Named(bytes.status(), d.path);
  // A store that answers with other than the bytes asked for is not trusted either.
  if (bytes->size() != length) {
    return IntegrityError("read " + std::to_string(bytes->size()) + " bytes of the range [" + std::to_string(offset) +
                          ", +" + std::to_string(length) + ")")
        .WithPath(d.path);
  }
  return bytes;
}

Result<parquet::Footer> ReadObjectFooter(store::ObjectStore& store, const ObjectDescriptor& d, uint64_t* bytes_read,
                                         uint64_t max_read) {
  auto read = [&store](const ObjectDescriptor& o, uint64_t offset, uint64_t length) {
    return ReadObjectRange(store, o, offset, length);
  };
  ByteRange guess = TailGuess(d, max_read);
  VIGILO_ASSIGN_OR_RETURN(store::Bytes tail, read(d, guess.offset, guess.length));
  if (bytes_read != nullptr) *bytes_read += tail.size();
  return FooterFromTail(read, d, std::move(tail), bytes_read, max_read);
}

namespace {

using Expected = ExpectedColumn;

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

// Reads object ranges through the store, recording the longest single Get;
// once `cancel` is set every read is `cancelled` (ObjectCheckOptions::cancel).
// The checks read an object front to back in pieces as small as one column
// chunk (a few hundred bytes); each piece its own request cost 6,606 Gets for
// the WordNet publication, one network round trip each from a bucket. So a
// read shorter than the window fetches the window from its offset (cut at
// the object's end) and later reads inside it are served from it: every
// byte is still checked, in about one request per window.
class RangeReader {
 public:
  RangeReader(store::ObjectStore& store, ObjectCheckReport& report, const store::CancelToken* cancel,
              uint64_t max_read)
      : store_(store), report_(report), cancel_(cancel), window_(std::min(kReadAheadWindow, max_read)) {}
  Result<store::Bytes> operator()(const ObjectDescriptor& d, uint64_t offset, uint64_t length) {
    if (cancelled()) return Cancelled("the check was cancelled");
    if (length >= window_ || offset >= d.size) return Fetch(d, offset, length);
    const bool inside = held_path_ == d.path && offset >= held_offset_ && offset - held_offset_ <= held_.size() &&
                        length <= held_.size() - (offset - held_offset_);
    if (!inside) {
      const uint64_t span = std::max(length, std::min(window_, d.size - offset));
      held_path_.clear();
      VIGILO_ASSIGN_OR_RETURN(held_, Fetch(d, offset, span));
      held_path_ = d.path;
      held_offset_ = offset;
    }
    return held_.Slice(static_cast<size_t>(offset - held_offset_), static_cast<size_t>(length));
  }
  bool cancelled() const { return cancel_ != nullptr && cancel_->cancelled(); }

 private:
  static constexpr uint64_t kReadAheadWindow = uint64_t{1} << 20;

  // Every Get of the checks: the report's bytes_read and largest_read are
  // what the store was asked for, read-ahead included.
  Result<store::Bytes> Fetch(const ObjectDescriptor& d, uint64_t offset, uint64_t length) {
    report_.largest_read = std::max(report_.largest_read, length);
    Result<store::Bytes> bytes = ReadObjectRange(store_, d, offset, length);
    if (bytes.ok()) report_.bytes_read += bytes->size();
    return bytes;
  }

  store::ObjectStore& store_;
  ObjectCheckReport& report_;
  const store::CancelToken* cancel_;
  uint64_t window_;
  std::string held_path_;  // the object held_ is a range of ("": none)
  uint64_t held_offset_ = 0;
  store::Bytes held_;
};

// The object checks as independent steps (publication_check.h,
// CheckObjects): each failure goes to Fail, which says whether to stop.
class Checker {
 public:
  Checker(const Manifest& m, store::ObjectStore& store, const ObjectCheckOptions& options, ObjectCheckReport& report)
      : m_(m), read_(store, report, options.cancel, options.max_read), o_(options), report_(report) {
    if (o_.max_read != std::numeric_limits<uint64_t>::max()) decode_.max_decoded_bytes = o_.max_read;
  }

  Status Run() {
    CheckCentroids();
    for (const PostingsFile& file : m_.postings) {
      if (stopped_) break;
      CheckPostingsFile(file);
    }
    if (m_.source) {
      for (const SourceFile& file : m_.source->files) {
        if (stopped_) break;
        CheckSourceFile(*m_.source, file);
      }
    }
    if (m_.embedding) {
      for (const ObjectDescriptor& asset : m_.embedding->assets) {
        if (stopped_) break;
        CheckAsset(asset);
      }
    }
    return cancelled_.ok() ? first_ : cancelled_;
  }

  // The source table's files alone (CheckSourceTable).
  Status RunSource() {
    for (const SourceFile& file : m_.source->files) {
      if (stopped_) break;
      CheckSourceFile(*m_.source, file);
    }
    return cancelled_.ok() ? first_ : cancelled_;
  }

 private:
  // Records a failure; true when checking stops. A cancelled read is no
  // failure of the publication: it stops the checks without being recorded.
  bool Fail(Status s) {
    if (s.code() == StatusCode::kCancelled && read_.cancelled()) {
      cancelled_ = Cancelled("the check was cancelled");
      stopped_ = true;
      return true;
    }
    if (first_.ok()) first_ = s;
    if (!o_.on_failure || !o_.on_failure(s)) stopped_ = true;
    return stopped_;
  }

  // The footer's tail, whose Get checks the object's size (a failure skips
  // the object), then its footer and `structure` (skipped when the footer is
  // broken), then with deep its SHA-256.
  template <typename Structure>
  void CheckObject(const ObjectDescriptor& d, Structure structure) {
    report_.objects++;
    ByteRange guess = TailGuess(d, o_.max_read);
    auto tail = read_(d, guess.offset, guess.length);
    if (!tail.ok()) {
      Fail(tail.status());
      return;
    }
    auto footer = FooterFromTail(read_, d, std::move(*tail), /*bytes_read=*/nullptr, o_.max_read);
    if (!footer.ok()) {
      if (Fail(footer.status())) return;
    } else {
      structure(*footer);
      if (stopped_) return;
    }
    if (o_.deep) {
      if (Status s = CheckSha256(d); !s.ok()) Fail(std::move(s));
    }
  }

  // An embedding asset is not Parquet and its layout is its runtime
  // contract's (docs/format/embedding.md): here its size, by a Get of its
  // last byte that expects the descriptor's size, then with deep its SHA-256.
  void CheckAsset(const ObjectDescriptor& d) {
    report_.objects++;
    report_.assets++;
    auto last = read_(d, d.size - 1, 1);
    if (!last.ok()) {
      Fail(last.status());
      return;
    }
    if (o_.deep) {
      if (Status s = CheckSha256(d); !s.ok()) Fail(std::move(s));
    }
  }

  Status CheckSha256(const ObjectDescriptor& d) {
    uint64_t block = std::max<uint64_t>(1, std::min(kHashBlock, o_.max_read));
    Sha256Hasher h;
    for (uint64_t at = 0; at < d.size; at += block) {
      VIGILO_ASSIGN_OR_RETURN(store::Bytes bytes, read_(d, at, std::min(block, d.size - at)));
      report_.bytes_hashed += bytes.size();
      h.Update(bytes.span());
    }
    VIGILO_ASSIGN_OR_RETURN(auto digest, h.Finalize());
    std::string hex = HexEncode(digest);
    if (hex != d.sha256) {
      return IntegrityError("SHA-256 " + hex + " does not match the manifest's " + d.sha256).WithPath(d.path);
    }
    return Status::Ok();
  }

  Result<parquet::DecodedColumn> Decode(const ObjectDescriptor& d, const Footer& f, size_t rg,
                                        const parquet::ColumnChunkPlan& chunk) {
    std::string where = RowGroup(d.path, rg);
    if (chunk.range.length > o_.max_read) {
      return LimitExceeded("column chunk " + chunk.path + " is " + std::to_string(chunk.range.length) +
                           " bytes; at most " + std::to_string(o_.max_read) + " are read at once")
          .WithPath(where);
    }
    auto bytes = read_(d, chunk.range.offset, chunk.range.length);
    if (!bytes.ok()) return Named(bytes.status(), where);
    auto decoded = parquet::DecodeColumnChunk(f, rg, chunk.leaf, bytes->span(), decode_);
    if (!decoded.ok()) return At(decoded.status(), where);
    report_.column_chunks++;
    return decoded;
  }

  // Decodes row group `rg`'s leaves in leaf order, one at a time: the
  // `needed` ones (every leaf with every_column), handing each needed one to
  // check(leaf, column).
  template <typename Check>
  Status DecodeLeaves(const ObjectDescriptor& d, const Footer& f, size_t rg, std::initializer_list<size_t> needed,
                      Check check) {
    auto plan = parquet::PlanRowGroup(f, rg);
    if (!plan.ok()) return At(plan.status(), RowGroup(d.path, rg));
    for (const parquet::ColumnChunkPlan& chunk : *plan) {
      bool want = std::find(needed.begin(), needed.end(), chunk.leaf) != needed.end();
      if (!want && !o_.every_column) continue;
      VIGILO_ASSIGN_OR_RETURN(parquet::DecodedColumn column, Decode(d, f, rg, chunk));
      if (want) VIGILO_RETURN_IF_ERROR(check(chunk.leaf, column));
    }
    return Status::Ok();
  }

  void CheckCentroids() {
    const ObjectDescriptor& d = m_.hierarchy.centroids;
    CheckObject(d, [&](const Footer& f) {
      std::vector<Expected> columns = {{"cid", {Kind::kInt}, true}, {"cid_bucket", {Kind::kInt}, true}};
      for (Expected& e : LvqColumns()) columns.push_back(std::move(e));
      if (Status s = CheckSchema(f, columns, d.path); !s.ok()) {
        Fail(std::move(s));
        return;
      }
      const auto& groups = f.metadata.row_groups;
      if (groups.size() != m_.hierarchy.roots()) {
        Fail(InvalidFormat("centroids have " + std::to_string(groups.size()) + " row groups; there are " +
                           std::to_string(m_.hierarchy.roots()) + " roots")
                 .WithPath(d.path));
        return;
      }
      for (size_t r = 0; r < groups.size(); ++r) {
        Status s = CentroidRowGroup(f, r);
        report_.row_groups++;
        if (!s.ok() && Fail(std::move(s))) return;
      }
    });
  }

  Status CentroidRowGroup(const Footer& f, size_t r) {
    const std::string& path = m_.hierarchy.centroids.path;
    const auto& off = m_.hierarchy.cid_offsets;
    const parquet::RowGroup& group = f.metadata.row_groups[r];
    uint64_t want = off[r + 1] - off[r];
    if (static_cast<uint64_t>(group.num_rows) != want) {
      return InvalidFormat("row group has " + std::to_string(group.num_rows) + " rows; root " + std::to_string(r) +
                           "'s interval has " + std::to_string(want))
          .WithPath(RowGroup(path, r));
    }
    if (!o_.deep) return Status::Ok();
    std::vector<int32_t> cids;  // 4 bytes per leaf of this root, until cid_bucket is decoded
    return DecodeLeaves(m_.hierarchy.centroids, f, r, {0, 1, 4}, [&](size_t leaf, const parquet::DecodedColumn& c) -> Status {
      if (leaf == 0) {
        cids = c.values.int32s;
        return Status::Ok();
      }
      if (leaf == 1) {
        const std::vector<int32_t>& buckets = c.values.int32s;
        for (size_t i = 0; i < want; ++i) {
          if (cids[i] != static_cast<int32_t>(off[r] + i) || buckets[i] != static_cast<int32_t>(r)) {
            return InvalidFormat("row " + std::to_string(i) + " is (cid_bucket " + std::to_string(buckets[i]) +
                                 ", cid " + std::to_string(cids[i]) +
                                 "); rows must be ordered (cid_bucket, cid) with cid = row")
                .WithPath(RowGroup(path, r));
          }
        }
        return Status::Ok();
      }
      return CheckCodeLengths(c, m_.index.dimension, RowGroup(path, r));
    });
  }

  void CheckPostingsFile(const PostingsFile& file) {
    const std::string& path = file.object.path;
    CheckObject(file.object, [&](const Footer& f) {
      std::vector<Expected> columns = PostingsColumns(m_);
      if (Status s = CheckSchema(f, columns, path); !s.ok()) {
        Fail(std::move(s));
        return;
      }
      const auto& groups = f.metadata.row_groups;
      if (groups.empty()) {
        Fail(InvalidFormat("postings file has no row groups").WithPath(path));
        return;
      }
      size_t code_leaf = columns.size() - 1;
      uint64_t rows = 0;
      int32_t previous = -1;
      for (size_t g = 0; g < groups.size(); ++g) {
        Status s = PostingsRowGroup(file, f, g, code_leaf, previous);
        auto n = static_cast<uint64_t>(groups[g].num_rows);
        rows += n;
        report_.rows += n;
        report_.row_groups++;
        if (!s.ok() && Fail(std::move(s))) return;
      }
      if (rows != file.rows) {
        Fail(InvalidFormat("file holds " + std::to_string(rows) + " rows; the manifest says " +
                           std::to_string(file.rows))
                 .WithPath(path));
      }
    });
  }

  Status PostingsRowGroup(const PostingsFile& file, const Footer& f, size_t g, size_t code_leaf, int32_t& previous) {
    const std::string& path = file.object.path;
    const auto& groups = f.metadata.row_groups;
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
    if (!o_.deep) return Status::Ok();
    uint64_t code_bytes = CodeBytes(m_.index.encoding, m_.index.dimension);
    return DecodeLeaves(file.object, f, g, {0, code_leaf}, [&](size_t leaf, const parquet::DecodedColumn& c) -> Status {
      if (leaf == 0) {
        for (int32_t v : c.values.int32s) {
          if (v != cid) return InvalidFormat("a cid value differs from the row group's statistics").WithPath(where);
        }
        return Status::Ok();
      }
      return CheckCodeLengths(c, code_bytes, where);
    });
  }

  void CheckSourceFile(const SourceSpec& s, const SourceFile& file) {
    const std::string& path = file.object.path;
    CheckObject(file.object, [&](const Footer& f) {
      std::vector<Expected> columns;
      size_t key_leaf = 0;
      for (const Field& c : s.columns) {
        if (c.name == s.key) key_leaf = columns.size();
        columns.push_back({c.name, c.type, c.name == s.key});
      }
      if (Status st = CheckSchema(f, columns, path); !st.ok()) {
        Fail(std::move(st));
        return;
      }
      const auto& groups = f.metadata.row_groups;
      uint64_t want_rows = file.row_end - file.row_begin, rows = 0;
      for (size_t g = 0; g < groups.size(); ++g) {
        auto n = static_cast<uint64_t>(groups[g].num_rows);
        uint64_t expected = std::min(s.row_group_rows, want_rows - std::min(want_rows, rows));
        Status st;
        if (n != expected) {
          st = InvalidFormat("row group has " + std::to_string(n) + " rows; " + std::to_string(expected) +
                             " are required (row-group-rows " + std::to_string(s.row_group_rows) + ")")
                   .WithPath(RowGroup(path, g));
        } else if (o_.deep) {
          st = DecodeLeaves(file.object, f, g, {key_leaf}, [&](size_t, const parquet::DecodedColumn& keys) -> Status {
            for (size_t i = 0; i < n; ++i) {
              uint64_t position = file.row_begin + rows + i;
              if (keys.values.int64s[i] != static_cast<int64_t>(position)) {
                return InvalidFormat("the key at row " + std::to_string(position) + " is " +
                                     std::to_string(keys.values.int64s[i]) + "; keys must equal their row position")
                    .WithPath(RowGroup(path, g));
              }
            }
            return Status::Ok();
          });
        }
        rows += n;
        report_.source_rows += n;
        report_.row_groups++;
        if (!st.ok() && Fail(std::move(st))) return;
      }
      if (rows != want_rows) {
        Fail(InvalidFormat("file holds " + std::to_string(rows) + " rows; its range holds " +
                           std::to_string(want_rows))
                 .WithPath(path));
      }
    });
  }

  const Manifest& m_;
  RangeReader read_;
  const ObjectCheckOptions& o_;
  ObjectCheckReport& report_;
  parquet::ColumnReadOptions decode_;
  Status first_;
  Status cancelled_;
  bool stopped_ = false;
};

}  // namespace

Status CheckObjects(const Manifest& m, store::ObjectStore& store, const ObjectCheckOptions& options,
                    ObjectCheckReport* report) {
  ObjectCheckReport local;
  Checker checker(m, store, options, report != nullptr ? *report : local);
  return checker.Run();
}

Status CheckSourceTable(const SourceSpec& source, store::ObjectStore& store, const ObjectCheckOptions& options,
                        ObjectCheckReport* report) {
  Manifest m;
  m.source = source;
  ObjectCheckReport local;
  Checker checker(m, store, options, report != nullptr ? *report : local);
  return checker.RunSource();
}

Result<ObjectCheckReport> CheckPublicationObjects(const Manifest& m, store::ObjectStore& store, bool deep) {
  ObjectCheckOptions options;
  options.deep = deep;
  ObjectCheckReport report;
  VIGILO_RETURN_IF_ERROR(CheckObjects(m, store, options, &report));
  return report;
}

}  // namespace vigilo::ivf
