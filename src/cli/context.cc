#include "context.h"

#include <cstdlib>

namespace vigilo::cli {

engine::Settings SettingsFromProcessEnvironment() {
  return engine::SettingsFromEnvironment([](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

Result<std::unique_ptr<engine::Context>> MakeContext(const std::string& stores_flag) {
  engine::ContextOptions options;
  options.settings = SettingsFromProcessEnvironment();
  if (!stores_flag.empty()) options.settings.stores_file = stores_flag;
  return engine::Context::Create(std::move(options));
}

}  // namespace vigilo::cli
