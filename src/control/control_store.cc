#include "vigilo/control/control_store.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <vector>

namespace vigilo::control {

Result<Namespace> Namespace::Named(std::string_view name) {
  auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  bool ok = !name.empty() && name.size() <= 32 && lower(name.front());
  for (char c : name) ok = ok && (lower(c) || (c >= '0' && c <= '9') || c == '_');
  if (!ok) {
    return InvalidArgument("a root namespace is 1-32 of a-z, 0-9 and '_', starting with a letter; got \"" +
                           std::string(name.substr(0, 64)) + "\"");
  }
  return Namespace(std::string(name));
}

Result<Namespace> ParseNamespace(std::string_view text) { return Namespace::Named(text); }

Status ValidateRootName(std::string_view name) {
  if (name.empty() || name.size() > kMaxRootNameChars) {
    return InvalidFormat("a root name is 1-128 characters; got " + std::to_string(name.size()));
  }
  if (name.front() == '.') return InvalidFormat("a root name must not start with '.'");
  for (char c : name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) return InvalidFormat("a root name is made of A-Z, a-z, 0-9, '.', '_' and '-' only");
  }
  return Status::Ok();
}

std::string AttemptKeyPrefix(Namespace ns, std::string_view name, const Uuid& attempt_id, uint32_t generation) {
  return std::string(NamespaceName(ns)) + "/" + std::string(name) + "/attempts/" + attempt_id.ToString() + "/g" +
         std::to_string(generation) + "/";
}

std::optional<AttemptKey> AttemptOfKey(std::string_view key) {
  // <namespace>/<name>/attempts/<uuid>/g<generation>/<rest>
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (int i = 0; i < 5; ++i) {
    const size_t slash = key.find('/', start);
    if (slash == std::string_view::npos) return std::nullopt;
    parts.push_back(key.substr(start, slash - start));
    start = slash + 1;
  }
  if (start >= key.size() || parts[2] != "attempts") return std::nullopt;
  Result<Namespace> ns = Namespace::Named(parts[0]);
  if (!ns.ok() || !ValidateRootName(parts[1]).ok()) return std::nullopt;
  Result<Uuid> id = Uuid::Parse(parts[3]);
  if (!id.ok() || id->ToString() != parts[3]) return std::nullopt;
  std::string_view g = parts[4];
  if (g.size() < 2 || g.size() > 11 || g[0] != 'g' || g[1] == '0') return std::nullopt;
  uint64_t generation = 0;
  for (char c : g.substr(1)) {
    if (c < '0' || c > '9') return std::nullopt;
    generation = generation * 10 + static_cast<uint64_t>(c - '0');
  }
  if (generation > UINT32_MAX) return std::nullopt;
  AttemptKey out{*ns, std::string(parts[1]), *id, static_cast<uint32_t>(generation), ""};
  out.prefix = AttemptKeyPrefix(out.ns, out.name, out.attempt_id, out.generation);
  return out;
}

std::string_view AttemptStateName(AttemptState state) {
  switch (state) {
    case AttemptState::kActive: return "active";
    case AttemptState::kPublished: return "published";
    case AttemptState::kAbandoned: return "abandoned";
  }
  return "?";
}

std::string_view PublishOutcomeName(PublishOutcome outcome) {
  switch (outcome) {
    case PublishOutcome::kPublished: return "published";
    case PublishOutcome::kAlreadyIdentical: return "already_identical";
    case PublishOutcome::kReplaced: return "replaced";
  }
  return "?";
}

std::string AttemptName(const AttemptRef& ref) {
  return ref.attempt_id.ToString() + "/g" + std::to_string(ref.generation);
}

Status ControlStore::RecordKey(const Lease& lease, std::string_view key) {
  std::string one(key);
  return RecordKeys(lease, std::span<const std::string>(&one, 1));
}

std::string ProcessOwner() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::snprintf(host, sizeof host, "unknown-host");
  return std::string(host) + ":" + std::to_string(static_cast<long>(getpid()));
}

Micros SystemWallClock::Now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Status SystemWallClock::SleepFor(Micros duration, const store::CancelToken* cancel) {
  return store::DefaultClock().SleepFor(duration, cancel);
}

store::Clock& DefaultWallClock() {
  static SystemWallClock clock;
  return clock;
}

std::string FormatWallTime(Micros unix_micros) {
  Micros seconds = unix_micros / 1'000'000;
  Micros fraction = unix_micros % 1'000'000;
  if (fraction < 0) {
    fraction += 1'000'000;
    seconds -= 1;
  }
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return std::to_string(unix_micros) + " µs";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(fraction));
  return buf;
}

Status ValidateRunShard(int32_t run_shard) {
  if (run_shard < 0 || run_shard >= kRunShards) {
    return InvalidArgument("a run shard is 0.." + std::to_string(kRunShards - 1) + "; got " +
                           std::to_string(run_shard));
  }
  return Status::Ok();
}

Status ValidateShardRoute(std::string_view route) {
  if (route.empty() || route.size() > kMaxRouteBytes) {
    return InvalidArgument("a route is 1-" + std::to_string(kMaxRouteBytes) + " bytes; got " +
                           std::to_string(route.size()));
  }
  for (size_t i = 0; i < route.size(); ++i) {
    const char c = route[i];
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == ':' || c == '/' || c == '-';
    if (!ok) {
      return InvalidArgument("a route is made of A-Z, a-z, 0-9, '.', '_', ':', '/' and '-' only (byte " +
                             std::to_string(i) + " is not)");
    }
  }
  if (route.find("://") != std::string_view::npos) {
    return InvalidArgument("a route names a worker pool, not a URL: it must not contain \"://\"");
  }
  return Status::Ok();
}

}  // namespace vigilo::control
