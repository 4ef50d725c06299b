#include "vigilo/json/write.h"

#include "special_bytes.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace vigilo::json {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// For each byte: 0 = copy as is, else the character after '\\' ('u' = \u00xx).
struct EscapeTable {
  char esc[256];
  constexpr EscapeTable() : esc{} {
    for (int c = 0; c < 0x20; ++c) esc[c] = 'u';
    esc[static_cast<unsigned char>('\b')] = 'b';
    esc[static_cast<unsigned char>('\t')] = 't';
    esc[static_cast<unsigned char>('\n')] = 'n';
    esc[static_cast<unsigned char>('\f')] = 'f';
    esc[static_cast<unsigned char>('\r')] = 'r';
    esc[static_cast<unsigned char>('"')] = '"';
    esc[static_cast<unsigned char>('\\')] = '\\';
  }
};
constexpr EscapeTable kEscapes;

Status WriteNumber(const Number& n, std::string* out) {
  char buf[32];
  switch (n.kind()) {
    case Number::Kind::kU64: {
      auto r = std::to_chars(buf, buf + sizeof(buf), n.u64());
      out->append(buf, r.ptr);
      return Status::Ok();
    }
    case Number::Kind::kI64: {
      auto r = std::to_chars(buf, buf + sizeof(buf), n.i64());
      out->append(buf, r.ptr);
      return Status::Ok();
    }
    case Number::Kind::kF64: break;
  }
  if (!std::isfinite(n.f64())) return InvalidArgument("cannot write a non-finite number as JSON");
  out->append(buf, FormatDouble(n.f64(), buf));
  return Status::Ok();
}

Status WriteValue(const Value& v, std::string* out) {
  switch (v.kind()) {
    case Kind::kNull: out->append("null"); return Status::Ok();
    case Kind::kBool: out->append(v.as_bool() ? "true" : "false"); return Status::Ok();
    case Kind::kNumber: return WriteNumber(v.as_number(), out);
    case Kind::kString: WriteString(v.as_string(), out); return Status::Ok();
    case Kind::kArray: {
      out->push_back('[');
      bool first = true;
      for (const Value& item : v.as_array()) {
        if (!first) out->push_back(',');
        first = false;
        VIGILO_RETURN_IF_ERROR(WriteValue(item, out));
      }
      out->push_back(']');
      return Status::Ok();
    }
    case Kind::kObject: {
      out->push_back('{');
      bool first = true;
      for (const auto& [key, item] : v.as_object()) {  // already sorted by key bytes
        if (!first) out->push_back(',');
        first = false;
        WriteString(key, out);
        out->push_back(':');
        VIGILO_RETURN_IF_ERROR(WriteValue(item, out));
      }
      out->push_back('}');
      return Status::Ok();
    }
  }
  return Internal("unknown JSON kind");
}

}  // namespace

void WriteString(std::string_view s, std::string* out) {
  out->push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    i += internal::FindSpecialByte(s.data() + i, s.size() - i, false);
    if (i == s.size()) break;
    char e = kEscapes.esc[static_cast<unsigned char>(s[i])];
    out->append(s.data() + run, i - run);
    out->push_back('\\');
    out->push_back(e);
    if (e == 'u') {
      auto c = static_cast<unsigned char>(s[i]);
      out->append("00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xf]);
    }
    run = i + 1;
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

size_t FormatDouble(double v, char* buf) {
  // Shortest round-trip digits (libstdc++ implements to_chars with Ryu, so the
  // digits equal ryu's), then ryu's own layout rules (ryu::pretty::format64).
  char sci[32];
  auto r = std::to_chars(sci, sci + sizeof(sci), v, std::chars_format::scientific);
  char* p = sci;
  size_t n = 0;
  if (*p == '-') {
    buf[n++] = '-';
    ++p;
  }
  char digits[20];
  int length = 0;
  digits[length++] = *p++;
  if (*p == '.') {
    ++p;
    while (*p != 'e') digits[length++] = *p++;
  }
  ++p;  // 'e'
  int sci_exp = 0;
  std::from_chars(*p == '+' ? p + 1 : p, r.ptr, sci_exp);
  if (length == 1 && digits[0] == '0') {  // ±0
    std::memcpy(buf + n, "0.0", 3);
    return n + 3;
  }
  const int kk = sci_exp + 1;  // 10^(kk-1) <= |v| < 10^kk
  const int k = kk - length;   // v = digits * 10^k
  if (k >= 0 && kk <= 16) {  // 1234e7 -> 12340000000.0
    std::memcpy(buf + n, digits, length);
    n += length;
    for (int i = length; i < kk; ++i) buf[n++] = '0';
    buf[n++] = '.';
    buf[n++] = '0';
  } else if (kk > 0 && kk <= 16) {  // 1234e-2 -> 12.34
    std::memcpy(buf + n, digits, kk);
    n += kk;
    buf[n++] = '.';
    std::memcpy(buf + n, digits + kk, length - kk);
    n += length - kk;
  } else if (kk > -5 && kk <= 0) {  // 1234e-6 -> 0.001234
    buf[n++] = '0';
    buf[n++] = '.';
    for (int i = kk; i < 0; ++i) buf[n++] = '0';
    std::memcpy(buf + n, digits, length);
    n += length;
  } else {  // 1e30, 1.234e33, 1e-7
    buf[n++] = digits[0];
    if (length > 1) {
      buf[n++] = '.';
      std::memcpy(buf + n, digits + 1, length - 1);
      n += length - 1;
    }
    buf[n++] = 'e';
    auto e = std::to_chars(buf + n, buf + n + 8, kk - 1);
    n = static_cast<size_t>(e.ptr - buf);
  }
  return n;
}

Status WriteCanonical(const Value& value, std::string* out) { return WriteValue(value, out); }

Result<std::string> ToCanonical(const Value& value) {
  std::string out;
  VIGILO_RETURN_IF_ERROR(WriteValue(value, &out));
  return out;
}

}  // namespace vigilo::json
