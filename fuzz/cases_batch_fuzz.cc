// Case batches (vigilo/case-batch/v1, JSONL) decoded from arbitrary bytes and
// read record by record. Invariants: no crash or sanitizer report; a batch
// that reads to the end without error is rebuilt by CaseBatchBuilder from its
// header and record sources into exactly the input bytes (the reader accepts
// only the canonical encoding, and every record's hash was recomputed).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "vigilo/cases/case_batch.h"

using namespace vigilo::cases;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  ObjectRef ref = ObjectRef::ForBytes("fuzz", "datasets/fuzz/b.jsonl", StorageFormat::kCaseBatch, bytes);
  auto object = ref.Verify(bytes, uint64_t{64} << 20);
  if (!object.ok()) std::abort();  // ForBytes describes the bytes exactly
  auto batch = DecodeCaseBatch(std::move(*object));
  if (!batch.ok()) return 0;
  const BatchLimits limits{1000, uint64_t{1} << 20};
  auto reader = batch->Validate(limits);
  if (!reader.ok()) return 0;
  std::vector<CaseRecord> records;
  while (true) {
    auto next = reader->Next();
    if (!next.ok()) return 0;
    if (!next->has_value()) break;
    records.push_back(std::move(**next));
  }
  const CaseBatchHeader& header = batch->header();
  if (records.size() != static_cast<size_t>(header.ordinal_end - header.ordinal_start)) std::abort();
  CaseBatchBuilder rebuilt(header.dataset_id, header.ordinal_start, limits);
  for (const CaseRecord& r : records) {
    auto added = rebuilt.Add(r.source, r.case_hash);
    if (!added.ok() || !*added) std::abort();
  }
  auto again = rebuilt.Finish();
  if (!again.ok() || *again != bytes) std::abort();
  return 0;
}
