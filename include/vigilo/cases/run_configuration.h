// The run configuration: `vigilo/run-configuration/v1` (seed 004,
// "Run-plan Manifest"), one bounded object holding the frozen snapshot a run
// executes: its profile, agent, execution plan and logical dataset identity.
// Only storage-format agreement is checked here; profile and evaluator
// policy are validated by run planning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "vigilo/cases/document.h"
#include "vigilo/cases/run_chunks.h"
#include "vigilo/common/uuid.h"

namespace vigilo::cases {

// The logical dataset a run uses (its repeated identities must agree with
// the snapshot's).
struct RunDatasetRef {
  std::string dataset_id;
  std::optional<std::string> dataset_version;  // explicit null when absent
  Uuid dataset_version_id;
  std::string dataset_hash;  // 64 lowercase hex
  int32_t case_count = 0;    // 1..2,147,483,647

  static Result<RunDatasetRef> FromJson(const json::Value& value, const std::string& path);
  json::Value ToJson() const;
  Status Validate() const;  // paths relative (".case_count")
  friend bool operator==(const RunDatasetRef&, const RunDatasetRef&) = default;
};

// Non-negative integer counts, each at most 2^53 - 1.
struct Executability {
  int64_t expected_execution_count = 0;
  int64_t expected_evaluator_execution_count = 0;
  int64_t unique_evaluator_ref_count = 0;
  int64_t runnable_evaluator_ref_count = 0;

  static Result<Executability> FromJson(const json::Value& value, const std::string& path);
  json::Value ToJson() const;
  Status Validate() const;
  friend bool operator==(const Executability&, const Executability&) = default;
};

struct RunSnapshot {
  json::Value profile;  // an object whose `agent` member equals `agent`
  json::Value agent;    // any non-null JSON value
  RunDatasetRef dataset_ref;
  Uuid dataset_version_id;
  Uuid profile_version_id;
  std::string profile_hash;             // BLAKE3-256 of the canonical JSON of `profile`
  std::string dataset_hash;             // the submitted dataset hash
  std::string aggregation_policy_hash;  // 64 lowercase hex (its preimage is not in the snapshot)
  std::string execution_plan_hash;      // BLAKE3-256 of the canonical JSON of `execution_plan`
  json::Value execution_plan;           // an object
  int32_t chunk_size = 0;               // 1..100 cases per execution chunk
  Executability executability;

  friend bool operator==(const RunSnapshot&, const RunSnapshot&) = default;
};

class RunConfiguration final : public StorageDocument {
 public:
  RunSnapshot snapshot;

  // Verified bytes (at most limits.max_configuration_bytes), canonical,
  // exactly the fields, then Validate(). Errors name "<key>: $.snapshot.x".
  static Result<RunConfiguration> Decode(const VerifiedObject& object, const RunPlanLimits& limits = {});
  static Result<RunConfiguration> FromJson(const json::Value& value);

  StorageFormat format() const override { return StorageFormat::kRunConfiguration; }
  // Field forms; profile.agent == agent; profile_hash and execution_plan_hash
  // recomputed (IntegrityError on mismatch); dataset_ref's version ID and
  // hash equal the snapshot's.
  Status Validate() const override;
  json::Value ToJson() const override;
};

// Plain BLAKE3-256 of the canonical JSON of `value` (64 lowercase hex): the
// "hash of submitted canonical JSON" used for profile_hash and
// execution_plan_hash, reproducible with `vigilo json canon | b3sum`.
Result<std::string> CanonicalJsonHash(const json::Value& value);

}  // namespace vigilo::cases
