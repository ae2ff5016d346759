# run_hostile.cmake — hostile inputs that cannot live as a plain file of
# errors/: made here (a directory, an unreadable file, 100000-character
# lines, tens of thousands of lines, hundreds of nested blocks, bytes that
# are not UTF-8, a null character), each with the exact diagnostic and exit
# code it must get. One case per test (the index: errors/CATEGORIES.md).
#
#   cmake -DTILEPP=<tilepp> -DWORK_DIR=<dir> -DCASE=<case> -P run_hostile.cmake
#
# Every run must exit 0 or 1 (never crash), print nothing on stdout, and a
# refused input leaves no file behind. Cases:
#   empty_file no_kernels kernels_only_in_if0 nonexistent directory
#   unreadable read_error not_regular symlink_loop long_line
#   long_line_error long_file deep_nesting too_deep_nesting deep_if_chain
#   non_utf8_comment_string non_utf8_identifier non_utf8_pragma
#   null_character printf_in_kernel

cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/translate_common.cmake)
tt_require(TILEPP WORK_DIR CASE)

tt_fresh_dir("${WORK_DIR}")
set(failures "")

# run(<args>...): tilepp in WORK_DIR; sets rc, out, err and `last`.
macro(run)
  execute_process(COMMAND "${TILEPP}" ${ARGN}
    WORKING_DIRECTORY "${WORK_DIR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE ";" " " last "tilepp ${ARGN}")
endmacro()

function(fail text)
  string(LENGTH "${err}" nerr)
  set(shown "${err}")
  if(nerr GREATER 4000)
    string(SUBSTRING "${err}" 0 4000 shown)
    set(shown "${shown}\n[... ${nerr} bytes in all]")
  endif()
  set(failures "${failures}[${last}] ${text}\n  stderr:\n${shown}\n" PARENT_SCOPE)
endfunction()

# expect(<rc> <stderr text>...): the exit code, each text somewhere in stderr,
# nothing on stdout.
function(expect want_rc)
  if(NOT rc STREQUAL want_rc)
    fail("exit code '${rc}', expected ${want_rc}")
  endif()
  foreach(text IN LISTS ARGN)
    string(FIND "${err}" "${text}" at)
    if(at EQUAL -1)
      fail("stderr lacks '${text}'")
    endif()
  endforeach()
  if(NOT out STREQUAL "")
    fail("unexpected output on stdout:\n${out}")
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

function(expect_lacks text)
  string(FIND "${err}" "${text}" at)
  if(NOT at EQUAL -1)
    fail("stderr has '${text}', which it must not")
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

# expect_files(<file>...): WORK_DIR holds exactly these files.
function(expect_files)
  set(want "${ARGN}")
  list(SORT want)
  tt_dir_files(got "${WORK_DIR}")
  if(NOT got STREQUAL want)
    fail("files are '${got}', expected '${want}'")
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

# A kernel whose loop body is BODY (and whose parameters are x and y).
function(write_kernel file body)
  file(WRITE "${WORK_DIR}/${file}" "#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float *x, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        ${body}
}
")
endfunction()

set(no_kernel "warning: no '#pragma tile kernel' in this file: there is nothing to translate")
string(ASCII 233 e9)
string(ASCII 255 ff)

# --------------------------------------------------------------------------
if(CASE STREQUAL "empty_file")
  # An empty file translates, with a warning, into valid outputs that declare
  # no kernel (a build that lists the file goes on); -Werror makes it an error.
  file(WRITE "${WORK_DIR}/empty.c" "")
  run(-MD empty.c)
  expect(0 "empty.c: ${no_kernel}\n1 warning generated.\n")
  expect_files(empty.c empty.tile.cu empty.tile.h empty.tile.d)
  if(EXISTS "${WORK_DIR}/empty.tile.cu" AND EXISTS "${WORK_DIR}/empty.tile.h")
    file(READ "${WORK_DIR}/empty.tile.cu" cu)
    file(READ "${WORK_DIR}/empty.tile.h" h)
    if(cu MATCHES "__global__" OR NOT cu MATCHES "#include \"empty.tile.h\"")
      fail("empty.tile.cu is not an empty translation:\n${cu}")
    endif()
    if(NOT h MATCHES "#ifndef TILEPP_GENERATED_EMPTY_TILE_H" OR h MATCHES "cudaError_t [a-z_]+\\(")
      fail("empty.tile.h is not a header without launchers:\n${h}")
    endif()
  endif()
  file(REMOVE "${WORK_DIR}/empty.tile.cu" "${WORK_DIR}/empty.tile.h" "${WORK_DIR}/empty.tile.d")
  run(-Werror empty.c)
  expect(1 "empty.c: error: no '#pragma tile kernel' in this file: there is nothing to translate [-Werror]")
  expect_files(empty.c)

elseif(CASE STREQUAL "no_kernels")
  # C without a kernel: the same warning, once; the helper is not copied.
  file(WRITE "${WORK_DIR}/plain.c" "static int twice(int v) { return 2 * v; }\nint use(int v) { return twice(v); }\n")
  run(plain.c)
  expect(0 "plain.c: ${no_kernel}\n")
  string(REGEX MATCHALL "no '#pragma tile kernel'" hits "${err}")
  list(LENGTH hits nhits)
  if(NOT nhits EQUAL 1)
    fail("the warning came ${nhits} times")
  endif()
  expect_files(plain.c plain.tile.cu plain.tile.h)
  if(EXISTS "${WORK_DIR}/plain.tile.cu")
    file(READ "${WORK_DIR}/plain.tile.cu" cu)
    if(cu MATCHES "twice")
      fail("plain.tile.cu holds code of the file, which no kernel uses")
    endif()
  endif()

elseif(CASE STREQUAL "kernels_only_in_if0")
  # The only kernel pragma is in an `#if 0` region: no kernel, the warning.
  file(WRITE "${WORK_DIR}/if0.c" "#include <tilepp/tile.h>\n#if 0\n#pragma tile kernel\n#endif\nvoid f(int n, float *y)\n{\n    for (int i = 0; i < n; i++)\n        y[i] = 1.0f;\n}\n")
  run(if0.c)
  expect(0 "if0.c: ${no_kernel}\n")

elseif(CASE STREQUAL "nonexistent")
  run(-MD missing.c)
  expect(1 "tilepp: error: cannot read 'missing.c': No such file or directory\n1 error generated.\n")
  expect_files()

elseif(CASE STREQUAL "directory")
  # A directory named like a C file: an error of the file, not of the
  # command line (no --help hint).
  file(MAKE_DIRECTORY "${WORK_DIR}/dir.c")
  run(-MD dir.c)
  expect(1 "tilepp: error: 'dir.c' is a directory, not a C file\n1 error generated.\n")
  expect_lacks("--help")
  tt_dir_files(files "${WORK_DIR}")
  if(files)
    fail("files were created: ${files}")
  endif()

elseif(CASE STREQUAL "unreadable")
  # chmod 000: refused with the reason. A process that may read it anyway
  # (root, as CI runs) cannot see the refusal: that part is skipped, saying
  # so; `read_error` fails a read for root too.
  write_kernel(locked.c "y[i] = x[i];")
  execute_process(COMMAND chmod 000 "${WORK_DIR}/locked.c" RESULT_VARIABLE chmod_rc)
  if(NOT chmod_rc EQUAL 0)
    message(FATAL_ERROR "chmod 000 failed")
  endif()
  set(readable FALSE)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E cat "${WORK_DIR}/locked.c"
    RESULT_VARIABLE cat_rc OUTPUT_QUIET ERROR_QUIET)
  if(cat_rc EQUAL 0)
    message(STATUS "unreadable: skipped: this process reads a file of mode 000 (it runs as root or with "
      "CAP_DAC_OVERRIDE), so the refusal cannot be seen here; read_error covers a failing read")
  else()
    run(-MD locked.c)
    expect(1 "tilepp: error: cannot read 'locked.c': Permission denied\n1 error generated.\n")
    expect_files(locked.c)
  endif()
  file(CHMOD "${WORK_DIR}/locked.c" PERMISSIONS OWNER_READ OWNER_WRITE)

elseif(CASE STREQUAL "read_error")
  # A read that fails for any user, root included: /proc/self/mem read from
  # offset 0 (unmapped) gives EIO, through a link named like a C file.
  if(NOT EXISTS /proc/self/mem)
    message(STATUS "read_error: skipped: no /proc/self/mem on this system")
  else()
    file(CREATE_LINK /proc/self/mem "${WORK_DIR}/mem.c" SYMBOLIC)
    run(-MD mem.c)
    expect(1 "tilepp: error: cannot read 'mem.c': Input/output error\n1 error generated.\n")
    expect_files(mem.c)
  endif()

elseif(CASE STREQUAL "not_regular")
  # A pipe or a device: libclang reads the input again by its name (a pipe
  # would then be empty; /dev/zero never ends).
  run(/dev/zero)
  expect(1 "tilepp: error: '/dev/zero' is not a regular file (a pipe or a device): tilepp and libclang each read the input by its name, so it must be a file\n")
  find_program(MKFIFO mkfifo)
  if(MKFIFO)
    execute_process(COMMAND "${MKFIFO}" "${WORK_DIR}/pipe.c")
    run(pipe.c)
    expect(1 "tilepp: error: 'pipe.c' is not a regular file (a pipe or a device)")
  else()
    message(STATUS "not_regular: the pipe is skipped (no mkfifo)")
  endif()

elseif(CASE STREQUAL "symlink_loop")
  file(CREATE_LINK loop_b.c "${WORK_DIR}/loop_a.c" SYMBOLIC)
  file(CREATE_LINK loop_a.c "${WORK_DIR}/loop_b.c" SYMBOLIC)
  run(loop_a.c)
  expect(1 "tilepp: error: cannot read 'loop_a.c': Too many levels of symbolic links\n")
  # A path through a file, as if it were a directory.
  write_kernel(k.c "y[i] = x[i];")
  run(k.c/inner.c)
  expect(1 "tilepp: error: cannot read 'k.c/inner.c': Not a directory\n")

elseif(CASE STREQUAL "long_line")
  # A 100000-character line: an expression of 20000 terms. It crashed the
  # translator (its walk recursed once per operand on an 8 MB stack) after
  # 19 GB of copies; now it translates, every term kept.
  string(REPEAT "x[i] + " 14285 terms)
  write_kernel(long.c "y[i] = ${terms}x[i];")
  file(SIZE "${WORK_DIR}/long.c" size)
  if(size LESS 100000)
    fail("the input has ${size} bytes, fewer than the 100000 this case is about")
  endif()
  run(long.c)
  expect(0)
  if(EXISTS "${WORK_DIR}/long.tile.cu")
    file(READ "${WORK_DIR}/long.tile.cu" cu)
    string(REGEX MATCHALL "x\\[i\\]" reads "${cu}")
    list(LENGTH reads nreads)
    if(nreads LESS 14286)
      fail("long.tile.cu has ${nreads} reads of x[i], fewer than the 14286 of the source")
    endif()
  else()
    fail("no long.tile.cu")
  endif()

elseif(CASE STREQUAL "long_line_error")
  # An error at column 100028 of a 100030-character line: reported at that
  # column; the line is not quoted (over 4096 bytes, as clang does), so
  # stderr stays short.
  string(REPEAT "x" 100000 filler)
  write_kernel(long.c "y[i] = x[i] + /*${filler}*/ z;")
  run(-MD long.c)
  expect(1 "long.c:8:100028: error: use of undeclared identifier 'z'\n1 error generated.\n")
  string(LENGTH "${err}" nerr)
  if(nerr GREATER 200)
    fail("stderr has ${nerr} bytes: the long line was quoted")
  endif()
  expect_files(long.c)

elseif(CASE STREQUAL "long_file")
  # 60000 lines: 25000 declarations of a helper, each with a comment line,
  # 10000 definitions of one macro, then the helper and a kernel that uses
  # both. The kernel's body keeps its line number in the CUDA; the outputs
  # are made with the umask's permissions, as a compiler's (they were 0600).
  string(REPEAT "float h(float v); /* declared again */\n// a comment line\n" 25000 decls)
  string(REPEAT "#define SCALE 2.0f\n" 10000 macros)
  file(WRITE "${WORK_DIR}/big.c" "#include <tilepp/tile.h>\n${decls}${macros}float h(float v) { return v * SCALE; }\n\n"
    "#pragma tile kernel\nvoid f(int n, float *y)\n{\n#pragma tile parallel\n    for (int i = 0; i < n; i++)\n"
    "        y[i] = h(y[i]);\n}\n")
  run(big.c)
  expect(0)
  if(EXISTS "${WORK_DIR}/big.tile.cu")
    file(READ "${WORK_DIR}/big.tile.cu" cu)
    if(NOT cu MATCHES "#line 60009 \"big.c\"\n        y\\[i\\] = h\\(y\\[i\\]\\);")
      fail("big.tile.cu has no '#line 60009' before the kernel's body")
    endif()
    find_program(STAT stat)
    execute_process(COMMAND sh -c "umask" OUTPUT_VARIABLE mask OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(STAT AND mask STREQUAL "0022")
      execute_process(COMMAND "${STAT}" -c "%a" big.tile.cu big.tile.h WORKING_DIRECTORY "${WORK_DIR}"
        OUTPUT_VARIABLE modes)
      if(NOT modes STREQUAL "644\n644\n")
        fail("the outputs have modes '${modes}', expected 644 (umask 0022)")
      endif()
    endif()
  else()
    fail("no big.tile.cu")
  endif()

elseif(CASE STREQUAL "deep_nesting")
  # 200 nested blocks, and 200 nested parentheses inside them, in a loop
  # body (clang takes 256 of each): translated.
  string(REPEAT "{ " 200 open)
  string(REPEAT "} " 200 close)
  string(REPEAT "(" 200 lpar)
  string(REPEAT ")" 200 rpar)
  write_kernel(deep.c "${open}y[i] = ${lpar}x[i]${rpar}; ${close}")
  run(deep.c)
  expect(0)
  if(EXISTS "${WORK_DIR}/deep.tile.cu")
    file(READ "${WORK_DIR}/deep.tile.cu" cu)
    string(FIND "${cu}" "${lpar}" at)
    if(at EQUAL -1)
      fail("deep.tile.cu lost the nested parentheses")
    endif()
  endif()

elseif(CASE STREQUAL "too_deep_nesting")
  # 300 nested blocks: over clang's limit of 256, its error (once).
  string(REPEAT "{ " 300 open)
  string(REPEAT "} " 300 close)
  write_kernel(deep.c "${open}y[i] = x[i]; ${close}")
  run(-MD deep.c)
  expect(1 "deep.c:8:519: error: bracket nesting level exceeded maximum of 256\n")
  string(REGEX MATCHALL ": error: " errors "${err}")
  list(LENGTH errors nerrors)
  if(NOT nerrors EQUAL 1)
    fail("${nerrors} errors, expected 1")
  endif()
  expect_files(deep.c)

elseif(CASE STREQUAL "deep_if_chain")
  # 5000 nested ifs without braces (no bracket limit): 5000 levels of
  # recursion in the translator, on its deep stack.
  string(REPEAT "if (i > 0) " 5000 ifs)
  write_kernel(ifs.c "${ifs}y[i] = x[i];")
  run(ifs.c)
  expect(0)

elseif(CASE STREQUAL "non_utf8_comment_string")
  # Bytes that are not UTF-8 in a comment and in a string: clang's warning
  # at the string's first such byte, the line quoted with <XX> and the caret
  # under it (a column for each byte before it, four for <E9>); the bytes go
  # into the CUDA as they are.
  write_kernel(bytes.c "y[i] = x[i] /* caf${e9} */ + (float)sizeof(\"${e9}${ff}\");")
  run(bytes.c)
  expect(0 "bytes.c:8:49: warning: illegal character encoding in string literal\n    8 |         y[i] = x[i] /* caf<E9> */ + (float)sizeof(\"<E9><FF>\");\n      |                                                    ^\n")
  if(EXISTS "${WORK_DIR}/bytes.tile.cu")
    file(READ "${WORK_DIR}/bytes.tile.cu" cu)
    string(FIND "${cu}" "/* caf${e9} */" at)
    if(at EQUAL -1)
      fail("bytes.tile.cu does not hold the comment's bytes as they are")
    endif()
  endif()

elseif(CASE STREQUAL "non_utf8_identifier")
  # A byte that is not UTF-8 in an identifier: clang's errors, the line
  # quoted with <E9> and the caret under it.
  write_kernel(ident.c "y[i] = caf${e9};")
  run(-MD ident.c)
  expect(1 "ident.c:8:19: error: source file is not valid UTF-8\n    8 |         y[i] = caf<E9>;\n      |                   ^\n"
    "ident.c:8:16: error: use of undeclared identifier 'caf'\n")
  expect_files(ident.c)

elseif(CASE STREQUAL "non_utf8_pragma")
  # ... and in a pragma's argument: the message shows it as <E9> too.
  file(WRITE "${WORK_DIR}/prag.c" "#include <tilepp/tile.h>\n#pragma tile kernel threads(${e9})\nvoid f(int n, float *y)\n{\n#pragma tile parallel\n    for (int i = 0; i < n; i++)\n        y[i] = 1.0f;\n}\n")
  run(-MD prag.c)
  expect(1 "prag.c:2:29: error: '<E9>' is not an integer constant (expected a number, an enum constant or a macro)\n    2 | #pragma tile kernel threads(<E9>)\n      |                             ^\n")
  expect_files(prag.c)

elseif(CASE STREQUAL "null_character")
  # A null character in a statement: clang skips it with a warning, but the
  # text tilepp copies was cut there (`y[i] = 1.0f <NUL>+ 2.0f;` became
  # `y[i] = 1.0f ;`, a wrong kernel, exit 0). Refused where it stands.
  find_program(PRINTF printf)
  if(NOT PRINTF)
    message(FATAL_ERROR "this case needs printf(1) to write a null byte")
  endif()
  write_kernel(nul.c "y[i] = 1.0f @+ 2.0f;")
  file(READ "${WORK_DIR}/nul.c" text)
  string(REPLACE "@" "\\000" text "${text}")
  string(REPLACE "%" "%%" text "${text}")
  execute_process(COMMAND "${PRINTF}" "${text}" OUTPUT_FILE "${WORK_DIR}/nul.c")
  file(SIZE "${WORK_DIR}/nul.c" size)
  run(-MD nul.c)
  expect(1 "nul.c:8:21: error: a null character in the source: tilepp copies the source's text into the CUDA it writes and cannot carry one; remove it\n")
  expect_lacks("null character ignored")
  expect_files(nul.c)

elseif(CASE STREQUAL "printf_in_kernel")
  # printf has a GPU version: kept, with a warning about what differs.
  write_kernel(print.c "printf(\"%d\\n\", i);")
  file(READ "${WORK_DIR}/print.c" text)
  file(WRITE "${WORK_DIR}/print.c" "#include <stdio.h>\n${text}")
  run(print.c)
  expect(0 "print.c:9:9: warning: printf in a kernel prints from the GPU: lines come in no fixed order, and what does not fit the device's printf buffer (1 MB unless cudaLimitPrintfFifoSize is raised) is lost\n")

else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()

if(failures)
  message("${failures}")
  message(FATAL_ERROR "hostile case ${CASE} failed")
endif()
message(STATUS "hostile case ${CASE}: ok")
