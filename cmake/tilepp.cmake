# tilepp.cmake — tile_add_kernels(): translate `#pragma tile` C files to CUDA
# and link the kernels and their launchers into a target.
#
#   tile_add_kernels(<target>
#                    SOURCES a.c [b.c ...]
#                    [ARCH 80 90a ...]             # default: the target's CUDA_ARCHITECTURES
#                    [INCLUDE_DIRECTORIES dir ...] # for the translator and nvcc
#                    [DEFINES NAME[=VALUE] ...]    # for the translator and nvcc
#                    [CUDA_OPTIONS opt ...]        # extra nvcc options
#                    [OUTPUT_DIR dir]              # default: <binary dir>/tilepp/<target>
#                    [OUT_VAR var]                 # set to the generated files
#                    [HEADERS_DESTINATION dir]     # install the generated headers there
#                    [TUNE_PARTS n]                # tuned sources: variants in n files (default 8)
#                    [NO_LINEINFO]                 # no -lineinfo for nvcc
#                    [DEBUG])                      # translate with -g: bounds checks
#
# For each source x.c a build step runs the translator and writes
# <OUTPUT_DIR>/x.tile.cu (kernels and launchers) and <OUTPUT_DIR>/x.tile.h
# (launcher prototypes in plain C). A depfile records every header x.c
# includes, so editing one of them translates x.c again. A translation that
# comes out the same leaves its files untouched, so nvcc does not run again
# (Ninja's restat). OUT_VAR names a variable that receives the paths of the
# generated .tile.cu (part files included) and .tile.h files (as
# protobuf_generate's OUT_VAR).
#
# A source with `#pragma tile tune` (a line of x.c itself, seen when CMake
# configures; a source the build generates is not scanned) is translated
# with `--parts n`: the variants of its tuned kernels are spread over n more
# files, <OUTPUT_DIR>/x.tile.part1.cu ... x.tile.partN.cu (some may hold no
# variant), compiled beside x.tile.cu, so Ninja and Make build them in
# parallel. n is TUNE_PARTS, 8 unless given; TUNE_PARTS 0 keeps every
# variant in x.tile.cu (one nvcc process). Each source is a configure
# dependency, so the build after an edit of one runs CMake again and sees a
# tune pragma added or removed.
#
# The translator parses x.c as the target's C compile does: with <target>'s
# COMPILE_DEFINITIONS and INCLUDE_DIRECTORIES (its own, its directory's and
# those its linked libraries give it, generator expressions evaluated), its
# C_STANDARD and C_EXTENSIONS, then DEFINES and INCLUDE_DIRECTORIES. The
# definitions the translator saw are written at the top of x.tile.cu, so nvcc
# compiles the kernels with the macros the CPU reference had. (A definition
# under $<COMPILE_LANGUAGE:...> is evaluated for no language in a build step:
# tile_add_kernels warns when the target has one.)
#
# ARCH picks the code paths tilepp generates (--arch) and the machine code
# nvcc builds. Values are spelt as in CUDA_ARCHITECTURES: 80, 86, 89 (sm_8x:
# the sm_80 path, mma.sync and cp.async, built for that GPU), 90 or 90a (the
# sm_90a path, wgmma and TMA, and the sm_80 path beside it), 100 and newer
# (the sm_80 path built for that GPU), with -real/-virtual suffixes ignored,
# and `native`, `all`, `all-major`. Without ARCH the target's
# CUDA_ARCHITECTURES is used (CMAKE_CUDA_ARCHITECTURES initialises it); its
# values below 80 are skipped, and when none is left (CMake's default is
# nvcc's oldest architecture) the default is 80 90a. compute_80 PTX is always
# embedded next to the machine code, so a GPU none of the values names (a
# newer one) runs the sm_80 path through the driver's JIT.
#
# The generated .cu files are compiled by nvcc in an object library
# <target>_tile_kernels (…_2, _3 for further calls on the same target) with
# -std=c++17, -lineinfo (line tables for profilers and compute-sanitizer;
# NO_LINEINFO drops it) and one -gencode per architecture; its
# CUDA_ARCHITECTURES is OFF, so <target>'s own CUDA_ARCHITECTURES is left
# alone. Directory-wide COMPILE_OPTIONS are not passed to nvcc (they are
# usually C compiler flags); use CUDA_OPTIONS for nvcc flags. The objects go
# into <target>, which also gets, on its include path, OUTPUT_DIR (so its C
# can `#include "x.tile.h"`) and the tilepp headers (<tilepp/tile.h>), and
# links the CUDA runtime: CUDA::cudart (the shared one; <target>'s
# CUDA_RUNTIME_LIBRARY is set to Shared when unset), or CUDA::cudart_static
# when CUDA_RUNTIME_LIBRARY is Static. An executable that links a static
# library made this way links as CUDA, so give it the same
# CUDA_RUNTIME_LIBRARY (or set CMAKE_CUDA_RUNTIME_LIBRARY project-wide).
# target_link_libraries() is not called on <target>, so either of its
# signatures stays free for the project.
#
# A library's generated headers are on its BUILD_INTERFACE include path.
# HEADERS_DESTINATION (relative to the install prefix) installs them there
# and puts that directory on the INSTALL_INTERFACE; code that includes them
# from an installed library also needs <tilepp/tile.h> (find_package(tilepp)
# and link tilepp::tile).
#
# DEBUG translates with `tilepp -g`: every tile_load and tile_store checks
# its window (the 4-argument forms' promise) or its bounds against the
# matrix's declared extents, a violating access is skipped, and the
# launcher, which then waits for its kernels, reports the first violation
# (file:line:col, the tile and matrix, the block) on stderr and returns
# cudaErrorAssert (pragmas/README.md, "Debug translation"). It is an option
# of the call, not implied by CMAKE_BUILD_TYPE (a Debug build keeps the
# kernels it measures); to tie it to Debug, pass DEBUG under
# `if(CMAKE_BUILD_TYPE STREQUAL "Debug")`.
#
# The CPU reference is not added: x.c itself is ordinary C, so add it to
# <target>'s sources when the program wants it. Its functions keep their
# names (NAME); the launchers are NAME_gpu and NAME_gpu_stream, so both link
# into one program.
#
# The project must have the CUDA language enabled
# (project(... LANGUAGES C CUDA) or enable_language(CUDA)).
#
# In the tilepp build tree (also through add_subdirectory or FetchContent)
# this file is included by tilepp's CMakeLists.txt and uses the `tilepp`
# target; installed, find_package(tilepp) includes it and it uses the
# imported executable `tilepp::tilepp`.

include_guard(GLOBAL)

# TILEPP_INCLUDE_DIR is set before this file is included: by the tilepp build
# (<build>/include) or by tileppConfig.cmake (<prefix>/include). Keep it where
# the function finds it from any directory.
if(DEFINED TILEPP_INCLUDE_DIR)
  set_property(GLOBAL PROPERTY TILEPP_INCLUDE_DIR "${TILEPP_INCLUDE_DIR}")
endif()

# Functions run under the policies in force where they are defined: 3.25's,
# so CMP0116 (DEPFILE paths transformed for Ninja) is NEW whatever the
# calling project asks for.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.25)

# _tile_arch_plan(<fn> <from> <values> <archs_var> <gencode_var>): the
# translator's code paths (80, 90a) and nvcc's -gencode options for a list of
# CUDA_ARCHITECTURES-style values. <from> says where the values came from:
# "ARCH" (the caller's: every value must be usable), "CUDA_ARCHITECTURES"
# (the target's: values below 80 are skipped) or "default".
function(_tile_arch_plan fn from values archs_var gencode_var)
  string(REPLACE "," ";" values "${values}")
  set(archs "")
  set(codes "")
  set(skipped "")
  while(values)
    list(POP_FRONT values value)
    string(REGEX REPLACE "-(real|virtual)$" "" value "${value}")
    if(value STREQUAL "")
      continue()
    elseif(value STREQUAL "native")
      if(NOT CMAKE_CUDA_ARCHITECTURES_NATIVE)
        message(FATAL_ERROR "${fn}: ${from} is 'native', but CMake found no GPU on "
          "this machine; name the architectures (e.g. 80 90a)")
      endif()
      list(PREPEND values ${CMAKE_CUDA_ARCHITECTURES_NATIVE})
      continue()
    elseif(value MATCHES "^all(-major)?$")
      list(PREPEND values 80 90a)
      continue()
    elseif(NOT value MATCHES "^([0-9]+)([af]?)$")
      message(FATAL_ERROR "${fn}: unknown architecture '${value}' in ${from}. tilepp "
        "takes CUDA_ARCHITECTURES values: 80, 86, 89 (the sm_80 path: mma.sync, "
        "cp.async), 90 or 90a (Hopper: wgmma, TMA), 100 and newer, native, all")
    endif()
    set(number ${CMAKE_MATCH_1})
    set(suffix ${CMAKE_MATCH_2})
    if(number LESS 80)
      if(from STREQUAL "ARCH")
        message(FATAL_ERROR "${fn}: ARCH ${value}: tilepp's kernels need sm_80 or "
          "newer (mma.sync, cp.async, bf16)")
      endif()
      list(APPEND skipped ${value})
      continue()
    elseif(number EQUAL 90)
      set(path 90a)
      set(code 90a)
    else()
      set(path 80)
      set(code ${number}${suffix})
    endif()
    if(NOT path IN_LIST archs)
      list(APPEND archs ${path})
    endif()
    if(NOT code IN_LIST codes)
      list(APPEND codes ${code})
    endif()
  endwhile()
  if(NOT archs)
    if(from STREQUAL "CUDA_ARCHITECTURES")
      message(VERBOSE "${fn}: CUDA_ARCHITECTURES (${skipped}) names no architecture "
        "tilepp builds for (80 and newer); building 80 90a")
      _tile_arch_plan("${fn}" "default" "80;90a" archs gencode)
      set(${archs_var} ${archs} PARENT_SCOPE)
      set(${gencode_var} ${gencode} PARENT_SCOPE)
      return()
    endif()
    message(FATAL_ERROR "${fn}: ${from} is empty; give 80, 90a or both")
  endif()
  # Machine code for each value, and compute_80 PTX always: a GPU that no
  # value names (a newer one) JIT-compiles the sm_80 path from it.
  set(gencode "")
  foreach(code IN LISTS codes)
    if(code STREQUAL "80")
      list(APPEND gencode "-gencode=arch=compute_80,code=[sm_80,compute_80]")
    else()
      list(APPEND gencode "-gencode=arch=compute_${code},code=sm_${code}")
    endif()
  endforeach()
  if(NOT "80" IN_LIST codes)
    list(APPEND gencode "-gencode=arch=compute_80,code=compute_80")
  endif()
  set(${archs_var} ${archs} PARENT_SCOPE)
  set(${gencode_var} ${gencode} PARENT_SCOPE)
endfunction()

function(tile_add_kernels target)
  set(fn "tile_add_kernels(${target})")
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_LINEINFO;DEBUG"
    "OUTPUT_DIR;OUT_VAR;HEADERS_DESTINATION;TUNE_PARTS"
    "SOURCES;ARCH;INCLUDE_DIRECTORIES;DEFINES;CUDA_OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${fn}: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}\n"
      "usage: tile_add_kernels(<target> SOURCES a.c ... [ARCH 80 90a ...] "
      "[INCLUDE_DIRECTORIES dir ...] [DEFINES NAME[=VALUE] ...] "
      "[CUDA_OPTIONS opt ...] [OUTPUT_DIR dir] [OUT_VAR var] "
      "[HEADERS_DESTINATION dir] [TUNE_PARTS n] [NO_LINEINFO] [DEBUG])")
  endif()
  if(arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${fn}: no value given for ${arg_KEYWORDS_MISSING_VALUES}")
  endif()
  if(NOT DEFINED arg_TUNE_PARTS)
    set(arg_TUNE_PARTS 8)
  elseif(NOT arg_TUNE_PARTS MATCHES "^[0-9]+$" OR arg_TUNE_PARTS GREATER 256)
    message(FATAL_ERROR "${fn}: TUNE_PARTS '${arg_TUNE_PARTS}' is not a number of "
      "files from 0 (every variant in x.tile.cu) to 256")
  endif()
  math(EXPR tune_parts "${arg_TUNE_PARTS}")  # 08 -> 8

  # --- the target -----------------------------------------------------------
  if(NOT TARGET ${target})
    message(FATAL_ERROR "${fn}: no target named '${target}'; create it first "
      "(add_executable or add_library)")
  endif()
  get_target_property(aliased ${target} ALIASED_TARGET)
  if(aliased)
    set(target ${aliased})
  endif()
  get_target_property(imported ${target} IMPORTED)
  get_target_property(type ${target} TYPE)
  if(imported OR NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY)$")
    message(FATAL_ERROR "${fn}: '${target}' is an imported target or an ${type}; "
      "the kernels go into an executable or a static, shared or module library")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "${fn}: no SOURCES given")
  endif()

  # --- tools ----------------------------------------------------------------
  if(TARGET tilepp::tilepp)
    set(translator tilepp::tilepp)   # installed: find_package(tilepp)
  elseif(TARGET tilepp)
    set(translator tilepp)           # the tilepp build tree
  else()
    message(FATAL_ERROR "${fn}: the tilepp translator is unknown here; "
      "call find_package(tilepp REQUIRED) first")
  endif()
  get_property(tilepp_include_dir GLOBAL PROPERTY TILEPP_INCLUDE_DIR)
  if(NOT tilepp_include_dir)
    message(FATAL_ERROR "${fn}: TILEPP_INCLUDE_DIR is not set; "
      "call find_package(tilepp REQUIRED) first")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CUDA" IN_LIST languages)
    message(FATAL_ERROR "${fn}: the generated kernels are compiled by nvcc, but "
      "the CUDA language is not enabled; use project(... LANGUAGES C CUDA) or "
      "enable_language(CUDA) before calling tile_add_kernels()")
  endif()
  if(NOT TARGET CUDA::cudart)
    find_package(CUDAToolkit REQUIRED)
  endif()

  # --- ARCH -----------------------------------------------------------------
  set(arch_from "ARCH")
  if(NOT arg_ARCH)
    get_target_property(arg_ARCH ${target} CUDA_ARCHITECTURES)
    set(arch_from "CUDA_ARCHITECTURES")
    if(NOT arg_ARCH)
      set(arg_ARCH 80 90a)
      set(arch_from "default")
    endif()
  endif()
  _tile_arch_plan("${fn}" "${arch_from}" "${arg_ARCH}" archs gencode)
  list(JOIN archs "," arch_arg)

  # --- where the generated files go ---------------------------------------
  if(arg_OUTPUT_DIR)
    get_filename_component(out_dir "${arg_OUTPUT_DIR}" ABSOLUTE
      BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/tilepp/${target}")
  endif()
  file(MAKE_DIRECTORY "${out_dir}")

  # --- options for the translator and nvcc ---------------------------------
  # Paths are made absolute against the calling directory, as
  # target_include_directories() does; generator expressions pass through.
  set(include_dirs "")
  foreach(dir IN LISTS arg_INCLUDE_DIRECTORIES)
    if(NOT dir MATCHES "^\\$<")
      get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    endif()
    list(APPEND include_dirs "${dir}")
  endforeach()
  # The target's own C settings, evaluated at generate time: what the C
  # compile of x.c sees, the translator sees.
  set(tgt_defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(tgt_incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(tgt_std "$<TARGET_PROPERTY:${target},C_STANDARD>")
  set(tgt_ext "$<TARGET_PROPERTY:${target},C_EXTENSIONS>")
  # C_EXTENSIONS unset means ON, as for CMake's own -std flag.
  set(std_prefix "$<IF:$<OR:$<STREQUAL:${tgt_ext},>,$<BOOL:${tgt_ext}>>,gnu,c>")
  # (Empty tests rather than $<BOOL:>: a definition may be named N or OFF.)
  set(translator_args --arch "${arch_arg}"
    "$<$<NOT:$<STREQUAL:${tgt_std},>>:-std=${std_prefix}${tgt_std}>"
    "$<$<NOT:$<STREQUAL:${tgt_defs},>>:-D$<JOIN:${tgt_defs},$<SEMICOLON>-D>>"
    "$<$<NOT:$<STREQUAL:${tgt_incs},>>:-I$<JOIN:${tgt_incs},$<SEMICOLON>-I>>")
  foreach(dir IN LISTS include_dirs)
    list(APPEND translator_args "-I${dir}")
  endforeach()
  foreach(def IN LISTS arg_DEFINES)
    list(APPEND translator_args "-D${def}")
  endforeach()
  if(arg_DEBUG)
    list(APPEND translator_args -g)
  endif()
  _tile_warn_language_conditions("${fn}" ${target})

  # --- one translation step per source ------------------------------------
  get_property(all_outputs GLOBAL PROPERTY TILEPP_GENERATED_FILES)
  set(generated "")
  set(headers "")
  set(source_dirs "")
  foreach(src IN LISTS arg_SOURCES)
    get_filename_component(src_abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT src_abs MATCHES "\\.c$")
      message(FATAL_ERROR "${fn}: '${src}' is not a .c file; tilepp translates "
        "C files annotated with #pragma tile")
    endif()
    get_source_file_property(is_generated "${src_abs}" GENERATED)
    if(NOT EXISTS "${src_abs}" AND NOT is_generated)
      message(FATAL_ERROR "${fn}: source '${src}' not found (looked at ${src_abs})")
    endif()
    get_filename_component(name "${src_abs}" NAME_WLE)
    get_filename_component(src_dir "${src_abs}" DIRECTORY)
    file(RELATIVE_PATH src_rel "${PROJECT_SOURCE_DIR}" "${src_abs}")
    if(src_rel MATCHES "^\\.\\./")
      set(src_rel "${src_abs}")
    endif()

    set(cu "${out_dir}/${name}.tile.cu")
    set(hdr "${out_dir}/${name}.tile.h")
    set(dep "${out_dir}/${name}.tile.d")
    if("${cu}" IN_LIST all_outputs)
      message(FATAL_ERROR "${fn}: ${cu} would be generated twice (two sources named "
        "${name}.c, or the same source in two calls); give the second call its own OUTPUT_DIR")
    endif()
    list(APPEND all_outputs "${cu}")

    # A tuned source: its variants go to part files that nvcc compiles in
    # parallel. The scan is of x.c as it is now; the source is a configure
    # dependency, so a tune pragma added later is seen by the next build.
    set(parts "")
    set(parts_args "")
    if(EXISTS "${src_abs}")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${src_abs}")
      file(STRINGS "${src_abs}" tune_lines LIMIT_COUNT 1
        REGEX "^[ \t]*#[ \t]*pragma[ \t]+tile[ \t]+tune")
      if(tune_lines AND tune_parts GREATER 0)
        foreach(i RANGE 1 ${tune_parts})
          list(APPEND parts "${out_dir}/${name}.tile.part${i}.cu")
        endforeach()
        set(parts_args --parts ${tune_parts})
      endif()
    endif()
    # Part files of an earlier configuration (more parts, or a tune pragma
    # since removed) are no output of the build any more.
    file(GLOB stale_parts "${out_dir}/${name}.tile.part*.cu")
    foreach(stale IN LISTS stale_parts)
      if(NOT stale IN_LIST parts)
        file(REMOVE "${stale}")
      endif()
    endforeach()

    add_custom_command(
      OUTPUT "${cu}" "${hdr}" ${parts}
      COMMAND ${translator} ${translator_args} ${parts_args}
              -o "${cu}" --header "${hdr}" -MD -MF "${dep}" "${src_abs}"
      DEPENDS "${src_abs}" ${translator} "$<TARGET_FILE:${translator}>"
      DEPFILE "${dep}"
      COMMENT "tilepp: translating ${src_rel}"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    list(APPEND generated "${cu}" ${parts} "${hdr}")
    list(APPEND headers "${hdr}")
    if(NOT src_dir IN_LIST source_dirs)
      list(APPEND source_dirs "${src_dir}")
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY TILEPP_GENERATED_FILES "${all_outputs}")

  # --- the CUDA runtime ------------------------------------------------------
  # <target> now links CUDA objects, so CMake links it as CUDA and adds the
  # runtime its CUDA_RUNTIME_LIBRARY names, Static when unset. tilepp's
  # default is the shared runtime, CUDA::cudart, which the target's own C
  # code (cudaMalloc, ...) usually links too: one runtime, never two.
  get_target_property(runtime ${target} CUDA_RUNTIME_LIBRARY)
  if(NOT runtime)
    set(runtime Shared)
    set_property(TARGET ${target} PROPERTY CUDA_RUNTIME_LIBRARY Shared)
  endif()
  string(TOLOWER "${runtime}" runtime_lc)
  if(runtime_lc STREQUAL "static")
    set(cudart CUDA::cudart_static)
  elseif(runtime_lc STREQUAL "shared")
    set(cudart CUDA::cudart)
  else()
    set(cudart "")  # None: the target links a runtime itself
  endif()

  # --- nvcc: an object library of the generated code -----------------------
  get_property(calls TARGET ${target} PROPERTY TILEPP_KERNEL_LIBRARIES)
  list(LENGTH calls ncalls)
  if(ncalls EQUAL 0)
    set(objlib "${target}_tile_kernels")
  else()
    math(EXPR n "${ncalls} + 1")
    set(objlib "${target}_tile_kernels_${n}")
  endif()
  set_property(TARGET ${target} APPEND PROPERTY TILEPP_KERNEL_LIBRARIES ${objlib})

  add_library(${objlib} OBJECT ${generated})
  # Directory-wide add_compile_options() are meant for the C compiler.
  set_property(TARGET ${objlib} PROPERTY COMPILE_OPTIONS "")
  set_target_properties(${objlib} PROPERTIES
    CUDA_ARCHITECTURES OFF
    CUDA_STANDARD 17
    CUDA_STANDARD_REQUIRED ON
    CUDA_EXTENSIONS OFF
    CUDA_RUNTIME_LIBRARY "${runtime}")
  if(type MATCHES "^(SHARED|MODULE)_LIBRARY$")
    set_property(TARGET ${objlib} PROPERTY POSITION_INDEPENDENT_CODE ON)
  endif()
  target_compile_options(${objlib} PRIVATE ${gencode} ${arg_CUDA_OPTIONS})
  if(NOT arg_NO_LINEINFO)
    target_compile_options(${objlib} PRIVATE -lineinfo)
  endif()
  # tilepp's own tree holds the code it generates to nvcc's warnings.
  if(TILEPP_GENERATED_WARNINGS_AS_ERRORS)
    target_compile_options(${objlib} PRIVATE "SHELL:-Werror all-warnings")
  endif()
  # Like the C compile of x.c: its own directory first, then the rest. The
  # definitions need not be repeated: x.tile.cu starts with them.
  target_include_directories(${objlib} PRIVATE
    ${source_dirs} "${out_dir}" "${tilepp_include_dir}" ${include_dirs} "${tgt_incs}")
  target_link_libraries(${objlib} PRIVATE ${cudart})

  # --- into the user's target ----------------------------------------------
  # target_sources/set_property rather than target_link_libraries, so the
  # target may use either signature of target_link_libraries itself.
  target_sources(${target} PRIVATE "$<TARGET_OBJECTS:${objlib}>")
  # Build the generated headers before the target's own sources include them.
  add_dependencies(${target} ${objlib})
  if(cudart)
    set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES ${cudart})
    if(type STREQUAL "STATIC_LIBRARY")
      set_property(TARGET ${target} APPEND PROPERTY
        INTERFACE_LINK_LIBRARIES "$<LINK_ONLY:${cudart}>")
    endif()
  endif()
  if(type STREQUAL "EXECUTABLE")
    target_include_directories(${target} PRIVATE "${out_dir}" "${tilepp_include_dir}")
  else()
    target_include_directories(${target} PUBLIC
      "$<BUILD_INTERFACE:${out_dir}>" "$<BUILD_INTERFACE:${tilepp_include_dir}>")
  endif()
  if(arg_HEADERS_DESTINATION)
    install(FILES ${headers} DESTINATION "${arg_HEADERS_DESTINATION}")
    target_include_directories(${target} INTERFACE "$<INSTALL_INTERFACE:${arg_HEADERS_DESTINATION}>")
  endif()
  if(arg_OUT_VAR)
    set(${arg_OUT_VAR} ${generated} PARENT_SCOPE)
  endif()
endfunction()

# _tile_warn_language_conditions(<fn> <target>): a definition under
# $<COMPILE_LANGUAGE:...> evaluates to nothing in a build step, so the
# translator would not see what the C compile sees. Warn where the target or
# its directory has one (those from linked libraries are not inspected).
function(_tile_warn_language_conditions fn target)
  get_target_property(defs ${target} COMPILE_DEFINITIONS)
  get_target_property(dir ${target} SOURCE_DIR)
  get_property(dir_defs DIRECTORY "${dir}" PROPERTY COMPILE_DEFINITIONS)
  if("${defs};${dir_defs}" MATCHES "COMPILE_LANG")
    message(WARNING "${fn}: a compile definition of '${target}' depends on "
      "$<COMPILE_LANGUAGE:...> or $<COMPILE_LANG_AND_ID:...>; the translator parses "
      "the kernels without it. Give the definition unconditionally, or in DEFINES.")
  endif()
endfunction()

cmake_policy(POP)
