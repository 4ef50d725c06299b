#include "context.h"

#include <unistd.h>

#include <cstdlib>

namespace vigilo::cli {

std::string HostName() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return "";
  return host;
}

engine::Settings SettingsFromProcessEnvironment() {
  engine::Settings settings = engine::SettingsFromEnvironment([](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
  settings.host = HostName();
  return settings;
}

Result<std::unique_ptr<engine::Context>> MakeContext(const std::string& stores_flag) {
  engine::ContextOptions options;
  options.settings = SettingsFromProcessEnvironment();
  if (!stores_flag.empty()) options.settings.stores_file = stores_flag;
  return engine::Context::Create(std::move(options));
}

}  // namespace vigilo::cli
