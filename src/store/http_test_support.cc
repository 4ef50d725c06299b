#include "http_test_support.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace vigilo::store::testing {
namespace {

Result<uint16_t> FreeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return IoError("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  ::close(fd);
  if (!ok) return IoError("no free loopback port");
  return ntohs(addr.sin_port);
}

bool CanConnect(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

std::string NginxBinary() {
  for (const char* candidate : {"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"}) {
    if (::access(candidate, X_OK) == 0) return candidate;
  }
  return "nginx";
}

std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string NginxConfig(const std::filesystem::path& dir, const std::filesystem::path& root, uint16_t port) {
  const std::string d = dir.string();
  std::ostringstream c;
  c << "daemon off;\n"
    << "master_process off;\n"
    << "worker_processes 1;\n"
    << "pid " << d << "/nginx.pid;\n"
    << "error_log " << d << "/error.log warn;\n"
    << "events { worker_connections 64; }\n"
    << "http {\n"
    << "  log_format vigilo '$request_method $request_uri \"$http_range\" $status $body_bytes_sent';\n"
    << "  access_log " << d << "/access.log vigilo;\n"
    << "  client_body_temp_path " << d << "/tmp/body;\n"
    << "  proxy_temp_path " << d << "/tmp/proxy;\n"
    << "  fastcgi_temp_path " << d << "/tmp/fastcgi;\n"
    << "  uwsgi_temp_path " << d << "/tmp/uwsgi;\n"
    << "  scgi_temp_path " << d << "/tmp/scgi;\n"
    << "  default_type application/octet-stream;\n"
    << "  types { }\n"
    << "  server {\n"
    << "    listen 127.0.0.1:" << port << ";\n"
    << "    root " << root.string() << ";\n"
    << "    location / { }\n"
    << "  }\n"
    << "}\n";
  return c.str();
}

}  // namespace

Result<std::unique_ptr<NginxServer>> NginxServer::Start(const std::filesystem::path& dir,
                                                         const std::filesystem::path& root) {
  std::filesystem::create_directories(dir / "tmp");
  const std::string binary = NginxBinary();
  std::string last_error;
  for (int tries = 0; tries < 5; ++tries) {
    VIGILO_ASSIGN_OR_RETURN(uint16_t port, FreeLoopbackPort());
    {
      std::ofstream config(dir / "nginx.conf", std::ios::trunc);
      config << NginxConfig(dir, root, port);
    }
    const std::string prefix = dir.string() + "/";
    const std::string conf = (dir / "nginx.conf").string();
    const std::string error_log = (dir / "error.log").string();
    const std::string output = (dir / "nginx.out").string();
    std::vector<const char*> argv = {binary.c_str(), "-p", prefix.c_str(), "-c", conf.c_str(),
                                     "-e", error_log.c_str(), nullptr};
    int out_fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out_fd < 0) return IoError("cannot create " + output);
    const pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) {
      ::close(out_fd);
      return IoError("fork failed");
    }
    if (pid == 0) {
      // Only async-signal-safe calls here. nginx dies with the test process
      // even if the test crashes before stopping it.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::dup2(out_fd, STDOUT_FILENO);
      ::dup2(out_fd, STDERR_FILENO);
      ::execv(argv[0], const_cast<char* const*>(argv.data()));
      ::_exit(127);
    }
    ::close(out_fd);
    auto server = std::unique_ptr<NginxServer>(new NginxServer());
    server->dir_ = dir;
    server->pid_ = pid;
    server->port_ = port;
    for (int wait = 0; wait < 500; ++wait) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        server->pid_ = -1;  // exited: most likely the port was taken meanwhile
        last_error = ReadWholeFile(dir / "error.log") + ReadWholeFile(dir / "nginx.out");
        break;
      }
      if (CanConnect(port)) return server;
      ::usleep(10'000);
    }
    if (server->pid_ > 0) last_error = "nginx did not listen within 5 s";
  }
  return IoError("nginx failed to start: " + last_error);
}

NginxServer::~NginxServer() { Stop(); }

void NginxServer::Stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::string NginxServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }

std::vector<std::string> NginxServer::AccessLog() const {
  std::vector<std::string> lines;
  std::istringstream in(ReadWholeFile(dir_ / "access.log"));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

Result<SharedNginx*> SharedNginx::Get() {
  // Destroyed at exit: stops nginx and removes its directory.
  struct Holder {
    std::unique_ptr<SharedNginx> shared;
    Status status = Status::Ok();
    ~Holder() {
      if (!shared) return;
      shared->server_.reset();
      std::error_code ignored;
      std::filesystem::remove_all(shared->dir_, ignored);
    }
  };
  static Holder* holder = [] {
    static Holder h;
    auto shared = std::make_unique<SharedNginx>();
    shared->dir_ = std::filesystem::temp_directory_path() / ("vigilo-nginx-" + std::to_string(::getpid()));
    std::filesystem::remove_all(shared->dir_);
    std::filesystem::create_directories(shared->dir_ / "root");
    auto server = NginxServer::Start(shared->dir_, shared->dir_ / "root");
    if (!server.ok()) {
      h.status = server.status();
      std::filesystem::remove_all(shared->dir_);
      return &h;
    }
    shared->server_ = std::move(server).value();
    h.shared = std::move(shared);
    return &h;
  }();
  if (!holder->shared) return holder->status;
  return holder->shared.get();
}

Result<std::string> SharedNginx::Serve(const std::filesystem::path& dir) {
  std::lock_guard lock(mu_);
  std::string name = "s" + std::to_string(next_++);
  std::error_code error;
  std::filesystem::create_directory_symlink(std::filesystem::absolute(dir), dir_ / "root" / name, error);
  if (error) return IoError("cannot link " + name + ": " + error.message());
  return server_->base_url() + name + "/";
}

ScriptedResponse Answer(int status, std::string_view reason, std::string body,
                        std::vector<std::string> extra_headers) {
  ScriptedResponse response;
  response.head = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) + "\r\n";
  response.head += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  for (const auto& header : extra_headers) response.head += header + "\r\n";
  response.head += "\r\n";
  response.body = std::move(body);
  return response;
}

FakeHttpServer::FakeHttpServer(std::vector<ScriptedResponse> script) : script_(std::move(script)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::listen(listen_fd_, 16);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) stop_pipe_[0] = stop_pipe_[1] = -1;
  thread_ = std::thread([this] { Serve(); });
}

FakeHttpServer::~FakeHttpServer() {
  char byte = 1;
  (void)!::write(stop_pipe_[1], &byte, 1);
  thread_.join();
  ::close(listen_fd_);
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
}

std::string FakeHttpServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }

std::vector<FakeHttpServer::Request> FakeHttpServer::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

// False when the stop pipe fired or the timeout passed first.
bool FakeHttpServer::WaitReadable(int fd, int timeout_ms) const {
  pollfd fds[2] = {{fd, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
  int n = ::poll(fds, 2, timeout_ms);
  return n > 0 && (fds[1].revents & POLLIN) == 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

void FakeHttpServer::Serve() {
  for (;;) {
    if (!WaitReadable(listen_fd_, -1)) return;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    HandleConnection(fd);
    ::close(fd);
  }
}

void FakeHttpServer::HandleConnection(int fd) {
  std::string buffer;
  for (;;) {
    size_t end;
    while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
      if (!WaitReadable(fd, 10'000)) return;
      char chunk[4096];
      ssize_t n = ::read(fd, chunk, sizeof(chunk));
      if (n <= 0) return;
      buffer.append(chunk, static_cast<size_t>(n));
    }
    std::string head = buffer.substr(0, end);
    buffer.erase(0, end + 4);
    Request request;
    request.request_line = head.substr(0, head.find("\r\n"));
    std::istringstream lines(head);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.size() > 6 && (line.compare(0, 6, "Range:") == 0 || line.compare(0, 6, "range:") == 0)) {
        request.range = line.substr(line.find_first_not_of(' ', 6));
      }
    }
    ScriptedResponse response;
    {
      std::lock_guard lock(mu_);
      requests_.push_back(request);
      response = script_[std::min(next_, script_.size() - 1)];
      ++next_;
    }
    if (response.close_without_answer) return;
    auto send_all = [&](std::string_view bytes) {
      while (!bytes.empty()) {
        ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n <= 0) return false;
        bytes.remove_prefix(static_cast<size_t>(n));
      }
      return true;
    };
    // An answer after which the server closes says so, as a real server does:
    // otherwise the client may send its next request on this connection before
    // it sees the close, and a retry on a new one would take the next answer
    // out of order (a scripted test then sees every later answer shifted by one).
    if (!response.keep_alive && response.head.find("Connection:") == std::string::npos &&
        response.head.ends_with("\r\n\r\n")) {
      response.head.insert(response.head.size() - 2, "Connection: close\r\n");
    }
    if (!send_all(response.head)) return;
    std::string_view body = response.body;
    size_t before = std::min(response.body_bytes_before_stall, body.size());
    if (!send_all(body.substr(0, before))) return;
    if (before < body.size() || response.stall.count() > 0) {
      pollfd stop{stop_pipe_[0], POLLIN, 0};
      if (::poll(&stop, 1, static_cast<int>(response.stall.count())) != 0) return;
      if (response.close_after_stall) return;
      if (!send_all(body.substr(before))) return;
    }
    if (!response.keep_alive) return;
  }
}

}  // namespace vigilo::store::testing
