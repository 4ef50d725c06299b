// Strict JSON parsing of untrusted bytes into a Value.
//
// Accepts exactly RFC 8259 JSON as serde_json 1.0.87 does, and additionally
// rejects duplicate object keys (compared after unescaping). Rejects:
// malformed UTF-8 (anywhere), lone surrogate escapes, raw control characters
// in strings, a BOM, trailing data, nesting deeper than 127 levels (serde_json's
// recursion limit), numbers that overflow f64 (1e400; 1e-400 underflows to
// 0.0 like serde_json), and inputs larger than ParseOptions::max_bytes.
// Every error is a ParseError (LimitExceeded for size and depth) carrying the
// byte offset where the problem was found.
#pragma once

#include <cstddef>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/json/value.h"

namespace vigilo::json {

// serde_json's recursion limit: 127 nested arrays/objects parse, 128 do not.
inline constexpr size_t kMaxNestingDepth = 127;

struct ParseOptions {
  // Inputs longer than this fail with LimitExceeded before any parsing.
  size_t max_bytes = 256u << 20;
  size_t max_depth = kMaxNestingDepth;
};

Result<Value> Parse(std::string_view bytes, const ParseOptions& options = {});

}  // namespace vigilo::json
