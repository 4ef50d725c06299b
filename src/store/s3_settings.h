// The s3 backend's sans-IO parts (s3_store.h): an alias entry's settings,
// credential sources, object URLs and the classification of S3 error
// answers. Separate from the store so that tests reach them without a server.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/store/backends.h"
#include "vigilo/store/s3_store.h"

namespace vigilo::store::s3 {

enum class CredentialSource { kEnvironment, kFile };

// One s3:// entry: its URL (s3://BUCKET[/PREFIX]) and its "backend" object
// (docs/format/stores.md). Every string here but the variable names is
// secret: it never reaches an error or a log line.
struct Settings {
  std::string endpoint_scheme;     // "http" or "https"
  std::string endpoint_authority;  // host[:port]
  std::string region;
  bool virtual_addressing = false;  // "addressing": "virtual" (default "path")
  std::string bucket;
  std::string prefix;  // "" or a logical key path without a trailing '/'
  CredentialSource source = CredentialSource::kEnvironment;
  // source "environment": the variables' names.
  std::string access_key_id_variable = "AWS_ACCESS_KEY_ID";
  std::string secret_access_key_variable = "AWS_SECRET_ACCESS_KEY";
  std::string session_token_variable = "AWS_SESSION_TOKEN";
  // source "file": an AWS shared-credentials file (INI) and its profile.
  std::string credentials_path;
  std::string profile = "default";
  // Where streaming writers spool ("" = the system's temporary directory).
  std::string spool_directory;
};

// The entry's URL and backend settings, strictly: unknown members and bad
// values are InvalidFormat naming the field under `path` ("$.stores.ALIAS").
Result<Settings> ParseSettings(const StoreEntry& entry, const std::string& path);

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // "" when none
};

// The credentials the settings name. Errors name the setting and, for the
// environment, the variable (never a value); `environment` may be empty.
Result<Credentials> ResolveCredentials(const Settings& settings, const S3EnvironmentLookup& environment);

// An AWS shared-credentials file's profile: aws_access_key_id,
// aws_secret_access_key and optionally aws_session_token.
Result<Credentials> ParseCredentialsFile(std::string_view text, std::string_view profile);

// The S3 key of a logical key (PREFIX/KEY) and its URL (path-style
// scheme://host/BUCKET/KEY or virtual-hosted scheme://BUCKET.host/KEY),
// every segment percent-encoded as SigV4 signs it.
std::string ObjectKey(const Settings& settings, std::string_view key);
std::string ObjectUrl(const Settings& settings, std::string_view key);

// The <Code> of an S3 XML error body ("" when there is none or it is not a
// plain identifier).
std::string ErrorCode(std::string_view body);

// An S3 error answer as a Status (no path): the HTTP status and the S3 code
// decide the StatusCode; the message names both and what to check, never
// the request's URL or the body's other fields.
Status ClassifyError(int http_status, std::string_view code);

}  // namespace vigilo::store::s3
