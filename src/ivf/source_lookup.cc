#include "vigilo/ivf/source_lookup_core.h"

#include "publication_reader_state.h"

#include <algorithm>

#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/value_json.h"

namespace vigilo::ivf {

SourceLookup::SourceLookup(PublicationReader& reader, std::vector<int64_t> keys, std::vector<std::string> columns,
                           uint64_t footer_tail_bytes)
    : reader_(reader), keys_(std::move(keys)), footer_tail_bytes_(footer_tail_bytes) {
  result_.columns = std::move(columns);
}

Result<std::unique_ptr<SourceLookup>> SourceLookup::Start(PublicationReader& reader, std::vector<int64_t> keys,
                                                          std::vector<std::string> columns,
                                                          uint64_t footer_tail_bytes) {
  const Manifest& m = reader.manifest();
  if (!m.source) return InvalidArgument("the publication has no source table; payload columns need one");
  const SourceSpec& s = *m.source;
  std::unique_ptr<SourceLookup> lookup(new SourceLookup(reader, std::move(keys), std::move(columns), footer_tail_bytes));
  auto index_of = [&](const std::string& name) -> size_t {
    for (size_t i = 0; i < s.columns.size(); ++i) {
      if (s.columns[i].name == name) return i;
    }
    return s.columns.size();
  };
  lookup->key_leaf_ = index_of(s.key);
  for (const std::string& name : lookup->result_.columns) {
    size_t leaf = index_of(name);
    if (leaf == s.columns.size()) {
      std::string names;
      for (const Field& f : s.columns) names += (names.empty() ? "" : ", ") + f.name;
      return NotFound("the source table has no column '" + name + "' (its columns: " + names + ")");
    }
    lookup->leaves_.push_back(leaf);
  }
  for (int64_t key : lookup->keys_) {
    if (key < 0 || static_cast<uint64_t>(key) >= s.rows) {
      return OutOfRange("key " + std::to_string(key) + " is outside the source's rows [0, " + std::to_string(s.rows) + ")");
    }
    auto p = static_cast<uint64_t>(key);
    // The last file whose row-begin ≤ p (the ranges partition [0, rows)).
    auto it = std::upper_bound(s.files.begin(), s.files.end(), p,
                               [](uint64_t v, const SourceFile& f) { return v < f.row_begin; });
    size_t file = static_cast<size_t>(it - s.files.begin()) - 1;
    uint64_t within = p - s.files[file].row_begin;
    lookup->wanted_.push_back(Wanted{file, static_cast<size_t>(within / s.row_group_rows), within % s.row_group_rows});
  }
  lookup->result_.values.resize(lookup->keys_.size() * lookup->leaves_.size());
  if (lookup->keys_.empty() || lookup->leaves_.empty()) {
    lookup->stage_ = Stage::kDone;
    return lookup;
  }
  VIGILO_RETURN_IF_ERROR(lookup->PlanFooters());
  return lookup;
}

Status SourceLookup::PlanFooters() {
  const SourceSpec& s = *reader_.manifest().source;
  requests_.clear();
  footer_files_.clear();
  for (const Wanted& w : wanted_) {
    if (reader_.state().source_footers.count(w.file) != 0 ||
        std::find(footer_files_.begin(), footer_files_.end(), w.file) != footer_files_.end()) {
      continue;
    }
    footer_files_.push_back(w.file);
    requests_.push_back(FooterTailRequest(s.files[w.file].object, footer_tail_bytes_));
  }
  if (!requests_.empty()) {
    stage_ = Stage::kFooters;
    return Status::Ok();
  }
  return PlanChunks();
}

// The footer must describe the file the manifest declares: one leaf per
// source column, by name and in order, and the row groups row-group-rows
// long (the last the remainder).
Status SourceLookup::CheckFooter(size_t file) const {
  const SourceSpec& s = *reader_.manifest().source;
  const SourceFile& f = s.files[file];
  const parquet::Footer& footer = reader_.state().source_footers.at(file);
  const auto& leaves = footer.schema.leaves;
  if (leaves.size() != s.columns.size()) {
    return InvalidFormat("the footer has " + std::to_string(leaves.size()) + " leaf columns; the manifest declares " +
                         std::to_string(s.columns.size()))
        .WithPath(f.object.path);
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(parquet::ColumnDescriptor c,
                            parquet::DescribeColumn(footer.metadata.schema, footer.schema, i));
    if (c.path[0] != s.columns[i].name) {
      return InvalidFormat("leaf " + std::to_string(i) + " is '" + c.path[0] + "'; the manifest declares '" +
                           s.columns[i].name + "'")
          .WithPath(f.object.path);
    }
  }
  const uint64_t want = f.row_end - f.row_begin;
  const auto& groups = footer.metadata.row_groups;
  uint64_t rows = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    uint64_t expected = std::min(s.row_group_rows, want - std::min(want, rows));
    if (static_cast<uint64_t>(groups[g].num_rows) != expected) {
      return InvalidFormat("row group has " + std::to_string(groups[g].num_rows) + " rows; " + std::to_string(expected) +
                           " are required (row-group-rows " + std::to_string(s.row_group_rows) + ")")
          .WithPath(f.object.path + ": row group " + std::to_string(g));
    }
    rows += expected;
  }
  if (rows != want) {
    return InvalidFormat("file holds " + std::to_string(rows) + " rows; its range holds " + std::to_string(want))
        .WithPath(f.object.path);
  }
  return Status::Ok();
}

Status SourceLookup::PlanChunks() {
  const SourceSpec& s = *reader_.manifest().source;
  // Every (file, row group, leaf) needed, in file order, then by offset.
  std::vector<Chunk> all;
  std::vector<size_t> leaves = leaves_;
  leaves.push_back(key_leaf_);
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  std::vector<std::pair<size_t, size_t>> groups;
  for (const Wanted& w : wanted_) groups.emplace_back(w.file, w.row_group);
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  for (auto [file, g] : groups) {
    const parquet::Footer& footer = reader_.state().source_footers.at(file);
    VIGILO_ASSIGN_OR_RETURN(auto plan, parquet::PlanRowGroup(footer, g));
    for (size_t leaf : leaves) {
      all.push_back(Chunk{file, g, leaf, plan[leaf].range.offset, plan[leaf].range.length});
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const Chunk& a, const Chunk& b) {
    return a.file != b.file ? a.file < b.file : a.offset < b.offset;
  });
  chunks_.clear();
  RangePlanner planner;
  for (const Chunk& c : all) {
    const size_t request = planner.Add(s.files[c.file].object.path, c.offset, c.length);
    if (request == chunks_.size()) chunks_.emplace_back();
    chunks_[request].push_back(c);
  }
  // Fewer requests where the round's cost model says so (range_plan.h).
  const std::vector<size_t> into = planner.Coalesce();
  std::vector<std::vector<Chunk>> merged(planner.requests().size());
  for (size_t r = 0; r < into.size(); ++r) {
    merged[into[r]].insert(merged[into[r]].end(), chunks_[r].begin(), chunks_[r].end());
  }
  chunks_ = std::move(merged);
  requests_ = planner.Take();
  stage_ = Stage::kChunks;
  return Status::Ok();
}

Status SourceLookup::Supply(std::vector<std::vector<uint8_t>> responses) {
  std::vector<std::span<const uint8_t>> views(responses.begin(), responses.end());
  return Supply(std::span<const std::span<const uint8_t>>(views));
}

Status SourceLookup::Supply(std::span<const std::span<const uint8_t>> responses) {
  if (failed_) return Internal("SourceLookup::Supply after an error");
  if (done()) return Internal("SourceLookup::Supply after the lookup finished");
  if (Status accepted = AcceptResponses(requests_, responses, result_.bytes_fetched, result_.requests); !accepted.ok()) {
    failed_ = accepted.code() != StatusCode::kInternal;  // a miscount leaves the run as it was
    return accepted;
  }
  const SourceSpec& s = *reader_.manifest().source;
  Status status = Status::Ok();
  if (stage_ == Stage::kFooters) {
    std::vector<size_t> again;
    std::vector<ObjectRange> more;
    for (size_t i = 0; i < responses.size() && status.ok(); ++i) {
      size_t file = footer_files_[i];
      const ObjectDescriptor& o = s.files[file].object;
      auto step = ReadFooterTail(o, responses[i]);
      if (!step.ok()) {
        status = step.status();
      } else if (step->footer) {
        reader_.state().source_footers.emplace(file, std::move(*step->footer));
        status = CheckFooter(file);
        if (!status.ok()) reader_.state().source_footers.erase(file);  // not cached: it does not match the manifest
      } else {
        again.push_back(file);
        more.push_back(std::move(*step->more));
      }
    }
    if (status.ok()) {
      if (!more.empty()) {
        footer_files_ = std::move(again);
        requests_ = std::move(more);
      } else {
        status = PlanChunks();
      }
    }
  } else {
    status = Extract(responses);
    if (status.ok()) {
      requests_.clear();
      stage_ = Stage::kDone;
    }
  }
  if (!status.ok()) failed_ = true;
  return status;
}

Status SourceLookup::Extract(std::span<const std::span<const uint8_t>> responses) {
  const SourceSpec& s = *reader_.manifest().source;
  for (size_t r = 0; r < responses.size(); ++r) {
    std::span<const uint8_t> bytes = responses[r];
    for (const Chunk& c : chunks_[r]) {
      const parquet::Footer& footer = reader_.state().source_footers.at(c.file);
      const std::string& path = s.files[c.file].object.path;
      auto decoded = parquet::DecodeColumnChunk(footer, c.row_group, c.leaf,
                                                bytes.subspan(c.offset - requests_[r].offset, c.length));
      if (!decoded.ok()) {
        Status failure = decoded.status();
        return std::move(failure).PrependPath(path + ": ");
      }
      VIGILO_ASSIGN_OR_RETURN(parquet::ColumnDescriptor column,
                              parquet::DescribeColumn(footer.metadata.schema, footer.schema, c.leaf));
      // The keys in this row group, by row, each written into every requested column it is.
      std::vector<std::pair<uint64_t, size_t>> rows;  // (row in group, key index)
      for (size_t k = 0; k < wanted_.size(); ++k) {
        if (wanted_[k].file == c.file && wanted_[k].row_group == c.row_group) rows.emplace_back(wanted_[k].row, k);
      }
      std::sort(rows.begin(), rows.end());
      VIGILO_ASSIGN_OR_RETURN(parquet::RowJsonCursor cursor, parquet::RowJsonCursor::Make(column, *decoded));
      uint64_t at = 0;  // the cursor's next row
      std::string value;
      for (auto [row, k] : rows) {
        if (row + 1 != at) {  // a repeated key reuses the value just formatted
          VIGILO_RETURN_IF_ERROR(cursor.Skip(row - at));
          value.clear();
          VIGILO_RETURN_IF_ERROR(cursor.AppendNext(&value));
          at = row + 1;
        }
        if (c.leaf == key_leaf_ && value != std::to_string(keys_[k])) {
          return IntegrityError("the key at row position " + std::to_string(keys_[k]) + " is " + value +
                                "; keys must equal their row position")
              .WithPath(path + ": row group " + std::to_string(c.row_group));
        }
        for (size_t col = 0; col < leaves_.size(); ++col) {
          if (leaves_[col] == c.leaf) result_.values[k * leaves_.size() + col] = value;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace vigilo::ivf
