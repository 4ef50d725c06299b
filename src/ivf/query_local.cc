// The read core's drivers over the ObjectStore seam (query.h, source_lookup.h).
#include "vigilo/ivf/query.h"
#include "vigilo/ivf/source_lookup.h"

namespace vigilo::ivf {

Status FetchRequests(store::ObjectStore& store, const PublicationReader& reader,
                     const std::vector<ObjectRange>& requests, std::vector<store::Bytes>& bytes,
                     std::vector<std::span<const uint8_t>>& views) {
  bytes.clear();
  views.clear();
  bytes.reserve(requests.size());
  views.reserve(requests.size());
  for (const ObjectRange& r : requests) {
    std::optional<uint64_t> size = reader.ObjectSize(r.path);
    if (!size) return Internal("the query core asked for an object the manifest does not name").WithPath(r.path);
    store::GetOptions get;
    get.range = ByteRange{r.offset, r.length};
    get.max_bytes = r.length;
    get.expected_size = *size;
    VIGILO_ASSIGN_OR_RETURN(store::Bytes b, store.Get(r.path, get));
    views.push_back(b.span());
    bytes.push_back(std::move(b));
  }
  return Status::Ok();
}

Result<QueryResult> RunQuery(PublicationReader& reader, store::ObjectStore& store,
                             std::vector<std::vector<float>> queries, QueryOptions options) {
  VIGILO_ASSIGN_OR_RETURN(auto run, QueryRun::Start(reader, std::move(queries), options));
  std::vector<store::Bytes> bytes;
  std::vector<std::span<const uint8_t>> views;
  while (!run->done()) {
    VIGILO_RETURN_IF_ERROR(FetchRequests(store, reader, run->requests(), bytes, views));
    VIGILO_RETURN_IF_ERROR(run->Supply(std::span<const std::span<const uint8_t>>(views)));
  }
  return run->result();
}

Result<SourceRows> LookupSource(PublicationReader& reader, store::ObjectStore& store, std::vector<int64_t> keys,
                                std::vector<std::string> columns) {
  VIGILO_ASSIGN_OR_RETURN(auto lookup, SourceLookup::Start(reader, std::move(keys), std::move(columns)));
  std::vector<store::Bytes> bytes;
  std::vector<std::span<const uint8_t>> views;
  while (!lookup->done()) {
    VIGILO_RETURN_IF_ERROR(FetchRequests(store, reader, lookup->requests(), bytes, views));
    VIGILO_RETURN_IF_ERROR(lookup->Supply(std::span<const std::span<const uint8_t>>(views)));
  }
  return lookup->result();
}

}  // namespace vigilo::ivf
