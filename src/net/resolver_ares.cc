// c-ares implementation of Resolver: one channel per lookup, driven by poll() so that the
// fetch deadline, not c-ares' retry schedule, decides when to give up.
#include <ares.h>
#include <arpa/inet.h>
#include <poll.h>

#include <array>
#include <cstring>
#include <mutex>

#include "core/error_codes.h"
#include "net/resolver.h"

namespace pi_fusion::net {
namespace {

constexpr int kMaxAnswers = 64;

struct QueryState {
  bool done = false;
  int status = ARES_SUCCESS;
  std::vector<url::IpAddress> addresses;
};

void OnA(void* arg, int status, int /*timeouts*/, unsigned char* abuf, int alen) {
  auto* state = static_cast<QueryState*>(arg);
  state->done = true;
  state->status = status;
  if (status != ARES_SUCCESS) return;
  std::array<ares_addrttl, kMaxAnswers> ttls{};
  int count = kMaxAnswers;
  state->status = ares_parse_a_reply(abuf, alen, nullptr, ttls.data(), &count);
  if (state->status != ARES_SUCCESS) return;
  for (int i = 0; i < count; ++i) {
    state->addresses.push_back(url::IpAddress::V4(ntohl(ttls[i].ipaddr.s_addr)));
  }
}

void OnAaaa(void* arg, int status, int /*timeouts*/, unsigned char* abuf, int alen) {
  auto* state = static_cast<QueryState*>(arg);
  state->done = true;
  state->status = status;
  if (status != ARES_SUCCESS) return;
  std::array<ares_addr6ttl, kMaxAnswers> ttls{};
  int count = kMaxAnswers;
  state->status = ares_parse_aaaa_reply(abuf, alen, nullptr, ttls.data(), &count);
  if (state->status != ARES_SUCCESS) return;
  for (int i = 0; i < count; ++i) {
    std::array<uint8_t, 16> bytes{};
    std::memcpy(bytes.data(), &ttls[i].ip6addr, 16);
    state->addresses.push_back(url::IpAddress::V6(bytes));
  }
}

// Waits for socket activity (or c-ares' own retry timer) and lets c-ares process it.
void PumpOnce(ares_channel channel, std::chrono::milliseconds remaining) {
  std::array<ares_socket_t, ARES_GETSOCK_MAXNUM> socks{};
  int bits = ares_getsock(channel, socks.data(), ARES_GETSOCK_MAXNUM);
  std::vector<pollfd> fds;
  for (int i = 0; i < ARES_GETSOCK_MAXNUM; ++i) {
    short events = 0;
    if (ARES_GETSOCK_READABLE(bits, i)) events |= POLLIN;
    if (ARES_GETSOCK_WRITABLE(bits, i)) events |= POLLOUT;
    if (events != 0) fds.push_back(pollfd{socks[i], events, 0});
  }
  timeval max_wait{remaining.count() / 1000, static_cast<long>(remaining.count() % 1000) * 1000};
  timeval tv{};
  timeval* next = ares_timeout(channel, &max_wait, &tv);
  int timeout_ms = static_cast<int>(next->tv_sec * 1000 + next->tv_usec / 1000);
  int ready = poll(fds.data(), fds.size(), timeout_ms);
  if (ready <= 0) {
    ares_process_fd(channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);  // timers only
    return;
  }
  for (const pollfd& p : fds) {
    ares_socket_t r = (p.revents & (POLLIN | POLLERR | POLLHUP)) ? p.fd : ARES_SOCKET_BAD;
    ares_socket_t w = (p.revents & POLLOUT) ? p.fd : ARES_SOCKET_BAD;
    if (r != ARES_SOCKET_BAD || w != ARES_SOCKET_BAD) ares_process_fd(channel, r, w);
  }
}

Status DnsFailure(const std::string& host, int a_status, int aaaa_status) {
  if (a_status == ARES_ENOTFOUND || aaaa_status == ARES_ENOTFOUND) {
    return Status::Error(kDnsFailure, host + " does not exist (NXDOMAIN)");
  }
  if ((a_status == ARES_SUCCESS || a_status == ARES_ENODATA) &&
      (aaaa_status == ARES_SUCCESS || aaaa_status == ARES_ENODATA)) {
    return Status::Error(kDnsFailure, host + " has no A or AAAA records");
  }
  int status = a_status != ARES_SUCCESS ? a_status : aaaa_status;
  return Status::Error(kDnsFailure, "resolving " + host + " failed: " + ares_strerror(status));
}

class AresResolver : public Resolver {
 public:
  explicit AresResolver(std::string servers_csv) : servers_csv_(std::move(servers_csv)) {}

  Result<std::vector<url::IpAddress>> Resolve(const std::string& host,
                                              const Deadline& deadline) override {
    ares_channel channel = nullptr;
    if (Status s = NewChannel(servers_csv_, &channel); !s.ok()) return s;
    QueryState a, aaaa;
    ares_query(channel, host.c_str(), 1 /* C_IN */, 1 /* T_A */, OnA, &a);
    ares_query(channel, host.c_str(), 1 /* C_IN */, 28 /* T_AAAA */, OnAaaa, &aaaa);
    while (!(a.done && aaaa.done) && !deadline.Expired()) PumpOnce(channel, deadline.Remaining());
    bool finished = a.done && aaaa.done;
    ares_destroy(channel);  // runs any pending callbacks (ARES_EDESTRUCTION) while states live
    if (!finished) return Status::Error(kRequestTimeout, "DNS lookup of " + host + " timed out");
    std::vector<url::IpAddress> all = std::move(a.addresses);
    all.insert(all.end(), aaaa.addresses.begin(), aaaa.addresses.end());
    if (all.empty()) return DnsFailure(host, a.status, aaaa.status);
    return all;
  }

  // Errors: invalid_argument, network_error.
  static Status NewChannel(const std::string& servers_csv, ares_channel* channel) {
    ares_options options{};
    options.flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES;
    options.timeout = 2000;  // per try; the fetch deadline bounds the total
    options.tries = 3;
    int rc =
        ares_init_options(channel, &options, ARES_OPT_FLAGS | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES);
    if (rc != ARES_SUCCESS) {
      return Status::Error(kNetworkError, std::string("c-ares init failed: ") + ares_strerror(rc));
    }
    if (!servers_csv.empty()) {
      rc = ares_set_servers_ports_csv(*channel, servers_csv.c_str());
      if (rc != ARES_SUCCESS) {
        ares_destroy(*channel);
        return Status::Error(kInvalidArgument, "invalid DNS server list: " + servers_csv);
      }
    }
    return Status::Ok();
  }

 private:
  std::string servers_csv_;
};

}  // namespace

Result<std::unique_ptr<Resolver>> NewAresResolver(const AresResolverOptions& options) {
  static std::once_flag once;
  static int init_status = ARES_SUCCESS;
  std::call_once(once, [] { init_status = ares_library_init(ARES_LIB_INIT_ALL); });
  if (init_status != ARES_SUCCESS) {
    return Status::Error(kNetworkError, "c-ares library init failed");
  }
  std::string csv;
  for (const std::string& server : options.servers) {
    if (!csv.empty()) csv += ',';
    csv += server;
  }
  // Validate the list once up front so a typo fails before any fetch starts.
  ares_channel probe = nullptr;
  if (Status s = AresResolver::NewChannel(csv, &probe); !s.ok()) return s;
  ares_destroy(probe);
  return std::unique_ptr<Resolver>(std::make_unique<AresResolver>(csv));
}

}  // namespace pi_fusion::net
