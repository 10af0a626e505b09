// The fetcher's decisions, with the DNS, HTTP and clock seams faked: no sockets are opened here
// (the addresses below are never contacted). Process-level tests with real libcurl and c-ares
// against fixtures in a private network namespace live in tests/e2e/fetch.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "json_schema_check.h"
#include "net/fetch_json.h"
#include "net/fetcher.h"
#include "pi_fusion/sha256.h"

namespace net = pi_fusion::net;
namespace url = pi_fusion::url;
using pi_fusion::Result;
using pi_fusion::Status;

namespace {

url::IpAddress Ip(const char* text) { return *url::ParseIpAddress(text); }

// The fetcher reads only Now (its deadline); the rest of the seam is never called.
class FakeClock : public pi_fusion::Clock {
 public:
  TimePoint Now() const override { return now_; }
  WallTimePoint WallNow() const override { return {}; }
  void SleepFor(std::chrono::milliseconds d) const override { now_ += d; }
  void Advance(std::chrono::milliseconds d) { now_ += d; }

 private:
  mutable TimePoint now_{};
};

class FakeResolver : public net::Resolver {
 public:
  explicit FakeResolver(FakeClock& clock) : clock_(clock) {}
  Result<std::vector<url::IpAddress>> Resolve(const std::string& host,
                                              const net::Deadline&) override {
    calls.push_back(host);
    clock_.Advance(delay);
    auto& queue = answers[host];
    if (queue.empty()) return Status::Error("dns_failure", host + " does not exist (NXDOMAIN)");
    auto front = queue.front();
    if (queue.size() > 1) queue.erase(queue.begin());  // the last answer repeats
    return front;
  }
  std::map<std::string, std::vector<std::vector<url::IpAddress>>> answers;
  std::vector<std::string> calls;
  std::chrono::milliseconds delay{0};

 private:
  FakeClock& clock_;
};

class FakeTransport : public net::HttpTransport {
 public:
  Result<net::HttpResponse> Get(const net::HttpRequest& request, const net::Deadline&) override {
    requests.push_back({request.url.Text(), request.address});
    connect_timeouts.push_back(request.connect_timeout);
    if (unreachable.count(request.address.ToString())) {
      return Status::Error(net::kConnectFailed, "Couldn't connect to server");
    }
    if (broken.count(request.address.ToString())) {
      return Status::Error("network_error", "TLS handshake failed");
    }
    auto it = responses.find(request.url.Text());
    if (it == responses.end()) return Status::Error("network_error", "no fixture");
    net::HttpResponse response = it->second;
    if (!response.connected_address) response.connected_address = request.address;
    return response;
  }
  std::map<std::string, net::HttpResponse> responses;
  std::vector<std::pair<std::string, url::IpAddress>> requests;
  std::vector<std::chrono::milliseconds> connect_timeouts;
  std::set<std::string> unreachable;  // addresses that refuse connections
  std::set<std::string> broken;       // addresses that connect, then fail
};

net::HttpResponse Ok(std::string body, std::string type = "text/plain; charset=utf-8") {
  net::HttpResponse r;
  r.status = 200;
  r.content_type = std::move(type);
  r.body = std::move(body);
  return r;
}

net::HttpResponse Redirect(std::string location, int status = 302) {
  net::HttpResponse r;
  r.status = status;
  r.location = std::move(location);
  return r;
}

struct Harness {
  FakeClock clock;
  FakeResolver resolver{clock};
  FakeTransport transport;
  net::Extractor extractor = net::PassThroughExtractor();

  Harness() { resolver.answers["example.com"] = {{Ip("93.184.216.34")}}; }

  Result<net::FetchResult> Fetch(const std::string& u) {
    net::Fetcher fetcher(resolver, transport, clock, extractor);
    return fetcher.Fetch(u, net::ExtractFormat::kMarkdown);
  }
};

std::string CodeOf(const Result<net::FetchResult>& r) { return r.ok() ? "ok" : r.status().code(); }

}  // namespace

TEST_CASE("Fetcher: fetches plain text and reports provenance", "[net]") {
  Harness h;
  h.transport.responses["https://example.com/a"] = Ok("hello");
  auto r = h.Fetch("HTTPS://Example.com:443/a#frag");
  REQUIRE(r.ok());
  CHECK(r->url == "https://example.com/a");
  CHECK(r->final_url == "https://example.com/a");
  CHECK(r->http_status == 200);
  CHECK(r->content_type == "text/plain");
  CHECK(r->response_bytes == 5);
  CHECK(r->content_sha256 == pi_fusion::Sha256Ref("hello"));
  CHECK(r->text == "hello");
  CHECK(r->extracted_bytes == 5);
  CHECK_FALSE(r->truncated);
}

TEST_CASE("Fetcher: pins the transport to the vetted address", "[net]") {
  Harness h;
  h.transport.responses["http://example.com/"] = Ok("x");
  REQUIRE(h.Fetch("http://example.com").ok());
  REQUIRE(h.transport.requests.size() == 1);
  CHECK(h.transport.requests[0].second == Ip("93.184.216.34"));
}

TEST_CASE("Fetcher: refuses a response from an unvetted peer", "[net]") {
  Harness h;
  net::HttpResponse r = Ok("x");
  r.connected_address = Ip("10.0.0.1");
  h.transport.responses["http://example.com/"] = r;
  CHECK(CodeOf(h.Fetch("http://example.com/")) == "network_error");
}

TEST_CASE("Fetcher: refuses a host when any DNS answer is blocked", "[net]") {
  Harness h;
  h.resolver.answers["mixed.example"] = {{Ip("93.184.216.34"), Ip("::1")}};
  auto r = h.Fetch("http://mixed.example/");
  CHECK(CodeOf(r) == "blocked_address");
  CHECK_THAT(r.status().message(), Catch::Contains("::1 is loopback"));
  CHECK(h.transport.requests.empty());
}

TEST_CASE("Fetcher: refuses blocked literals and names before any lookup", "[net]") {
  Harness h;
  CHECK(CodeOf(h.Fetch("http://127.0.0.1/")) == "blocked_address");
  CHECK(CodeOf(h.Fetch("http://[::ffff:127.0.0.1]/")) == "blocked_address");
  CHECK(CodeOf(h.Fetch("http://metadata.google.internal/")) == "blocked_address");
  CHECK(CodeOf(h.Fetch("ftp://example.com/")) == "unsupported_scheme");
  CHECK(CodeOf(h.Fetch("http://u:p@example.com/")) == "invalid_url");
  CHECK(h.resolver.calls.empty());
  CHECK(h.transport.requests.empty());
}

TEST_CASE("Fetcher: refuses the Azure platform address as literal, answer and redirect", "[net]") {
  Harness h;
  h.resolver.answers["azure.example"] = {{Ip("168.63.129.16")}};
  h.transport.responses["http://azure.example/"] = Ok("x");
  h.transport.responses["http://example.com/"] = Redirect("http://azure.example/");
  h.transport.responses["http://example.com/literal"] = Redirect("http://168.63.129.16/");
  auto literal = h.Fetch("http://168.63.129.16/");
  CHECK(CodeOf(literal) == "blocked_address");
  CHECK_THAT(literal.status().message(), Catch::Contains("Azure platform service address"));
  auto answer = h.Fetch("http://azure.example/");
  CHECK(CodeOf(answer) == "blocked_address");
  CHECK_THAT(answer.status().message(), Catch::Contains("168.63.129.16 is the Azure"));
  CHECK(h.transport.requests.empty());
  CHECK(CodeOf(h.Fetch("http://example.com/")) == "redirect_blocked");
  CHECK(CodeOf(h.Fetch("http://example.com/literal")) == "redirect_blocked");
  CHECK(h.transport.requests.size() == 2);  // only the two public first hops
}

TEST_CASE("Fetcher: refuses ISATAP answers that embed a non-public IPv4", "[net]") {
  Harness h;
  h.resolver.answers["isatap.example"] = {{Ip("93.184.216.34"), Ip("2001:4860::5efe:a9fe:a9fe")}};
  auto r = h.Fetch("http://isatap.example/");
  CHECK(CodeOf(r) == "blocked_address");
  CHECK_THAT(r.status().message(), Catch::Contains("169.254.169.254 is link-local"));
  CHECK(h.transport.requests.empty());
}

TEST_CASE("Fetcher: tries a host's public answers in turn until one connects", "[net]") {
  Harness h;
  h.resolver.answers["multi.example"] = {
      {Ip("93.184.216.1"), Ip("93.184.216.2"), Ip("2606:2800:220:1::1")}};
  h.transport.responses["http://multi.example/"] = Ok("served");
  h.transport.unreachable = {"93.184.216.1", "93.184.216.2"};
  auto r = h.Fetch("http://multi.example/");
  REQUIRE(r.ok());
  CHECK(r->text == "served");
  REQUIRE(h.transport.requests.size() == 3);
  CHECK(h.transport.requests[0].second == Ip("93.184.216.1"));
  CHECK(h.transport.requests[1].second == Ip("93.184.216.2"));
  CHECK(h.transport.requests[2].second == Ip("2606:2800:220:1::1"));
  // One deadline: each address may spend only its share of what is left on connecting.
  CHECK(h.transport.connect_timeouts[0] == std::chrono::milliseconds(30'000));
  CHECK(h.transport.connect_timeouts[1] == std::chrono::milliseconds(45'000));
  CHECK(h.transport.connect_timeouts[2] == std::chrono::milliseconds(90'000));
}

TEST_CASE("Fetcher: reports network_error when no answer connects", "[net]") {
  Harness h;
  h.resolver.answers["down.example"] = {{Ip("93.184.216.1"), Ip("93.184.216.2")}};
  h.transport.unreachable = {"93.184.216.1", "93.184.216.2"};
  auto r = h.Fetch("http://down.example/");
  CHECK(CodeOf(r) == "network_error");
  CHECK(r.status().message() ==
        "could not connect to any of the 2 addresses of down.example: Couldn't connect to server");
  CHECK(h.transport.requests.size() == 2);
  h.transport.unreachable = {"93.184.216.34"};
  CHECK(h.Fetch("http://example.com/").status().message() ==
        "could not connect to 93.184.216.34: Couldn't connect to server");
}

TEST_CASE("Fetcher: does not retry other answers after a connected failure", "[net]") {
  Harness h;
  h.resolver.answers["multi.example"] = {{Ip("93.184.216.1"), Ip("93.184.216.2")}};
  h.transport.responses["http://multi.example/"] = Ok("served");
  h.transport.broken = {"93.184.216.1"};
  CHECK(CodeOf(h.Fetch("http://multi.example/")) == "network_error");
  CHECK(h.transport.requests.size() == 1);
}

TEST_CASE("Fetcher: the deadline ends the search for a connecting answer", "[net]") {
  Harness h;
  h.resolver.answers["multi.example"] = {{Ip("93.184.216.1"), Ip("93.184.216.2")}};
  h.resolver.delay = std::chrono::milliseconds(90'001);
  h.transport.responses["http://multi.example/"] = Ok("served");
  CHECK(CodeOf(h.Fetch("http://multi.example/")) == "request_timeout");
  CHECK(h.transport.requests.empty());
}

TEST_CASE("Fetcher: passes DNS failures through", "[net]") {
  Harness h;
  CHECK(CodeOf(h.Fetch("http://missing.example/")) == "dns_failure");
}

TEST_CASE("Fetcher: follows five redirects and refuses a sixth", "[net]") {
  Harness h;
  for (int i = 0; i < 6; ++i) {
    h.transport.responses["http://example.com/r" + std::to_string(i)] =
        Redirect("r" + std::to_string(i + 1), i % 2 ? 301 : 308);
  }
  h.transport.responses["http://example.com/r5"] = Ok("done");
  auto r = h.Fetch("http://example.com/r0");
  REQUIRE(r.ok());
  CHECK(r->url == "http://example.com/r0");
  CHECK(r->final_url == "http://example.com/r5");
  CHECK(h.resolver.calls.size() == 6);  // every hop re-resolved and re-vetted

  h.transport.responses["http://example.com/r5"] = Redirect("/r6");
  h.transport.responses["http://example.com/r6"] = Ok("too far");
  CHECK(CodeOf(h.Fetch("http://example.com/r0")) == "redirect_limit");
}

TEST_CASE("Fetcher: refuses redirects to blocked targets", "[net]") {
  struct Case {
    const char* location;
    const char* message_part;
  };
  for (const Case& c : std::vector<Case>{
           {"http://127.0.0.1/", "127.0.0.1 is loopback"},
           {"http://0x7f.1/", "127.0.0.1 is loopback"},
           {"http://[::ffff:10.0.0.1]/", "IPv4-mapped"},
           {"file:///etc/passwd", "\"file\""},
           {"gopher://example.com/", "\"gopher\""},
           {"http://user:pw@example.com/", "credentials"},
           {"http://localhost:8080/", "localhost"},
           {"http://169.254.169.254/latest/meta-data/", "link-local"},
           {"http://inside.example/", "10.1.2.3 is private"},
           {"http://exa%zzmple.com/", "percent"},
       }) {
    INFO(c.location);
    Harness h;
    h.resolver.answers["inside.example"] = {{Ip("10.1.2.3")}};
    h.transport.responses["http://example.com/"] = Redirect(c.location);
    auto r = h.Fetch("http://example.com/");
    CHECK(CodeOf(r) == "redirect_blocked");
    CHECK_THAT(r.status().message(), Catch::Contains(c.message_part));
    CHECK(h.transport.requests.size() == 1);
  }
}

TEST_CASE("Fetcher: re-vets a host that rebinds between hops", "[net]") {
  Harness h;
  h.resolver.answers["rebind.example"] = {{Ip("93.184.216.34")}, {Ip("127.0.0.1")}};
  h.transport.responses["http://rebind.example/"] = Redirect("/again");
  h.transport.responses["http://rebind.example/again"] = Ok("x");
  auto r = h.Fetch("http://rebind.example/");
  CHECK(CodeOf(r) == "redirect_blocked");
  CHECK(h.transport.requests.size() == 1);
}

TEST_CASE("Fetcher: maps response problems to the spec's codes", "[net]") {
  Harness h;
  net::HttpResponse not_found = Ok("nope", "text/html");
  not_found.status = 404;
  h.transport.responses["http://example.com/404"] = not_found;
  net::HttpResponse huge = Ok(std::string(16, 'x'));
  huge.body_over_limit = true;
  h.transport.responses["http://example.com/huge"] = huge;
  h.transport.responses["http://example.com/json"] = Ok("{}", "application/json");
  h.transport.responses["http://example.com/none"] = Ok("?", "");
  h.transport.responses["http://example.com/md"] = Ok("# hi", "Text/Markdown ; charset=UTF-8");
  h.transport.responses["http://example.com/304"] = Redirect("", 304);

  auto not_found_result = h.Fetch("http://example.com/404");
  CHECK(CodeOf(not_found_result) == "http_error");
  CHECK_THAT(not_found_result.status().message(), Catch::Contains("404"));
  CHECK(CodeOf(h.Fetch("http://example.com/huge")) == "response_too_large");
  CHECK(CodeOf(h.Fetch("http://example.com/json")) == "unsupported_content_type");
  CHECK(CodeOf(h.Fetch("http://example.com/none")) == "unsupported_content_type");
  CHECK(CodeOf(h.Fetch("http://example.com/md")) == "ok");
  CHECK(CodeOf(h.Fetch("http://example.com/304")) == "http_error");
}

TEST_CASE("Fetcher: one deadline spans DNS and extraction", "[net]") {
  Harness h;
  h.transport.responses["http://example.com/"] = Ok("x");
  h.resolver.delay = std::chrono::milliseconds(91'000);
  CHECK(CodeOf(h.Fetch("http://example.com/")) == "request_timeout");
  CHECK(h.transport.requests.empty());

  Harness slow;
  slow.transport.responses["http://example.com/"] = Ok("x");
  slow.extractor = [&slow](std::string_view, std::string_view, net::ExtractFormat) {
    slow.clock.Advance(std::chrono::milliseconds(90'001));
    return Result<net::Extracted>(net::Extracted{"x", false});
  };
  CHECK(CodeOf(slow.Fetch("http://example.com/")) == "request_timeout");
}

TEST_CASE("Fetcher: HTML needs an extractor", "[net]") {
  Harness h;
  h.transport.responses["http://example.com/"] = Ok("<p>hi</p>", "text/html");
  CHECK(CodeOf(h.Fetch("http://example.com/")) == "extraction_failed");
}

TEST_CASE("Fetcher: hands the extractor the full Content-Type for its charset", "[net]") {
  Harness h;
  h.transport.responses["http://example.com/"] = Ok("caf\xE9", "text/html; charset=windows-1252");
  std::string seen;
  h.extractor = [&seen](std::string_view, std::string_view content_type, net::ExtractFormat) {
    seen = std::string(content_type);
    return Result<net::Extracted>(net::Extracted{"café", false});
  };
  auto r = h.Fetch("http://example.com/");
  REQUIRE(r.ok());
  CHECK(seen == "text/html; charset=windows-1252");
  CHECK(r->content_type == "text/html");
}

TEST_CASE("Fetcher: caps extracted output whatever the extractor returns", "[net]") {
  Harness h;
  h.transport.responses["http://example.com/"] = Ok("<p>hi</p>", "text/html");
  h.extractor = [](std::string_view, std::string_view, net::ExtractFormat) {
    return Result<net::Extracted>(
        net::Extracted{std::string(pi_fusion::kMaxExtractedTextBytes + 10, 'a'), false});
  };
  auto r = h.Fetch("http://example.com/");
  REQUIRE(r.ok());
  CHECK(r->extracted_bytes == pi_fusion::kMaxExtractedTextBytes);
  CHECK(r->truncated);
}

TEST_CASE("PassThroughExtractor: truncates at a UTF-8 boundary and repairs bad bytes", "[net]") {
  net::Extractor extract = net::PassThroughExtractor();
  std::string body = std::string(pi_fusion::kMaxExtractedTextBytes - 1, 'a') + "\xC3\xBC" + "tail";
  auto r = extract(body, "text/plain", net::ExtractFormat::kText);
  REQUIRE(r.ok());
  CHECK(r->truncated);
  CHECK(r->text.size() == pi_fusion::kMaxExtractedTextBytes - 1);
  // One U+FFFD per maximal ill-formed subpart, as TextDecoder: the lone FF is one, and so is the
  // cut-off three-byte sequence E2 82.
  auto bad = extract(
      "a\xFF"
      "b\xE2\x82"
      "c",
      "text/markdown", net::ExtractFormat::kMarkdown);
  REQUIRE(bad.ok());
  CHECK(bad->text ==
        "a\xEF\xBF\xBD"
        "b\xEF\xBF\xBD"
        "c");
  CHECK_FALSE(bad->truncated);
}

TEST_CASE("FetchJson: success and failure shapes, as the closed schema has them", "[net]") {
  net::FetchResult ok;
  ok.url = "https://example.com/";
  ok.final_url = ok.url;
  ok.http_status = 200;
  ok.content_type = "text/plain";
  ok.response_bytes = 2;
  ok.content_sha256 = pi_fusion::Sha256Ref("hi");
  ok.extracted_bytes = 2;
  ok.text = "hi";
  const std::string ok_line = url::FetchAnswerLine(net::FetchAnswerOf(ok));
  CHECK(ok_line ==
        "{\"ok\":true,\"url\":\"https://example.com/\",\"final_url\":\"https://example.com/\","
        "\"http_status\":200,\"content_type\":\"text/plain\",\"response_bytes\":2,"
        "\"content_sha256\":\"" +
            pi_fusion::Sha256Ref("hi") +
            "\",\"extracted_bytes\":2,"
            "\"truncated\":false,\"text\":\"hi\"}");
  Result<net::FetchResult> failed = Status::Error("dns_failure", "x does not exist");
  const std::string failed_line = url::FetchAnswerLine(net::FetchAnswerOf(failed));
  CHECK(failed_line ==
        "{\"ok\":false,\"error\":{\"code\":\"dns_failure\",\"message\":\"x does not exist\"}}");
  const nlohmann::json schema = pi_fusion::testing::LoadSourceJson("schemas/cli/fetch-answer.json");
  for (const std::string& line : {ok_line, failed_line}) {
    INFO(line);
    CHECK(pi_fusion::testing::CheckAgainstSchema(schema, nlohmann::json::parse(line)).empty());
  }
}

TEST_CASE("Fetcher: a failure keeps what was learned before it", "[net]") {
  Harness h;
  net::HttpResponse not_found = Ok("nope", "text/html");
  not_found.status = 404;
  h.transport.responses["http://example.com/old"] = Redirect("/new", 301);
  h.transport.responses["http://example.com/new"] = not_found;
  h.transport.responses["http://example.com/bad"] = Redirect("http://127.0.0.1/");
  net::Fetcher fetcher(h.resolver, h.transport, h.clock, h.extractor);

  auto missing = fetcher.Fetch("http://EXAMPLE.com/old", net::ExtractFormat::kText);
  CHECK(CodeOf(missing) == "http_error");
  CHECK(fetcher.trace().url == "http://example.com/old");
  CHECK(fetcher.trace().final_url == "http://example.com/new");
  CHECK(fetcher.trace().http_status == 404);
  CHECK(url::FetchAnswerLine(net::FetchAnswerOf(missing, fetcher.trace())) ==
        "{\"ok\":false,\"error\":{\"code\":\"http_error\",\"message\":\"HTTP status 404\"},"
        "\"url\":\"http://example.com/old\",\"final_url\":\"http://example.com/new\","
        "\"http_status\":404}");

  CHECK(CodeOf(fetcher.Fetch("http://example.com/bad", net::ExtractFormat::kText)) ==
        "redirect_blocked");
  CHECK(fetcher.trace().final_url == "http://example.com/bad");  // the hop that redirected
  CHECK(fetcher.trace().http_status == 302);

  CHECK(CodeOf(fetcher.Fetch("http://127.0.0.1/", net::ExtractFormat::kText)) == "blocked_address");
  CHECK(fetcher.trace().url.empty());  // a refused input is never echoed back
  CHECK(fetcher.trace().http_status == 0);
  CHECK(CodeOf(fetcher.Fetch("http://missing.example/", net::ExtractFormat::kText)) ==
        "dns_failure");
  CHECK(fetcher.trace().url == "http://missing.example/");
  CHECK(fetcher.trace().final_url.empty());
}
