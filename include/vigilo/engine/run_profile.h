// Evaluation profiles: the input of run planning (issue 21), and the
// per-case decisions a plan is made of. A profile is a JSON document the
// user writes (docs/format/case-storage-runs.md, "Evaluation profiles");
// this is the policy layer the seed keeps separate from the storage-format
// checks of src/cases/run_*: which cases each gate counts, which evaluators
// a case needs, which profile group a case belongs to, and the
// executability counts, all computed here, never supplied by the user.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/cases/run_configuration.h"
#include "vigilo/cases/typed_case.h"
#include "vigilo/common/result.h"
#include "vigilo/common/uuid.h"
#include "vigilo/json/value.h"

namespace vigilo::engine {

// The largest profile document accepted (it is stored inside the run
// configuration, whose budget is 8 MiB).
inline constexpr size_t kMaxProfileBytes = 4u << 20;
inline constexpr int32_t kMaxShards = 128;
// The group of every case when profile_groups is absent or {"by":"none"}.
inline constexpr std::string_view kDefaultProfileGroup = "default";
// The group of a case whose metadata lacks the grouping field.
inline constexpr std::string_view kMissingMetadataGroup = "(none)";

struct ProfileEvaluator {
  std::string ref;  // nonempty, ≤ 1,024 UTF-8 bytes, unique in the profile (submitted order kept)
  bool runnable = true;
};

// Which cases a gate counts: every condition given must hold.
struct GateSelector {
  std::vector<cases::TaskType> task_types;  // empty (member absent): any task type
  std::vector<std::string> any_tags;        // empty (member absent): any; else the case carries one of them
};

struct ProfileGate {
  std::string gate_id;                  // cases::ValidateRunIdentifier; unique
  std::vector<std::string> evaluators;  // refs listed in the profile's evaluators; at least one
  GateSelector select;
};

// How a case's profile_group_id is chosen.
struct GroupRule {
  enum class By { kNone, kTaskType, kMetadataField } by = By::kNone;
  std::string field;  // kMetadataField: a top-level key of the case's metadata
};

struct EvaluationProfile {
  std::string profile_id;                      // the dataset-id rule
  std::optional<std::string> profile_version;  // absent or a string
  json::Value document;                        // the whole submitted profile, parsed (snapshot.profile)
  json::Value agent;                           // document.agent (snapshot.agent), not null
  std::vector<ProfileEvaluator> evaluators;
  std::vector<ProfileGate> gates;              // sorted by gate_id (UTF-8 bytes)
  GroupRule groups;
  json::Value execution_plan;                  // an object: {"repetitions": N} and anything else;
                                               // {"repetitions":1} when absent
  int64_t repetitions = 1;                     // execution_plan.repetitions, 1..1,000
  json::Value aggregation_policy;              // an object (default {})
  int32_t chunk_size = 100;                    // 1..100
  int32_t shard_count = 1;                     // 1..128

  // Identities (documented): BLAKE3 of canonical JSON, and a derived UUIDv8.
  std::string profile_hash;             // of `document` (as submitted: defaults are not filled in)
  std::string aggregation_policy_hash;  // of `aggregation_policy`
  std::string execution_plan_hash;      // of `execution_plan`
  // UUIDv8 of derive_key("vigilo 2026-12-04 profile version id v1") over the canonical `document`.
  Uuid profile_version_id;
};

// Parses and validates a profile document (strict JSON: duplicate keys,
// invalid UTF-8 refused; at most kMaxProfileBytes). Unknown fields are
// refused (InvalidFormat naming the path), so a typo is not silently
// ignored. Every evaluator a gate names must be listed.
Result<EvaluationProfile> ParseProfile(std::string_view text);

// One case's part of the plan.
struct CaseDecision {
  std::string profile_group_id;      // cases::ValidateRunIdentifier holds
  std::vector<uint32_t> gates;       // indexes into profile.gates of the gates that count it, ascending
  uint32_t evaluator_count = 0;      // distinct evaluators those gates need
};

// Decides for one validated case. A metadata group field that is absent
// puts the case in group "(none)"; a string value is the group id itself,
// any other value its canonical JSON text (InvalidFormat naming the case
// when that is not a valid group id, e.g. longer than 1,024 bytes).
Result<CaseDecision> DecideCase(const EvaluationProfile& profile, const cases::TypedCase& typed_case);

// Accumulates the executability counts (formulas in the documentation):
//   expected_execution_count           = Σ_cases repetitions
//   expected_evaluator_execution_count = Σ_cases evaluator_count × repetitions
//   unique_evaluator_ref_count         = |evaluators listed in the profile|
//   runnable_evaluator_ref_count       = |those marked runnable|
// With checked arithmetic: OutOfRange past 2^53 − 1.
class ExecutabilityCounter {
 public:
  explicit ExecutabilityCounter(const EvaluationProfile& profile);
  Status Add(const CaseDecision& decision);
  cases::Executability Finish() const;

 private:
  int64_t repetitions_;
  cases::Executability counts_;
};

}  // namespace vigilo::engine
