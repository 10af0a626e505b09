// The POSIX body of FileSystem::CreateDirsBeneath (file_system.h), in a file of its own.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "pi_fusion/status.h"

namespace pi_fusion {

// See FileSystem::CreateDirsBeneath.
Status CreateDirsBeneathPosix(const std::string& base, const std::vector<std::string>& names,
                              mode_t mode);

}  // namespace pi_fusion
