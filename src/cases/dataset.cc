#include "vigilo/cases/dataset.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "vigilo/common/checked.h"
#include "vigilo/common/hex.h"
#include "vigilo/json/parse.h"

namespace vigilo::cases {
namespace {

// Nesting levels of a value: 0 for a scalar, 1 for a flat container.
// Iterative, so a hostile value cannot exhaust the call stack.
size_t NestingDepth(const json::Value& root) {
  size_t deepest = 0;
  std::vector<std::pair<const json::Value*, size_t>> pending{{&root, 0}};
  while (!pending.empty()) {
    auto [value, above] = pending.back();
    pending.pop_back();
    if (value->is_object()) {
      deepest = std::max(deepest, above + 1);
      for (const auto& member : value->as_object()) pending.emplace_back(&member.second, above + 1);
    } else if (value->is_array()) {
      deepest = std::max(deepest, above + 1);
      for (const auto& item : value->as_array()) pending.emplace_back(&item, above + 1);
    }
  }
  return deepest;
}

}  // namespace

Status ValidateBatchLimits(const BatchLimits& limits) {
  using namespace budget_bounds;
  if (limits.max_cases < kMinCasesPerBatch || limits.max_cases > kMaxCasesPerBatch) {
    return OutOfRange("max_cases must be 1-65,536").WithPath(".max_cases");
  }
  if (limits.max_bytes < kMinBatchBytes || limits.max_bytes > kMaxBatchBytes) {
    return OutOfRange("max_bytes must be 256 bytes-64 MiB").WithPath(".max_bytes");
  }
  return Status::Ok();
}

Result<DatasetSourceFields> DatasetSourceFields::FromDocument(const json::Value& document) {
  if (!document.is_object()) return InvalidFormat("a dataset document must be a JSON object").WithPath("$");
  DatasetSourceFields sf;
  sf.fields = document.as_object();
  if (const json::Value* cases = sf.fields.Find("cases")) {
    if (!cases->is_array()) return InvalidFormat("cases must be an array").WithPath("$.cases");
    sf.cases_present = true;
    sf.fields.Erase("cases");
  }
  VIGILO_RETURN_IF_ERROR(sf.Validate());
  return sf;
}

Status DatasetSourceFields::Validate() const {
  if (fields.Contains("cases")) return InvalidFormat("source fields must not contain cases").WithPath("$.fields.cases");
  const json::Value* id = fields.Find("dataset_id");
  if (id == nullptr) return InvalidFormat("missing required field").WithPath("$.fields.dataset_id");
  if (!id->is_string()) return InvalidFormat("dataset_id must be a string").WithPath("$.fields.dataset_id");
  if (Status s = ValidateDatasetId(id->as_string()); !s.ok()) return s.WithPath("$.fields.dataset_id");
  const json::Value* version = fields.Find("dataset_version");
  if (version && !version->is_string() && !version->is_null()) {
    return InvalidFormat("dataset_version must be a string or null").WithPath("$.fields.dataset_version");
  }
  // The stored object nests each field two levels down ({"fields": {key: ...}}),
  // and readers parse it with the JSON depth limit: admit only what they read.
  for (const auto& [key, value] : fields) {
    size_t depth = NestingDepth(value);
    if (depth + 2 > json::kMaxNestingDepth) {
      return LimitExceeded("field \"" + key + "\" nests " + std::to_string(depth) +
                           " levels; the source-fields object holds it 2 levels down and readers accept at most " +
                           std::to_string(json::kMaxNestingDepth) + ", so a field may nest at most " +
                           std::to_string(json::kMaxNestingDepth - 2) + " levels (" +
                           std::to_string(json::kMaxNestingDepth - 1) + " in the submitted document)")
          .WithPath("$.fields." + key);
    }
  }
  return Status::Ok();
}

Result<DatasetSourceFields> DatasetSourceFields::FromJson(const json::Value& value) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, "$"));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"cases_present", "fields", "schema"}));
  VIGILO_RETURN_IF_ERROR(ExpectSchema(f, StorageFormat::kDatasetSourceFields));
  DatasetSourceFields sf;
  VIGILO_ASSIGN_OR_RETURN(sf.cases_present, f.Bool("cases_present"));
  VIGILO_ASSIGN_OR_RETURN(Fields inner, f.Object("fields"));
  sf.fields = inner.object();
  VIGILO_RETURN_IF_ERROR(sf.Validate());
  return sf;
}

Result<DatasetSourceFields> DatasetSourceFields::Decode(const VerifiedObject& object) {
  VIGILO_ASSIGN_OR_RETURN(json::Value value, DecodeDocumentJson(object, StorageFormat::kDatasetSourceFields));
  auto sf = FromJson(value);
  if (!sf.ok()) return std::move(sf).take_status().PrependPath(object.ref().key + ": ");
  return sf;
}

json::Value DatasetSourceFields::ToJson() const {
  json::Object o;
  o.Set("cases_present", json::Value(cases_present));
  o.Set("fields", json::Value(fields));
  o.Set("schema", json::Value(std::string(StorageFormatId(StorageFormat::kDatasetSourceFields))));
  return json::Value(std::move(o));
}

std::string DatasetSourceFields::dataset_id() const {
  const json::Value* id = fields.Find("dataset_id");
  return id && id->is_string() ? id->as_string() : std::string();
}

std::optional<std::string> DatasetSourceFields::dataset_version() const {
  const json::Value* v = fields.Find("dataset_version");
  if (v && v->is_string()) return v->as_string();
  return std::nullopt;
}

Result<DatasetManifest> DatasetManifest::FromJson(const json::Value& value) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, "$"));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"batch_limits", "batches", "case_count", "dataset_hash", "dataset_id",
                                          "dataset_version", "dataset_version_id", "identity_scheme", "schema",
                                          "source_fields"}));
  VIGILO_RETURN_IF_ERROR(ExpectSchema(f, StorageFormat::kDatasetManifest));
  DatasetManifest m;
  VIGILO_ASSIGN_OR_RETURN(m.dataset_id, f.String("dataset_id"));
  VIGILO_ASSIGN_OR_RETURN(m.dataset_version, f.NullableString("dataset_version"));
  VIGILO_ASSIGN_OR_RETURN(std::string version_id, f.String("dataset_version_id"));
  auto uuid = Uuid::Parse(version_id);
  if (!uuid.ok()) return uuid.status().WithPath(f.PathOf("dataset_version_id"));
  m.dataset_version_id = *uuid;
  VIGILO_ASSIGN_OR_RETURN(m.dataset_hash, f.String("dataset_hash"));
  VIGILO_ASSIGN_OR_RETURN(std::string scheme, f.String("identity_scheme"));
  if (scheme != kDatasetIdentityScheme) {
    return InvalidFormat("identity_scheme must be \"vigilo/dataset-json/v1\"").WithPath(f.PathOf("identity_scheme"));
  }
  VIGILO_ASSIGN_OR_RETURN(int64_t count, f.Int("case_count", 1, kMaxInt32));
  m.case_count = static_cast<int32_t>(count);
  VIGILO_ASSIGN_OR_RETURN(Fields limits, f.Object("batch_limits"));
  VIGILO_RETURN_IF_ERROR(limits.ExpectExactly({"max_bytes", "max_cases"}));
  VIGILO_ASSIGN_OR_RETURN(int64_t max_cases, limits.Int("max_cases", 1, INT64_MAX));
  VIGILO_ASSIGN_OR_RETURN(int64_t max_bytes, limits.Int("max_bytes", 1, INT64_MAX));
  m.batch_limits = BatchLimits{static_cast<uint64_t>(max_cases), static_cast<uint64_t>(max_bytes)};
  VIGILO_ASSIGN_OR_RETURN(const json::Value* sf, f.Get("source_fields"));
  VIGILO_ASSIGN_OR_RETURN(m.source_fields, ObjectRef::FromJson(*sf, f.PathOf("source_fields")));
  VIGILO_ASSIGN_OR_RETURN(const json::Value* batches, f.Get("batches"));
  VIGILO_ASSIGN_OR_RETURN(m.batches, IndexRootDescriptor::FromJson(*batches, f.PathOf("batches")));
  VIGILO_RETURN_IF_ERROR(m.Validate());
  return m;
}

Result<DatasetManifest> DatasetManifest::Decode(const VerifiedObject& object) {
  VIGILO_ASSIGN_OR_RETURN(json::Value value, DecodeDocumentJson(object, StorageFormat::kDatasetManifest));
  auto m = FromJson(value);
  if (!m.ok()) return std::move(m).take_status().PrependPath(object.ref().key + ": ");
  return m;
}

Status DatasetManifest::Validate() const {
  if (Status s = ValidateDatasetId(dataset_id); !s.ok()) return s.WithPath("$.dataset_id");
  if (!IsLowerHex(dataset_hash, 64)) {
    return InvalidFormat("dataset_hash must be 64 lowercase hex characters").WithPath("$.dataset_hash");
  }
  if (dataset_version_id.is_nil()) return InvalidFormat("nil dataset_version_id").WithPath("$.dataset_version_id");
  if (case_count < 1) return OutOfRange("a published dataset needs at least one case").WithPath("$.case_count");
  if (Status s = ValidateBatchLimits(batch_limits); !s.ok()) return std::move(s).PrependPath("$.batch_limits");
  if (source_fields.schema != StorageFormat::kDatasetSourceFields) {
    return InvalidFormat("source_fields must reference vigilo/dataset-source-fields/v1")
        .WithPath("$.source_fields.schema");
  }
  if (Status s = source_fields.Validate(); !s.ok()) return std::move(s).PrependPath("$.source_fields");
  if (batches.range_start != 0 || batches.range_end != case_count) {
    return InvalidFormat("the batches index must cover exactly [0, case_count)").WithPath("$.batches");
  }
  if (Status s = batches.Validate(IndexLimits{}); !s.ok()) return std::move(s).PrependPath("$.batches");
  return Status::Ok();
}

json::Value DatasetManifest::ToJson() const {
  json::Object limits;
  limits.Set("max_bytes", json::Value::Uint(batch_limits.max_bytes));
  limits.Set("max_cases", json::Value::Uint(batch_limits.max_cases));
  json::Object o;
  o.Set("batch_limits", json::Value(std::move(limits)));
  o.Set("batches", batches.ToJson());
  o.Set("case_count", json::Value::Int(case_count));
  o.Set("dataset_hash", json::Value(dataset_hash));
  o.Set("dataset_id", json::Value(dataset_id));
  o.Set("dataset_version", dataset_version ? json::Value(*dataset_version) : json::Value());
  o.Set("dataset_version_id", json::Value(dataset_version_id.ToString()));
  o.Set("identity_scheme", json::Value(std::string(kDatasetIdentityScheme)));
  o.Set("schema", json::Value(std::string(StorageFormatId(StorageFormat::kDatasetManifest))));
  o.Set("source_fields", source_fields.ToJson());
  return json::Value(std::move(o));
}

}  // namespace vigilo::cases
