#include "http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace fs = std::filesystem;

namespace abdyn_app {
namespace {

const char* contentType(const fs::path& file) {
  static const std::map<std::string, const char*> kTypes = {
      {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},   {".txt", "text/plain; charset=utf-8"},
      {".csv", "text/csv; charset=utf-8"},   {".png", "image/png"}};
  const auto it = kTypes.find(file.extension().string());
  return it == kTypes.end() ? "application/octet-stream" : it->second;
}

void sendAll(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the client went away or timed out: nothing more to do for it
    sent += static_cast<std::size_t>(n);
  }
}

std::string response(int status, const char* reason, const char* type, const std::string& body, bool head) {
  std::ostringstream s;
  s << "HTTP/1.1 " << status << ' ' << reason << "\r\nContent-Type: " << type << "\r\nContent-Length: " << body.size()
    << "\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
  return s.str() + (head ? std::string() : body);
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The answer to one request: a file of root for GET (or HEAD) of its path; 400, 403, 404 or 405 otherwise.
// Paths are percent-decoded and must not step out of root: a segment "..", a backslash or a NUL is
// refused, and so is a file whose real path (symbolic links followed) lies outside root.
std::string answer(const std::string& request, const fs::path& root) {
  const std::size_t line_end = request.find("\r\n");
  std::istringstream line(request.substr(0, line_end));
  std::string method, target, version;
  line >> method >> target >> version;
  const auto error = [&](int status, const char* reason) {
    return response(status, reason, "text/plain; charset=utf-8", std::to_string(status) + " " + reason + "\n", method == "HEAD");
  };
  if (method.empty() || target.empty() || version.compare(0, 5, "HTTP/") != 0) return error(400, "Bad Request");
  if (method != "GET" && method != "HEAD") return error(405, "Method Not Allowed");
  target = target.substr(0, target.find_first_of("?#"));
  std::string path;
  for (std::size_t k = 0; k < target.size(); ++k) {
    if (target[k] == '%') {
      const int hi = k + 2 < target.size() ? hexDigit(target[k + 1]) : -1;
      const int lo = k + 2 < target.size() ? hexDigit(target[k + 2]) : -1;
      if (hi < 0 || lo < 0) return error(400, "Bad Request");
      path += static_cast<char>(16 * hi + lo);
      k += 2;
    } else {
      path += target[k];
    }
  }
  if (path.empty() || path[0] != '/') return error(400, "Bad Request");
  if (path.find('\\') != std::string::npos || path.find('\0') != std::string::npos) return error(403, "Forbidden");
  std::vector<std::string> segments;
  std::stringstream parts(path.substr(1));
  for (std::string segment; std::getline(parts, segment, '/');) {
    if (segment == "..") return error(403, "Forbidden");
    if (!segment.empty() && segment != ".") segments.push_back(segment);
  }
  fs::path file = root;
  for (const std::string& segment : segments) file /= segment;
  std::error_code ec;
  if (fs::is_directory(file, ec)) file /= "index.html";
  const fs::path real = fs::weakly_canonical(file, ec);
  const std::string real_text = real.string();
  const std::string root_text = root.string() + "/";
  if (ec || real_text.compare(0, root_text.size(), root_text) != 0) return error(403, "Forbidden");
  if (!fs::is_regular_file(real, ec)) return error(404, "Not Found");
  std::ifstream in(real, std::ios::binary);
  if (!in) return error(404, "Not Found");
  std::ostringstream body;
  body << in.rdbuf();
  return response(200, "OK", contentType(real), body.str(), method == "HEAD");
}

// The signal that stops the server, 0 while it runs.
volatile std::sig_atomic_t stop_signal = 0;
extern "C" void stopServing(int received) { stop_signal = received; }

}  // namespace

int serve(const std::string& dir, int port) {
  for (const int stopping : {SIGINT, SIGTERM, SIGHUP}) std::signal(stopping, stopServing);
  const fs::path root = fs::canonical(dir);
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0) throw std::runtime_error(std::string("cannot open a socket: ") + std::strerror(errno));
  const int yes = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // this machine only
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) < 0 || ::listen(listener, 16) < 0) {
    const std::string reason = std::strerror(errno);
    ::close(listener);
    throw std::runtime_error("cannot serve on 127.0.0.1:" + std::to_string(port) + ": " + reason +
                             " (choose another --port; 0 picks a free one)");
  }
  socklen_t length = sizeof address;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  std::cout << "serving http://127.0.0.1:" << ntohs(address.sin_port) << "/ (Ctrl-C stops)" << std::endl;

  // Several connections at once (browsers open some in advance and may send nothing on them); each is
  // answered once its request head has arrived, then closed. A connection silent for 10 s is dropped.
  struct Client {
    int fd;
    std::string request;
    int idle_ms;
  };
  std::vector<Client> clients;
  constexpr int kTick = 250;
  constexpr std::size_t kMaxRequest = 16384;
  while (stop_signal == 0) {
    std::vector<pollfd> fds{{listener, POLLIN, 0}};
    for (const Client& c : clients) fds.push_back({c.fd, POLLIN, 0});
    const int ready = ::poll(fds.data(), fds.size(), kTick);
    if (ready < 0 && errno != EINTR) throw std::runtime_error(std::string("poll failed: ") + std::strerror(errno));
    if (ready < 0) continue;  // a signal: the loop's test says whether it stops the server
    std::vector<Client> next;
    for (std::size_t k = 0; k < clients.size(); ++k) {
      Client c = clients[k];
      bool done = false;
      if (fds[k + 1].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buffer[4096];
        const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
        if (n <= 0) {
          done = true;
        } else {
          c.request.append(buffer, static_cast<std::size_t>(n));
          c.idle_ms = 0;
          if (c.request.find("\r\n\r\n") != std::string::npos || c.request.size() > kMaxRequest) {
            const timeval timeout{10, 0};
            ::setsockopt(c.fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
            sendAll(c.fd, c.request.size() > kMaxRequest
                              ? response(431, "Request Header Fields Too Large", "text/plain", "431\n", false)
                              : answer(c.request, root));
            done = true;
          }
        }
      } else if ((c.idle_ms += kTick) > 10000) {
        done = true;
      }
      if (done) {
        ::close(c.fd);
      } else {
        next.push_back(std::move(c));
      }
    }
    clients = std::move(next);
    if (fds[0].revents & POLLIN) {
      const int fd = ::accept(listener, nullptr, nullptr);
      if (fd >= 0) clients.push_back({fd, std::string(), 0});
    }
  }
  for (const Client& c : clients) ::close(c.fd);
  ::close(listener);
  return stop_signal;
}

}  // namespace abdyn_app
