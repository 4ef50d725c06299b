// Test servers for the http(s) store: a private nginx (a real static web
// server, its own config and prefix in a temp directory, a free loopback
// port, stopped by its PID) and a scripted misbehaving server (a loopback
// socket thread) for the faults nginx will not produce.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "vigilo/common/result.h"

namespace vigilo::store::testing {

// nginx serving `root` on 127.0.0.1:<free port>, `daemon off`, one process
// (master_process off), access log "METHOD URI RANGE STATUS BYTES" one line
// per request. Stopped (SIGTERM to its PID, then waited for) by Stop or the
// destructor.
class NginxServer {
 public:
  // `dir`: an empty directory for the config, logs, pid and temp paths.
  static Result<std::unique_ptr<NginxServer>> Start(const std::filesystem::path& dir,
                                                    const std::filesystem::path& root);
  ~NginxServer();
  NginxServer(const NginxServer&) = delete;
  NginxServer& operator=(const NginxServer&) = delete;

  void Stop();
  // "http://127.0.0.1:PORT/"
  std::string base_url() const;
  uint16_t port() const { return port_; }
  // The access log's lines so far.
  std::vector<std::string> AccessLog() const;

 private:
  NginxServer() = default;
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
};

// One nginx for the whole test process, started on first use, serving a
// fresh temp root; stopped at exit. Tests publish a directory under it with
// Serve(): a symlink <root>/<name> to `dir`, reachable at base_url() + name + "/".
class SharedNginx {
 public:
  static Result<SharedNginx*> Get();
  Result<std::string> Serve(const std::filesystem::path& dir);
  NginxServer& server() { return *server_; }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<NginxServer> server_;
  std::mutex mu_;
  uint64_t next_ = 0;
};

// One scripted answer of the fake server. It reads a request (up to the
// blank line), records it, sends `head` and `body` (the first
// `body_bytes_before_stall` bytes of it, then nothing for `stall`, then the
// rest unless `close_after_stall`), and closes the connection unless
// `keep_alive`. `close_without_answer` closes as soon as the request is read.
struct ScriptedResponse {
  std::string head;  // status line and headers, ending with the blank line
  std::string body;
  bool close_without_answer = false;
  size_t body_bytes_before_stall = std::string::npos;
  std::chrono::milliseconds stall{0};
  bool close_after_stall = true;
  bool keep_alive = false;
};

// Conveniences for common answers; Content-Length is the body's size.
ScriptedResponse Answer(int status, std::string_view reason, std::string body,
                        std::vector<std::string> extra_headers = {});

// A loopback server answering connections with `script` in order (the last
// entry repeats). Records each request's first line and Range header.
class FakeHttpServer {
 public:
  explicit FakeHttpServer(std::vector<ScriptedResponse> script);
  ~FakeHttpServer();
  FakeHttpServer(const FakeHttpServer&) = delete;
  FakeHttpServer& operator=(const FakeHttpServer&) = delete;

  std::string base_url() const;  // "http://127.0.0.1:PORT/"
  uint16_t port() const { return port_; }
  struct Request {
    std::string request_line;  // "GET /a/b HTTP/1.1"
    std::string range;         // the Range header's value, "" if none
  };
  std::vector<Request> requests() const;

 private:
  void Serve();
  void HandleConnection(int fd);
  bool WaitReadable(int fd, int timeout_ms) const;

  std::vector<ScriptedResponse> script_;
  size_t next_ = 0;
  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  uint16_t port_ = 0;
  mutable std::mutex mu_;
  std::vector<Request> requests_;
  std::thread thread_;
};

}  // namespace vigilo::store::testing
