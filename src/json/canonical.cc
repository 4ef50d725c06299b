#include "vigilo/json/canonical.h"

#include "lex.h"
#include "vigilo/json/write.h"

namespace vigilo::json {

Result<std::string> Canonicalize(std::string_view bytes, const ParseOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(Value value, Parse(bytes, options));
  return ToCanonical(value);
}

Status CanonicalizeLines(std::string_view bytes, const ParseOptions& options,
                         const std::function<Status(std::string_view line)>& emit) {
  std::string out;
  size_t start = 0;
  size_t line_number = 1;
  while (start < bytes.size()) {
    size_t lf = bytes.find('\n', start);
    size_t end = lf == std::string_view::npos ? bytes.size() : lf;
    auto value = Parse(bytes.substr(start, end - start), options);
    if (!value.ok()) {
      Status s = std::move(value).take_status();
      uint64_t at = start + s.offset().value_or(0);
      return std::move(s).WithPath("line " + std::to_string(line_number)).WithOffset(at);
    }
    out.clear();
    VIGILO_RETURN_IF_ERROR(WriteCanonical(*value, &out));
    out.push_back('\n');
    VIGILO_RETURN_IF_ERROR(emit(out));
    start = end + 1;
    ++line_number;
  }
  return Status::Ok();
}

Status CheckCanonicalBytes(std::string_view bytes, const Value& parsed) {
  VIGILO_ASSIGN_OR_RETURN(std::string canonical, ToCanonical(parsed));
  size_t n = std::min(bytes.size(), canonical.size());
  size_t i = 0;
  while (i < n && bytes[i] == canonical[i]) ++i;
  if (i == n && bytes.size() == canonical.size()) return Status::Ok();
  std::string detail;
  if (i < n) {
    detail = "; found " + lex::DescribeByte(bytes[i]) + " where the canonical form has " +
             lex::DescribeByte(canonical[i]);
  } else if (bytes.size() > canonical.size()) {
    detail = "; the canonical form ends here";
  } else {
    detail = "; the canonical form continues here";
  }
  return NotCanonical("not the canonical JSON form" + detail).WithOffset(i);
}

Status CheckCanonical(std::string_view bytes, const ParseOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(Value value, Parse(bytes, options));
  return CheckCanonicalBytes(bytes, value);
}

}  // namespace vigilo::json
