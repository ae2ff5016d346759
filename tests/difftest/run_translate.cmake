# run_translate.cmake — the CPU half of the differential test (label `translate`).
#
#   cmake -DGEN=<difftest_gen> -DTILEPP=<tilepp> -DCC=<C compiler> -DINCLUDE_DIR=<build>/include
#         -DWORK_DIR=<dir> -DSEED=<s> -DCOUNT=<n> [-DSYNTAX=ON|OFF] [-DJOBS=<j>] -P run_translate.cmake
#
# Generates COUNT programs from SEED and translates each alone (difftest_gen
# --tilepp): each must translate (exit 0, outputs written) or be refused
# with located diagnostics (exit 1, a `file:line:col: error:` line, nothing
# left behind); a crash, a hang, another exit status or an unlocated refusal
# fails the test, and the program is kept in WORK_DIR/failures/. Then the C
# compiler checks every program (the accepted ones in their group files, the
# refused ones in refused_all.c) with -fsyntax-only -Wall -Wextra -Werror: the
# programs are ordinary C.

cmake_minimum_required(VERSION 3.20)
foreach(var GEN TILEPP CC INCLUDE_DIR WORK_DIR SEED COUNT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_translate.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED JOBS)
  cmake_host_system_information(RESULT JOBS QUERY NUMBER_OF_LOGICAL_CORES)
endif()
if(NOT DEFINED SYNTAX)
  set(SYNTAX ON)
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
string(TIMESTAMP t0 "%s")
execute_process(
  COMMAND "${GEN}" --seed ${SEED} --count ${COUNT} --out "${WORK_DIR}" --tilepp "${TILEPP}" --jobs ${JOBS}
          --timeout 120
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP t1 "%s")
math(EXPR secs "${t1} - ${t0}")
message("${out}${err}")
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "difftest: the translator failed on generated programs (exit ${rc}); "
    "the inputs are kept in ${WORK_DIR}/failures/")
endif()

if(NOT SYNTAX)
  message("difftest: syntax check skipped (the C compiler has no __bf16)")
  return()
endif()
file(GLOB files "${WORK_DIR}/dt_group_*.c" "${WORK_DIR}/refused_all.c")
set(failed "")
# JOBS compilers at a time (execute_process runs its COMMANDs concurrently)
list(LENGTH files nfiles)
set(i 0)
while(i LESS nfiles)
  set(cmds "")
  set(batch "")
  foreach(k RANGE 1 ${JOBS})
    if(i LESS nfiles)
      list(GET files ${i} f)
      list(APPEND batch "${f}")
      list(APPEND cmds COMMAND "${CC}" -std=c11 -fsyntax-only -Wall -Wextra -Werror -Wno-unknown-pragmas
        "-I${INCLUDE_DIR}" "${f}")
      math(EXPR i "${i} + 1")
    endif()
  endforeach()
  execute_process(${cmds} RESULTS_VARIABLE rcs ERROR_VARIABLE cerr OUTPUT_QUIET)
  set(j 0)
  foreach(f IN LISTS batch)
    list(GET rcs ${j} r)
    if(NOT r STREQUAL "0")
      list(APPEND failed "${f}")
    endif()
    math(EXPR j "${j} + 1")
  endforeach()
  if(cerr)
    message("${cerr}")
  endif()
endwhile()
string(TIMESTAMP t2 "%s")
math(EXPR csecs "${t2} - ${t1}")
if(failed)
  message(FATAL_ERROR "difftest: generated programs that are not clean C (a generator bug): ${failed}")
endif()
message("difftest: ${nfiles} files of generated C compile cleanly; translation ${secs} s, C syntax check ${csecs} s")
