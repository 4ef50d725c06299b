// Canonical form checks. Seed 004 readers accept only the exact compact
// canonical bytes, so "is this canonical?" is a byte comparison against what
// the canonical writer produces for the parsed value.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/json/parse.h"

namespace vigilo::json {

// Parses strictly and re-serializes canonically.
Result<std::string> Canonicalize(std::string_view bytes, const ParseOptions& options = {});

// JSON Lines: splits on LF (a final LF ends the last line; it does not start
// an empty one), canonicalizes each line and hands each result, ending in LF,
// to `emit` (which may write it out, so memory stays bounded by one line).
// An error names the 1-based line and carries the absolute byte offset.
Status CanonicalizeLines(std::string_view bytes, const ParseOptions& options,
                         const std::function<Status(std::string_view line)>& emit);

// OK if `bytes` are exactly the canonical form of the value they encode.
// Otherwise the parse error, or NotCanonical with the offset of the first
// byte that differs from the canonical form.
Status CheckCanonical(std::string_view bytes, const ParseOptions& options = {});

// Same, for a value that the caller has already parsed from `bytes`.
Status CheckCanonicalBytes(std::string_view bytes, const Value& parsed);

}  // namespace vigilo::json
