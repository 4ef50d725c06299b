// The control database's schema, versioned: migration N takes a database at
// version N-1 to N inside one immediate transaction, so a crash mid-way
// leaves the old version and concurrent openers migrate exactly once.
#pragma once

#include <string_view>

#include "sqlite_db.h"

namespace vigilo::control::sqlite {

// Brings the database to kSqliteSchemaVersion. Unimplemented for a newer
// version, InvalidFormat for a file that is not a vigilo control database.
Status MigrateSchema(Database& db);

// The schema version stored in the database (0 for an empty database).
Result<int64_t> SchemaVersion(Database& db);

// The SQL of the migration that takes version to_version - 1 to to_version
// (empty outside 1..kSqliteSchemaVersion): tests build databases of an
// older version from exactly the statements that made them.
std::string_view MigrationSql(int64_t to_version);

}  // namespace vigilo::control::sqlite
