// The typed evaluation case (docs/format/case-storage-v1.md, "The typed
// case") and its normalized content hash.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/common/uuid.h"
#include "vigilo/json/value.h"

namespace vigilo::cases {

enum class TaskType { kGeneration, kClassification, kMultipleChoice, kConversation };

std::string_view TaskTypeName(TaskType type);

inline constexpr size_t kMaxTags = 64;
inline constexpr size_t kMaxTagBytes = 128;

using CaseHash = std::array<uint8_t, 32>;

// A validated case with defaults applied. `source` stays separate: the batch
// stores the submitted object, never this typed form.
struct TypedCase {
  Uuid id;
  TaskType task_type = TaskType::kGeneration;
  json::Value input;
  json::Value expected;           // null when absent
  std::vector<std::string> tags;  // submitted order
  json::Value metadata;           // {} when absent
};

// Validates a submitted case object (strict; errors name the JSON path under `path`).
Result<TypedCase> ValidateCase(const json::Value& source, const std::string& path = "$");

// BLAKE3 derive_key("vigilo 2026-12-02 normalized case v1") over the canonical
// JSON of {"expected","input","tags" (sorted),"task_type"}: no id, no metadata.
CaseHash NormalizedCaseHash(const TypedCase& typed);

// The canonical bytes NormalizedCaseHash hashes (its preimage), for fixtures and debugging.
std::string NormalizedCaseJson(const TypedCase& typed);

}  // namespace vigilo::cases
