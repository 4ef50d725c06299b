#include "vigilo/ivf/query.h"

namespace vigilo::ivf {

Result<QueryResult> RunQuery(PublicationReader& reader, ObjectReader& objects, std::vector<std::vector<float>> queries,
                             QueryOptions options) {
  VIGILO_ASSIGN_OR_RETURN(auto run, QueryRun::Start(reader, std::move(queries), options));
  while (!run->done()) {
    std::vector<std::vector<uint8_t>> bytes;
    for (const ObjectRange& r : run->requests()) {
      VIGILO_ASSIGN_OR_RETURN(std::vector<uint8_t> b, objects.Read(r.path, r.offset, r.length));
      bytes.push_back(std::move(b));
    }
    VIGILO_RETURN_IF_ERROR(run->Supply(std::move(bytes)));
  }
  return run->result();
}

}  // namespace vigilo::ivf
