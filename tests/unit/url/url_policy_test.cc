// Table-driven tests of CanonicalizeDeclaredSource: every address class, every numeric-literal
// trick, credentials, schemes, IDNA and percent-encoding. Each row is named for the behaviour it
// pins; a failure prints that name.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "url/source_policy.h"

namespace {

using pi_fusion::url::CanonicalizeDeclaredSource;

struct Row {
  const char* behaviour;
  std::string input;
  const char* code;  // "" when accepted
  const char* canonical_or_message_part;
};

const std::vector<Row>& Rows() {
  static const std::vector<Row> rows = {
      // --- canonical forms ---
      {"lowercases scheme and host, drops default port and fragment",
       "HTTPS://Example.COM:443/a?q=1#frag", "", "https://example.com/a?q=1"},
      {"turns an empty path into /", "http://example.com", "", "http://example.com/"},
      {"drops port 80 for http", "http://example.com:80/", "", "http://example.com/"},
      {"keeps port 80 for https", "https://example.com:80/", "", "https://example.com:80/"},
      {"keeps port 443 for http", "http://example.com:443/", "", "http://example.com:443/"},
      {"keeps a non-default port", "http://example.com:8080/x", "", "http://example.com:8080/x"},
      {"treats an empty port as default", "http://example.com:/", "", "http://example.com/"},
      {"reads leading zeros in the port", "http://example.com:0080/", "", "http://example.com/"},
      {"drops the trailing dot of a host", "http://EXAMPLE.com./", "", "http://example.com/"},
      {"removes dot segments", "http://example.com/a/./b/../c", "", "http://example.com/a/c"},
      {"removes percent-encoded dot segments", "http://example.com/a/%2e%2E/b", "",
       "http://example.com/b"},
      {"never climbs above the root", "http://example.com/../../x", "", "http://example.com/x"},
      {"keeps a trailing slash", "http://example.com/a/b/", "", "http://example.com/a/b/"},
      {"decodes escapes of unreserved characters", "http://example.com/%7euser", "",
       "http://example.com/~user"},
      {"uppercases reserved escapes and keeps them encoded", "http://example.com/a%2fb", "",
       "http://example.com/a%2Fb"},
      {"encodes a space in the path", "http://example.com/a b", "", "http://example.com/a%20b"},
      {"encodes non-ASCII in the path", "http://example.com/\xC3\xBC", "",
       "http://example.com/%C3%BC"},
      {"encodes a space in the query", "http://example.com/?q=a b", "",
       "http://example.com/?q=a%20b"},
      {"encodes a backslash in the path", "http://example.com/a\\b", "",
       "http://example.com/a%5Cb"},
      {"keeps an empty query", "http://example.com/?", "", "http://example.com/?"},
      {"strips a fragment without a path", "http://example.com#frag", "", "http://example.com/"},
      {"strips only the fragment", "http://example.com/a?b#c?d", "", "http://example.com/a?b"},
      {"drops port 443 for https without a path", "https://example.com:443", "",
       "https://example.com/"},
      {"allows underscores in host labels", "http://sub_domain.example.com/", "",
       "http://sub_domain.example.com/"},
      {"decodes a percent-encoded host", "http://%65xample.com/", "", "http://example.com/"},
      {"keeps an existing A-label", "http://xn--bcher-kva.example/", "",
       "http://xn--bcher-kva.example/"},
      // --- IDNA ---
      {"converts a Latin-1 host to punycode",
       "http://b\xC3\xBC"
       "cher.example/",
       "", "http://xn--bcher-kva.example/"},
      {"lowercases before punycode",
       "http://B\xC3\x9C"
       "CHER.example/",
       "", "http://xn--bcher-kva.example/"},
      {"converts a German host", "http://m\xC3\xBCnchen.de/", "", "http://xn--mnchen-3ya.de/"},
      {"keeps sharp s (IDNA2008)",
       "http://stra\xC3\x9F"
       "e.de/",
       "", "http://xn--strae-oqa.de/"},
      {"converts Cyrillic labels",
       "http://\xD0\xBF\xD1\x80\xD0\xB8\xD0\xBC\xD0\xB5\xD1\x80.\xD1\x80\xD1\x84/", "",
       "http://xn--e1afmkfd.xn--p1ai/"},
      {"lowercases Cyrillic capitals",
       "http://\xD0\x9F\xD0\xA0\xD0\x98\xD0\x9C\xD0\x95\xD0\xA0.\xD1\x80\xD1\x84/", "",
       "http://xn--e1afmkfd.xn--p1ai/"},
      {"converts Japanese labels",
       "http://\xE4\xBE\x8B\xE3\x81\x88.\xE3\x83\x86\xE3\x82\xB9\xE3\x83\x88/", "",
       "http://xn--r8jz45g.xn--zckzah/"},
      {"converts Hangul labels", "http://\xED\x95\x9C\xEA\xB5\xAD.kr/", "",
       "http://xn--3e0b707e.kr/"},
      {"converts CJK ideographs", "http://\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E.jp/", "",
       "http://xn--wgv71a119e.jp/"},
      {"lowercases Greek capitals with tonos",
       "http://\xCE\x95\xCE\x9B\xCE\x9B\xCE\x97\xCE\x9D\xCE\x99\xCE\x9A\xCE\x86.gr/", "",
       "http://xn--hxargifdar.gr/"},
      {"lowercases Latin Extended-A pairs", "http://\xC4\x80\xC4\x82\xC4\x84.com/", "",
       "http://xn--ydaeg.com/"},
      {"lowercases odd-upper Latin Extended-A", "http://\xC5\xB9\xC5\xBB\xC5\xBD.com/", "",
       "http://xn--fhaeg.com/"},
      {"maps capital Y with diaeresis", "http://\xC3\xBF\xC5\xB8.com/", "", "http://xn--wdaa.com/"},
      {"mixes ASCII and non-ASCII in a label",
       "http://\xC3\xB1"
       "and\xC3\xBA.com/",
       "", "http://xn--and-6ma2c.com/"},
      {"refuses full-width letters", "http://\xEF\xBD\x85\xEF\xBD\x98.com/", "invalid_url",
       "cannot be converted"},
      {"refuses full-width digits posing as IPv4",
       "http://\xEF\xBC\x91\xEF\xBC\x92\xEF\xBC\x97.0.0.1/", "invalid_url", "cannot be converted"},
      {"refuses the ideographic full stop",
       "http://example\xE3\x80\x82"
       "com/",
       "invalid_url", "cannot be converted"},
      {"refuses a zero-width space", "http://exa\xE2\x80\x8Bmple.com/", "invalid_url",
       "cannot be converted"},
      {"refuses combining marks", "http://e\xCC\x81xample.com/", "invalid_url",
       "cannot be converted"},
      {"refuses dotted capital I", "http://\xC4\xB0stanbul.tr/", "invalid_url",
       "cannot be converted"},
      {"refuses invalid UTF-8 in the host", "http://a\xFF.com/", "invalid_url", "UTF-8"},
      {"refuses invalid UTF-8 in the path", "http://example.com/\xC3", "invalid_url", "UTF-8"},
      {"refuses a label longer than 63 bytes", "http://" + std::string(64, 'a') + ".com/",
       "invalid_url", "63"},
      {"refuses a host longer than 253 bytes",
       "http://" + std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') +
           "." + std::string(63, 'd') + ".com/",
       "invalid_url", "253"},
      // --- credentials ---
      {"rejects user and password", "https://user:secret@example.com/", "invalid_url",
       "must not contain credentials"},
      {"rejects a user name", "https://user@example.com/", "invalid_url", "credentials"},
      {"rejects an empty userinfo", "https://@example.com/", "invalid_url", "credentials"},
      {"rejects an empty user and password", "https://:@example.com/", "invalid_url",
       "credentials"},
      {"rejects host confusion through userinfo", "http://example.com@127.0.0.1/", "invalid_url",
       "credentials"},
      {"rejects encoded at-signs in userinfo", "http://a%40b@example.com/", "invalid_url",
       "credentials"},
      {"rejects backslash userinfo tricks", "http://example.com\\@evil.com/", "invalid_url",
       "credentials"},
      // --- schemes ---
      {"rejects ftp", "ftp://example.com/", "unsupported_scheme", "\"ftp\""},
      {"rejects file", "file:///etc/passwd", "unsupported_scheme", "\"file\""},
      {"rejects javascript", "javascript:alert(1)", "unsupported_scheme", "\"javascript\""},
      {"rejects data", "data:text/html,hi", "unsupported_scheme", "\"data\""},
      {"rejects websockets", "ws://example.com/", "unsupported_scheme", "\"ws\""},
      {"rejects gopher", "gopher://example.com/", "unsupported_scheme", "\"gopher\""},
      {"rejects look-alike schemes", "HTTPX://example.com/", "unsupported_scheme", "\"httpx\""},
      // --- malformed ---
      {"rejects the empty string", "", "invalid_url", "absolute"},
      {"rejects a bare host", "example.com", "invalid_url", "absolute"},
      {"rejects a scheme-relative URL", "//example.com/", "invalid_url", "absolute"},
      {"rejects a path", "/path", "invalid_url", "absolute"},
      {"rejects a missing authority", "http:example.com", "invalid_url", "//"},
      {"rejects a single slash", "http:/example.com", "invalid_url", "//"},
      {"rejects an empty host with path", "http:///example.com", "invalid_url", "missing host"},
      {"rejects an empty host", "http://", "invalid_url", "missing host"},
      {"rejects a port without host", "http://:80/", "invalid_url", "missing host"},
      {"rejects an out-of-range port", "http://example.com:99999/", "invalid_url", "port"},
      {"rejects port zero", "http://example.com:0/", "invalid_url", "port"},
      {"rejects a non-numeric port", "http://example.com:8a/", "invalid_url", "port"},
      {"rejects a space in the host", "http://exa mple.com/", "invalid_url", "invalid characters"},
      {"rejects a malformed escape in the path", "http://example.com/%zz", "invalid_url",
       "percent"},
      {"rejects a truncated escape", "http://example.com/%4", "invalid_url", "percent"},
      {"rejects a malformed escape in the host", "http://exa%zzmple.com/", "invalid_url",
       "percent"},
      {"rejects a tab", "http://exa\tmple.com/", "invalid_url", "control"},
      {"rejects a newline", "http://example.com/\n", "invalid_url", "control"},
      {"rejects a NUL", std::string("http://example.com/\0x", 21), "invalid_url", "control"},
      {"rejects empty labels", "http://a..b.com/", "invalid_url", "empty label"},
      {"rejects two trailing dots", "http://example.com../", "invalid_url", "empty label"},
      {"rejects an encoded dot host", "http://%2e/", "invalid_url", "empty label"},
      {"rejects forbidden host characters", "http://ex<ample.com/", "invalid_url",
       "invalid characters"},
      {"rejects encoded forbidden host characters", "http://ex%3Cample.com/", "invalid_url",
       "invalid characters"},
      {"rejects an IPv6 zone id", "http://[fe80::1%25eth0]/", "invalid_url", "zone"},
      {"rejects a raw IPv6 zone id", "http://[fe80::1%eth0]/", "invalid_url", "zone"},
      {"rejects an unterminated IPv6 literal", "http://[::1/", "invalid_url", "IPv6"},
      {"rejects nine IPv6 groups", "http://[1:2:3:4:5:6:7:8:9]/", "invalid_url", "IPv6"},
      {"rejects two IPv6 compressions", "http://[1::2::3]/", "invalid_url", "IPv6"},
      {"rejects IPvFuture", "http://[v1.abc]/", "invalid_url", "IPv6"},
      {"rejects an unbracketed IPv6 literal", "http://::1/", "invalid_url", ""},
      {"rejects an IPv6 group over four digits", "http://[12345::1]/", "invalid_url", "IPv6"},
      {"rejects leading zeros in embedded IPv4", "http://[::ffff:127.0.0.01]/", "invalid_url",
       "IPv6"},
      {"rejects five IPv4 parts", "http://1.2.3.4.5/", "invalid_url", "IPv4"},
      {"rejects an IPv4 part over 255", "http://256.1.1.1/", "invalid_url", "IPv4"},
      {"rejects a last IPv4 part over 255", "http://1.2.3.256/", "invalid_url", "IPv4"},
      {"rejects a decimal host beyond 32 bits", "http://4294967296/", "invalid_url", "IPv4"},
      {"rejects a hex host beyond 32 bits", "http://0x100000000/", "invalid_url", "IPv4"},
      {"rejects invalid octal digits", "http://08.0.0.1/", "invalid_url", "IPv4"},
      {"rejects a numeric last label after a name", "http://example.123/", "invalid_url", "IPv4"},
      // --- host names ---
      {"rejects localhost", "http://localhost/", "blocked_address", "localhost is a local"},
      {"rejects uppercase localhost", "http://LOCALHOST:8080/", "blocked_address", "local host"},
      {"rejects localhost with a trailing dot", "http://localhost./", "blocked_address",
       "local host"},
      {"rejects subdomains of localhost", "http://api.localhost/", "blocked_address", ".localhost"},
      {"rejects localhost.localdomain", "http://localhost.localdomain/", "blocked_address",
       "local host"},
      {"rejects ip6-localhost", "http://ip6-localhost/", "blocked_address", "local host"},
      {"rejects the GCE metadata name", "http://metadata.google.internal/computeMetadata/v1/",
       "blocked_address", "metadata"},
      {"rejects the short metadata name", "http://metadata/", "blocked_address", "metadata"},
      {"rejects the AWS instance-data name", "http://instance-data/latest/", "blocked_address",
       "metadata"},
      {"rejects the Azure metadata name", "http://metadata.azure.com/", "blocked_address",
       "metadata"},
      {"rejects mDNS names", "http://printer.local/", "blocked_address", ".local"},
      {"rejects .internal names", "http://svc.internal/", "blocked_address", ".internal"},
      {"rejects home.arpa names", "http://router.home.arpa/", "blocked_address", ".home.arpa"},
      {"rejects single-label names", "http://intranet/", "blocked_address", "fully qualified"},
      {"accepts names that merely contain localhost", "http://localhost.example.com/", "",
       "http://localhost.example.com/"},
      // --- IPv4 numeric tricks, all loopback ---
      {"rejects loopback", "http://127.0.0.1/", "blocked_address",
       "must be a public http(s) URL: 127.0.0.1 is loopback"},
      {"rejects short-form loopback 127.1", "http://127.1/", "blocked_address", "127.0.0.1"},
      {"rejects short-form loopback 127.0.1", "http://127.0.1/", "blocked_address", "127.0.0.1"},
      {"rejects decimal loopback", "http://2130706433/", "blocked_address", "127.0.0.1"},
      {"rejects octal loopback", "http://0177.0.0.1/", "blocked_address", "127.0.0.1"},
      {"rejects hex short-form loopback", "http://0x7f.1/", "blocked_address", "127.0.0.1"},
      {"rejects whole hex loopback", "http://0x7f000001/", "blocked_address", "127.0.0.1"},
      {"rejects uppercase hex loopback", "http://0X7F.0.0.1/", "blocked_address", "127.0.0.1"},
      {"rejects whole octal loopback", "http://017700000001/", "blocked_address", "127.0.0.1"},
      {"rejects loopback with a trailing dot", "http://127.0.0.1./", "blocked_address",
       "127.0.0.1"},
      {"rejects percent-encoded loopback", "http://%31%32%37.0.0.1/", "blocked_address",
       "127.0.0.1"},
      {"rejects loopback with a port", "http://127.0.0.1:8080/", "blocked_address", "loopback"},
      {"rejects other loopback addresses", "http://127.255.255.254/", "blocked_address",
       "loopback"},
      {"rejects hex metadata address", "http://0xa9.0xfe.0xa9.0xfe/", "blocked_address",
       "169.254.169.254 is link-local"},
      {"rejects decimal metadata address", "http://2852039166/", "blocked_address",
       "169.254.169.254"},
      {"rejects the empty hex host as 0.0.0.0", "http://0x/", "blocked_address", "0.0.0.0"},
      // --- IPv4 classes ---
      {"rejects the unspecified address", "http://0.0.0.0/", "blocked_address", "unspecified"},
      {"rejects a bare zero host", "http://0/", "blocked_address", "unspecified"},
      {"rejects this-network addresses", "http://0.1.2.3/", "blocked_address", "this network"},
      {"rejects 10/8", "http://10.0.0.1/", "blocked_address", "RFC 1918"},
      {"rejects the top of 10/8", "http://10.255.255.255/", "blocked_address", "RFC 1918"},
      {"rejects 172.16/12", "http://172.16.0.1/", "blocked_address", "RFC 1918"},
      {"rejects the top of 172.16/12", "http://172.31.255.255/", "blocked_address", "RFC 1918"},
      {"rejects 192.168/16", "http://192.168.0.1/", "blocked_address", "RFC 1918"},
      {"rejects the top of 192.168/16", "http://192.168.255.255/", "blocked_address", "RFC 1918"},
      {"rejects CGNAT", "http://100.64.0.1/", "blocked_address", "CGNAT"},
      {"rejects the top of CGNAT", "http://100.127.255.255/", "blocked_address", "CGNAT"},
      {"rejects the metadata link-local address", "http://169.254.169.254/", "blocked_address",
       "link-local"},
      {"rejects link-local", "http://169.254.0.1/", "blocked_address", "link-local"},
      {"rejects multicast", "http://224.0.0.1/", "blocked_address", "multicast"},
      {"rejects SSDP multicast", "http://239.255.255.250/", "blocked_address", "multicast"},
      {"rejects broadcast", "http://255.255.255.255/", "blocked_address", "broadcast"},
      {"rejects IETF protocol assignments", "http://192.0.0.8/", "blocked_address", "IETF"},
      {"rejects TEST-NET-1", "http://192.0.2.1/", "blocked_address", "documentation"},
      {"rejects benchmarking", "http://198.18.0.1/", "blocked_address", "benchmarking"},
      {"rejects the top of benchmarking", "http://198.19.255.255/", "blocked_address",
       "benchmarking"},
      {"rejects TEST-NET-2", "http://198.51.100.7/", "blocked_address", "documentation"},
      {"rejects TEST-NET-3", "http://203.0.113.9/", "blocked_address", "documentation"},
      {"rejects the 6to4 relay anycast", "http://192.88.99.1/", "blocked_address", "6to4"},
      {"rejects reserved class E", "http://240.0.0.1/", "blocked_address", "reserved"},
      {"rejects more of class E", "http://250.1.2.3/", "blocked_address", "reserved"},
      {"rejects the Azure platform address at declaration", "http://168.63.129.16/",
       "blocked_address", "Azure"},
      {"rejects the Azure platform address in hex", "http://0xa8.0x3f.0x81.0x10/",
       "blocked_address", "Azure"},
      // --- IPv4 public boundaries ---
      {"accepts a public address", "http://8.8.8.8/", "", "http://8.8.8.8/"},
      {"accepts decimal public address", "http://134744072/", "", "http://8.8.8.8/"},
      {"accepts hex public address", "http://0x08080808/", "", "http://8.8.8.8/"},
      {"accepts octal public address", "http://010.010.010.010/", "", "http://8.8.8.8/"},
      {"accepts three-part public address", "http://8.8.2056/", "", "http://8.8.8.8/"},
      {"accepts two-part public address", "http://8.526344/", "", "http://8.8.8.8/"},
      {"accepts per-part hex public address", "http://0x8.0x8.0x8.0x8/", "", "http://8.8.8.8/"},
      {"accepts a public address with a trailing dot", "http://8.8.8.8./", "", "http://8.8.8.8/"},
      {"accepts just below 172.16/12", "http://172.15.255.255/", "", "http://172.15.255.255/"},
      {"accepts just above 172.16/12", "http://172.32.0.0/", "", "http://172.32.0.0/"},
      {"accepts just below CGNAT", "http://100.63.255.255/", "", "http://100.63.255.255/"},
      {"accepts just above CGNAT", "http://100.128.0.0/", "", "http://100.128.0.0/"},
      {"accepts just below benchmarking", "http://198.17.255.255/", "", "http://198.17.255.255/"},
      {"accepts just above benchmarking", "http://198.20.0.0/", "", "http://198.20.0.0/"},
      {"accepts just above 10/8", "http://11.0.0.1/", "", "http://11.0.0.1/"},
      {"accepts just below 127/8", "http://126.255.255.255/", "", "http://126.255.255.255/"},
      {"accepts just above 127/8", "http://128.0.0.1/", "", "http://128.0.0.1/"},
      {"accepts the top of unicast", "http://223.255.255.255/", "", "http://223.255.255.255/"},
      {"accepts just above 192.0.0/24", "http://192.0.1.1/", "", "http://192.0.1.1/"},
      {"accepts just below link-local", "http://169.253.1.1/", "", "http://169.253.1.1/"},
      {"accepts a public address with a port", "http://1.1.1.1:8443/x", "",
       "http://1.1.1.1:8443/x"},
      // --- IPv6 ---
      {"accepts a public IPv6 literal", "http://[2606:4700:4700::1111]/", "",
       "http://[2606:4700:4700::1111]/"},
      {"compresses IPv6 per RFC 5952", "http://[2606:4700:4700:0:0:0:0:1111]/", "",
       "http://[2606:4700:4700::1111]/"},
      {"lowercases IPv6 and drops leading zeros",
       "http://[2001:4860:4860:0000:0000:0000:0000:8888]:443/", "",
       "http://[2001:4860:4860::8888]:443/"},
      {"compresses the first of equal zero runs", "http://[2a00:0:0:1:2:0:0:3]/", "",
       "http://[2a00::1:2:0:0:3]/"},
      {"does not compress a single zero group", "http://[2a00:1:2:3:4:5:0:6]/", "",
       "http://[2a00:1:2:3:4:5:0:6]/"},
      {"accepts just outside 2001::/23", "http://[2001:200::1]/", "", "http://[2001:200::1]/"},
      {"accepts just outside 3fff::/20", "http://[3fff:1000::1]/", "", "http://[3fff:1000::1]/"},
      {"rejects the IPv6 unspecified address", "http://[::]/", "blocked_address", "unspecified"},
      {"rejects IPv6 loopback", "http://[::1]/", "blocked_address", "::1 is loopback"},
      {"rejects uncompressed IPv6 loopback", "http://[0:0:0:0:0:0:0:1]/", "blocked_address",
       "loopback"},
      {"rejects IPv4-mapped loopback", "http://[::ffff:127.0.0.1]/", "blocked_address",
       "IPv4-mapped"},
      {"rejects hex IPv4-mapped loopback", "http://[::ffff:7f00:1]/", "blocked_address",
       "IPv4-mapped"},
      {"rejects IPv4-mapped public addresses too", "http://[::ffff:8.8.8.8]/", "blocked_address",
       "IPv4-mapped"},
      {"rejects IPv4-compatible loopback", "http://[::127.0.0.1]/", "blocked_address",
       "IPv4-compatible"},
      {"rejects IPv4-compatible public addresses too", "http://[::8.8.8.8]/", "blocked_address",
       "IPv4-compatible"},
      {"rejects IPv4-translated addresses", "http://[::ffff:0:8.8.8.8]/", "blocked_address",
       "IPv4-translated"},
      {"rejects NAT64 private targets", "http://[64:ff9b::a00:1]/", "blocked_address", "NAT64"},
      {"rejects NAT64 public targets too", "http://[64:ff9b::8.8.8.8]/", "blocked_address",
       "NAT64"},
      {"rejects local-use NAT64", "http://[64:ff9b:1::1]/", "blocked_address", "NAT64"},
      {"rejects 6to4 loopback", "http://[2002:7f00:1::]/", "blocked_address", "6to4"},
      {"rejects 6to4 public addresses too", "http://[2002:808:808::1]/", "blocked_address", "6to4"},
      {"rejects Teredo", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "blocked_address",
       "Teredo"},
      {"rejects the Teredo prefix itself", "http://[2001::1]/", "blocked_address", "Teredo"},
      {"rejects IETF protocol assignments in IPv6", "http://[2001:10::1]/", "blocked_address",
       "IETF"},
      {"rejects the top of 2001::/23", "http://[2001:1ff::1]/", "blocked_address", "IETF"},
      {"rejects IPv6 documentation", "http://[2001:db8::1]/", "blocked_address", "documentation"},
      {"rejects uppercase IPv6 documentation", "http://[2001:DB8::1]/", "blocked_address",
       "2001:db8::1 is reserved for documentation"},
      {"rejects the new IPv6 documentation prefix", "http://[3fff::1]/", "blocked_address",
       "documentation"},
      {"rejects the top of 3fff::/20", "http://[3fff:fff::1]/", "blocked_address", "documentation"},
      {"rejects discard-only", "http://[100::1]/", "blocked_address", "discard"},
      {"rejects SRv6 SIDs", "http://[5f00::1]/", "blocked_address", "reserved"},
      {"rejects unique local fc00::/8", "http://[fc00::1]/", "blocked_address", "unique local"},
      {"rejects unique local fd00::/8", "http://[fd12:3456::1]/", "blocked_address",
       "unique local"},
      {"rejects IPv6 link-local", "http://[fe80::1]/", "blocked_address", "link-local"},
      {"rejects the top of IPv6 link-local", "http://[febf::1]/", "blocked_address", "link-local"},
      {"rejects IPv6 site-local", "http://[fec0::1]/", "blocked_address", "site-local"},
      {"rejects the top of IPv6 site-local", "http://[feff::1]/", "blocked_address", "site-local"},
      {"rejects link-local multicast", "http://[ff02::1]/", "blocked_address", "multicast"},
      {"rejects global multicast", "http://[ff0e::1]/", "blocked_address", "multicast"},
      {"rejects other addresses in ::/96", "http://[::2]/", "blocked_address", "IPv4-compatible"},
      {"rejects unallocated space below 2000::/3", "http://[1::]/", "blocked_address", "reserved"},
      {"rejects unallocated space above 2000::/3", "http://[4000::1]/", "blocked_address",
       "reserved"},
      // --- test-only allowance ---
      {"rejects a loopback neighbour of the test address", "http://127.0.0.76/", "blocked_address",
       "loopback"},
  };
  return rows;
}

}  // namespace

TEST_CASE("UrlPolicy: declared-source table", "[url]") {
  REQUIRE(Rows().size() >= 150);
  for (const Row& row : Rows()) {
    DYNAMIC_SECTION("UrlPolicy: " << row.behaviour) {
      INFO("input: " << row.input);
      auto result = CanonicalizeDeclaredSource(row.input);
      if (std::string(row.code).empty()) {
        REQUIRE(result.ok());
        CHECK(*result == row.canonical_or_message_part);
      } else {
        REQUIRE_FALSE(result.ok());
        CHECK(result.status().code() == row.code);
        CHECK_THAT(result.status().message(), Catch::Contains(row.canonical_or_message_part));
      }
    }
  }
}

TEST_CASE("UrlPolicy: canonical output is a fixed point", "[url]") {
  for (const Row& row : Rows()) {
    if (!std::string(row.code).empty()) continue;
    auto first = CanonicalizeDeclaredSource(row.input);
    REQUIRE(first.ok());
    auto second = CanonicalizeDeclaredSource(*first);
    REQUIRE(second.ok());
    CHECK(*second == *first);
  }
}

TEST_CASE("UrlPolicy: the test address is public only in test builds", "[url]") {
  auto result = CanonicalizeDeclaredSource("http://127.0.0.77:8080/x");
  if (pi_fusion::url::TestPublicAddressAllowed()) {
    REQUIRE(result.ok());
    CHECK(*result == "http://127.0.0.77:8080/x");
    // The allowance is one address, however it is spelled.
    CHECK(CanonicalizeDeclaredSource("http://0x7f.0.0.77/").ok());
    CHECK_FALSE(CanonicalizeDeclaredSource("http://[::ffff:127.0.0.77]/").ok());
  } else {
    REQUIRE_FALSE(result.ok());
    CHECK(result.status().code() == "blocked_address");
  }
  CHECK(CanonicalizeDeclaredSource("http://127.0.0.1/").status().code() == "blocked_address");
}
