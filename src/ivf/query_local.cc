// The read core's drivers over the ObjectStore seam (query.h, source_lookup.h).
#include <map>
#include <memory>
#include <string>

#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/query.h"
#include "vigilo/ivf/source_lookup.h"

namespace vigilo::ivf {
namespace {

// One run's fetches by path, for FetchStats::cache_hits: a Parquet file's
// footer is its last bytes and its column chunks lie before it, so a range
// that reaches the object's end is a footer read, and a file whose ranges
// were fetched without one was read with a footer the reader held already.
class RunCounter {
 public:
  RunCounter(const PublicationReader& reader, FetchStats* stats) : reader_(reader), stats_(stats) {}

  void Fetched(const std::vector<ObjectRange>& requests) {
    if (stats_ == nullptr) return;
    for (const ObjectRange& r : requests) {
      bool& footer = footer_read_[r.path];
      std::optional<uint64_t> size = reader_.ObjectSize(r.path);
      footer = footer || (size && r.offset + r.length == *size);
    }
  }
  // Called once the run has ended (with or without an error).
  void Finish(bool needs_centroids) {
    if (stats_ == nullptr) return;
    const std::string& centroids = reader_.manifest().hierarchy.centroids.path;
    if (needs_centroids && footer_read_.count(centroids) == 0) ++stats_->cache_hits;
    for (const auto& [path, footer] : footer_read_) {
      if (path != centroids && !footer) ++stats_->cache_hits;
    }
  }

 private:
  const PublicationReader& reader_;
  FetchStats* stats_;
  std::map<std::string, bool, std::less<>> footer_read_;  // path → a range reached its end
};

// IntegrityError unless `bytes` hash to `sha256` (the manifest's).
Status CheckWholeObject(const std::string& path, std::span<const uint8_t> bytes, const std::string& sha256) {
  VIGILO_ASSIGN_OR_RETURN(std::string got, Sha256Hex(bytes));
  if (got == sha256) return Status::Ok();
  return IntegrityError("sha256 of the object is " + got + ", expected " + sha256 +
                        " (the manifest names another object of this size)")
      .WithPath(path);
}

}  // namespace

FetchStats& FetchStats::operator+=(const FetchStats& other) {
  requests += other.requests;
  round_trips += other.round_trips;
  bytes += other.bytes;
  cache_hits += other.cache_hits;
  return *this;
}

void CountRound(const std::vector<store::GetResponse>& answers, FetchStats* stats) {
  if (stats == nullptr) return;
  bool sent = false;
  for (const store::GetResponse& a : answers) {
    if (!a.bytes.ok()) continue;
    if (a.cached) {
      ++stats->cache_hits;
    } else {
      ++stats->requests;
      stats->bytes += a.bytes->size();
      sent = true;
    }
  }
  if (sent) ++stats->round_trips;
}

Status FetchRequests(store::ObjectStore& store, const PublicationReader& reader,
                     const std::vector<ObjectRange>& requests, std::vector<store::Bytes>& bytes,
                     std::vector<std::span<const uint8_t>>& views, FetchStats* stats) {
  bytes.clear();
  views.clear();
  std::vector<store::GetRequest> gets;
  gets.reserve(requests.size());
  for (const ObjectRange& r : requests) {
    std::optional<uint64_t> size = reader.ObjectSize(r.path);
    if (!size) return Internal("the query core asked for an object the manifest does not name").WithPath(r.path);
    store::GetOptions get;
    get.range = ByteRange{r.offset, r.length};
    get.max_bytes = r.length;
    get.expected_size = *size;
    gets.push_back(store::GetRequest{r.path, get});
  }
  // The batch's requests depend on nothing in it: one round trip, sent at
  // once where the store has latency (docs/format/http-reading.md). What a
  // cache directory answered is no request and, when it answered all of
  // them, no round trip.
  std::vector<store::GetResponse> answers = store.GetMany(gets);
  for (store::GetResponse& a : answers) {
    if (!a.bytes.ok()) return a.bytes.status();
  }
  // A whole object is checked against the manifest's digest before the
  // core sees a byte of it: the centroids always (an object of the
  // manifest's size from another build is refused, not answered from), a
  // small file whose footer read covered it too.
  for (size_t i = 0; i < requests.size(); ++i) {
    const ObjectRange& r = requests[i];
    if (r.offset != 0 || r.length != gets[i].options.expected_size) continue;
    VIGILO_RETURN_IF_ERROR(CheckWholeObject(r.path, answers[i].bytes->span(), reader.ObjectSha256(r.path)));
  }
  CountRound(answers, stats);
  for (store::GetResponse& a : answers) {
    views.push_back(a.bytes->span());
    bytes.push_back(std::move(*a.bytes));
  }
  return Status::Ok();
}

Result<CheckedPostings> ReadPostingsToHold(const Manifest& manifest, store::ObjectStore& store, uint64_t max_bytes) {
  CheckedPostings checked;
  for (const PostingsFile& file : manifest.postings) {
    const ObjectDescriptor& object = file.object;
    if (object.size > max_bytes - checked.bytes) continue;  // (checked.bytes ≤ max_bytes throughout)
    store::GetOptions whole;
    whole.max_bytes = object.size;
    whole.expected_size = object.size;
    VIGILO_ASSIGN_OR_RETURN(store::Bytes bytes, store.Get(object.path, whole));
    VIGILO_RETURN_IF_ERROR(CheckWholeObject(object.path, bytes.span(), object.sha256));
    checked.files.push_back(CheckedPostings::File{object.path, std::make_shared<const store::Bytes>(std::move(bytes))});
    checked.bytes += object.size;
  }
  return checked;
}

Status HoldPostings(PublicationReader& reader, const CheckedPostings& postings) {
  for (const CheckedPostings::File& file : postings.files) {
    VIGILO_RETURN_IF_ERROR(reader.HoldPostings(file.path, file.bytes, file.bytes->span()));
  }
  return Status::Ok();
}

Result<uint64_t> HoldPostings(PublicationReader& reader, store::ObjectStore& store, uint64_t max_bytes) {
  VIGILO_ASSIGN_OR_RETURN(CheckedPostings checked, ReadPostingsToHold(reader.manifest(), store, max_bytes));
  VIGILO_RETURN_IF_ERROR(HoldPostings(reader, checked));
  return checked.bytes;
}

Result<QueryResult> RunQuery(PublicationReader& reader, store::ObjectStore& store,
                             std::vector<std::vector<float>> queries, QueryOptions options, FetchStats* stats) {
  VIGILO_ASSIGN_OR_RETURN(auto run, QueryRun::Start(reader, std::move(queries), options));
  RunCounter counter(reader, stats);
  std::vector<store::Bytes> bytes;
  std::vector<std::span<const uint8_t>> views;
  Status s = Status::Ok();
  while (s.ok() && !run->done()) {
    counter.Fetched(run->requests());
    s = FetchRequests(store, reader, run->requests(), bytes, views, stats);
    if (s.ok()) s = run->Supply(std::span<const std::span<const uint8_t>>(views));
  }
  counter.Finish(/*needs_centroids=*/true);
  if (!s.ok()) return s;
  return run->result();
}

Result<SourceRows> LookupSource(PublicationReader& reader, store::ObjectStore& store, std::vector<int64_t> keys,
                                std::vector<std::string> columns, FetchStats* stats) {
  VIGILO_ASSIGN_OR_RETURN(auto lookup, SourceLookup::Start(reader, std::move(keys), std::move(columns)));
  RunCounter counter(reader, stats);
  std::vector<store::Bytes> bytes;
  std::vector<std::span<const uint8_t>> views;
  Status s = Status::Ok();
  while (s.ok() && !lookup->done()) {
    counter.Fetched(lookup->requests());
    s = FetchRequests(store, reader, lookup->requests(), bytes, views, stats);
    if (s.ok()) s = lookup->Supply(std::span<const std::span<const uint8_t>>(views));
  }
  counter.Finish(/*needs_centroids=*/false);
  if (!s.ok()) return s;
  return lookup->result();
}

}  // namespace vigilo::ivf
