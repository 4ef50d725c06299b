#include "context.h"

#include <unistd.h>

#include <cstdlib>

namespace vigilo::cli {

std::string HostName() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return "";
  return host;
}

namespace {

// The one reader of the process environment below main.
std::optional<std::string> ProcessEnvironment(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace

engine::Settings SettingsFromProcessEnvironment() {
  engine::Settings settings = engine::SettingsFromEnvironment(ProcessEnvironment);
  settings.host = HostName();
  return settings;
}

Result<std::unique_ptr<engine::Context>> MakeContext(const std::string& stores_flag) {
  engine::ContextOptions options;
  options.settings = SettingsFromProcessEnvironment();
  options.environment = ProcessEnvironment;
  if (!stores_flag.empty()) options.settings.stores_file = stores_flag;
  return engine::Context::Create(std::move(options));
}

}  // namespace vigilo::cli
