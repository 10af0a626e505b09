// The extractor the fetch command plugs into the fetcher: the HTML extractor of src/extract,
// adapted to net::Extractor (the fetcher stays independent of the extraction layer).
#pragma once

#include "net/extractor.h"

namespace pi_fusion::cli {

net::Extractor MakeFetchExtractor();

}  // namespace pi_fusion::cli
