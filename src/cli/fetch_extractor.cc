#include "cli/fetch_extractor.h"

#include "extract/extract.h"
#include "net/fetch_limits.h"

namespace pi_fusion::cli {

net::Extractor MakeFetchExtractor() {
  return [](std::string_view body, std::string_view content_type,
            net::ExtractFormat format) -> Result<net::Extracted> {
    extract::ExtractOptions options;
    options.format =
        format == net::ExtractFormat::kText ? extract::Format::kText : extract::Format::kMarkdown;
    options.content_type = std::string(content_type);
    options.max_output_bytes = kMaxExtractedTextBytes;
    auto output = extract::Extract(body, options);
    if (!output.ok()) return output.status();
    return net::Extracted{std::move(output->text), output->truncated};
  };
}

}  // namespace pi_fusion::cli
