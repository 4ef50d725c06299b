#include "control_backends_testing.h"

#include "postgres_test_server.h"
#include "vigilo/control/postgres_control_store.h"
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
  // A fresh schema in this process's one server (postgres_test_server.h).
  // CTest runs these instances as one entry per test binary
  // (cmake/vigilo_targets.cmake), so the server starts once per binary.
  ControlBackend postgres;
  postgres.name = "Postgresql";
  postgres.create = [](const std::filesystem::path&) -> std::string {
    Result<SharedPostgres*> server = SharedPostgres::Get();
    Result<std::string> schema = server.ok() ? (*server)->FreshSchema() : Result<std::string>(server.status());
    if (schema.ok()) return *schema;
    ADD_FAILURE() << "no PostgreSQL test server: " << schema.status().ToString();
    return "postgresql://test-server-unavailable.invalid/";
  };
  postgres.open = [](const std::string& location, store::Clock& wall, store::RandomSource& random) {
    PostgresOptions options;
    options.wall_clock = &wall;
    options.random = &random;
    options.max_attempts = 2;  // an unavailable server fails a test at once
    return OpenPostgresControlStore(location, options);
  };
  return {sqlite, postgres};
}

std::string BackendName(const ::testing::TestParamInfo<ControlBackend>& info) { return info.param.name; }

}  // namespace vigilo::control::testing_support
