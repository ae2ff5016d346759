# tilepp_testing.cmake — helpers for the test tree (included by tests/CMakeLists.txt).
#
#   tilepp_add_gpu_test(NAME <name> COMMAND <cmd> [args...]
#                       [WORKING_DIRECTORY <dir>] [LABELS <label>...] [TIMEOUT <seconds>])
#
# Registers a ctest test labelled `gpu` (run them with `ctest -L gpu`, leave
# them out with `-LE gpu`). A GPU test program that finds no CUDA device prints
# "SKIPPED: no CUDA device" and exits 77; ctest then reports the test as
# skipped ("Not Run"), not passed. GPU tests hold the resource lock
# `tilepp_gpu`, so `ctest -j` never runs two of them at once.

include_guard(GLOBAL)

function(tilepp_add_gpu_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;WORKING_DIRECTORY;TIMEOUT"
    "COMMAND;LABELS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tilepp_add_gpu_test: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME OR NOT arg_COMMAND)
    message(FATAL_ERROR "tilepp_add_gpu_test: NAME and COMMAND are required")
  endif()
  if(arg_WORKING_DIRECTORY)
    add_test(NAME ${arg_NAME} COMMAND ${arg_COMMAND}
      WORKING_DIRECTORY ${arg_WORKING_DIRECTORY})
  else()
    add_test(NAME ${arg_NAME} COMMAND ${arg_COMMAND})
  endif()
  set_tests_properties(${arg_NAME} PROPERTIES
    LABELS "gpu;${arg_LABELS}"
    SKIP_RETURN_CODE 77
    RESOURCE_LOCK tilepp_gpu)
  if(arg_TIMEOUT)
    set_tests_properties(${arg_NAME} PROPERTIES TIMEOUT ${arg_TIMEOUT})
  endif()
endfunction()
