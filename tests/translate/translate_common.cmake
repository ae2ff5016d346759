# translate_common.cmake — helpers shared by the translation test scripts
# (run with `cmake -P`; included, never run on its own).
#
# CMake lists split on ';' and treat '[' ']' specially, and diagnostics and
# C source are full of both. Text is therefore turned into a list of lines
# with those three characters encoded (tt_lines) and each line is decoded
# (tt_decode) before use.

include_guard(GLOBAL)

string(ASCII 1 TT_SEMI)
string(ASCII 2 TT_LBRACKET)
string(ASCII 3 TT_RBRACKET)

# tt_lines(<out-list> <text>): the lines of <text>, encoded; a final newline
# does not make an empty last line.
function(tt_lines out text)
  string(REPLACE ";" "${TT_SEMI}" text "${text}")
  string(REPLACE "[" "${TT_LBRACKET}" text "${text}")
  string(REPLACE "]" "${TT_RBRACKET}" text "${text}")
  string(REGEX REPLACE "\n$" "" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

# tt_decode(<var>): undoes the encoding of tt_lines on one line.
macro(tt_decode var)
  string(REPLACE "${TT_SEMI}" ";" ${var} "${${var}}")
  string(REPLACE "${TT_LBRACKET}" "[" ${var} "${${var}}")
  string(REPLACE "${TT_RBRACKET}" "]" ${var} "${${var}}")
endmacro()

# tt_require(<var>...): fails unless every -D<var>=... was given.
macro(tt_require)
  foreach(tt_var ${ARGN})
    if(NOT DEFINED ${tt_var})
      message(FATAL_ERROR "missing -D${tt_var}=...")
    endif()
  endforeach()
endmacro()

# tt_directive_args(<out-list> <file>): the extra translator arguments a test
# input asks for, on lines `// tilepp-args: -DWIDTH=8 --arch 80`.
function(tt_directive_args out file)
  file(STRINGS "${file}" lines REGEX "^// tilepp-args:")
  set(args "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^// tilepp-args:[ \t]*" "" line "${line}")
    separate_arguments(parts UNIX_COMMAND "${line}")
    list(APPEND args ${parts})
  endforeach()
  set(${out} "${args}" PARENT_SCOPE)
endfunction()

# tt_fresh_dir(<dir>): an empty directory.
function(tt_fresh_dir dir)
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
endfunction()

# tt_dir_files(<out-list> <dir>): every file under <dir> (hidden ones too),
# relative to it, sorted.
function(tt_dir_files out dir)
  file(GLOB_RECURSE files RELATIVE "${dir}" LIST_DIRECTORIES false "${dir}/*")
  list(SORT files)
  set(${out} "${files}" PARENT_SCOPE)
endfunction()

# tt_show_diff(<expected-file> <actual-file> <out-var>): a unified diff of
# the two files (diff -u, else git diff --no-index, else the first line that
# differs).
function(tt_show_diff expected actual out)
  find_program(TT_DIFF diff)
  find_program(TT_GIT git)
  set(text "")
  if(TT_DIFF)
    execute_process(COMMAND "${TT_DIFF}" -u "${expected}" "${actual}"
      OUTPUT_VARIABLE text ERROR_VARIABLE err)
  elseif(TT_GIT)
    execute_process(COMMAND "${TT_GIT}" diff --no-color --no-index -- "${expected}" "${actual}"
      OUTPUT_VARIABLE text ERROR_VARIABLE err)
  endif()
  if(text STREQUAL "")
    # No diff tool: name the first line that differs.
    file(READ "${expected}" want)
    file(READ "${actual}" got)
    tt_lines(want_lines "${want}")
    tt_lines(got_lines "${got}")
    list(LENGTH want_lines nwant)
    list(LENGTH got_lines ngot)
    set(i 0)
    while(i LESS nwant AND i LESS ngot)
      list(GET want_lines ${i} w)
      list(GET got_lines ${i} g)
      if(NOT w STREQUAL g)
        break()
      endif()
      math(EXPR i "${i} + 1")
    endwhile()
    math(EXPR lineno "${i} + 1")
    set(w "<end of file>")
    set(g "<end of file>")
    if(i LESS nwant)
      list(GET want_lines ${i} w)
      tt_decode(w)
    endif()
    if(i LESS ngot)
      list(GET got_lines ${i} g)
      tt_decode(g)
    endif()
    set(text "first difference at line ${lineno}:\n- ${w}\n+ ${g}\n")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
