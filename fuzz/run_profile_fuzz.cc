// engine::ParseProfile on arbitrary bytes (the evaluation profile `vigilo
// run plan --profile` reads). Invariants: no crash or sanitizer report; an
// accepted profile keeps its documented bounds (chunk size 1..100, shards
// 1..128, gates strictly ordered by id, every gate naming a listed
// evaluator), its profile_hash is the BLAKE3 of its canonical document, and
// deciding a case yields gate indexes inside the profile.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "vigilo/cases/run_configuration.h"
#include "vigilo/json/parse.h"
#include "vigilo/engine/run_profile.h"

namespace {

const vigilo::cases::TypedCase& SampleCase() {
  static const vigilo::cases::TypedCase typed = [] {
    auto source = vigilo::json::Parse(
        R"({"id":"00000000-0000-4000-8000-000000000001","input":{"prompt":"p"},"metadata":{"group":"g"},)"
        R"("tags":["a","b"],"task_type":"generation"})");
    return *vigilo::cases::ValidateCase(*source);
  }();
  return typed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto profile = vigilo::engine::ParseProfile(bytes);
  if (!profile.ok()) return 0;
  const vigilo::engine::EvaluationProfile& p = *profile;
  if (p.chunk_size < 1 || p.chunk_size > 100 || p.shard_count < 1 || p.shard_count > 128) std::abort();
  for (size_t g = 1; g < p.gates.size(); ++g) {
    if (!(p.gates[g - 1].gate_id < p.gates[g].gate_id)) std::abort();
  }
  for (const auto& gate : p.gates) {
    for (const auto& ref : gate.evaluators) {
      bool listed = false;
      for (const auto& e : p.evaluators) listed = listed || e.ref == ref;
      if (!listed) std::abort();
    }
  }
  auto hash = vigilo::cases::CanonicalJsonHash(p.document);
  if (!hash.ok() || *hash != p.profile_hash) std::abort();
  auto decision = vigilo::engine::DecideCase(p, SampleCase());
  if (decision.ok()) {
    for (uint32_t g : decision->gates) {
      if (g >= p.gates.size()) std::abort();
    }
  }
  return 0;
}
