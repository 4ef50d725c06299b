// Dataset metadata formats decoded from arbitrary bytes: the first byte picks
// the decoder (object reference JSON, source fields, dataset manifest,
// ordinal index page); the rest is the object, wrapped as a VerifiedObject of
// that schema. One target per format family keeps the smoke run short; the
// seed corpus holds a valid object of each (decision: docs/format/case-storage-checklist.md).
// Invariants: no crash or sanitizer report; whatever decodes validates and
// re-encodes to exactly the input bytes.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "vigilo/cases/dataset.h"
#include "vigilo/cases/ordinal_index.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

using namespace vigilo::cases;

namespace {

template <typename Doc>
void CheckRoundTrip(const vigilo::Result<Doc>& doc, std::string_view input) {
  if (!doc.ok()) return;
  if (!doc->Validate().ok()) std::abort();
  auto again = doc->Encode();
  if (!again.ok() || *again != input) std::abort();
}

vigilo::Result<VerifiedObject> Wrap(StorageFormat format, const std::string& bytes) {
  return ObjectRef::ForBytes("fuzz", "datasets/fuzz/o.json", format, bytes).Verify(bytes, uint64_t{64} << 20);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 4) {
    case 0: {  // an object reference as embedded in every metadata object
      auto value = vigilo::json::Parse(bytes);
      if (!value.ok()) return 0;
      auto ref = ObjectRef::FromJson(*value, "$");
      if (!ref.ok()) return 0;
      if (!ref->Validate().ok()) std::abort();
      auto again = ObjectRef::FromJson(ref->ToJson(), "$");
      if (!again.ok() || !(*again == *ref)) std::abort();
      break;
    }
    case 1: {
      auto object = Wrap(StorageFormat::kDatasetSourceFields, bytes);
      if (!object.ok()) std::abort();
      CheckRoundTrip(DatasetSourceFields::Decode(*object), bytes);
      break;
    }
    case 2: {
      auto object = Wrap(StorageFormat::kDatasetManifest, bytes);
      if (!object.ok()) std::abort();
      CheckRoundTrip(DatasetManifest::Decode(*object), bytes);
      break;
    }
    default: {
      auto object = Wrap(StorageFormat::kOrdinalIndex, bytes);
      if (!object.ok()) std::abort();
      auto page = OrdinalIndexPage::Decode(*object);
      CheckRoundTrip(page, bytes);
      if (page.ok() && page->Find(page->range_start).ok() == false) std::abort();  // a valid page covers its start
      break;
    }
  }
  return 0;
}
