# tilepp.cmake — tile_add_kernels(): translate `#pragma tile` C files to CUDA
# and link the kernels and their launchers into a target.
#
#   tile_add_kernels(<target>
#                    SOURCES a.c [b.c ...]
#                    [ARCH 80 90a]                 # default: 80 90a
#                    [INCLUDE_DIRECTORIES dir ...] # for the translator and nvcc
#                    [DEFINES NAME[=VALUE] ...]    # for the translator and nvcc
#                    [CUDA_OPTIONS opt ...]        # extra nvcc options
#                    [OUTPUT_DIR dir])             # default: <binary dir>/tilepp/<target>
#
# For each source x.c a build step runs the translator and writes
# <OUTPUT_DIR>/x.tile.cu (kernels and launchers) and <OUTPUT_DIR>/x.tile.h
# (launcher prototypes in plain C). A depfile records every header x.c
# includes, so editing one of them translates x.c again.
#
# ARCH picks the code paths tilepp generates (--arch) and the machine code
# nvcc builds: 80 gives sm_80 code (runs on sm_8x GPUs: A100, RTX 30xx/40xx),
# 90a gives sm_90a code (H100, H200). No PTX is embedded, so a GPU runs the
# kernels only when one of its own ARCH values was built.
#
# The generated .cu files are compiled by nvcc in an object library
# <target>_tile_kernels (…_2, _3 for further calls on the same target) with
# -std=c++17 and one -gencode per ARCH value; its CUDA_ARCHITECTURES is OFF, so
# <target>'s own CUDA_ARCHITECTURES is left alone. Directory-wide
# COMPILE_OPTIONS are not passed to nvcc (they are usually C compiler flags);
# use CUDA_OPTIONS for nvcc flags. The objects go into <target>, which also
# gets, on its include path, OUTPUT_DIR (so its C can `#include "x.tile.h"`)
# and the tilepp headers (<tilepp/tile.h>), and links the CUDA runtime:
# CUDA::cudart (the shared one; <target>'s CUDA_RUNTIME_LIBRARY is set to
# Shared when unset), or CUDA::cudart_static when CUDA_RUNTIME_LIBRARY is
# Static. An executable that links a static library made this way links as
# CUDA, so give it the same CUDA_RUNTIME_LIBRARY (or set
# CMAKE_CUDA_RUNTIME_LIBRARY project-wide). target_link_libraries() is not
# called on <target>, so either of its signatures stays free for the project.
#
# The CPU reference is not added: x.c itself is ordinary C, so add it to
# <target>'s sources when the program wants it. Its functions keep their
# names (NAME); the launchers are NAME_gpu and NAME_gpu_stream, so both link
# into one program.
#
# The project must have the CUDA language enabled
# (project(... LANGUAGES C CUDA) or enable_language(CUDA)).
#
# In the tilepp build tree this file is included by the top-level
# CMakeLists.txt and uses the `tilepp` target; installed, find_package(tilepp)
# includes it and it uses the imported executable `tilepp::tilepp`.

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

function(tile_add_kernels target)
  set(fn "tile_add_kernels(${target})")
  cmake_parse_arguments(PARSE_ARGV 1 arg ""
    "OUTPUT_DIR"
    "SOURCES;ARCH;INCLUDE_DIRECTORIES;DEFINES;CUDA_OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${fn}: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}\n"
      "usage: tile_add_kernels(<target> SOURCES a.c ... [ARCH 80 90a] "
      "[INCLUDE_DIRECTORIES dir ...] [DEFINES NAME[=VALUE] ...] "
      "[CUDA_OPTIONS opt ...] [OUTPUT_DIR dir])")
  endif()
  if(arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${fn}: no value given for ${arg_KEYWORDS_MISSING_VALUES}")
  endif()

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
  set(supported_archs 80 90a)
  if(NOT arg_ARCH)
    set(arg_ARCH ${supported_archs})
  endif()
  string(REPLACE "," ";" arg_ARCH "${arg_ARCH}")
  set(archs "")
  set(gencode "")
  foreach(arch IN LISTS arg_ARCH)
    if(arch STREQUAL "")
      continue()
    endif()
    if(NOT arch IN_LIST supported_archs)
      message(FATAL_ERROR "${fn}: unknown ARCH '${arch}'. tilepp generates code for "
        "80 (Ampere sm_80: mma.sync, cp.async) and 90a (Hopper sm_90a: wgmma, TMA); "
        "give one or both, e.g. ARCH 80 90a")
    endif()
    if(NOT arch IN_LIST archs)
      list(APPEND archs ${arch})
      list(APPEND gencode "-gencode=arch=compute_${arch},code=sm_${arch}")
    endif()
  endforeach()
  if(NOT archs)
    message(FATAL_ERROR "${fn}: ARCH is empty; give 80, 90a or both")
  endif()
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
  set(include_dirs "")
  foreach(dir IN LISTS arg_INCLUDE_DIRECTORIES)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND include_dirs "${dir}")
  endforeach()
  set(translator_args --arch "${arch_arg}")
  foreach(dir IN LISTS include_dirs)
    list(APPEND translator_args "-I${dir}")
  endforeach()
  foreach(def IN LISTS arg_DEFINES)
    list(APPEND translator_args "-D${def}")
  endforeach()

  # --- one translation step per source ------------------------------------
  get_property(all_outputs GLOBAL PROPERTY TILEPP_GENERATED_FILES)
  set(generated "")
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

    add_custom_command(
      OUTPUT "${cu}" "${hdr}"
      COMMAND ${translator} ${translator_args}
              -o "${cu}" --header "${hdr}" -MD -MF "${dep}" "${src_abs}"
      DEPENDS "${src_abs}" ${translator} "$<TARGET_FILE:${translator}>"
      DEPFILE "${dep}"
      COMMENT "tilepp: translating ${src_rel}"
      VERBATIM)
    list(APPEND generated "${cu}" "${hdr}")
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
  # tilepp's own tree holds the code it generates to nvcc's warnings.
  if(TILEPP_GENERATED_WARNINGS_AS_ERRORS)
    target_compile_options(${objlib} PRIVATE "SHELL:-Werror all-warnings")
  endif()
  # Like the C compile of x.c: its own directory first, then the rest.
  target_include_directories(${objlib} PRIVATE
    ${source_dirs} "${out_dir}" "${tilepp_include_dir}" ${include_dirs})
  target_compile_definitions(${objlib} PRIVATE ${arg_DEFINES})
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
endfunction()

cmake_policy(POP)
