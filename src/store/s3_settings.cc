#include "s3_settings.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <initializer_list>
#include <string>
#include <utility>

#include "http_transport.h"
#include "json_fields.h"
#include "vigilo/common/file.h"
#include "vigilo/json/value.h"

namespace vigilo::store::s3 {
namespace {

// A credentials file lists a few profiles; anything larger is not one.
constexpr uint64_t kMaxCredentialsFileBytes = 64 << 10;

using json_fields::CheckMembers;
using json_fields::FieldError;
using json_fields::ObjectAt;
using json_fields::StringAt;

bool IsIdentifier(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool IsBucketName(std::string_view b) {
  // S3's rules for new buckets: 3-63 of [a-z0-9.-], a letter or digit at
  // both ends (so a bucket is also a DNS label for virtual addressing).
  if (b.size() < 3 || b.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(b.front()) || !alnum(b.back())) return false;
  for (char c : b) {
    if (!alnum(c) && c != '.' && c != '-') return false;
  }
  return b.find("..") == std::string_view::npos;
}

bool IsRegion(std::string_view r) {
  if (r.empty() || r.size() > 64) return false;
  for (char c : r) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

bool IsVariableName(std::string_view n) {
  if (n.empty() || n.size() > 128 || (n[0] >= '0' && n[0] <= '9')) return false;
  for (char c : n) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// http(s)://host[:port][/]: nothing else (a path, user info, query or
// fragment would end up in signed URLs or logs).
Status ParseEndpoint(std::string_view endpoint, Settings& out, const std::string& path) {
  std::string_view rest;
  if (endpoint.substr(0, 7) == "http://") {
    out.endpoint_scheme = "http";
    rest = endpoint.substr(7);
  } else if (endpoint.substr(0, 8) == "https://") {
    out.endpoint_scheme = "https";
    rest = endpoint.substr(8);
  } else {
    return FieldError(path, "expected an http:// or https:// URL");
  }
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.empty()) return FieldError(path, "the endpoint has no host");
  for (char c : rest) {
    auto u = static_cast<unsigned char>(c);
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '-' || c == ':' || c == '[' || c == ']' || c == '_';
    if (!ok || u >= 0x80) {
      return FieldError(path, "the endpoint is scheme://host[:port] only (no path, user info, query or fragment)");
    }
  }
  out.endpoint_authority = std::string(rest);
  return Status::Ok();
}

Status ParseCredentials(const json::Value& value, Settings& out, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(const json::Object* object, ObjectAt(value, path));
  VIGILO_ASSIGN_OR_RETURN(std::optional<std::string> source_field, StringAt(*object, path, "source"));
  if (!source_field) return FieldError(path + ".source", "missing required field (\"environment\" or \"file\")");
  const std::string source = *std::move(source_field);
  if (source == "environment") {
    out.source = CredentialSource::kEnvironment;
    VIGILO_RETURN_IF_ERROR(CheckMembers(*object, path, {"source"}, {"variables"}));
    if (const json::Value* variables = object->Find("variables")) {
      const std::string vpath = path + ".variables";
      VIGILO_ASSIGN_OR_RETURN(const json::Object* names, ObjectAt(*variables, vpath));
      VIGILO_RETURN_IF_ERROR(
          CheckMembers(*names, vpath, {}, {"access_key_id", "secret_access_key", "session_token"}));
      for (auto [name, target] : {std::pair{"access_key_id", &out.access_key_id_variable},
                                  std::pair{"secret_access_key", &out.secret_access_key_variable},
                                  std::pair{"session_token", &out.session_token_variable}}) {
        VIGILO_ASSIGN_OR_RETURN(std::optional<std::string> given, StringAt(*names, vpath, name));
        if (!given) continue;
        if (!IsVariableName(*given)) {
          return FieldError(vpath + "." + name, "expected an environment variable name ([A-Za-z_][A-Za-z0-9_]*)");
        }
        *target = *given;
      }
    }
    return Status::Ok();
  }
  if (source == "file") {
    out.source = CredentialSource::kFile;
    VIGILO_RETURN_IF_ERROR(CheckMembers(*object, path, {"source", "path"}, {"profile"}));
    VIGILO_ASSIGN_OR_RETURN(std::optional<std::string> file, StringAt(*object, path, "path"));
    if (file->empty() || file->front() != '/') return FieldError(path + ".path", "expected an absolute path");
    if (file->find('\0') != std::string::npos) return FieldError(path + ".path", "the path holds a NUL byte");
    out.credentials_path = *file;
    VIGILO_ASSIGN_OR_RETURN(std::optional<std::string> profile, StringAt(*object, path, "profile"));
    if (profile) {
      if (!IsIdentifier(*profile)) return FieldError(path + ".profile", "expected a profile name ([A-Za-z0-9_-], 1-64)");
      out.profile = *profile;
    }
    return Status::Ok();
  }
  return FieldError(path + ".source",
                    "expected \"environment\" or \"file\" (credentials are never written in the stores config)");
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<Settings> ParseSettings(const StoreEntry& entry, const std::string& path) {
  Settings out;
  // The URL: s3://BUCKET[/PREFIX[/]].
  const std::string url_path = path + ".url";
  std::string_view url = entry.url;
  if (url.size() < 5 || url.substr(0, 5) != "s3://") return FieldError(url_path, "expected s3://BUCKET[/PREFIX]");
  std::string_view rest = url.substr(5);
  const size_t slash = rest.find('/');
  std::string_view bucket = rest.substr(0, slash);
  if (!IsBucketName(bucket)) {
    return FieldError(url_path, "the bucket is not a valid S3 bucket name (3-63 of a-z, 0-9, '.', '-')");
  }
  out.bucket = std::string(bucket);
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash + 1);
    if (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
    if (!prefix.empty()) {
      if (!ValidateStoreKey(prefix).ok()) {
        return FieldError(url_path, "the prefix after the bucket is not a valid key path (docs/format/names.md)");
      }
      out.prefix = std::string(prefix);
    }
  }

  const std::string bpath = path + ".backend";
  if (entry.backend.is_null()) {
    return FieldError(bpath, "missing: an s3:// store needs \"backend\" settings (endpoint, region, credentials)");
  }
  VIGILO_ASSIGN_OR_RETURN(const json::Object* backend, ObjectAt(entry.backend, bpath));
  VIGILO_RETURN_IF_ERROR(
      CheckMembers(*backend, bpath, {"endpoint", "region", "credentials"}, {"addressing", "spool_directory"}));
  VIGILO_ASSIGN_OR_RETURN(std::optional<std::string> endpoint, StringAt(*backend, bpath, "endpoint"));
  VIGILO_RETURN_IF_ERROR(ParseEndpoint(*endpoint, out, bpath + ".endpoint"));
  VIGILO_ASSIGN_OR_RETURN(std::optional<std::string> region, StringAt(*backend, bpath, "region"));
  if (!IsRegion(*region)) return FieldError(bpath + ".region", "expected a region name (a-z, 0-9, '-')");
  out.region = *region;
  VIGILO_ASSIGN_OR_RETURN(std::optional<std::string> addressing, StringAt(*backend, bpath, "addressing"));
  if (addressing) {
    if (*addressing == "virtual") {
      out.virtual_addressing = true;
    } else if (*addressing != "path") {
      return FieldError(bpath + ".addressing", "expected \"path\" or \"virtual\"");
    }
  }
  if (out.virtual_addressing && out.bucket.find('.') != std::string::npos && out.endpoint_scheme == "https") {
    return FieldError(bpath + ".addressing",
                      "a bucket name with '.' cannot be a TLS host name: use \"path\" addressing");
  }
  VIGILO_ASSIGN_OR_RETURN(std::optional<std::string> spool, StringAt(*backend, bpath, "spool_directory"));
  if (spool) {
    if (spool->empty() || spool->front() != '/') return FieldError(bpath + ".spool_directory", "expected an absolute path");
    out.spool_directory = *spool;
  }
  VIGILO_RETURN_IF_ERROR(ParseCredentials(*backend->Find("credentials"), out, bpath + ".credentials"));
  return out;
}

Result<Credentials> ParseCredentialsFile(std::string_view text, std::string_view profile) {
  Credentials out;
  bool in_profile = false;
  bool found = false;
  size_t line_number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = Trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_number;
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') return InvalidFormat("line " + std::to_string(line_number) + ": a malformed section header");
      std::string_view name = Trim(line.substr(1, line.size() - 2));
      if (name.substr(0, 8) == "profile ") name = Trim(name.substr(8));  // the config file's spelling
      in_profile = name == profile;
      found = found || in_profile;
      continue;
    }
    if (!in_profile) continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return InvalidFormat("line " + std::to_string(line_number) + ": expected NAME = VALUE");
    }
    std::string_view name = Trim(line.substr(0, eq));
    std::string_view value = Trim(line.substr(eq + 1));
    if (name == "aws_access_key_id") out.access_key_id = std::string(value);
    if (name == "aws_secret_access_key") out.secret_access_key = std::string(value);
    if (name == "aws_session_token") out.session_token = std::string(value);
  }
  if (!found) return NotFound("the credentials file has no profile " + std::string(profile));
  if (out.access_key_id.empty()) return InvalidFormat("profile " + std::string(profile) + " has no aws_access_key_id");
  if (out.secret_access_key.empty()) {
    return InvalidFormat("profile " + std::string(profile) + " has no aws_secret_access_key");
  }
  return out;
}

Result<Credentials> ResolveCredentials(const Settings& settings, const S3EnvironmentLookup& environment) {
  auto setting = [](Status s, std::string_view field) {
    return Status(s.code(), std::string(s.message()) + " (backend.credentials" + std::string(field) + ")");
  };
  if (settings.source == CredentialSource::kFile) {
    Result<RegularFile> file = OpenRegularFile(settings.credentials_path);
    if (!file.ok()) {
      // The path is the operator's, not a secret, but errors name settings.
      return setting(Status(file.status().code(), "the credentials file cannot be opened: " +
                                                      std::string(file.status().message())),
                     ".path");
    }
    if (file->size > kMaxCredentialsFileBytes) {
      return setting(LimitExceeded("the credentials file is larger than 64 KiB"), ".path");
    }
    std::string text(file->size, '\0');
    size_t got = 0;
    while (got < text.size()) {
      ssize_t n = ::read(file->fd.get(), text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return setting(IoError("the credentials file cannot be read"), ".path");
      got += static_cast<size_t>(n);
    }
    Result<Credentials> parsed = ParseCredentialsFile(text, settings.profile);
    if (!parsed.ok()) return setting(parsed.status(), "");
    return parsed;
  }
  if (!environment) {
    return setting(InvalidArgument("credentials from the environment (" + settings.access_key_id_variable + ", " +
                                   settings.secret_access_key_variable +
                                   ") are not available: this program did not hand the environment to the s3 "
                                   "backend; use {\"source\":\"file\"}"),
                   ".source");
  }
  Credentials out;
  for (auto [name, target, required] :
       {std::tuple{&settings.access_key_id_variable, &out.access_key_id, true},
        std::tuple{&settings.secret_access_key_variable, &out.secret_access_key, true},
        std::tuple{&settings.session_token_variable, &out.session_token, false}}) {
    std::optional<std::string> value = environment(*name);
    if (value && !value->empty()) {
      *target = std::move(*value);
    } else if (required) {
      return setting(InvalidArgument("the environment variable " + *name + " is unset or empty"), ".source");
    }
  }
  return out;
}

std::string ObjectKey(const Settings& settings, std::string_view key) {
  if (settings.prefix.empty()) return std::string(key);
  return settings.prefix + "/" + std::string(key);
}

std::string ObjectUrl(const Settings& settings, std::string_view key) {
  const std::string encoded = http::EncodeKey(ObjectKey(settings, key));
  if (settings.virtual_addressing) {
    return settings.endpoint_scheme + "://" + settings.bucket + "." + settings.endpoint_authority + "/" + encoded;
  }
  return settings.endpoint_scheme + "://" + settings.endpoint_authority + "/" + settings.bucket + "/" + encoded;
}

std::string ErrorCode(std::string_view body) {
  const size_t open = body.find("<Code>");
  if (open == std::string_view::npos) return "";
  const size_t start = open + 6;
  const size_t close = body.find("</Code>", start);
  if (close == std::string_view::npos) return "";
  std::string_view code = body.substr(start, close - start);
  if (code.empty() || code.size() > 64) return "";
  for (char c : code) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.')) return "";
  }
  return std::string(code);
}

Status ClassifyError(int http_status, std::string_view code) {
  std::string what = "HTTP " + std::to_string(http_status);
  if (!code.empty()) what += " " + std::string(code);
  // Transient: the governor retries these.
  if (http_status >= 500 || http_status == 429 || http_status == 408 || code == "SlowDown" ||
      code == "RequestTimeout" || code == "ServiceUnavailable" || code == "InternalError") {
    return Unavailable(what);
  }
  if (http_status == 409) {
    // ConditionalRequestConflict: a concurrent conflicting write; retried
    // (it is not "exists": the 412 path decides that).
    return Unavailable(what + ": a concurrent conflicting request");
  }
  if (code == "XAmzContentSHA256Mismatch" || code == "BadDigest") {
    return Unavailable(what + ": the server received other bytes than were sent");
  }
  if (code == "NoSuchBucket") {
    // Not NotFound: that would read as a missing object (and a Delete would
    // call it done). A missing bucket is a configuration error.
    return IoError(what + ": the bucket does not exist (check the alias's url)");
  }
  if (code == "RequestTimeTooSkewed") {
    return IoError(what + ": this machine's clock differs too much from the server's");
  }
  if (code == "SignatureDoesNotMatch" || code == "InvalidAccessKeyId" || code == "AccessDenied" ||
      code == "AuthorizationHeaderMalformed" || code == "InvalidToken" || code == "ExpiredToken" ||
      http_status == 401 || http_status == 403) {
    return IoError(what + ": the server refused the request's credentials or signature (check backend.credentials "
                          "and backend.region)");
  }
  if (code == "EntityTooLarge") return LimitExceeded(what + ": the object is larger than the server accepts");
  if (http_status == 404) return NotFound(what);
  if (http_status == 416) return OutOfRange(what + ": the range is past the end of the object");
  if (http_status >= 300 && http_status <= 399) {
    return IoError(what + ": redirects are not followed (check backend.endpoint, backend.region and "
                          "backend.addressing)");
  }
  return IoError(what);
}

}  // namespace vigilo::store::s3
