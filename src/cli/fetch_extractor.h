// The extractor the fetch command plugs into the fetcher: the HTML extractor of src/extract when
// this build has it (PI_FUSION_HAVE_EXTRACT), otherwise net::PassThroughExtractor().
#pragma once

#include "net/extractor.h"

namespace pi_fusion::cli {

net::Extractor MakeFetchExtractor();

}  // namespace pi_fusion::cli
