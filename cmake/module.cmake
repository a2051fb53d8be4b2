# gantry_add_module(<kind> <name> SOURCES ... [LIBS ...] [OUTPUT_DIR dir])
# Builds <kind>_<name>.so: hidden visibility, bound at load (-z now), no undefined symbols
# (-z defs), and a version script so gantry_module_v1 is the only exported symbol.
set(GANTRY_MODULE_OUTPUT_DIR ${PROJECT_BINARY_DIR}/modules)

function(gantry_add_module kind name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIR" "SOURCES;LIBS" ${ARGN})
  set(target ${kind}_${name})
  set(installed FALSE)
  if(NOT ARG_OUTPUT_DIR)  # a real module (fixtures name their own directory)
    set(ARG_OUTPUT_DIR ${GANTRY_MODULE_OUTPUT_DIR})
    set(installed TRUE)
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${target} PRIVATE gantry_abi ${ARG_LIBS})
  target_link_options(${target} PRIVATE -Wl,-z,now
    -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/module.map)
  # The sanitizer runtimes live in the executable, so -z defs cannot hold there.
  if(NOT GANTRY_SANITIZE)
    target_link_options(${target} PRIVATE -Wl,-z,defs)
  endif()
  if(installed)
    install(TARGETS ${target} LIBRARY DESTINATION ${GANTRY_INSTALL_MODULE_DIR})
  endif()
endfunction()
