#include "exit_codes.h"

#include <cstdio>

namespace vigilo::cli {

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kInvalidArgument: return kExitUsage;
    case StatusCode::kParseError: return 3;
    case StatusCode::kInvalidFormat: return 4;
    case StatusCode::kNotCanonical: return 5;
    case StatusCode::kIntegrityError: return 6;
    case StatusCode::kLimitExceeded:
    case StatusCode::kOutOfRange: return 7;
    case StatusCode::kNotFound: return 8;
    case StatusCode::kAlreadyExists: return 9;
    case StatusCode::kIoError:
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kCancelled: return 10;
    case StatusCode::kFenced: return 11;
    case StatusCode::kUnimplemented: return 12;
    case StatusCode::kInternal: return 1;
  }
  return 1;
}

namespace {

// The library's setting names a CLI flag of the same name (dashes for
// underscores) sets. Budget settings have their own table (budget_flags.h).
constexpr std::string_view kFlagSettings[] = {
    "base",   "base_format", "base_vector_field", "columns", "dataset_id", "dataset_version", "derive_ids",
    "embed_model", "force", "format", "id_column", "iterations",
    "k",      "key",         "metric",            "nlist",   "out",        "roots",       "sample",
    "shard", "skip_unembeddable",     "source",            "source_row_group_rows", "store",       "text_field",
    "threads", "vector_field"};

}  // namespace

std::string FlagForLibrarySetting(std::string_view setting) {
  for (std::string_view known : kFlagSettings) {
    if (setting != known) continue;
    std::string flag = "--" + std::string(setting);
    for (char& c : flag) c = c == '_' ? '-' : c;
    return flag;
  }
  return "";
}

std::string RenderSettings(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find('`', i);
    if (open == std::string_view::npos) break;
    const size_t close = text.find('`', open + 1);
    if (close == std::string_view::npos) break;
    const std::string flag = FlagForLibrarySetting(text.substr(open + 1, close - open - 1));
    out.append(text.substr(i, open - i));
    if (flag.empty()) {
      out.append(text.substr(open, close + 1 - open));
    } else {
      out.append(flag);
    }
    i = close + 1;
  }
  out.append(text.substr(i));
  return out;
}

std::string ErrorText(const Status& status) { return RenderSettings(status.ToString()); }

int ReportError(const Status& status) {
  std::fprintf(stderr, "vigilo: %s\n", ErrorText(status).c_str());
  return ExitCodeFor(status);
}

}  // namespace vigilo::cli
