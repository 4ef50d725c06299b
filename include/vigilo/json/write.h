// The canonical JSON writer: bytes identical to serde_json 1.0.87's
// `to_string` of a Value (with keys sorted by UTF-8 bytes, as its BTreeMap
// does). Compact; only '"', '\\' and U+0000..U+001F are escaped (\b \t \n
// \f \r, else \u00xx in lowercase hex); integers exact; floats in ryu's
// shortest form ("1.0", "1e16", "1e-7", "0.00001", "-0.0").
#pragma once

#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/json/value.h"

namespace vigilo::json {

// Appends the canonical bytes of `value` to *out. Fails only if a float is
// NaN or infinite (serde_json would silently write null; we refuse).
Status WriteCanonical(const Value& value, std::string* out);
Result<std::string> ToCanonical(const Value& value);

// Appends a JSON string literal (with quotes) using the canonical escapes.
void WriteString(std::string_view s, std::string* out);

// Writes a finite double in ryu's shortest form; returns the byte count
// (at most 24). `buf` must hold 32 bytes.
size_t FormatDouble(double v, char* buf);

}  // namespace vigilo::json
