#include "root_target.h"

#include <memory>
#include <string>

namespace vigilo::cli {
namespace {

// Enough to tell a reference over the limit from one with a trailing LF;
// the engine enforces the limit itself.
constexpr size_t kMaxRefTextBytes = engine::kMaxRootReferenceBytes + 1;

Result<std::string> ReadRefText(ByteSource& source, const std::string& origin, control::Namespace ns) {
  std::string text;
  char buf[4096];
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(size_t n, source.Read(std::span<char>(buf, sizeof buf)));
    if (n == 0) break;
    if (text.size() + n > kMaxRefTextBytes) {
      return LimitExceeded(std::string("a ") + (ns == control::Namespace::kRuns ? "run" : "dataset") +
                           " reference is at most 64 KiB")
          .WithPath(origin);
    }
    text.append(buf, n);
  }
  return text;
}

Result<engine::RootLocator> FromSource(ByteSource& source, const std::string& origin, control::Namespace ns) {
  VIGILO_ASSIGN_OR_RETURN(std::string text, ReadRefText(source, origin, ns));
  engine::RootLocator locator;
  VIGILO_ASSIGN_OR_RETURN(locator.ref, engine::ParseRootReference(text, origin, ns));
  return locator;
}

Result<engine::RootLocator> FromFile(const std::string& path, control::Namespace ns) {
  if (path.empty()) return InvalidArgument("@ must be followed by a file name");
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<FileByteSource> file, FileByteSource::Open(path));
  return FromSource(*file, path, ns);
}

}  // namespace

Result<engine::RootLocator> ParseRootTarget(std::string_view text, ByteSource* stdin_source, control::Namespace ns) {
  if (!text.empty() && text[0] == '@') return FromFile(std::string(text.substr(1)), ns);
  if (text == "-") {
    if (stdin_source == nullptr) return InvalidArgument("no standard input to read the reference from");
    return FromSource(*stdin_source, "<stdin>", ns);
  }
  if (!text.empty() && text[0] != '{' && text.find('/') != std::string_view::npos) {
    return FromFile(std::string(text), ns);
  }
  return engine::ParseRootLocator(text, ns);
}

}  // namespace vigilo::cli
