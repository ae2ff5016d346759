# run_inspect.cmake — `tilepp inspect` on the GEMM of samples/gemm.c at one schedule
# (tests/compile/inputs/gemm_fixed.c), one case per test.
#
#   cmake -DTILEPP=<tilepp> -DNVCC=<nvcc> -DCASE=sass|ptx|object -DINPUT=<gemm.c>
#         [-DOBJECT=<gemm.tile.o>] [-DCUOBJDUMP=<cuobjdump>] -DWORK_DIR=<dir>
#         -P run_inspect.cmake
#
#   sass    tilepp inspect --json --arch 90a gemm.c: the sm_90a GEMM kernel
#           (tile_gemm_grid0_sm90) has HGMMA, UTMALDG and SYNCS and no spills;
#           the sm_80 one run on sm_90a (tile_gemm_grid0<16>) HMMA, LDGSTS and
#           LDSM. Needs nvdisasm: without it, prints "SKIPPED: ..." (ctest
#           reports the test as skipped) and the ptx case stands in.
#   ptx     the same with --ptx: wgmma.mma_async, cp.async.bulk.tensor and
#           mbarrier; mma.sync, cp.async and ldmatrix; no spills (ptxas -v).
#   object  tilepp inspect <object compile_gemm left> (a fatbin in a .o, read
#           with cuobjdump): tables for sm_80 and sm_90a with HMMA and HGMMA.
#           Skipped without cuobjdump and nvdisasm.
#
# nvcc is the one CMake found (CUDACXX); CUOBJDUMP, when set, is handed over
# as TILEPP_CUOBJDUMP (nvdisasm is looked for beside it).

cmake_minimum_required(VERSION 3.20)
foreach(var TILEPP NVCC CASE INPUT WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "missing -D${var}=...")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(ENV{CUDACXX} "${NVCC}")
if(CUOBJDUMP)
  set(ENV{TILEPP_CUOBJDUMP} "${CUOBJDUMP}")
endif()

set(failures "")
function(fail text)
  set(failures "${failures}${text}\n" PARENT_SCOPE)
endfunction()

# inspect(<args>...): runs tilepp inspect in WORK_DIR; sets rc, out, err.
macro(inspect)
  execute_process(COMMAND "${TILEPP}" inspect ${ARGN}
    WORKING_DIRECTORY "${WORK_DIR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE ";" " " last_command "tilepp inspect ${ARGN}")
  message(STATUS "${last_command}: exit ${rc}\n${out}${err}")
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${last_command} exited with '${rc}':\n${err}")
  endif()
endmacro()

# find_kernel(<var> <json> <name> <arch>): the index of the kernel in
# "kernels", or -1.
function(find_kernel var json name arch)
  string(JSON n LENGTH "${json}" kernels)
  set(found -1)
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON k_name GET "${json}" kernels ${i} name)
      string(JSON k_arch GET "${json}" kernels ${i} arch)
      if(k_name STREQUAL name AND k_arch STREQUAL arch)
        set(found ${i})
      endif()
    endforeach()
  endif()
  set(${var} ${found} PARENT_SCOPE)
endfunction()

# expect_kernel(<json> <name> <arch> <mnemonic>...): the kernel is there, has
# each mnemonic at least once, and spills nothing.
function(expect_kernel json name arch)
  find_kernel(i "${json}" "${name}" "${arch}")
  if(i EQUAL -1)
    fail("no kernel ${name} for ${arch}")
    set(failures "${failures}" PARENT_SCOPE)
    return()
  endif()
  foreach(mnemonic IN LISTS ARGN)
    string(JSON count ERROR_VARIABLE missing GET "${json}" kernels ${i} mnemonics "${mnemonic}")
    if(missing OR count LESS 1)
      string(JSON all GET "${json}" kernels ${i} mnemonics)
      fail("${name} (${arch}): no ${mnemonic}; it has ${all}")
    endif()
  endforeach()
  foreach(field spill_store_bytes spill_load_bytes)
    string(JSON bytes GET "${json}" kernels ${i} ${field})
    if(NOT bytes STREQUAL "0")
      fail("${name} (${arch}): ${field} is ${bytes}, expected 0")
    endif()
  endforeach()
  string(JSON origin GET "${json}" kernels ${i} tilepp kernel)
  if(NOT origin STREQUAL "gemm")
    fail("${name} (${arch}): from tilepp kernel '${origin}', expected 'gemm'")
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

if(CASE STREQUAL "sass" OR CASE STREQUAL "ptx")
  set(view_flag "")
  if(CASE STREQUAL "ptx")
    set(view_flag --ptx)
  endif()
  inspect(--json ${view_flag} --arch 90a "${INPUT}")
  string(JSON view GET "${out}" view)
  if(CASE STREQUAL "sass" AND view STREQUAL "ptx")
    string(JSON tools GET "${out}" tools)
    message("SKIPPED: no nvdisasm, so no SASS (${tools}); "
      "pip install nvidia-cuda-nvdisasm nvidia-cuda-cuobjdump and set TILEPP_CUOBJDUMP")
    return()
  endif()
  if(NOT view STREQUAL CASE)
    fail("view is '${view}', expected '${CASE}'")
  endif()
  string(JSON archs GET "${out}" archs)
  if(NOT archs MATCHES "^\\[ *\"sm_90a\" *\\]$")
    fail("archs are ${archs}, expected [\"sm_90a\"]")
  endif()
  if(CASE STREQUAL "sass")
    expect_kernel("${out}" tile_gemm_grid0_sm90 sm_90a HGMMA UTMALDG SYNCS)
    expect_kernel("${out}" "tile_gemm_grid0<16>" sm_90a HMMA LDGSTS LDSM)
  else()
    expect_kernel("${out}" tile_gemm_grid0_sm90 sm_90a wgmma.mma_async cp.async.bulk.tensor mbarrier)
    expect_kernel("${out}" "tile_gemm_grid0<16>" sm_90a mma.sync cp.async ldmatrix)
  endif()

elseif(CASE STREQUAL "object")
  if(NOT EXISTS "${OBJECT}")
    message(FATAL_ERROR "${OBJECT} does not exist (did compile_gemm run?)")
  endif()
  execute_process(COMMAND "${TILEPP}" inspect "${OBJECT}"
    WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "tilepp inspect ${OBJECT}: exit ${rc}\n${out}${err}")
  if(err MATCHES "(cuobjdump|nvdisasm) is not in")
    message("SKIPPED: ${err}")
    return()
  endif()
  if(NOT rc STREQUAL "0")
    fail("exit code '${rc}':\n${err}")
  endif()
  foreach(text "sm_80 (SASS)" "sm_90a (SASS)" "tile_gemm_grid0_sm90: HGMMA" "tile_gemm_grid0<16>: HMMA")
    string(FIND "${out}" "${text}" at)
    if(at EQUAL -1)
      fail("the output lacks '${text}'")
    endif()
  endforeach()

else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()

if(failures)
  message("${failures}")
  message(FATAL_ERROR "inspect case ${CASE} failed")
endif()
message(STATUS "inspect case ${CASE}: ok")
