// control_bench: latency and throughput of the control store's hot
// operations, as N writer processes see them (bench/control.sh runs it).
//
//   control_bench --control LOCATOR --op publish|renew|read --writers N
//                 (--seconds S | --ops K) [--tag TAG]
//
// Each writer is a forked process with its own ControlStore (its own SQLite
// handle or PostgreSQL connection), as separate machines would be. Writers
// set up, wait at a barrier, then repeat the operation until S seconds have
// passed (or K times each):
//   publish  BeginAttempt, RecordKeys (8 keys), PublishRoot under a fresh name:
//            the control-plane part of one dataset ingest;
//   renew    RenewLease of the writer's own attempt;
//   read     GetRoot of one published name (every writer reads the same one).
// Prints one JSON line: writers, ops, seconds, ops_per_s, p50_us, p99_us
// (latency of one whole operation, over every writer's operations).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vigilo/control/control_store.h"
#include "vigilo/control/sqlite_control_store.h"

namespace {

using vigilo::control::ControlStore;
using vigilo::control::Lease;

struct Args {
  std::string control;
  std::string op;
  int writers = 1;
  double seconds = 0;
  long ops = 0;
  std::string tag = "t";
};

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "control_bench: %s\n", message.c_str());
  std::exit(1);
}

Args ParseArgs(int argc, char** argv) {
  Args args;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    std::string value = argv[i + 1];
    if (flag == "--control") args.control = value;
    else if (flag == "--op") args.op = value;
    else if (flag == "--writers") args.writers = std::atoi(value.c_str());
    else if (flag == "--seconds") args.seconds = std::atof(value.c_str());
    else if (flag == "--ops") args.ops = std::atol(value.c_str());
    else if (flag == "--tag") args.tag = value;
    else Die("unknown flag " + flag);
  }
  if (args.control.empty() || args.writers < 1 || (args.seconds <= 0 && args.ops <= 0) ||
      (args.op != "publish" && args.op != "renew" && args.op != "read")) {
    Die("usage: control_bench --control LOCATOR --op publish|renew|read --writers N (--seconds S | --ops K) [--tag TAG]");
  }
  return args;
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

template <typename T>
T Check(vigilo::Result<T> result, const char* what) {
  if (!result.ok()) Die(std::string(what) + ": " + result.status().ToString());
  return std::move(*result);
}
void Check(const vigilo::Status& status, const char* what) {
  if (!status.ok()) Die(std::string(what) + ": " + status.ToString());
}

std::unique_ptr<ControlStore> Open(const std::string& locator) {
  return Check(vigilo::control::OpenControlStore(locator), "open the control store");
}

constexpr vigilo::control::Micros kLease = 600'000'000;  // 10 min: no lease expires during a run

vigilo::control::AttemptSpec Spec(const std::string& name) {
  vigilo::control::AttemptSpec spec;
  spec.name = name;
  spec.store = "bench";
  spec.owner = vigilo::control::ProcessOwner();
  spec.lease_duration = kLease;
  return spec;
}

std::string RootValue(const std::string& name) { return R"({"key":")" + name + R"("})"; }

// The control-plane part of one ingest: an attempt, its keys, its root.
void PublishOnce(ControlStore& control, const std::string& name) {
  Lease lease = Check(control.BeginAttempt(Spec(name)), "BeginAttempt");
  std::vector<std::string> keys;
  for (int k = 0; k < 8; ++k) keys.push_back(lease.key_prefix + "batch-" + std::to_string(k) + ".jsonl");
  Check(control.RecordKeys(lease, keys), "RecordKeys");
  Check(control.PublishRoot(lease, RootValue(name)), "PublishRoot");
}

const std::string kReadName = "bench-read";

// The name every reader reads; published once (a replay is kAlreadyIdentical).
void PublishReadRoot(const std::string& locator) {
  auto control = Open(locator);
  auto current = Check(control->GetRoot(vigilo::control::Namespace::kDatasets, kReadName), "GetRoot");
  if (!current) PublishOnce(*control, kReadName);
}

// One writer process: set up, say ready, wait for go, run, write latencies.
[[noreturn]] void Writer(const Args& args, int index, int ready_fd, int go_fd, const std::string& out_path) {
  auto control = Open(args.control);
  std::string prefix = "bench-" + args.tag + "-w" + std::to_string(index) + "-";
  std::optional<Lease> lease;
  if (args.op == "renew") lease = Check(control->BeginAttempt(Spec(prefix + "renew")), "BeginAttempt");
  char byte = 'r';
  if (write(ready_fd, &byte, 1) != 1) Die("ready pipe");
  if (read(go_fd, &byte, 1) != 0) Die("go pipe");  // returns 0 when the parent closes it

  std::vector<uint32_t> latencies;
  int64_t start = NowMicros();
  int64_t deadline = start + static_cast<int64_t>(args.seconds * 1e6);
  for (long i = 0; args.ops > 0 ? i < args.ops : NowMicros() < deadline; ++i) {
    int64_t t0 = NowMicros();
    if (args.op == "publish") {
      PublishOnce(*control, prefix + std::to_string(i));
    } else if (args.op == "renew") {
      lease = Check(control->RenewLease(*lease, kLease), "RenewLease");
    } else {
      auto root = Check(control->GetRoot(vigilo::control::Namespace::kDatasets, kReadName), "GetRoot");
      if (!root) Die("GetRoot: " + kReadName + " is not published");
    }
    latencies.push_back(static_cast<uint32_t>(NowMicros() - t0));
  }
  int64_t end = NowMicros();
  std::ofstream out(out_path);
  out << end << "\n";
  for (uint32_t l : latencies) out << l << "\n";
  out.close();
  std::_Exit(out ? 0 : 1);
}

uint32_t Percentile(const std::vector<uint32_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t i = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  Args args = ParseArgs(argc, argv);
  if (args.op == "read") PublishReadRoot(args.control);

  char dir_template[] = "/tmp/control_bench.XXXXXX";
  if (mkdtemp(dir_template) == nullptr) Die("mkdtemp");
  std::string dir = dir_template;
  int ready[2], go[2];
  if (pipe(ready) != 0 || pipe(go) != 0) Die("pipe");

  std::vector<pid_t> pids;
  for (int w = 0; w < args.writers; ++w) {
    pid_t pid = fork();
    if (pid < 0) Die("fork");
    if (pid == 0) {
      close(ready[0]);
      close(go[1]);
      Writer(args, w, ready[1], go[0], dir + "/w" + std::to_string(w));
    }
    pids.push_back(pid);
  }
  close(ready[1]);
  close(go[0]);
  for (int w = 0; w < args.writers; ++w) {
    char byte;
    if (read(ready[0], &byte, 1) != 1) {
      // The others would start once this process exits (the go pipe closes): stop them first.
      for (pid_t pid : pids) kill(pid, SIGKILL);
      Die("a writer failed to set up");
    }
  }
  int64_t start = NowMicros();
  close(go[1]);  // go

  bool failed = false;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  if (failed) Die("a writer failed");

  std::vector<uint32_t> all;
  int64_t end = start;
  for (int w = 0; w < args.writers; ++w) {
    std::string path = dir + "/w" + std::to_string(w);
    std::ifstream in(path);
    int64_t writer_end = 0;
    in >> writer_end;
    end = std::max(end, writer_end);
    for (uint32_t l; in >> l;) all.push_back(l);
    std::remove(path.c_str());
  }
  rmdir(dir.c_str());
  std::sort(all.begin(), all.end());
  double seconds = static_cast<double>(end - start) / 1e6;
  std::printf(
      "{\"op\":\"%s\",\"writers\":%d,\"ops\":%zu,\"seconds\":%.3f,\"ops_per_s\":%.1f,\"p50_us\":%u,\"p99_us\":%u}\n",
      args.op.c_str(), args.writers, all.size(), seconds, seconds > 0 ? static_cast<double>(all.size()) / seconds : 0,
      Percentile(all, 0.50), Percentile(all, 0.99));
  return 0;
}
