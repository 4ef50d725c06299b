// Internal: the lexical scanners shared by the DOM parser (whole input in
// memory) and the streaming tokenizer (a bounded window that refills).
//
// Each scanner looks at buf[pos..] and either finishes the token, reports an
// error, or says it ran off the end of the buffer (kNeedMore). With
// at_eof=true the end of the buffer is the end of the input, so running off it
// is an error for strings and literals and the natural end for numbers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "vigilo/common/status.h"
#include "vigilo/json/value.h"

namespace vigilo::json::lex {

enum class Outcome { kOk, kNeedMore, kError };

struct Scan {
  Outcome outcome = Outcome::kOk;
  size_t end = 0;       // one past the token, when kOk
  Status error;         // when kError; offset is relative to buf
};

inline bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Skips JSON whitespace (space, tab, LF, CR); returns the first other position.
inline size_t SkipWhitespace(std::string_view buf, size_t pos) {
  while (pos < buf.size() && IsWhitespace(buf[pos])) ++pos;
  return pos;
}

// buf[pos] must be '"'. Appends the decoded string to *out. When
// utf8_prevalidated, the caller has already checked that all of buf is valid
// UTF-8, so only ASCII structure is examined.
Scan ScanString(std::string_view buf, size_t pos, bool at_eof, bool utf8_prevalidated, std::string* out);

// buf[pos] must be '-' or a digit. Produces the number with serde_json's kind
// and correctly rounded float parsing.
Scan ScanNumber(std::string_view buf, size_t pos, bool at_eof, Number* out);

// buf[pos] must start `true`, `false` or `null`.
Scan ScanLiteral(std::string_view buf, size_t pos, bool at_eof, std::string_view literal);

// Describes a byte for error messages: 'x', or 0x1f for non-printables.
std::string DescribeByte(char c);

}  // namespace vigilo::json::lex
