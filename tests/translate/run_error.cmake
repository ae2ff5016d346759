# run_error.cmake — one test of the diagnostics corpus.
#
#   cmake -DTILEPP=<tilepp> -DINPUT=<dir/x.c> -DWORK_DIR=<dir> -P run_error.cmake
#
# x.c is a bad input that says, in comments, what the translator must report:
#
#   // expect: 12:9: error: unknown clause 'thread' for '#pragma tile kernel'; expected 'threads', 'flops', 'bytes'
#   // expect: 13:5: note: this is what follows the pragma
#   // expect-prefix: 7:29: error: threads(
#   // expect: other.h:3:1: error: ...      (a location in another file)
#   // expect-not: must be inside a '#pragma tile kernel'
#   // tilepp-args: -DWIDTH=3
#
# `expect` matches the whole message; `expect-prefix` its beginning (for the
# wording of messages that are not settled yet: the location is what counts);
# `expect-not` is text that must appear nowhere in stderr (a misleading
# message seen before). The *.h files beside x.c are copied with it. The
# test runs `tilepp -MD <args> x.c` in an empty WORK_DIR and checks that
#   - the exit code is exactly 1 (never 0, never a crash or another code);
#   - every expected diagnostic is in stderr as `x.c:LINE:COL: LEVEL: MESSAGE`,
#     followed by the quoted source line (`%5d | text`) and a caret line whose
#     `^` stands under column COL (tabs kept, as the translator prints them);
#   - there are as many errors in stderr as expected errors, no more (a
#     repeated or cascading error fails the test; notes and warnings that are
#     not listed are allowed);
#   - nothing was written to stdout, and no file was created (no .tile.cu,
#     .tile.h, .d, nor a temporary file).

cmake_minimum_required(VERSION 3.20)  # policies: empty list elements are kept
include(${CMAKE_CURRENT_LIST_DIR}/translate_common.cmake)
tt_require(TILEPP INPUT WORK_DIR)

get_filename_component(name "${INPUT}" NAME)
get_filename_component(input_dir "${INPUT}" DIRECTORY)

# --- the expectations ------------------------------------------------------
file(READ "${INPUT}" source)
tt_lines(source_lines "${source}")
set(expects "")       # encoded "kind|file|line|col|level|message" entries
set(forbidden "")     # encoded texts of `expect-not`
set(expected_errors 0)
set(regex "^// (expect|expect-prefix): (([A-Za-z0-9_.-]+):)?([0-9]+):([0-9]+): (error|warning|note): ?(.*)$")
foreach(line IN LISTS source_lines)
  if(line MATCHES "^// expect-not: (.+)$")
    list(APPEND forbidden "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^// expect")
    if(NOT line MATCHES "${regex}")
      tt_decode(line)
      message(FATAL_ERROR "${name}: malformed expectation: ${line}\n"
        "expected `// expect: [FILE:]LINE:COL: error|warning|note: MESSAGE`, "
        "`// expect-prefix: ...` or `// expect-not: TEXT`")
    endif()
    set(file "${CMAKE_MATCH_3}")
    if(file STREQUAL "")
      set(file "${name}")
    endif()
    list(APPEND expects "${CMAKE_MATCH_1}|${file}|${CMAKE_MATCH_4}|${CMAKE_MATCH_5}|${CMAKE_MATCH_6}|${CMAKE_MATCH_7}")
    if(CMAKE_MATCH_6 STREQUAL "error")
      math(EXPR expected_errors "${expected_errors} + 1")
    endif()
  endif()
endforeach()
if(expected_errors EQUAL 0)
  message(FATAL_ERROR "${name}: no `// expect: LINE:COL: error: ...` line; a bad input must expect an error")
endif()
tt_directive_args(args "${INPUT}")

# --- the run -----------------------------------------------------------------
tt_fresh_dir("${WORK_DIR}")
file(GLOB headers "${input_dir}/*.h")
file(COPY "${INPUT}" ${headers} DESTINATION "${WORK_DIR}")
tt_dir_files(inputs "${WORK_DIR}")
execute_process(COMMAND "${TILEPP}" -MD ${args} "${name}"
  WORKING_DIRECTORY "${WORK_DIR}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)

set(failures "")
if(NOT rc STREQUAL "1")
  string(APPEND failures "exit code '${rc}', expected 1\n")
endif()
if(NOT out STREQUAL "")
  string(APPEND failures "unexpected output on stdout:\n${out}\n")
endif()
tt_dir_files(files "${WORK_DIR}")
if(NOT files STREQUAL inputs)
  list(REMOVE_ITEM files ${inputs})
  string(APPEND failures "files were created: ${files}\n")
endif()

# --- the diagnostics -----------------------------------------------------------
tt_lines(err_lines "${err}")
list(LENGTH err_lines nerr)
set(used "")
foreach(e IN LISTS expects)
  string(REPLACE "|" ";" parts "${e}")   # the message is last; it may hold '|'
  list(GET parts 0 kind)
  list(GET parts 1 file)
  list(GET parts 2 line)
  list(GET parts 3 col)
  list(GET parts 4 level)
  string(REGEX REPLACE "^[^|]*\\|[^|]*\\|[^|]*\\|[^|]*\\|[^|]*\\|" "" msg "${e}")
  tt_decode(msg)
  set(head "${file}:${line}:${col}: ${level}: ${msg}")

  # The quoted line and the caret under column `col`.
  set(lines "${source_lines}")
  if(NOT file STREQUAL name)
    set(other "")
    if(EXISTS "${input_dir}/${file}")
      file(READ "${input_dir}/${file}" other)
    endif()
    tt_lines(lines "${other}")
  endif()
  list(LENGTH lines nsource)
  set(text "")
  if(line GREATER 0 AND line LESS_EQUAL nsource)
    math(EXPR index "${line} - 1")
    list(GET lines ${index} text)
    tt_decode(text)
    string(REGEX REPLACE "\r$" "" text "${text}")
  endif()
  string(LENGTH "${line}" digits)
  set(pad "")
  if(digits LESS 5)
    math(EXPR npad "5 - ${digits}")
    string(REPEAT " " ${npad} pad)
  endif()
  set(quote "${pad}${line} | ${text}")
  math(EXPR before "${col} - 1")
  string(LENGTH "${text}" len)
  if(before GREATER len)
    set(before ${len})
  endif()
  string(SUBSTRING "${text}" 0 ${before} lead)
  string(REGEX REPLACE "[^\t]" " " lead "${lead}")
  set(caret "      | ${lead}^")

  # Find the first diagnostic line not matched yet that fits.
  set(found -1)
  set(near "")
  set(i 0)
  while(i LESS nerr)
    list(FIND used ${i} taken)
    list(GET err_lines ${i} l)
    tt_decode(l)
    if(taken EQUAL -1)
      if(kind STREQUAL "expect" AND l STREQUAL head)
        set(found ${i})
        break()
      elseif(kind STREQUAL "expect-prefix")
        string(FIND "${l}" "${head}" at)
        if(at EQUAL 0)
          set(found ${i})
          break()
        endif()
      endif()
      string(FIND "${l}" "${file}:${line}:" at)
      if(at EQUAL 0)
        set(near "${near}    ${l}\n")
      endif()
    endif()
    math(EXPR i "${i} + 1")
  endwhile()
  if(found EQUAL -1)
    string(APPEND failures "missing diagnostic (${kind}): ${head}\n")
    if(near)
      string(APPEND failures "  stderr has, on that line:\n${near}")
    endif()
    continue()
  endif()
  list(APPEND used ${found})
  math(EXPR q "${found} + 1")
  math(EXPR c "${found} + 2")
  set(got_quote "<nothing>")
  set(got_caret "<nothing>")
  if(q LESS nerr)
    list(GET err_lines ${q} got_quote)
    tt_decode(got_quote)
  endif()
  if(c LESS nerr)
    list(GET err_lines ${c} got_caret)
    tt_decode(got_caret)
  endif()
  if(NOT got_quote STREQUAL quote OR NOT got_caret STREQUAL caret)
    string(APPEND failures "diagnostic '${head}' is not followed by its source line and caret:\n"
      "  expected:\n${quote}\n${caret}\n  got:\n${got_quote}\n${got_caret}\n")
  endif()
endforeach()

# No error beyond those expected: repeated or cascading errors mislead.
set(nerrors 0)
set(unexpected "")
set(i 0)
while(i LESS nerr)
  list(GET err_lines ${i} l)
  tt_decode(l)
  if(l MATCHES "^[^ ].*: (fatal )?error: ")
    math(EXPR nerrors "${nerrors} + 1")
    list(FIND used ${i} taken)
    if(taken EQUAL -1)
      string(APPEND unexpected "    ${l}\n")
    endif()
  endif()
  math(EXPR i "${i} + 1")
endwhile()
if(NOT nerrors EQUAL expected_errors)
  string(APPEND failures "${nerrors} error(s) reported, ${expected_errors} expected")
  if(unexpected)
    string(APPEND failures "; not expected:\n${unexpected}")
  endif()
  string(APPEND failures "\n")
endif()

if(err MATCHES ": runtime error: |ERROR: AddressSanitizer|ERROR: LeakSanitizer")
  string(APPEND failures "a sanitizer reported an error (TILEPP_SANITIZE build)\n")
endif()

foreach(text IN LISTS forbidden)
  tt_decode(text)
  string(FIND "${err}" "${text}" at)
  if(NOT at EQUAL -1)
    string(APPEND failures "stderr has '${text}', which it must not (see `expect-not`)\n")
  endif()
endforeach()

if(failures)
  # Plain message(): FATAL_ERROR would re-wrap the lines.
  message("diagnostics test ${name} failed:\n${failures}"
    "---- full stderr of `tilepp -MD ${args} ${name}`:\n${err}")
  message(FATAL_ERROR "diagnostics test ${name} failed")
endif()
message(STATUS "${name}: ${expected_errors} error(s) reported as expected, no output written")
