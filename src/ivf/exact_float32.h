// A JSON number that must be a float32 value exactly: a parity probe's
// components and a word-vector model's direction (docs/format/embedding.md).
#pragma once

#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/json/value.h"

namespace vigilo::ivf {

// Any JSON number whose value a float32 holds exactly ("0", "0.5" and the
// canonical writer's shortest double form of a float qualify; "0.1" does
// not). InvalidFormat "WHAT must be a number a float32 holds exactly" (or
// "expected a number, got KIND") with `path` otherwise.
Result<float> DecodeExactFloat32(const json::Value& v, const std::string& path, std::string_view what);

}  // namespace vigilo::ivf
