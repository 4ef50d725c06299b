#include "control_backends_testing.h"

#include "vigilo/control/sqlite_control_store.h"

namespace vigilo::control::testing_support {

std::vector<ControlBackend> ControlBackends() {
  ControlBackend sqlite;
  sqlite.name = "Sqlite";
  sqlite.create = [](const std::filesystem::path& scratch) { return (scratch / "control.sqlite3").string(); };
  sqlite.open = [](const std::string& location, store::Clock& wall, store::RandomSource& random) {
    SqliteOptions options;
    options.wall_clock = &wall;
    options.random = &random;
    return OpenSqliteControlStore(location, options);
  };
  return {sqlite};
}

std::string BackendName(const ::testing::TestParamInfo<ControlBackend>& info) { return info.param.name; }

}  // namespace vigilo::control::testing_support
