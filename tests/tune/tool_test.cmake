# tool_test.cmake — tilepp-tune on stand-in libraries (run by ctest as
# unit_tune_tool; cmake -DTOOL=... -DFAKE=... -DNONE=... -DWORK=... -P).
#   TOOL  tilepp-tune
#   FAKE  a library with tile_tune_entry_fake (prints its arguments and
#         TILEPP_TUNE_CACHE, returns 3) and tile_tune_entry_other
#   NONE  a library without an entry
#   WORK  a scratch directory

set(failures 0)

# run(<name> <expected exit status> <stdout regex> <stderr regex> args...):
# "" for a regex checks nothing; "^$" checks that the stream is empty.
function(run name status out_re err_re)
  execute_process(COMMAND ${ARGN}
    WORKING_DIRECTORY "${WORK}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(ok TRUE)
  if(NOT rc STREQUAL "${status}")
    set(ok FALSE)
    set(why "exit status ${rc}, expected ${status}")
  elseif(NOT out_re STREQUAL "" AND NOT out MATCHES "${out_re}")
    set(ok FALSE)
    set(why "stdout does not match ${out_re}")
  elseif(NOT err_re STREQUAL "" AND NOT err MATCHES "${err_re}")
    set(ok FALSE)
    set(why "stderr does not match ${err_re}")
  endif()
  if(ok)
    message(STATUS "ok: ${name}")
  else()
    message(STATUS "FAILED: ${name}: ${why}\n  command: ${ARGN}\n  stdout:\n${out}\n  stderr:\n${err}")
    math(EXPR n "${failures} + 1")
    set(failures ${n} PARENT_SCOPE)
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# The entry's status comes back; the arguments arrive in order, NULL-terminated.
run("status and arguments" 3
  "fake: argc=3\nfake: argv\\[0\\]=M=64\nfake: argv\\[1\\]=N=128\nfake: argv\\[2\\]=flag=a=b\nfake: argv\\[argc\\]=null\n"
  "^$"
  ${CMAKE_COMMAND} -E env --unset=TILEPP_TUNE_CACHE "${TOOL}" "${FAKE}" fake M=64 N=128 flag=a=b)
run("no arguments" 3 "fake: argc=0\n" "^$"
  ${CMAKE_COMMAND} -E env --unset=TILEPP_TUNE_CACHE "${TOOL}" "${FAKE}" fake)
run("no --cache: TILEPP_TUNE_CACHE untouched" 3 "fake: cache=\\(unset\\)\n" ""
  ${CMAKE_COMMAND} -E env --unset=TILEPP_TUNE_CACHE "${TOOL}" "${FAKE}" fake M=1)
run("no --cache: TILEPP_TUNE_CACHE inherited" 3 "fake: cache=/from/env\n" ""
  ${CMAKE_COMMAND} -E env TILEPP_TUNE_CACHE=/from/env "${TOOL}" "${FAKE}" fake M=1)
run("--cache DIR sets TILEPP_TUNE_CACHE" 3 "fake: argc=1\n.*fake: cache=${WORK}/c1\n" ""
  ${CMAKE_COMMAND} -E env TILEPP_TUNE_CACHE=/from/env "${TOOL}" --cache "${WORK}/c1" "${FAKE}" fake M=1)
run("--cache=DIR, after the arguments" 3 "fake: argc=1\n.*fake: cache=${WORK}/c2\n" ""
  "${TOOL}" "${FAKE}" fake M=1 --cache=${WORK}/c2)
run("-- ends the options" 3 "fake: argc=1\nfake: argv\\[0\\]=M=1\n" ""
  "${TOOL}" -- "${FAKE}" fake M=1)

# A library named without '/' is taken from the current directory.
get_filename_component(fake_name "${FAKE}" NAME)
file(COPY "${FAKE}" DESTINATION "${WORK}")
run("library in the current directory" 3 "fake: argc=0\n" "" "${TOOL}" "${fake_name}" fake)

# The kernels a library has.
run("--list" 0 "^fake\nother\n$" "^$" "${TOOL}" --list "${FAKE}")
run("--list, no kernel" 1 "^$"
  "tilepp-tune: error: .*has no tuned kernel \\(no tile_tune_entry_\\* function"
  "${TOOL}" --list "${NONE}")
run("unknown kernel" 1 "^$"
  "^tilepp-tune: error: [^\n]*tune_tool_fake[^\n]* has no tuned kernel 'gemm' \\(no function tile_tune_entry_gemm\\); the ones it has: fake, other\n$"
  "${TOOL}" "${FAKE}" gemm M=1)
run("unknown kernel, library without any" 1 "^$"
  "has no tuned kernel 'gemm' .*; it has none: is it built from a file with '#pragma tile tune'\\?\n$"
  "${TOOL}" "${NONE}" gemm)

# Errors.
run("missing library" 1 "^$" "^tilepp-tune: error: cannot open ${WORK}/nothing.so: [^\n]*nothing.so[^\n]*\n$"
  "${TOOL}" "${WORK}/nothing.so" fake)
file(WRITE "${WORK}/notelf.so" "not a library\n")
run("not a library" 1 "^$" "^tilepp-tune: error: cannot open ${WORK}/notelf.so: " "${TOOL}" "${WORK}/notelf.so" fake)
run("usage: nothing" 2 "^$" "^tilepp-tune: error: no library given\n\\(run 'tilepp-tune --help'" "${TOOL}")
run("usage: no kernel" 2 "^$" "no kernel given" "${TOOL}" "${FAKE}")
run("usage: not NAME=VALUE" 2 "^$" "error: 'M' is not NAME=VALUE" "${TOOL}" "${FAKE}" fake M)
run("usage: bad kernel name" 2 "^$" "error: '1x' is not a kernel name" "${TOOL}" "${FAKE}" 1x)
run("usage: unknown option" 2 "^$" "error: unknown option '--frob'" "${TOOL}" --frob "${FAKE}" fake)
run("usage: --cache without a value" 2 "^$" "error: --cache needs a directory" "${TOOL}" "${FAKE}" fake --cache)
run("usage: --list with a kernel" 2 "^$" "error: --list takes only the library" "${TOOL}" --list "${FAKE}" fake)
run("--help" 0 "^usage: tilepp-tune \\[--cache DIR\\] LIBRARY.so KERNEL NAME=VALUE" "^$" "${TOOL}" --help)

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} check(s) of tilepp-tune failed")
endif()
