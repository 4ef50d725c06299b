// PublicationReader's state (include/vigilo/ivf/query_core.h keeps it
// behind a pointer): the manifest, its objects by path, and what queries
// cached — decoded centroids, parsed footers, the postings row groups per
// CID. Only the query core (query.cc, query_score.cc, source_lookup.cc and their helpers)
// sees it.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/ivf/query_core.h"
#include "vigilo/ivf/range_plan.h"
#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/footer.h"

namespace vigilo::ivf {

// One postings row group as the planner sees it, derived once from its
// file's footer: its CID (checked statistics), first row within the file and
// the byte ranges of its key, offset, scale and code chunks, so planning a
// query touches no Thrift structures.
struct PostingsGroup {
  uint32_t cid = 0;
  uint64_t first_row = 0;
  uint64_t rows = 0;
  parquet::ByteRange chunks[4];
  const parquet::ColumnMetaData* meta[4] = {};  // into the cached footer
  // Where the values lie in the key, offset, scale and code chunks (from
  // each chunk's first byte), recorded by the first query that read them in
  // place and checked them (pages, counts, code lengths). The objects are
  // immutable, so later queries read the same positions in the bytes they
  // fetch without parsing page headers again. Empty: not read in place yet
  // (or not readable in place: a key chunk that is not INT32/INT64 PLAIN).
  struct Run {
    uint64_t offset = 0;
    size_t count = 0;
    size_t stride = 0;
  };
  // A chunk's runs: one (a chunk of one page, the usual case) held here,
  // beside the rest of the group, so a query reading the group in place
  // meets no further cache miss; more in `more`.
  class Runs {
   public:
    bool empty() const { return count_ == 0; }
    std::span<const Run> get() const {
      return count_ == 1 ? std::span<const Run>(&one_, 1) : std::span<const Run>(more_);
    }
    void set(std::vector<Run> runs) {
      count_ = runs.size();
      if (count_ == 1) {
        one_ = runs[0];
        more_.clear();
      } else {
        more_ = std::move(runs);
      }
    }

   private:
    size_t count_ = 0;
    Run one_;
    std::vector<Run> more_;
  };
  Runs in_place[4];
};

struct PublicationReader::State {
  explicit State(Manifest m);
  ~State();

  Manifest manifest;
  std::map<std::string, ObjectDescriptor, std::less<>> objects;  // by manifest path
  std::map<std::string, size_t, std::less<>> postings_files;      // postings file index by path
  // Loaded from centroids.parquet on the first query (in CID order):
  std::vector<float> centroids;  // nlist × d, decoded LVQ8 (folded into each probed list's query)
  std::vector<float> centroid_offsets, centroid_scales;  // nlist each
  std::vector<uint8_t> centroid_codes;                   // nlist × d LVQ8 codes (ranked by the kernel)
  std::vector<CodeSums> centroid_code_sums;              // nlist: computed once, not per query
  std::map<size_t, parquet::Footer> footers;             // by postings file index
  std::map<size_t, std::vector<PostingsGroup>> groups;   // by postings file index
  // Per CID: its row groups in the files indexed so far, so planning visits
  // only the probed CIDs' groups, with what planning needs of each copied
  // here: a PostingsGroup is 344 bytes somewhere in a file's vector, and
  // reading it cold cost a wink query at nprobe 96 most of its 18 µs of
  // planning.
  struct PlannedGroup {
    uint32_t file;       // postings file index
    uint32_t group;      // row group within it
    uint32_t cid;
    uint64_t first_row;  // the group's first row within the file
    uint64_t begin;      // the byte span of its four chunks (key, offset, scale, code)
    uint64_t end;
    PostingsGroup* record;  // groups[file][group] (its vector is never resized once indexed)
    friend bool operator<(const PlannedGroup& a, const PlannedGroup& b) {
      return a.file != b.file ? a.file < b.file : a.group < b.group;
    }
  };
  std::vector<std::vector<PlannedGroup>> cid_groups;
  // Per postings file: its key, offset, scale and code leaves.
  std::map<size_t, std::vector<parquet::ColumnDescriptor>> postings_columns;
  std::map<size_t, parquet::Footer> source_footers;  // by source file index
  // Per postings file index: the file whole when the host holds it
  // (PublicationReader::HoldPostings; else `bytes` is empty), and what keeps
  // those bytes alive.
  struct HeldFile {
    std::span<const uint8_t> bytes;
    std::shared_ptr<const void> owner;
  };
  std::vector<HeldFile> held;
  // Working buffers of a query's ranking and scoring, kept for the next
  // query (the contexts hold vectors of their own). Used only within one
  // Advance or Score call, so runs interleaved on one reader never share them.
  std::unique_ptr<Scratch> scratch;
};

}  // namespace vigilo::ivf
