// The PostgreSQL control schema: versioned migrations (table
// schema_version) applied on open, in the connection's current schema.
#pragma once

#include <cstdint>
#include <string_view>

#include "pg_db.h"
#include "vigilo/common/status.h"

namespace vigilo::control::pg {

// The SQL that takes the schema from version to_version - 1 to to_version
// (1..kPostgresSchemaVersion); empty otherwise. Tests build old versions
// with it.
std::string_view MigrationSql(int64_t to_version);

// Creates or migrates the tables (one transaction, under an advisory lock
// per schema, so that concurrent first opens create them once). A newer
// version is Unimplemented, foreign tables InvalidFormat, an empty schema
// NotFound unless `create`.
Status MigrateSchema(Session& session, bool create);

}  // namespace vigilo::control::pg
