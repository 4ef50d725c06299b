#include "vigilo/common/external_sort.h"

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <numeric>
#include <queue>
#include <string>
#include <system_error>
#include <vector>

#include "vigilo/common/file.h"

namespace vigilo {
namespace {

constexpr size_t kMaxRecordBytes = 4096;
constexpr uint64_t kMergeBlockBytes = 64 * 1024;  // read buffer per run in a merge
constexpr size_t kMaxFanIn = 1024;                // open files per merge

struct Run {
  std::filesystem::path path;
  uint64_t records = 0;
};

Status ErrnoError(const std::string& what, const std::filesystem::path& path) {
  return ErrnoStatus(errno, what, path.string());
}

class File {
 public:
  File() = default;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() {
    if (f_ != nullptr) std::fclose(f_);
  }
  Status Open(const std::filesystem::path& path, const char* mode) {
    path_ = path;
    f_ = std::fopen(path.c_str(), mode);
    return f_ == nullptr ? ErrnoError("cannot open sort run", path) : Status::Ok();
  }
  Status Write(const char* data, size_t n) {
    if (n != 0 && std::fwrite(data, 1, n, f_) != n) return ErrnoError("cannot write sort run", path_);
    return Status::Ok();
  }
  // Reads exactly n bytes (the run's record count says they exist).
  Status ReadExactly(char* data, size_t n) {
    if (std::fread(data, 1, n, f_) != n) {
      return IoError("sort run " + path_.string() + " is shorter than recorded");
    }
    return Status::Ok();
  }
  Status Close() {
    FILE* f = f_;
    f_ = nullptr;
    return std::fclose(f) == 0 ? Status::Ok() : ErrnoError("cannot close sort run", path_);
  }

 private:
  FILE* f_ = nullptr;
  std::filesystem::path path_;
};

// Streams one run's records through a bounded buffer.
class RunReader {
 public:
  RunReader(const Run& run, size_t record_bytes, size_t buffer_records)
      : run_(run), record_bytes_(record_bytes), buffer_(buffer_records * record_bytes), remaining_(run.records) {}

  Status Open() { return file_.Open(run_.path, "rb"); }
  bool done() const { return done_; }
  const char* current() const { return buffer_.data() + pos_; }

  // Moves to the next record; done() afterwards when there is none.
  Status Advance() {
    pos_ += record_bytes_;
    if (pos_ < len_) return Status::Ok();
    if (remaining_ == 0) {
      done_ = true;
      return Status::Ok();
    }
    uint64_t n = std::min<uint64_t>(remaining_, buffer_.size() / record_bytes_);
    VIGILO_RETURN_IF_ERROR(file_.ReadExactly(buffer_.data(), n * record_bytes_));
    remaining_ -= n;
    pos_ = 0;
    len_ = n * record_bytes_;
    return Status::Ok();
  }
  // Positions on the first record.
  Status Start() {
    pos_ = len_ = 0;
    return Advance();
  }

 private:
  Run run_;
  size_t record_bytes_;
  File file_;
  std::vector<char> buffer_;
  uint64_t remaining_;
  size_t pos_ = 0;
  size_t len_ = 0;
  bool done_ = false;
};

}  // namespace

struct ExternalSorter::State {
  ExternalSortOptions options;
  std::filesystem::path dir;
  size_t capacity_records = 0;
  std::vector<char> buffer;
  std::deque<Run> runs;
  uint64_t disk_bytes = 0;
  uint64_t next_run = 0;
  bool drained = false;
  ExternalSortStats stats;

  size_t buffered_records() const { return buffer.size() / options.record_bytes; }

  Status Charge(uint64_t records) {
    uint64_t bytes = records * options.record_bytes;
    if (bytes > options.disk_quota_bytes - disk_bytes) {
      return LimitExceeded("external sort needs " + std::to_string(disk_bytes + bytes) +
                           " bytes of scratch space; the quota is " + std::to_string(options.disk_quota_bytes));
    }
    disk_bytes += bytes;
    stats.peak_disk_bytes = std::max(stats.peak_disk_bytes, disk_bytes);
    return Status::Ok();
  }

  std::filesystem::path NewRunPath() { return dir / ("run-" + std::to_string(next_run++)); }

  // Record order of the buffer, without moving the records.
  std::vector<uint32_t> SortedOrder() const {
    std::vector<uint32_t> order(buffered_records());
    std::iota(order.begin(), order.end(), 0u);
    const char* base = buffer.data();
    size_t w = options.record_bytes;
    std::sort(order.begin(), order.end(), [base, w](uint32_t a, uint32_t b) {
      return std::memcmp(base + size_t{a} * w, base + size_t{b} * w, w) < 0;
    });
    return order;
  }

  Status SpillBuffer() {
    size_t n = buffered_records();
    if (n == 0) return Status::Ok();
    VIGILO_RETURN_IF_ERROR(Charge(n));
    Run run{NewRunPath(), n};
    File out;
    VIGILO_RETURN_IF_ERROR(out.Open(run.path, "wb"));
    size_t w = options.record_bytes;
    for (uint32_t i : SortedOrder()) VIGILO_RETURN_IF_ERROR(out.Write(buffer.data() + size_t{i} * w, w));
    VIGILO_RETURN_IF_ERROR(out.Close());
    buffer.clear();
    runs.push_back(std::move(run));
    ++stats.runs_written;
    return Status::Ok();
  }

  size_t FanIn() const {
    return static_cast<size_t>(std::clamp<uint64_t>(options.memory_bytes / kMergeBlockBytes, 2, kMaxFanIn));
  }
  // Records per read buffer when `streams` buffers share the memory budget.
  size_t BlockRecords(size_t streams) const {
    return static_cast<size_t>(std::max<uint64_t>(1, options.memory_bytes / streams / options.record_bytes));
  }

  // Merges runs[0, count) in order, calling `emit` per record.
  Status Merge(size_t count, size_t block_records, const std::function<Status(const char*)>& emit) {
    std::vector<std::unique_ptr<RunReader>> readers;
    for (size_t i = 0; i < count; ++i) {
      readers.push_back(std::make_unique<RunReader>(runs[i], options.record_bytes, block_records));
      VIGILO_RETURN_IF_ERROR(readers.back()->Open());
      VIGILO_RETURN_IF_ERROR(readers.back()->Start());
    }
    size_t w = options.record_bytes;
    auto after = [&](size_t a, size_t b) {  // min-heap on the current record, then run order
      int c = std::memcmp(readers[a]->current(), readers[b]->current(), w);
      return c != 0 ? c > 0 : a > b;
    };
    std::priority_queue<size_t, std::vector<size_t>, decltype(after)> heap(after);
    for (size_t i = 0; i < count; ++i) {
      if (!readers[i]->done()) heap.push(i);
    }
    while (!heap.empty()) {
      size_t i = heap.top();
      heap.pop();
      VIGILO_RETURN_IF_ERROR(emit(readers[i]->current()));
      VIGILO_RETURN_IF_ERROR(readers[i]->Advance());
      if (!readers[i]->done()) heap.push(i);
    }
    return Status::Ok();
  }

  void DropRuns(size_t count) {
    for (size_t i = 0; i < count; ++i) {
      std::error_code ec;
      std::filesystem::remove(runs.front().path, ec);
      disk_bytes -= runs.front().records * options.record_bytes;
      runs.pop_front();
    }
  }

  // One intermediate pass: the first FanIn() runs become one run at the back.
  Status MergeFront() {
    size_t count = FanIn();
    uint64_t records = 0;
    for (size_t i = 0; i < count; ++i) records += runs[i].records;
    VIGILO_RETURN_IF_ERROR(Charge(records));
    Run merged{NewRunPath(), records};
    File out;
    VIGILO_RETURN_IF_ERROR(out.Open(merged.path, "wb"));
    size_t w = options.record_bytes;
    size_t block = BlockRecords(count + 1);
    std::vector<char> pending;
    pending.reserve(block * w);
    VIGILO_RETURN_IF_ERROR(Merge(count, block, [&](const char* rec) -> Status {
      pending.insert(pending.end(), rec, rec + w);
      if (pending.size() < block * w) return Status::Ok();
      Status s = out.Write(pending.data(), pending.size());
      pending.clear();
      return s;
    }));
    VIGILO_RETURN_IF_ERROR(out.Write(pending.data(), pending.size()));
    VIGILO_RETURN_IF_ERROR(out.Close());
    DropRuns(count);
    runs.push_back(std::move(merged));
    ++stats.runs_written;
    ++stats.merge_passes;
    return Status::Ok();
  }
};

ExternalSorter::ExternalSorter(std::unique_ptr<State> state) : state_(std::move(state)) {}
ExternalSorter::ExternalSorter(ExternalSorter&&) noexcept = default;
ExternalSorter& ExternalSorter::operator=(ExternalSorter&&) noexcept = default;

ExternalSorter::~ExternalSorter() {
  if (state_ == nullptr || state_->dir.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(state_->dir, ec);  // best effort: a destructor cannot report
}

Result<ExternalSorter> ExternalSorter::Create(const ExternalSortOptions& options) {
  if (options.record_bytes == 0 || options.record_bytes > kMaxRecordBytes) {
    return InvalidArgument("external sort record size must be 1…" + std::to_string(kMaxRecordBytes) + " bytes");
  }
  if (options.memory_bytes / options.record_bytes < 16) {
    return InvalidArgument("external sort memory must hold at least 16 records");
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(options.scratch_dir, ec)) {
    return InvalidArgument("scratch directory does not exist: " + options.scratch_dir.string());
  }
  std::string templ = (options.scratch_dir / "vigilo-sort-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) return ErrnoError("cannot create a scratch directory in", options.scratch_dir);
  auto state = std::make_unique<State>();
  state->options = options;
  state->dir = templ;
  state->capacity_records =
      static_cast<size_t>(std::min<uint64_t>(options.memory_bytes / (options.record_bytes + sizeof(uint32_t)),
                                             uint64_t{UINT32_MAX}));
  return ExternalSorter(std::move(state));
}

Status ExternalSorter::Add(std::string_view record) {
  State& s = *state_;
  if (s.drained) return Internal("ExternalSorter::Add after Drain");
  if (record.size() != s.options.record_bytes) {
    return Internal("external sort record of " + std::to_string(record.size()) + " bytes, expected " +
                    std::to_string(s.options.record_bytes));
  }
  if (s.buffered_records() == s.capacity_records) VIGILO_RETURN_IF_ERROR(s.SpillBuffer());
  s.buffer.insert(s.buffer.end(), record.begin(), record.end());
  ++s.stats.records;
  return Status::Ok();
}

Status ExternalSorter::Drain(const std::function<Status(std::string_view record)>& visit) {
  State& s = *state_;
  if (s.drained) return Internal("ExternalSorter::Drain called twice");
  s.drained = true;
  size_t w = s.options.record_bytes;
  if (s.runs.empty()) {  // everything fit in memory
    for (uint32_t i : s.SortedOrder()) {
      VIGILO_RETURN_IF_ERROR(visit(std::string_view(s.buffer.data() + size_t{i} * w, w)));
    }
    return Status::Ok();
  }
  VIGILO_RETURN_IF_ERROR(s.SpillBuffer());
  ++s.stats.merge_passes;  // the final merge below
  std::vector<char>().swap(s.buffer);  // the merge's read buffers use the memory budget
  while (s.runs.size() > s.FanIn()) VIGILO_RETURN_IF_ERROR(s.MergeFront());
  size_t count = s.runs.size();
  VIGILO_RETURN_IF_ERROR(s.Merge(count, s.BlockRecords(count), [&](const char* rec) {
    return visit(std::string_view(rec, w));
  }));
  s.DropRuns(count);
  return Status::Ok();
}

const ExternalSortStats& ExternalSorter::stats() const { return state_->stats; }

}  // namespace vigilo
