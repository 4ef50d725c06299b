// A throwaway server for tests, started by one of the project's scripts
// (scripts/ceph-rgw, scripts/postgres): `bash SCRIPT up BASE OWNER_PID`
// prints key=value lines (a watchdog in the script stops the server if this
// process dies without stopping it), and `bash SCRIPT down BASE` stops it by
// PID. The process that started a server stops it at exit; forked children
// (which leave with _exit anyway) never do.
#pragma once

#include <map>
#include <string>

#include "vigilo/common/result.h"

namespace vigilo::store::testing {

struct ScriptServer {
  std::string base;                           // BASE: the server's private directory
  std::map<std::string, std::string> values;  // what `up` printed, key=value
  double startup_seconds = 0;
};

// Starts the server of `script` (a path below the source tree, such as
// "scripts/postgres") under BASE = TMPDIR/vigilo-NAME-PID and registers its
// `down` for this process's exit. The error holds the script's stderr.
Result<ScriptServer> StartScriptServer(const std::string& script, const std::string& name);

// Runs `bash SCRIPT ARGS` (a restart, a stop); its stdout, or an error with
// its stderr.
Result<std::string> RunScript(const std::string& script, const std::string& args);

}  // namespace vigilo::store::testing
