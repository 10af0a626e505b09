#include "url/canonical_url.h"

#include <vector>

#include "core/error_codes.h"
#include "core/utf8.h"
#include "url/punycode.h"
#include "url/url_host.h"

namespace pi_fusion::url {
namespace {

Status Invalid(std::string detail) {
  return Status::Error(kInvalidUrl, "is not a valid http(s) URL: " + std::move(detail));
}

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsUnreserved(unsigned char c) {
  return IsAlpha(static_cast<char>(c)) || IsDigit(static_cast<char>(c)) || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

// Characters that are not valid in a path or query as written and that servers commonly
// misread; they are percent-encoded (non-ASCII bytes too).
bool MustEncode(unsigned char c) {
  static constexpr std::string_view kSet = " \"<>\\^`{|}";
  return c >= 0x80 || kSet.find(static_cast<char>(c)) != std::string_view::npos;
}

// Scheme per RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), ending at the first ':'
// that precedes any '/', '?' or '#'. Returns the length of "scheme" or 0 when there is none.
size_t SchemeLength(std::string_view text) {
  if (text.empty() || !IsAlpha(text[0])) return 0;
  for (size_t i = 1; i < text.size(); ++i) {
    char c = text[i];
    if (c == ':') return i;
    if (!IsAlpha(c) && !IsDigit(c) && c != '+' && c != '-' && c != '.') return 0;
  }
  return 0;
}

Result<std::string> NormalizeEscapes(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '%') {
      if (i + 2 >= text.size() || HexValue(text[i + 1]) < 0 || HexValue(text[i + 2]) < 0) {
        return Invalid("malformed percent escape");
      }
      const auto decoded =
          static_cast<unsigned char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      if (IsUnreserved(decoded)) {
        out += static_cast<char>(decoded);
      } else {
        out += '%';
        out += kHex[decoded >> 4];
        out += kHex[decoded & 0xF];
      }
      i += 2;
    } else if (MustEncode(c)) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// RFC 3986 section 5.2.4, on a path that starts with "/".
std::string RemoveDotSegments(std::string_view path) {
  std::vector<std::string_view> segments;
  size_t start = 1;
  bool trailing_slash = false;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view seg = path.substr(start, slash - start);
    bool last = slash == path.size();
    if (seg == ".") {
      trailing_slash = last;
    } else if (seg == "..") {
      if (!segments.empty()) segments.pop_back();
      trailing_slash = last;
    } else {
      segments.push_back(seg);
      trailing_slash = false;
    }
    start = slash + 1;
  }
  std::string out;
  for (std::string_view seg : segments) {
    out += '/';
    out += seg;
  }
  if (trailing_slash || out.empty()) out += '/';
  return out;
}

Result<int> ParsePort(std::string_view text, int default_port) {
  if (text.empty()) return default_port;
  int value = 0;
  for (char c : text) {
    if (!IsDigit(c)) return Invalid("port is not a number");
    value = value * 10 + (c - '0');
    if (value > 65535) return Invalid("port is out of range");
  }
  if (value == 0) return Invalid("port is out of range");
  return value;
}

// Splits "host[:port]" (host may be a bracketed IPv6 literal).
Status SplitHostPort(std::string_view authority, std::string_view* host, std::string_view* port) {
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return Invalid("malformed IPv6 address");
    *host = authority.substr(0, close + 1);
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return Invalid("malformed host");
    *port = rest.empty() ? rest : rest.substr(1);
    return Status::Ok();
  }
  size_t colon = authority.rfind(':');
  *host = authority.substr(0, colon);
  *port = colon == std::string_view::npos ? std::string_view() : authority.substr(colon + 1);
  return Status::Ok();
}

}  // namespace

std::string CanonicalUrl::HostForUrl() const {
  return ip && !ip->is_v4() ? "[" + host + "]" : host;
}

std::string CanonicalUrl::Origin() const {
  int default_port = scheme == "https" ? 443 : 80;
  std::string out = scheme + "://" + HostForUrl();
  if (port != default_port) out += ":" + std::to_string(port);
  return out;
}

std::string CanonicalUrl::Text() const {
  std::string out = Origin() + path;
  if (query) out += "?" + *query;
  return out;
}

Result<CanonicalUrl> ParseCanonicalUrl(std::string_view input) {
  for (char c : input) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) return Invalid("contains control characters");
  }
  size_t scheme_len = SchemeLength(input);
  if (scheme_len == 0) return Invalid("must be an absolute URL with a scheme");
  CanonicalUrl url;
  for (char c : input.substr(0, scheme_len)) url.scheme += Lower(c);
  if (url.scheme != "http" && url.scheme != "https") {
    return Status::Error(kUnsupportedScheme,
                         "must be an http(s) URL: scheme \"" + url.scheme + "\" is not supported");
  }
  std::string_view rest = input.substr(scheme_len + 1);
  if (rest.substr(0, 2) != "//") return Invalid("missing \"//\" after the scheme");
  rest.remove_prefix(2);
  size_t authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  rest = authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (authority.find('@') != std::string_view::npos) {
    return Status::Error(kInvalidUrl, "must not contain credentials");
  }
  if (authority.find_first_of("\\ ") != std::string_view::npos) {
    return Invalid("host contains invalid characters");
  }
  std::string_view host_text, port_text;
  if (Status s = SplitHostPort(authority, &host_text, &port_text); !s.ok()) return s;
  Result<ParsedHost> host = ParseUrlHost(host_text);
  if (!host.ok()) return host.status();
  url.host = host->host;
  url.ip = host->ip;
  Result<int> port = ParsePort(port_text, url.scheme == "https" ? 443 : 80);
  if (!port.ok()) return port.status();
  url.port = *port;

  rest = rest.substr(0, rest.find('#'));
  size_t question = rest.find('?');
  Result<std::string> path = NormalizeEscapes(rest.substr(0, question));
  if (!path.ok()) return path.status();
  url.path = RemoveDotSegments(path->empty() ? "/" : *path);
  if (question != std::string_view::npos) {
    Result<std::string> query = NormalizeEscapes(rest.substr(question + 1));
    if (!query.ok()) return query.status();
    url.query = *query;
  }
  if (!IsValidUtf8(input)) return Invalid("is not valid UTF-8");
  return url;
}

Result<std::string> ResolveReference(const CanonicalUrl& base, std::string_view reference) {
  while (!reference.empty() && (reference.front() == ' ' || reference.front() == '\t')) {
    reference.remove_prefix(1);
  }
  while (!reference.empty() && (reference.back() == ' ' || reference.back() == '\t')) {
    reference.remove_suffix(1);
  }
  if (SchemeLength(reference) > 0) return std::string(reference);
  if (reference.substr(0, 2) == "//") return base.scheme + ":" + std::string(reference);
  if (reference.empty() || reference.front() == '#') return base.Text();
  if (reference.front() == '/') return base.Origin() + std::string(reference);
  if (reference.front() == '?') return base.Origin() + base.path + std::string(reference);
  std::string directory = base.path.substr(0, base.path.rfind('/') + 1);
  return base.Origin() + directory + std::string(reference);
}

}  // namespace pi_fusion::url
