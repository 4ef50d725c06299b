#include "vigilo/cases/identity.h"

#include "vigilo/common/hex.h"
#include "vigilo/json/write.h"

namespace vigilo::cases {
namespace {

constexpr std::string_view kMembershipContext = "vigilo 2026-12-02 dataset version v1";
constexpr std::string_view kProjectionContext = "vigilo 2026-12-02 case projection v1";

void PutLe(Blake3Hasher& h, uint64_t v, size_t bytes) {
  uint8_t buf[8];
  for (size_t i = 0; i < bytes; ++i) buf[i] = static_cast<uint8_t>(v >> (8 * i));
  h.Update(std::span<const uint8_t>(buf, bytes));
}

// Writes `"key":value` members of `fields` whose keys compare below/above "cases".
void WriteMembers(const json::Object& fields, bool below, bool* first, std::string* out) {
  for (const auto& [key, value] : fields) {
    if ((key < "cases") != below) continue;
    if (!*first) out->push_back(',');
    *first = false;
    json::WriteString(key, out);
    out->push_back(':');
    (void)json::WriteCanonical(value, out);  // parsed values are always writable
  }
}

}  // namespace

Status ValidateDatasetId(std::string_view id) {
  if (id.empty() || id.size() > kMaxDatasetIdBytes) {
    return InvalidFormat("dataset_id must be 1-128 characters, got " + std::to_string(id.size()));
  }
  if (id[0] == '.') return InvalidFormat("dataset_id must not start with '.'");
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.';
    if (!ok) return InvalidFormat("dataset_id may contain only ASCII letters, digits, '.', '_' and '-'");
  }
  return Status::Ok();
}

CanonicalDatasetFrame FrameCanonicalDataset(const json::Object& fields, bool cases_present) {
  CanonicalDatasetFrame frame;
  frame.prefix = "{";
  bool first = true;
  WriteMembers(fields, true, &first, &frame.prefix);
  if (cases_present) {
    if (!first) frame.prefix.push_back(',');
    first = false;
    frame.prefix += "\"cases\":[";
    frame.suffix = "]";
  }
  WriteMembers(fields, false, &first, &frame.suffix);
  frame.suffix.push_back('}');
  return frame;
}

Status AppendCanonicalCase(const json::Value& source, uint64_t index, std::string* out) {
  if (index != 0) out->push_back(',');
  return json::WriteCanonical(source, out);
}

DatasetIdentityBuilder::DatasetIdentityBuilder(const json::Object& fields, bool cases_present)
    : cases_present_(cases_present), membership_hasher_(Blake3Hasher::DeriveKey(kMembershipContext)) {
  CanonicalDatasetFrame frame = FrameCanonicalDataset(fields, cases_present);
  suffix_ = std::move(frame.suffix);
  dataset_hasher_.Update(frame.prefix);
  const std::string& id = fields.Find("dataset_id")->as_string();
  PutLe(membership_hasher_, id.size(), 4);
  membership_hasher_.Update(id);
}

Result<DatasetIdentityBuilder> DatasetIdentityBuilder::Start(const json::Object& fields, bool cases_present) {
  if (fields.Contains("cases")) return InvalidArgument("source fields must not contain \"cases\"");
  const json::Value* id = fields.Find("dataset_id");
  if (id == nullptr) return InvalidFormat("missing required field").WithPath("$.dataset_id");
  if (!id->is_string()) return InvalidFormat("dataset_id must be a string").WithPath("$.dataset_id");
  if (Status s = ValidateDatasetId(id->as_string()); !s.ok()) return s.WithPath("$.dataset_id");
  if (const json::Value* version = fields.Find("dataset_version"); version && !version->is_string() &&
                                                                   !version->is_null()) {
    return InvalidFormat("dataset_version must be a string or null").WithPath("$.dataset_version");
  }
  return DatasetIdentityBuilder(fields, cases_present);
}

namespace {

// Most evaluation sets carry ids of their own ("evalset-00000"); the seed
// requires a UUID. Say how to keep theirs (issue 34).
Status WithIdHint(Status s, const std::string& case_path) {
  const bool uuid_error = s.message().starts_with("UUID ") || s.message().starts_with("the nil UUID");
  if (s.code() != StatusCode::kInvalidFormat || s.path() != case_path + ".id" || !uuid_error) {
    return s;
  }
  return Status(s.code(), std::string(s.message()) +
                              "; a case id is a lowercase UUID (8-4-4-4-12): to keep ids of your own, put them under "
                              "metadata (e.g. metadata.key) in JSON Lines and ingest with `derive_ids` metadata.key, "
                              "which derives each UUID from them")
      .WithPath(std::string(s.path()));
}

}  // namespace

Result<TypedCase> ValidateSubmittedCase(const json::Value& source, uint64_t index) {
  std::string path = "$.cases[" + std::to_string(index) + "]";
  Result<TypedCase> validated = ValidateCase(source, path);
  if (!validated.ok()) return WithIdHint(validated.status(), path);
  return validated;
}

Result<CaseHash> DatasetIdentityBuilder::AddCase(const json::Value& source) {
  if (finished_) return InvalidArgument("AddCase after Finish");
  if (!cases_present_) return InvalidArgument("the dataset has no \"cases\" field, so it cannot have cases");
  VIGILO_ASSIGN_OR_RETURN(TypedCase typed, ValidateSubmittedCase(source, count_));
  CaseHash hash = NormalizedCaseHash(typed);
  std::string bytes;
  VIGILO_RETURN_IF_ERROR(AppendCanonicalCase(source, count_, &bytes));
  dataset_hasher_.Update(bytes);
  membership_hasher_.Update(std::span<const uint8_t>(typed.id.bytes()));
  membership_hasher_.Update(std::span<const uint8_t>(hash));
  last_case_id_ = typed.id;
  ++count_;
  return hash;
}

Result<DatasetIdentity> DatasetIdentityBuilder::Finish() {
  if (finished_) return InvalidArgument("Finish called twice");
  finished_ = true;
  dataset_hasher_.Update(suffix_);
  PutLe(membership_hasher_, count_, 8);
  DatasetIdentity identity;
  identity.dataset_hash = HexEncode(dataset_hasher_.Finalize());
  identity.dataset_version_id = Uuid::V8FromHash(membership_hasher_.Finalize());
  identity.case_count = count_;
  return identity;
}

ProjectionHasher::ProjectionHasher() : hasher_(Blake3Hasher::DeriveKey(kProjectionContext)) {}

void ProjectionHasher::Update(int32_t case_ordinal, const Uuid& id, const CaseHash& case_hash) {
  PutLe(hasher_, static_cast<uint32_t>(case_ordinal), 4);
  hasher_.Update(std::span<const uint8_t>(id.bytes()));
  hasher_.Update(std::span<const uint8_t>(case_hash));
  ++count_;
}

std::array<uint8_t, 32> ProjectionHasher::Finish() const {
  Blake3Hasher h = hasher_;
  PutLe(h, count_, 4);
  return h.Finalize();
}

}  // namespace vigilo::cases
