# run_robustness.cmake — the translator never crashes, whatever the input.
#
#   cmake -DTILEPP=<tilepp> -DWORK_DIR=<dir> -DSHARD=<k> -DSHARDS=<n>
#         -DINPUTS=<file|file|...> [-DCUTS=20] [-DFLIPS=4] [-DINSERTS=2]
#         [-DPATHOLOGICAL=ON] -P run_robustness.cmake
#
# Takes every SHARDS-th input starting at SHARD and runs `tilepp -MD` on
#   - CUTS prefixes of it, cut at evenly spaced points (a file truncated in
#     the middle of a pragma, a comment, a string, a body, ...);
#   - FLIPS copies with one byte replaced by a character that matters to C or
#     to the pragma parser, at deterministic positions;
#   - INSERTS copies with a tile pragma inserted on a line of its own where
#     it does not belong;
# and, with PATHOLOGICAL, on a few pathological inputs (deep nesting and long lines
# in a pragma, many clauses, overflowing constants).
# Every run must exit with 0 or 1: never a signal, never another code, never
# a sanitizer report (with TILEPP_SANITIZE, undefined behaviour exits 1). A
# run that exits 1 must leave no output file and no temporary file behind.
# Deterministic: the same inputs give the same runs, so a failure reproduces.

cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/translate_common.cmake)
tt_require(TILEPP WORK_DIR SHARD SHARDS INPUTS)
string(REPLACE "|" ";" INPUTS "${INPUTS}")
if(NOT DEFINED CUTS)
  set(CUTS 20)
endif()
if(NOT DEFINED FLIPS)
  set(FLIPS 4)
endif()

if(NOT DEFINED INSERTS)
  set(INSERTS 2)
endif()

set(failures "")
set(runs 0)
set(pragmas "#pragma tile kernel" "#pragma tile parallel vector(4)" "#pragma tile parallel"
  "#pragma tile kernel threads(128)" "#pragma tile shared" "#pragma tile grid")
list(LENGTH pragmas npragmas)
set(sanitizer_report ": runtime error: |ERROR: AddressSanitizer|ERROR: LeakSanitizer")
set(mutations "(" ")" "{" "}" "\"" "'" "\\" "#" "/" "*" "[" "]" "0" "\n" "," ":")
list(LENGTH mutations nmutations)

# try(<name> <text> <what>): translates <text> saved as <name>.
function(try name text what)
  tt_fresh_dir("${WORK_DIR}")
  foreach(header IN LISTS headers)
    file(COPY "${header}" DESTINATION "${WORK_DIR}")
  endforeach()
  tt_dir_files(before "${WORK_DIR}")
  file(WRITE "${WORK_DIR}/${name}" "${text}")
  execute_process(COMMAND "${TILEPP}" -MD "${name}"
    WORKING_DIRECTORY "${WORK_DIR}"
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  math(EXPR n "${runs} + 1")
  set(runs ${n} PARENT_SCOPE)
  set(problem "")
  if(NOT rc STREQUAL "0" AND NOT rc STREQUAL "1")
    set(problem "exit '${rc}'")
  elseif(err MATCHES "${sanitizer_report}")
    # A sanitizer build (TILEPP_SANITIZE) exits 1 on undefined behaviour.
    set(problem "exit '${rc}' after a sanitizer report")
  elseif(rc STREQUAL "1")
    tt_dir_files(after "${WORK_DIR}")
    list(REMOVE_ITEM after "${name}")
    if(NOT after STREQUAL before)
      set(problem "exit 1 but files were left: ${after}")
    endif()
  endif()
  if(problem)
    # Keep the input that failed, for the report and to reproduce.
    get_filename_component(stem "${name}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${what}" tag)
    set(saved "${WORK_DIR}-failures/${stem}-${n}-${tag}.c")
    file(WRITE "${saved}" "${text}")
    string(SUBSTRING "${err}" 0 600 err_head)
    set(failures "${failures}${name} (${what}): ${problem}\n  input kept as ${saved}\n  stderr: ${err_head}\n" PARENT_SCOPE)
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}-failures")
set(index 0)
foreach(input IN LISTS INPUTS)
  math(EXPR mine "${index} % ${SHARDS}")
  math(EXPR index "${index} + 1")
  if(NOT mine EQUAL SHARD)
    continue()
  endif()
  get_filename_component(name "${input}" NAME)
  get_filename_component(dir "${input}" DIRECTORY)
  file(GLOB headers "${dir}/*.h")
  file(READ "${input}" text)
  string(LENGTH "${text}" len)

  foreach(k RANGE 1 ${CUTS})
    math(EXPR cut "${len} * ${k} / (${CUTS} + 1)")
    string(SUBSTRING "${text}" 0 ${cut} prefix)
    try("${name}" "${prefix}" "cut at byte ${cut}")
  endforeach()

  foreach(j RANGE 1 ${FLIPS})
    # Positions spread over the file, offset per file so that not every file
    # is hit at the same relative place.
    math(EXPR pos "(${len} * (2 * ${j} - 1) / (2 * ${FLIPS}) + ${index} * 7) % ${len}")
    math(EXPR m "(${j} * 5 + ${index}) % ${nmutations}")
    list(GET mutations ${m} ch)
    string(SUBSTRING "${text}" 0 ${pos} head)
    math(EXPR tail_start "${pos} + 1")
    string(SUBSTRING "${text}" ${tail_start} -1 tail)
    try("${name}" "${head}${ch}${tail}" "byte ${pos} replaced")
  endforeach()

  # A tile pragma inserted where it does not belong: mid-expression, mid-body,
  # before a declaration.
  foreach(j RANGE 1 ${INSERTS})
    math(EXPR pos "(${len} * ${j} / (${INSERTS} + 1) + ${index} * 13) % ${len}")
    math(EXPR p "(${j} + ${index}) % ${npragmas}")
    list(GET pragmas ${p} pragma)
    string(SUBSTRING "${text}" 0 ${pos} head)
    string(SUBSTRING "${text}" ${pos} -1 tail)
    try("${name}" "${head}\n${pragma}\n${tail}" "'${pragma}' inserted at byte ${pos}")
  endforeach()
endforeach()

if(PATHOLOGICAL)
  set(headers "")
  set(kernel_head "#include <tilepp/tile.h>\n#pragma tile kernel")
  set(kernel_tail "\nvoid f(int n, float *x)\n{\n#pragma tile parallel\n    for (int i = 0; i < n; i++)\n        x[i] = 0.0f;\n}\n")
  # Deeply nested parentheses and a long chain of unary minus in a clause.
  string(REPEAT "(" 100000 open)
  string(REPEAT ")" 100000 close)
  try(deep_parens.c "${kernel_head} threads(${open}64${close})${kernel_tail}" "100000 nested parentheses")
  string(REPEAT "-" 100000 minus)
  try(long_minus.c "${kernel_head} threads(${minus}64)${kernel_tail}" "100000 unary minus")
  # Many clauses, a long argument, a long pragma line continued many times.
  string(REPEAT " threads(64)" 2000 clauses)
  try(many_clauses.c "${kernel_head}${clauses}${kernel_tail}" "2000 clauses")
  string(REPEAT " + 1" 20000 sum)
  try(long_sum.c "${kernel_head} threads(32${sum})${kernel_tail}" "20000 terms")
  string(REPEAT " \\\n" 5000 continued)
  try(continued.c "${kernel_head}${continued} threads(64)${kernel_tail}" "5000 continuation lines")
  # Overflowing constants.
  foreach(expr "(-9223372036854775807 - 1) / -1" "(-9223372036854775807 - 1) % -1" "1 << 64" "1 << -1"
               "9223372036854775807 * 2" "-(-9223372036854775807 - 1)" "99999999999999999999999" "0x" "1 / 0")
    try(overflow.c "${kernel_head} threads(${expr})${kernel_tail}" "threads(${expr})")
  endforeach()
  # A macro that expands to itself, and two that expand to each other.
  try(macro_loop.c "#define A A\n#define B C\n#define C B\n${kernel_head} threads(A)\nvoid g(void) {}\n${kernel_head} threads(B)${kernel_tail}"
    "recursive macros")
  # A pragma as the very last bytes, without a newline.
  try(last_bytes.c "#pragma tile" "'#pragma tile' at end of file, no newline")
  try(empty.c "" "empty file")
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
if(failures)
  message("${failures}")   # plain message(): FATAL_ERROR would re-wrap it
  message(FATAL_ERROR "robustness shard ${SHARD}/${SHARDS}: translator crashed or misbehaved (${runs} runs)")
endif()
message(STATUS "robustness shard ${SHARD}/${SHARDS}: ${runs} runs, every exit code 0 or 1")
