#include "workflow/citation_refs.h"

#include <algorithm>
#include <cctype>

namespace pi_fusion::workflow {
namespace {

// A quote in a refusal detail is cut here, so a long snippet does not flood a one-line view.
constexpr size_t kQuoteShownBytes = 80;
// Line numbers past this are not line numbers a file holds (and would overflow int64).
constexpr size_t kMaxLineDigits = 9;

bool IsPathChar(unsigned char c) {
  return std::isalnum(c) != 0 || c >= 0x80 || c == '_' || c == '.' || c == '/' || c == '-' ||
         c == '+' || c == '@' || c == '~';
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The path of a citation: it holds a `.` or a `/`, and a letter (so "12" of "12:30" and the
// version "1.2" are not paths), and it is not the host part of a URL ("//x").
bool LooksLikePath(std::string_view path) {
  if (path.empty() || path.substr(0, 2) == "//") return false;
  const bool separated = path.find_first_of("./") != std::string_view::npos;
  const bool lettered = std::any_of(path.begin(), path.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalpha(u) != 0 || u >= 0x80;
  });
  return separated && lettered;
}

// Digits at `at` as a number; 0 when there are none or too many.
int64_t NumberAt(std::string_view line, size_t* at) {
  const size_t start = *at;
  while (*at < line.size() && IsDigit(line[*at])) ++*at;
  if (*at == start || *at - start > kMaxLineDigits) return 0;
  return std::stoll(std::string(line.substr(start, *at - start)));
}

struct Span {
  size_t open = 0;   // the first backtick
  size_t close = 0;  // one past the last backtick
  std::string content;
};

// The inline code spans of one line: a run of N backticks up to the next run of exactly N.
std::vector<Span> CodeSpans(std::string_view line) {
  std::vector<Span> spans;
  size_t i = 0;
  while ((i = line.find('`', i)) != std::string_view::npos) {
    size_t ticks = i;
    while (ticks < line.size() && line[ticks] == '`') ++ticks;
    const size_t run = ticks - i;
    size_t j = ticks;
    bool closed = false;
    while ((j = line.find('`', j)) != std::string_view::npos) {
      size_t end = j;
      while (end < line.size() && line[end] == '`') ++end;
      if (end - j == run) {
        std::string content(line.substr(ticks, j - ticks));
        const size_t first = content.find_first_not_of(' ');
        const size_t last = content.find_last_not_of(' ');
        content = first == std::string::npos ? "" : content.substr(first, last - first + 1);
        spans.push_back({i, end, std::move(content)});
        i = end;
        closed = true;
        break;
      }
      j = end;
    }
    if (!closed) i = ticks;
  }
  return spans;
}

struct Found {
  size_t at = 0;  // where the path starts on the line
  CitationRef ref;
};

// The citation whose line number follows the colon at `colon`, if one does.
std::optional<Found> CitationAt(std::string_view line, size_t colon) {
  size_t start = colon;
  while (start > 0 && IsPathChar(static_cast<unsigned char>(line[start - 1]))) --start;
  if (start > 0 && line[start - 1] == ':') return std::nullopt;  // "http://x:80", "a:b.c:1"
  const std::string_view path = line.substr(start, colon - start);
  if (!LooksLikePath(path)) return std::nullopt;
  size_t at = colon + 1;
  const int64_t first = NumberAt(line, &at);
  int64_t last = first;
  if (at + 1 < line.size() && line[at] == '-' && IsDigit(line[at + 1])) {
    ++at;
    last = NumberAt(line, &at);
  }
  if (at + 1 < line.size() && line[at] == ':' && IsDigit(line[at + 1])) {
    ++at;
    NumberAt(line, &at);  // a column: the line is what is checked
  }
  if (at < line.size() && (std::isalpha(static_cast<unsigned char>(line[at])) != 0 ||
                           line[at] == '_' || line[at] == '/')) {
    return std::nullopt;  // "a.c:12px": not a line number
  }
  if (first < 1 || last < first) return std::nullopt;
  return Found{start, {std::string(path), first, last, {}}};
}

bool Within(size_t at, const Span& span) { return at > span.open && at < span.close; }

void ExtractLine(std::string_view line, std::vector<CitationRef>* out) {
  std::vector<Found> found;
  for (size_t colon = line.find(':'); colon != std::string_view::npos;
       colon = line.find(':', colon + 1)) {
    if (colon + 1 >= line.size() || !IsDigit(line[colon + 1])) continue;
    if (std::optional<Found> f = CitationAt(line, colon)) found.push_back(std::move(*f));
  }
  if (found.empty()) return;
  for (const Span& span : CodeSpans(line)) {
    const bool holds_ref = std::any_of(found.begin(), found.end(),
                                       [&span](const Found& f) { return Within(f.at, span); });
    if (holds_ref || span.content.empty()) continue;
    Found* owner = &found.front();
    for (Found& f : found) {
      if (f.at < span.open) owner = &f;
    }
    owner->ref.quotes.push_back(span.content);
  }
  for (Found& f : found) {
    if (std::find(out->begin(), out->end(), f.ref) == out->end()) out->push_back(std::move(f.ref));
  }
}

// `text` with every run of whitespace as one space, trimmed: a quote is compared by its words.
std::string Squeezed(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// Byte offsets [begin, end) of lines first..last (1-based) of `content`. REQUIRES: they exist.
std::pair<size_t, size_t> LineRange(std::string_view content, int64_t first, int64_t last) {
  size_t begin = 0;
  for (int64_t line = 1; line < first; ++line) begin = content.find('\n', begin) + 1;
  size_t end = begin;
  for (int64_t line = first; line <= last; ++line) {
    const size_t nl = content.find('\n', end);
    end = nl == std::string_view::npos ? content.size() : nl + 1;
  }
  return {begin, end};
}

}  // namespace

std::string CitationRef::Ref() const {
  std::string out = path + ":" + std::to_string(first_line);
  if (last_line != first_line) out += "-" + std::to_string(last_line);
  return out;
}

std::vector<CitationRef> ExtractCitations(std::string_view text) {
  std::vector<CitationRef> out;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    ExtractLine(text.substr(begin, end - begin), &out);
    begin = end + 1;
  }
  return out;
}

int64_t LineCount(std::string_view content) {
  if (content.empty()) return 0;
  const auto newlines = static_cast<int64_t>(std::count(content.begin(), content.end(), '\n'));
  return content.back() == '\n' ? newlines : newlines + 1;
}

std::optional<CitationVerdict> JudgeCitation(const CitationRef& ref, std::string_view content,
                                             bool complete) {
  // A cut read's last line may be partial: only the lines before it are known whole.
  int64_t lines = LineCount(content);
  if (!complete && !content.empty() && content.back() != '\n') --lines;
  if (ref.last_line > lines) {
    if (!complete) {
      return CitationVerdict{"not_checkable",
                             "lies past the part of the file that is read (its first " +
                                 std::to_string(content.size()) + " bytes)"};
    }
    return CitationVerdict{"past_end", "is past the end (" + std::to_string(lines) +
                                           (lines == 1 ? " line)" : " lines)")};
  }
  const auto [begin, end] = LineRange(content, ref.first_line, ref.last_line);
  const std::string cited = Squeezed(content.substr(begin, end - begin));
  for (const std::string& quote : ref.quotes) {
    if (cited.find(Squeezed(quote)) != std::string::npos) continue;
    const std::string shown =
        quote.size() > kQuoteShownBytes ? quote.substr(0, kQuoteShownBytes) + "…" : quote;
    return CitationVerdict{"quote_not_found", "does not hold `" + shown + "`"};
  }
  return std::nullopt;
}

}  // namespace pi_fusion::workflow
