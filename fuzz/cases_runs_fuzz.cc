// Run-plan formats (run-chunk pages, run configuration, run-plan manifest,
// gate-count pages) decoded from arbitrary bytes. The first byte picks the
// format; the rest is the object, wrapped as a VerifiedObject of that schema.
// Invariants: no crash or sanitizer report; whatever decodes validates and
// re-encodes to exactly the input bytes (readers accept only canonical
// bytes with exactly the known fields); a decoded gate page with no `next`
// is a valid one-page chain.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "vigilo/cases/gate_counts.h"
#include "vigilo/cases/run_chunks.h"
#include "vigilo/cases/run_configuration.h"
#include "vigilo/cases/run_plan.h"

namespace {

using namespace vigilo::cases;

template <typename Doc>
void CheckRoundTrip(const vigilo::Result<Doc>& doc, std::string_view input) {
  if (!doc.ok()) return;
  if (!doc->Validate().ok()) std::abort();
  auto again = doc->Encode();
  if (!again.ok() || *again != input) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const StorageFormat formats[] = {StorageFormat::kRunChunks, StorageFormat::kRunConfiguration,
                                   StorageFormat::kRunPlanManifest, StorageFormat::kGateCounts};
  StorageFormat format = formats[data[0] % 4];
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  ObjectRef ref = ObjectRef::ForBytes("fuzz", "runs/fuzz/object.json", format, bytes);
  auto object = ref.Verify(bytes, uint64_t{64} << 20);
  if (!object.ok()) std::abort();  // ForBytes describes the bytes exactly
  RunPlanLimits limits;
  limits.max_page_bytes = limits.max_root_bytes = limits.max_configuration_bytes = uint64_t{8} << 20;
  switch (format) {
    case StorageFormat::kRunChunks:
      CheckRoundTrip(RunChunkPage::Decode(*object, limits), bytes);
      break;
    case StorageFormat::kRunConfiguration:
      CheckRoundTrip(RunConfiguration::Decode(*object, limits), bytes);
      break;
    case StorageFormat::kRunPlanManifest: {
      auto plan = RunPlanManifest::Decode(*object, limits);
      CheckRoundTrip(plan, bytes);
      if (plan.ok()) {
        int64_t cases = 0;
        for (const RunPlanShard& s : plan->shards) cases += s.case_count;
        if (cases != plan->planned_case_count() || cases > INT32_MAX) std::abort();
      }
      break;
    }
    default: {
      auto page = GateCountPage::Decode(*object, limits);
      CheckRoundTrip(page, bytes);
      if (page.ok() && !page->next) {
        GateCountDescriptor d{ref, 1, static_cast<int32_t>(page->entries.size())};
        GateCountChainValidator validator(limits, [&](const ObjectRef& r) { return r.Verify(bytes, limits.max_page_bytes); });
        if (!validator.Validate(page->run_shard, INT32_MAX, d).ok()) std::abort();
      }
    }
  }
  return 0;
}
