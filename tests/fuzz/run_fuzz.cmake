# run_fuzz.cmake — one bounded libFuzzer run from seeds.
#
#   cmake -DFUZZER=<harness> -DWORK_DIR=<dir> -DMODE=pragma|file -DSECONDS=<n>
#         -DSEEDS=<file|file|...> -P run_fuzz.cmake
#
# MODE file: each seed file is a seed input. MODE pragma: each `#pragma tile`
# line of the seed files is one, without `#pragma tile`. The fuzzer starts
# from an empty corpus directory plus the seeds, runs SECONDS seconds with a
# fixed seed (-seed=1) and must end without a finding; its final statistics
# (executions, coverage) are printed for the record. A finding leaves its
# input in WORK_DIR (crash-*, leak-*, timeout-*) and fails the test.

cmake_minimum_required(VERSION 3.20)
foreach(var FUZZER WORK_DIR MODE SECONDS SEEDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_fuzz.cmake: -D${var}= is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/corpus" "${WORK_DIR}/seeds")

string(REPLACE "|" ";" SEEDS "${SEEDS}")
set(n 0)
foreach(seed IN LISTS SEEDS)
  if(MODE STREQUAL "file")
    math(EXPR n "${n} + 1")
    configure_file("${seed}" "${WORK_DIR}/seeds/seed${n}.c" COPYONLY)
  else()
    file(STRINGS "${seed}" lines REGEX "^[ \t]*#[ \t]*pragma[ \t]+tile[ \t]")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*pragma[ \t]+tile[ \t]+" "" clause "${line}")
      math(EXPR n "${n} + 1")
      file(WRITE "${WORK_DIR}/seeds/seed${n}" "${clause}")
    endforeach()
  endif()
endforeach()
message(STATUS "${n} seeds")

execute_process(
  COMMAND "${FUZZER}" -max_total_time=${SECONDS} -seed=1 -timeout=30 -rss_limit_mb=4096
          -print_final_stats=1 "-artifact_prefix=${WORK_DIR}/" "${WORK_DIR}/corpus" "${WORK_DIR}/seeds"
  WORKING_DIRECTORY "${WORK_DIR}"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message("${out}")
  message(FATAL_ERROR "${FUZZER}: a finding (exit ${rc}); the input is in ${WORK_DIR}")
endif()
# The lines worth keeping: the closing status line (coverage) and the final
# statistics. libFuzzer separates status lines with \r or \n.
string(REGEX MATCH "#[0-9]+[ \t]+DONE[^\r\n]*" done_line "${out}")
message(STATUS "${done_line}")
string(REGEX MATCHALL "stat::[^\r\n]*" stats "${out}")
foreach(line IN LISTS stats)
  message(STATUS "${line}")
endforeach()
