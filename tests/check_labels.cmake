# Asserts every CTest test of the build tree BUILD carries exactly one of LABELS
# (separated by '|'): a test without one is left out of every `ctest -L` run, and one with two
# is run twice by a developer who runs the groups one after another.
string(REPLACE "|" ";" labels "${LABELS}")

# Sets <out> to the number of tests `ctest -N <args...>` lists, <out>_text to its listing.
function(listed out)
  execute_process(COMMAND ${CTEST} -N ${ARGN} WORKING_DIRECTORY ${BUILD}
    OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT text MATCHES "Total Tests: ([0-9]+)")
    message(FATAL_ERROR "ctest -N ${ARGN} failed (${rc}):\n${text}")
  endif()
  set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
  set(${out}_text "${text}" PARENT_SCOPE)
endfunction()

listed(all)
if(all EQUAL 0)
  message(FATAL_ERROR "no tests in ${BUILD}")
endif()
listed(unlabelled -LE "^(${LABELS})$")
if(NOT unlabelled EQUAL 0)
  message(FATAL_ERROR "${unlabelled} tests carry none of the labels ${labels}:\n${unlabelled_text}")
endif()
set(sum 0)
foreach(label ${labels})
  listed(with -L "^${label}$")
  math(EXPR sum "${sum} + ${with}")
endforeach()
if(NOT sum EQUAL all)
  message(FATAL_ERROR "${all} tests carry ${sum} labels of ${labels}: some carry more than one")
endif()
message(STATUS "${all} tests, each with one label of ${labels}")
