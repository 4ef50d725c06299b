#include "lex.h"

#include <charconv>
#include <cstdint>
#include <limits>

#include "special_bytes.h"
#include "vigilo/common/utf8.h"

namespace vigilo::json::lex {
namespace {

Scan Ok(size_t end) { return Scan{Outcome::kOk, end, Status()}; }
Scan NeedMore() { return Scan{Outcome::kNeedMore, 0, Status()}; }
Scan Error(std::string message, size_t offset) {
  return Scan{Outcome::kError, 0, ParseError(std::move(message)).WithOffset(offset)};
}
// Running off the buffer: more input may come, or (at EOF) the token is cut short.
Scan Truncated(bool at_eof, std::string_view what, size_t offset) {
  if (!at_eof) return NeedMore();
  return Error("unexpected end of input inside " + std::string(what), offset);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

// Reads 4 hex digits at buf[i..i+4); -1 if not hex, -2 if truncated.
int32_t ReadHex4(std::string_view buf, size_t i) {
  if (i + 4 > buf.size()) return -2;
  int32_t v = 0;
  for (size_t k = 0; k < 4; ++k) {
    int h = HexValue(buf[i + k]);
    if (h < 0) return -1;
    v = v << 4 | h;
  }
  return v;
}

}  // namespace

std::string DescribeByte(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 0xf];
}

Scan ScanString(std::string_view buf, size_t pos, bool at_eof, bool utf8_prevalidated, std::string* out) {
  const size_t n = buf.size();
  size_t i = pos + 1;
  while (true) {
    size_t run = i;
    i += internal::FindSpecialByte(buf.data() + i, n - i, !utf8_prevalidated);
    out->append(buf.data() + run, i - run);
    if (i >= n) return Truncated(at_eof, "a string", pos);
    auto c = static_cast<unsigned char>(buf[i]);
    if (c == '"') return Ok(i + 1);
    if (c < 0x20) return Error("control character " + DescribeByte(buf[i]) + " inside a string", i);
    if (c >= 0x80) {  // only when not prevalidated
      size_t len = Utf8SequenceLength(buf, i);
      if (len == 0) {
        if (!at_eof && i + 4 > n) return NeedMore();  // the sequence may be cut by the window
        return Error("invalid UTF-8 inside a string", i);
      }
      out->append(buf.data() + i, len);
      i += len;
      continue;
    }
    // Backslash escape.
    if (i + 1 >= n) return Truncated(at_eof, "a string escape", i);
    char e = buf[i + 1];
    switch (e) {
      case '"': out->push_back('"'); i += 2; continue;
      case '\\': out->push_back('\\'); i += 2; continue;
      case '/': out->push_back('/'); i += 2; continue;
      case 'b': out->push_back('\b'); i += 2; continue;
      case 'f': out->push_back('\f'); i += 2; continue;
      case 'n': out->push_back('\n'); i += 2; continue;
      case 'r': out->push_back('\r'); i += 2; continue;
      case 't': out->push_back('\t'); i += 2; continue;
      case 'u': break;
      default: return Error("invalid escape \\" + std::string(1, e) + " inside a string", i);
    }
    int32_t hi = ReadHex4(buf, i + 2);
    if (hi == -2) return Truncated(at_eof, "a \\u escape", i);
    if (hi == -1) return Error("invalid \\u escape: expected 4 hex digits", i);
    if (hi >= 0xdc00 && hi <= 0xdfff) return Error("lone low surrogate in \\u escape", i);
    if (hi < 0xd800 || hi > 0xdbff) {
      AppendUtf8(static_cast<uint32_t>(hi), out);
      i += 6;
      continue;
    }
    // A high surrogate must be followed by an escaped low surrogate.
    if ((i + 6 < n && buf[i + 6] != '\\') || (i + 7 < n && buf[i + 7] != 'u')) {
      return Error("lone high surrogate in \\u escape", i);
    }
    if (i + 8 > n) return Truncated(at_eof, "a surrogate pair", i);
    int32_t lo = ReadHex4(buf, i + 8);
    if (lo == -2) return Truncated(at_eof, "a surrogate pair", i);
    if (lo == -1) return Error("invalid \\u escape: expected 4 hex digits", i + 6);
    if (lo < 0xdc00 || lo > 0xdfff) return Error("lone high surrogate in \\u escape", i);
    uint32_t cp = 0x10000 + ((static_cast<uint32_t>(hi) - 0xd800) << 10) + (static_cast<uint32_t>(lo) - 0xdc00);
    AppendUtf8(cp, out);
    i += 12;
  }
}

Scan ScanNumber(std::string_view buf, size_t pos, bool at_eof, Number* out) {
  const size_t n = buf.size();
  size_t i = pos;
  bool negative = buf[i] == '-';
  if (negative) ++i;
  if (i >= n) return Truncated(at_eof, "a number", pos);
  size_t int_begin = i;
  if (buf[i] == '0') {
    ++i;
    if (i < n && IsDigit(buf[i])) return Error("invalid number: leading zero", pos);
  } else if (IsDigit(buf[i])) {
    while (i < n && IsDigit(buf[i])) ++i;
  } else {
    return Error("invalid number: expected a digit after '-'", i);
  }
  size_t int_end = i;
  bool is_float = false;
  if (i < n && buf[i] == '.') {
    is_float = true;
    ++i;
    if (i >= n) return Truncated(at_eof, "a number", pos);
    if (!IsDigit(buf[i])) return Error("invalid number: expected a digit after '.'", i);
    while (i < n && IsDigit(buf[i])) ++i;
  }
  size_t frac_end = i;
  int64_t exponent = 0;
  if (i < n && (buf[i] == 'e' || buf[i] == 'E')) {
    is_float = true;
    ++i;
    bool exp_negative = false;
    if (i < n && (buf[i] == '+' || buf[i] == '-')) {
      exp_negative = buf[i] == '-';
      ++i;
    }
    if (i >= n) return Truncated(at_eof, "a number", pos);
    if (!IsDigit(buf[i])) return Error("invalid number: expected a digit in the exponent", i);
    while (i < n && IsDigit(buf[i])) {
      if (exponent < 1'000'000'000) exponent = exponent * 10 + (buf[i] - '0');  // saturates
      ++i;
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i >= n && !at_eof) return NeedMore();  // more digits may follow in the next window

  if (!is_float) {
    uint64_t magnitude = 0;
    bool fits = true;
    for (size_t k = int_begin; k < int_end && fits; ++k) {
      fits = !__builtin_mul_overflow(magnitude, 10u, &magnitude) &&
             !__builtin_add_overflow(magnitude, static_cast<uint64_t>(buf[k] - '0'), &magnitude);
    }
    if (fits && !negative) {
      *out = Number::U64(magnitude);
      return Ok(i);
    }
    if (fits && negative && magnitude == 0) {  // serde_json: -0 is the float -0.0
      *out = Number::F64(-0.0);
      return Ok(i);
    }
    if (fits && negative && magnitude <= static_cast<uint64_t>(INT64_MAX) + 1) {
      *out = Number::I64(static_cast<int64_t>(0 - magnitude));
      return Ok(i);
    }
    // Too large for a 64-bit integer: serde_json falls back to f64.
  }

  double value = 0;
  auto [ptr, ec] = std::from_chars(buf.data() + pos, buf.data() + i, value);
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports underflow and overflow alike; the decimal magnitude tells them apart.
    int64_t magnitude;
    size_t first_nonzero = int_begin;
    while (first_nonzero < int_end && buf[first_nonzero] == '0') ++first_nonzero;
    if (first_nonzero < int_end) {
      magnitude = static_cast<int64_t>(int_end - first_nonzero) + exponent;
    } else {
      size_t k = int_end + 1;  // first fraction digit
      while (k < frac_end && buf[k] == '0') ++k;
      magnitude = -static_cast<int64_t>(k - int_end - 1) + exponent;
    }
    if (magnitude > 0) return Error("number out of range", pos);
    *out = Number::F64(negative ? -0.0 : 0.0);  // underflow rounds to zero, as serde_json does
    return Ok(i);
  }
  if (ec != std::errc() || ptr != buf.data() + i) return Error("invalid number", pos);
  *out = Number::F64(value);
  return Ok(i);
}

Scan ScanLiteral(std::string_view buf, size_t pos, bool at_eof, std::string_view literal) {
  size_t avail = buf.size() - pos;
  size_t cmp = avail < literal.size() ? avail : literal.size();
  if (buf.compare(pos, cmp, literal.substr(0, cmp)) != 0) {
    for (size_t k = 0; k < cmp; ++k) {
      if (buf[pos + k] != literal[k]) {
        return Error("invalid literal: expected '" + std::string(literal) + "'", pos + k);
      }
    }
  }
  if (avail < literal.size()) return Truncated(at_eof, "a literal", pos);
  return Ok(pos + literal.size());
}

}  // namespace vigilo::json::lex
