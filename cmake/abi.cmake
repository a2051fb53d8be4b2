# The interface-header hash that goes into GANTRY_BUILD_SIGNATURE: a module built against
# other boundary headers than the host's is refused at load.
file(GLOB GANTRY_ABI_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/core/include/gantry/*.h)
list(SORT GANTRY_ABI_HEADERS)
set(_abi_bytes "")
foreach(header ${GANTRY_ABI_HEADERS})
  file(READ ${header} _content)
  string(APPEND _abi_bytes "${_content}")
endforeach()
string(SHA256 _abi_hash "${_abi_bytes}")
string(SUBSTRING ${_abi_hash} 0 16 GANTRY_HEADER_HASH)

add_library(gantry_abi INTERFACE)
target_include_directories(gantry_abi INTERFACE ${PROJECT_SOURCE_DIR}/core/include)
target_compile_definitions(gantry_abi INTERFACE GANTRY_HEADER_HASH="${GANTRY_HEADER_HASH}")
