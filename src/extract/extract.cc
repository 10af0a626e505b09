#include "extract/extract.h"

#include <utility>

#include "core/error_codes.h"
#include "core/utf8.h"
#include "extract/charset.h"
#include "extract/html_parse.h"
#include "extract/nesting_guard.h"
#include "extract/renderer.h"
#include "extract/text_util.h"

namespace pi_fusion::extract {
namespace {

enum class Kind { kHtml, kText };

// Why the output was cut short, if it was.
enum class Cut { kNone, kOutput, kNodes, kElements };

Result<Kind> KindOf(const std::string& mime) {
  if (mime.empty() || mime == "text/html" || mime == "application/xhtml+xml") return Kind::kHtml;
  if (mime == "text/plain" || mime == "text/markdown" || mime == "text/x-markdown") {
    return Kind::kText;
  }
  return Status::Error(kExtractionFailed, "unsupported content type: " + mime);
}

struct Rendered {
  std::string text;
  Cut cut = Cut::kNone;
};

Result<Rendered> RenderHtml(std::string_view body, const std::string& header_charset,
                            const ExtractOptions& options) {
  const Charset charset = DetectCharset(body, header_charset, PrescanMetaCharset(body));
  GuardedHtml guarded = GuardNesting(DecodeToUtf8(body, charset), {kMaxDepth, kMaxElements});
  auto doc = ParseHtml(std::move(guarded.html), kMaxParserBytes);
  if (!doc.ok()) return doc.status();
  RenderOptions render;
  render.markdown = options.format == Format::kMarkdown;
  render.max_output_bytes = options.max_output_bytes;
  render.max_nodes = kMaxNodes;
  render.max_depth = kMaxDepth;
  RenderResult result = RenderDocument((*doc)->document(), render);
  Rendered out{std::move(result.text)};
  if (result.stop == RenderStop::kOutputFull) {
    out.cut = Cut::kOutput;
  } else if (result.stop == RenderStop::kNodeLimit) {
    out.cut = Cut::kNodes;
  } else if (guarded.cut) {
    out.cut = Cut::kElements;
  }
  return out;
}

ExtractOutput Finish(Rendered rendered, size_t max_bytes) {
  Cut cut = rendered.cut;
  if (rendered.text.size() > max_bytes) cut = Cut::kOutput;
  std::string marker;
  switch (cut) {
    case Cut::kNone:
      return {std::move(rendered.text), false};
    case Cut::kOutput:
      marker = "output exceeded " + std::to_string(max_bytes) + " bytes";
      break;
    case Cut::kNodes:
      marker = "document exceeded " + std::to_string(kMaxNodes) + " nodes";
      break;
    case Cut::kElements:
      marker = "document exceeded " + std::to_string(kMaxElements) + " elements";
      break;
  }
  return {TruncateWithMarker(rendered.text, max_bytes, "\n\n[truncated: " + marker + "]"), true};
}

}  // namespace

Result<ExtractOutput> Extract(std::string_view body, const ExtractOptions& options) {
  const ContentType type = ParseContentType(options.content_type);
  const Result<Kind> kind = KindOf(type.mime);
  if (!kind.ok()) return kind.status();
  if (*kind == Kind::kText) {
    const Charset charset = DetectCharset(body, type.charset, "");
    return Finish({NormalizePlainText(DecodeToUtf8(body, charset))}, options.max_output_bytes);
  }
  Result<Rendered> rendered = RenderHtml(body, type.charset, options);
  if (!rendered.ok()) return rendered.status();
  // Gumbo writes a numeric character reference whose value overflows its int as one raw byte
  // (`&#xaaaaaaaaF6;` gives 0xF6): the text is repaired before it is measured and cut.
  if (!IsValidUtf8(rendered->text)) rendered->text = RepairUtf8(rendered->text);
  return Finish(std::move(rendered).value(), options.max_output_bytes);
}

}  // namespace pi_fusion::extract
