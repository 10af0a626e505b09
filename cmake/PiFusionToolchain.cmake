# Compiler settings shared by every target: warnings, ccache, sanitizers, hidden visibility.
find_program(PI_FUSION_CCACHE ccache)
if(PI_FUSION_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER "${PI_FUSION_CCACHE}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${PI_FUSION_CCACHE}")
endif()

# Hidden by default: the addons export only their two Node-API entry points.
set(CMAKE_CXX_VISIBILITY_PRESET hidden)
set(CMAKE_C_VISIBILITY_PRESET hidden)
set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)

add_compile_options(-Wall -Wextra -Wpedantic -Wno-missing-field-initializers)

if(PI_FUSION_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

if(PI_FUSION_TSAN)
  add_compile_options(-O1 -fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()

# Fuzzing instruments every library for libFuzzer's coverage feedback; only the fuzz_* binaries
# link libFuzzer itself (fuzz/CMakeLists.txt). -O1 keeps inputs per second high while asserts
# and sanitizer reports stay exact.
if(PI_FUSION_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "PI_FUSION_FUZZ needs clang (libFuzzer); use the fuzz preset")
  endif()
  add_compile_options(-O1 -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
    -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
