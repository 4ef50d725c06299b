#include "vigilo/engine/cleanup.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace vigilo::engine {
namespace {

// ---------------------------------------------------------------- directories

// The local store's temporary name ".<name>.tmp-<pid>-<16 hex>"
// (store/local_store.cc) → pid.
std::optional<long> TemporaryPid(std::string_view name) {
  const size_t at = name.rfind(".tmp-");
  if (!name.starts_with('.') || at == std::string_view::npos || at < 2) return std::nullopt;
  std::string_view rest = name.substr(at + 5);
  const size_t dash = rest.find('-');
  if (dash == 0 || dash == std::string_view::npos || dash > 10 || rest.size() - dash - 1 != 16) return std::nullopt;
  long pid = 0;
  for (char c : rest.substr(0, dash)) {
    if (c < '0' || c > '9') return std::nullopt;
    pid = pid * 10 + (c - '0');
  }
  for (char c : rest.substr(dash + 1)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  }
  return pid;
}

// Only a process that certainly is gone: kill(pid, 0) fails with ESRCH.
bool ProcessGone(long pid) {
  if (pid <= 1 || pid == static_cast<long>(::getpid())) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// Removes `dir` if it holds nothing but temporary files of dead writers
// (which it removes first). True when the directory is gone.
bool RemoveDirectoryOfDeadTemporaries(const std::string& dir, uint64_t& removed) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  std::vector<std::string> doomed;
  bool only_dead = true;
  while (dirent* entry = ::readdir(d)) {
    std::string_view name(entry->d_name);
    if (name == "." || name == "..") continue;
    std::optional<long> pid = TemporaryPid(name);
    if (!pid || !ProcessGone(*pid)) {
      only_dead = false;
      break;
    }
    doomed.push_back(dir + "/" + std::string(name));
  }
  ::closedir(d);
  if (!only_dead) return false;
  for (const std::string& file : doomed) {
    if (::unlink(file.c_str()) == 0) ++removed;
  }
  if (::rmdir(dir.c_str()) != 0) return false;
  ++removed;
  return true;
}

// A lease expiry no attempt reaches: ExpiredAttempts(store, this) is every
// active attempt on the store.
constexpr store::Micros kNoLaterThanEver = std::numeric_limits<store::Micros>::max();

size_t Depth(const std::string& path) { return static_cast<size_t>(std::count(path.begin(), path.end(), '/')); }

// ---------------------------------------------------------------- stores

// A store of the ledger this host must not open: a directory of another
// host. Reported with what is recorded for it, never drained.
StoreCleanupReport Skipped(control::ControlStore& ledger, const std::string& id, const control::LedgerStore& where) {
  StoreCleanupReport report;
  report.drain.store = id;
  report.drain.skipped = "a directory of the host " + where.host + ": its cleanup runs there";
  Result<uint64_t> remaining = ledger.PendingCleanupKeys(id);
  if (remaining.ok()) report.drain.remaining = *remaining;
  report.drain.status = remaining.status();
  return report;
}

// The settle time still owed to an attempt whose lease expired at
// `expired_at`: a create its writer issued before then may land until the
// settle time has passed since (control::kDefaultAbandonSettle).
store::Micros SettleLeft(store::Micros expired_at, store::Micros now) {
  return std::max<store::Micros>(0, control::kDefaultAbandonSettle - (now - expired_at));
}

// A store to clean: its ids in the ledger (the first names it), the store
// opened for writing (or why not) and its directory here, if any.
struct Target {
  std::vector<std::string> ids;
  Result<store::ResolvedStore> resolved = Internal("not opened");
  std::string local_root;
};

// Every store with work, in the ledger's order: due keys, or active
// attempts whose lease has expired (kept or not). Another host's directory
// comes back as a skipped report instead.
Status EnumerateTargets(Context& context, control::ControlStore& ledger, const CleanupOptions& options,
                        store::Micros now, std::vector<Target>& targets, std::vector<StoreCleanupReport>& skipped) {
  const std::string& host = context.settings().host;
  if (options.store_spec) {
    Target t;
    t.resolved = context.OpenStore(*options.store_spec, store::OpenOptions{.writable = true});
    VIGILO_RETURN_IF_ERROR(t.resolved.status());
    VIGILO_ASSIGN_OR_RETURN(std::string id, control::LedgerStoreId(*options.store_spec, *t.resolved, host));
    t.ids = control::LedgerStoreIdForms(id);
    t.local_root = LocalRootOfStore(context, id);
    targets.push_back(std::move(t));
    return Status::Ok();
  }
  VIGILO_ASSIGN_OR_RETURN(std::vector<std::string> due, ledger.StoresWithDueCleanup());
  VIGILO_ASSIGN_OR_RETURN(std::vector<std::string> expired, ledger.StoresWithExpiredAttempts(now));
  std::set<std::string> ids(due.begin(), due.end());
  ids.insert(expired.begin(), expired.end());
  for (const std::string& id : ids) {
    if (id == control::kNoObjectsStoreId) continue;  // no store to open (AbandonObjectlessAttempts)
    Result<control::LedgerStore> where = control::ParseLedgerStoreId(id);
    if (where.ok() && where->IsAnotherHostsDirectory(host)) {
      skipped.push_back(Skipped(ledger, id, *where));
      continue;
    }
    Target t;
    t.ids = {id};
    Result<std::string> spec = control::StoreSpecForLedgerId(id, host);
    t.resolved = spec.ok() ? context.OpenStore(*spec, store::OpenOptions{.writable = true})
                           : Result<store::ResolvedStore>(spec.status());
    t.local_root = LocalRootOfStore(context, id);
    targets.push_back(std::move(t));
  }
  return Status::Ok();
}

// Keys left after the drains are not due yet (abandoned within the settle
// time): when the first becomes deletable, so the report can say when to
// run cleanup again instead of leaving a bare count.
void NoteWhenDue(control::ControlStore& ledger, const std::string& id, store::Micros now, StoreCleanupReport& report) {
  Result<std::vector<control::AttemptRecord>> awaiting = ledger.AttemptsAwaitingCleanup(id);
  if (!awaiting.ok()) return;
  for (const control::AttemptRecord& a : *awaiting) {
    const store::Micros due = std::max(now, a.cleanup_due_at.value_or(now));
    report.remaining_due_at = std::min(report.remaining_due_at.value_or(due), due);
  }
}

StoreCleanupReport CleanOne(Context& context, control::ControlStore& ledger, Target& target,
                            const CleanupOptions& options, store::Micros now) {
  StoreCleanupReport report;
  control::CleanupReport& drain = report.drain;
  drain.store = target.ids.front();
  if (!target.resolved.ok()) {
    drain.status = target.resolved.status();
    return report;
  }
  store::ObjectStore& objects = *target.resolved->store;
  auto note = [&drain](const Status& s) {
    if (drain.status.ok() && !s.ok()) drain.status = s;
  };
  for (const std::string& id : target.ids) {
    // Expired attempts past the grace become cleanup work now (or once the
    // settle time has passed since their lease expired).
    Result<std::vector<control::AttemptRecord>> expired = ledger.ExpiredAttempts(id, now);
    note(expired.status());
    if (expired.ok()) {
      for (const control::AttemptRecord& a : *expired) {
        const store::Micros kept_until = a.lease_expires_at + options.grace;
        if (kept_until > now) {
          ++report.expired_kept;
          report.kept_until = std::min(report.kept_until.value_or(kept_until), kept_until);
          continue;
        }
        Status abandoned = ledger.AbandonExpired(a.attempt, SettleLeft(a.lease_expires_at, now));
        if (abandoned.ok()) {
          ++report.expired_abandoned;
        } else if (abandoned.code() != StatusCode::kUnavailable && abandoned.code() != StatusCode::kAlreadyExists) {
          note(abandoned);  // unavailable: a rerun resumed it meanwhile; already_exists: it published
        }
      }
    }
    // Drain after drain (each claims a bounded batch) until nothing is due.
    uint64_t remaining = 0;
    std::vector<std::string> deleted;
    for (;;) {
      control::CleanupReport one = control::DrainCleanup(ledger, id, objects, context.governor(), options.cancel);
      drain.claimed += one.claimed;
      drain.deleted += one.deleted;
      deleted.insert(deleted.end(), one.deleted_keys.begin(), one.deleted_keys.end());
      remaining = one.remaining;
      note(one.status);
      if (!one.status.ok() || one.claimed == 0 || one.deleted == 0) break;
      if (options.cancel != nullptr && options.cancel->cancelled()) break;
    }
    drain.remaining += remaining;
    if (remaining > 0) NoteWhenDue(ledger, id, now, report);
    if (!target.local_root.empty() && !deleted.empty()) {
      report.directories_removed += RemoveEmptiedDirectories(target.local_root, deleted, ledger, target.ids);
    }
  }
  return report;
}

Status CheckOptions(const CleanupOptions& options) {
  if (options.grace < 0 || options.grace > kMaxCleanupGrace) {
    return InvalidArgument("the grace period is 0 to 366 days").WithPath("grace");
  }
  return Status::Ok();
}

}  // namespace

std::string LocalRootOfStore(Context& context, std::string_view ledger_store_id) {
  if (std::optional<std::string> dir = control::LocalDirectoryOfLedgerId(ledger_store_id, context.settings().host)) {
    return *dir;
  }
  Result<const store::StoreConfig*> config = context.StoresConfig();
  if (!config.ok()) return "";
  const store::StoreEntry* entry = (*config)->Find(ledger_store_id);
  if (entry != nullptr && entry->scheme == "file") return entry->local_root;
  return "";
}

uint64_t RemoveEmptiedDirectories(const std::string& root, std::span<const std::string> deleted_keys,
                                  control::ControlStore& ledger, std::span<const std::string> store_ids) {
  // Every parent directory of a deleted key inside its attempt's prefix
  // (the prefix's own directories included), and the shared ones above.
  std::set<std::string> own;
  std::map<std::pair<std::string, std::string>, control::Namespace> names;  // (ns, name) → ns
  for (const std::string& key : deleted_keys) {
    std::optional<control::AttemptKey> attempt = control::AttemptOfKey(key);
    if (!attempt) continue;  // not under an attempt prefix: no directory of ours
    const std::string prefix_dir = attempt->prefix.substr(0, attempt->prefix.size() - 1);  // ns/name/attempts/id/gN
    for (std::string dir = key.substr(0, key.rfind('/')); dir.size() >= prefix_dir.size();
         dir = dir.substr(0, dir.rfind('/'))) {
      own.insert(dir);
    }
    own.insert(prefix_dir.substr(0, prefix_dir.rfind('/')));  // ns/name/attempts/id
    names.emplace(std::make_pair(attempt->ns.name(), attempt->name), attempt->ns);
  }
  std::vector<std::string> dirs(own.begin(), own.end());
  std::stable_sort(dirs.begin(), dirs.end(),
                   [](const std::string& a, const std::string& b) { return Depth(a) > Depth(b); });
  uint64_t removed = 0;
  for (const std::string& dir : dirs) {
    const std::string path = root + "/" + dir;
    if (::rmdir(path.c_str()) == 0) {
      ++removed;
    } else if (errno == ENOTEMPTY || errno == EEXIST) {
      (void)RemoveDirectoryOfDeadTemporaries(path, removed);
    }
  }
  // Above a prefix the directories are shared: <ns>/<name>/attempts and
  // <ns>/<name> by the name's attempts, <ns> by the namespace's. A writer
  // records its attempt before it creates a directory, so while the ledger
  // knows no active attempt there on this store, no writer is creating one.
  auto on_this_store = [&store_ids](const control::AttemptRecord& a) {
    if (a.state != control::AttemptState::kActive) return false;
    return std::any_of(store_ids.begin(), store_ids.end(),
                       [&a](const std::string& id) { return control::SameLedgerStore(a.store, id); });
  };
  std::set<std::string> namespaces;
  for (const auto& [key, ns] : names) {
    Result<std::vector<control::AttemptRecord>> attempts = ledger.ListAttempts(ns, key.second);
    if (!attempts.ok() || std::any_of(attempts->begin(), attempts->end(), on_this_store)) continue;
    const std::string name_dir = root + "/" + key.first + "/" + key.second;
    if (::rmdir((name_dir + "/attempts").c_str()) == 0) ++removed;
    if (::rmdir(name_dir.c_str()) == 0) ++removed;
    namespaces.insert(key.first);
  }
  if (namespaces.empty()) return removed;
  for (const std::string& id : store_ids) {
    Result<std::vector<control::AttemptRecord>> active = ledger.ExpiredAttempts(id, kNoLaterThanEver);
    if (!active.ok() || !active->empty()) return removed;
  }
  for (const std::string& ns : namespaces) {
    if (::rmdir((root + "/" + ns).c_str()) == 0) ++removed;
  }
  return removed;
}

// Attempts that write no object (catalog changes) whose lease expired: a
// binder killed between its begin and its publish. Abandoned at once, grace
// or not: they hold no key, so nothing can become cleanup work, and a
// binder that still lives is fenced (it binds again).
Status AbandonObjectlessAttempts(control::ControlStore& ledger, store::Micros now) {
  VIGILO_ASSIGN_OR_RETURN(std::vector<control::AttemptRecord> expired,
                          ledger.ExpiredAttempts(control::kNoObjectsStoreId, now));
  for (const control::AttemptRecord& a : expired) {
    Status s = ledger.AbandonExpired(a.attempt, 0);
    if (!s.ok() && s.code() != StatusCode::kUnavailable && s.code() != StatusCode::kAlreadyExists) return s;
  }
  return Status::Ok();
}

Result<std::vector<StoreCleanupReport>> CleanStores(Context& context, const CleanupOptions& options) {
  VIGILO_RETURN_IF_ERROR(CheckOptions(options));
  VIGILO_RETURN_IF_ERROR(context.StoresConfig().status());
  std::vector<StoreCleanupReport> reports;
  Result<control::ControlStore*> opened = context.ExistingControl();
  if (!opened.ok() && opened.status().code() == StatusCode::kNotFound) return reports;
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * ledger, std::move(opened));
  const store::Micros now = context.wall_clock().Now();
  if (!options.store_spec) VIGILO_RETURN_IF_ERROR(AbandonObjectlessAttempts(*ledger, now));
  std::vector<Target> targets;
  std::vector<StoreCleanupReport> skipped;
  VIGILO_RETURN_IF_ERROR(EnumerateTargets(context, *ledger, options, now, targets, skipped));
  for (Target& target : targets) {
    if (options.cancel != nullptr && options.cancel->cancelled()) break;
    reports.push_back(CleanOne(context, *ledger, target, options, now));
  }
  for (StoreCleanupReport& s : skipped) reports.push_back(std::move(s));
  std::stable_sort(reports.begin(), reports.end(), [](const StoreCleanupReport& a, const StoreCleanupReport& b) {
    return a.drain.store < b.drain.store;
  });
  return reports;
}

Result<CleanupPlan> PlanCleanup(Context& context, const CleanupOptions& options) {
  VIGILO_RETURN_IF_ERROR(CheckOptions(options));
  VIGILO_RETURN_IF_ERROR(context.StoresConfig().status());
  CleanupPlan plan;
  Result<control::ControlStore*> opened = context.ExistingControl();
  if (!opened.ok() && opened.status().code() == StatusCode::kNotFound) return plan;
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * ledger, std::move(opened));
  const store::Micros now = context.wall_clock().Now();
  std::vector<Target> targets;
  VIGILO_RETURN_IF_ERROR(EnumerateTargets(context, *ledger, options, now, targets, plan.stores));
  for (Target& target : targets) {
    if (options.cancel != nullptr && options.cancel->cancelled()) return Cancelled("dry run interrupted");
    StoreCleanupReport report;
    report.drain.store = target.ids.front();
    auto note = [&report](const Status& s) {
      if (report.drain.status.ok() && !s.ok()) report.drain.status = s;
    };
    std::vector<CleanupCandidate> found;
    for (const std::string& id : target.ids) {
      Result<std::vector<control::AttemptRecord>> awaiting = ledger->AttemptsAwaitingCleanup(id);
      note(awaiting.status());
      if (awaiting.ok()) {
        for (control::AttemptRecord& a : *awaiting) {
          CleanupCandidate c{id, std::move(a), "abandoned"};
          c.deletable_at = std::max(now, c.attempt.cleanup_due_at.value_or(now));
          found.push_back(std::move(c));
        }
      }
      Result<std::vector<control::AttemptRecord>> expired = ledger->ExpiredAttempts(id, now);
      note(expired.status());
      if (expired.ok()) {
        for (control::AttemptRecord& a : *expired) {
          const store::Micros kept_until = a.lease_expires_at + options.grace;
          if (kept_until > now) {
            ++report.expired_kept;
            report.kept_until = std::min(report.kept_until.value_or(kept_until), kept_until);
            continue;
          }
          CleanupCandidate c{id, std::move(a), "expired"};
          c.deletable_at = now + SettleLeft(c.attempt.lease_expires_at, now);
          found.push_back(std::move(c));
        }
      }
    }
    // The bytes: each recorded key's object, if it exists (the store is
    // asked per key; nothing is listed).
    for (CleanupCandidate& c : found) {
      if (!target.resolved.ok()) break;
      Result<control::AttemptRecord> keyed = ledger->GetAttempt(c.attempt.attempt);
      note(keyed.status());
      if (!keyed.ok()) continue;
      c.keys = keyed->keys.size();
      for (const std::string& key : keyed->keys) {
        if (options.cancel != nullptr && options.cancel->cancelled()) return Cancelled("dry run interrupted");
        Result<store::ObjectInfo> info = target.resolved->store->Head(key);
        if (info.ok()) {
          ++c.objects;
          c.bytes += info->size;
        } else if (info.status().code() != StatusCode::kNotFound) {
          note(info.status());
        }
      }
    }
    if (!target.resolved.ok()) note(target.resolved.status());
    for (CleanupCandidate& c : found) plan.candidates.push_back(std::move(c));
    plan.stores.push_back(std::move(report));
  }
  std::stable_sort(plan.stores.begin(), plan.stores.end(), [](const StoreCleanupReport& a, const StoreCleanupReport& b) {
    return a.drain.store < b.drain.store;
  });
  return plan;
}

}  // namespace vigilo::engine
