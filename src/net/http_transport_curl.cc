// libcurl implementation of HttpTransport. One easy handle per request: no connection, cookie
// or DNS state survives from one hop to the next, so each hop is pinned on its own.
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>
#include <memory>
#include <mutex>

#include "core/error_codes.h"
#include "net/http_transport.h"
#include "url/source_policy.h"

namespace pi_fusion::net {
namespace {

constexpr char kUserAgent[] = "pi-fusion-fetch/0.1";
constexpr char kAccept[] =
    "Accept: text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,*/*;q=0.1";

struct Transfer {
  const HttpRequest* request = nullptr;
  HttpResponse response;
  bool refused_socket = false;  // curl tried to connect somewhere other than the pinned address
};

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  const size_t room = t->request->max_body_bytes - t->response.body.size();
  if (n > room) {
    t->response.body.append(data, room);
    t->response.body_over_limit = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  t->response.body.append(data, n);
  return n;
}

// The address curl is about to connect to, as an IpAddress, or nullopt for other families.
std::optional<url::IpAddress> SocketAddress(const curl_sockaddr* a) {
  if (a->family == AF_INET) {
    sockaddr_in in{};
    std::memcpy(&in, &a->addr, sizeof(in));
    return url::IpAddress::V4(ntohl(in.sin_addr.s_addr));
  }
  if (a->family == AF_INET6) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, &a->addr, sizeof(in6));
    std::array<uint8_t, 16> bytes{};
    std::memcpy(bytes.data(), &in6.sin6_addr, 16);
    return url::IpAddress::V6(bytes);
  }
  return std::nullopt;
}

// Last line of defence for pinning: whatever curl resolved, it may open a socket only to the
// vetted address, and only while that address still passes the address policy.
curl_socket_t OnOpenSocket(void* user, curlsocktype purpose, curl_sockaddr* address) {
  auto* t = static_cast<Transfer*>(user);
  std::optional<url::IpAddress> target = SocketAddress(address);
  if (purpose != CURLSOCKTYPE_IPCXN || !target || !(*target == t->request->address) ||
      !url::CheckTransportAddress(*target).ok()) {
    t->refused_socket = true;
    return CURL_SOCKET_BAD;
  }
  return socket(address->family, address->socktype, address->protocol);
}

std::string HeaderValue(CURL* curl, const char* name) {
  curl_header* header = nullptr;
  if (curl_easy_header(curl, name, 0, CURLH_HEADER, -1, &header) != CURLHE_OK) return "";
  return header->value;
}

void ConfigureHygiene(CURL* curl) {
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_PROXY, "");  // "" disables proxies, including *_proxy vars
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(curl, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_IGNORED));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // every decoder libcurl has
  curl_easy_setopt(curl, CURLOPT_USERAGENT, kUserAgent);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
}

bool Connected(CURL* curl) {
  curl_off_t connect_us = 0;
  return curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_us) == CURLE_OK &&
         connect_us > 0;
}

Status MapCurlError(CURL* curl, CURLcode code, const Transfer& t, const Deadline& deadline,
                    const char* detail) {
  if (t.refused_socket) {
    return Status::Error(kNetworkError, "refused to connect to an address that was not vetted");
  }
  std::string message = curl_easy_strerror(code);
  if (detail[0] != '\0') message += std::string(": ") + detail;
  const bool connect_timeout = code == CURLE_OPERATION_TIMEDOUT && !Connected(curl);
  if (code == CURLE_OPERATION_TIMEDOUT && (deadline.Expired() || !connect_timeout)) {
    return Status::Error(kRequestTimeout, "fetch deadline exceeded during transfer");
  }
  if (code == CURLE_COULDNT_CONNECT || connect_timeout) {
    return Status::Error(kConnectFailed, message);
  }
  return Status::Error(kNetworkError, message);
}

class CurlTransport : public HttpTransport {
 public:
  Result<HttpResponse> Get(const HttpRequest& request, const Deadline& deadline) override {
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
    if (!curl) return Status::Error(kNetworkError, "curl_easy_init failed");
    Transfer t;
    t.request = &request;
    const bool v4 = request.address.is_v4();
    const std::string address = request.address.ToString();
    // Pins the host name to the vetted address so libcurl never resolves it.
    const std::string pin = request.url.host + ":" + std::to_string(request.url.port) + ":" +
                            (v4 ? address : "[" + address + "]");
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> resolve(
        curl_slist_append(nullptr, pin.c_str()), curl_slist_free_all);
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(
        curl_slist_append(nullptr, kAccept), curl_slist_free_all);
    char error[CURL_ERROR_SIZE] = {0};
    const std::string target = request.url.Text();
    CURL* c = curl.get();
    ConfigureHygiene(c);
    curl_easy_setopt(c, CURLOPT_URL, target.c_str());
    if (!request.url.ip) curl_easy_setopt(c, CURLOPT_RESOLVE, resolve.get());
    curl_easy_setopt(c, CURLOPT_IPRESOLVE, v4 ? CURL_IPRESOLVE_V4 : CURL_IPRESOLVE_V6);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, OnOpenSocket);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &t);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
    const long timeout_ms = static_cast<long>(deadline.Remaining().count());
    if (timeout_ms <= 0) return Status::Error(kRequestTimeout, "fetch deadline exceeded");
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    const long connect_ms = static_cast<long>(request.connect_timeout.count());
    if (connect_ms > 0 && connect_ms < timeout_ms) {
      curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
    }
    CURLcode code = curl_easy_perform(c);
    if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && t.response.body_over_limit)) {
      return MapCurlError(c, code, t, deadline, error);
    }
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    t.response.status = static_cast<int>(status);
    char* primary_ip = nullptr;
    if (curl_easy_getinfo(c, CURLINFO_PRIMARY_IP, &primary_ip) == CURLE_OK && primary_ip) {
      t.response.connected_address = url::ParseIpAddress(primary_ip);
    }
    t.response.content_type = HeaderValue(c, "Content-Type");
    t.response.location = HeaderValue(c, "Location");
    return std::move(t.response);
  }
};

}  // namespace

std::unique_ptr<HttpTransport> NewCurlTransport() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  return std::make_unique<CurlTransport>();
}

}  // namespace pi_fusion::net
