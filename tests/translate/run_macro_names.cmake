# run_macro_names.cmake — the names the generated code spells after the
# file's macros (members and functions after `.`, `::` or `->`, outside
# tilepp's tile_ names) must all be in build_names.c's generated_names, the
# list tilepp refuses as macro names: a macro of such a name, copied into the
# CUDA, would rename them. Reads every golden translation.
#   cmake -DGOLDEN=dir -DSOURCE=tilepp/src/build_names.c -P run_macro_names.cmake
file(READ "${SOURCE}" source)
string(FIND "${source}" "generated_names[] = {" at)
string(SUBSTRING "${source}" ${at} 4000 list_text)
string(FIND "${list_text}" "};" end)
string(SUBSTRING "${list_text}" 0 ${end} list_text)
string(REGEX MATCHALL "\"[A-Za-z_0-9]+\"" listed "${list_text}")
file(GLOB goldens "${GOLDEN}/*.tile.cu.expected")
set(missing "")
foreach(g IN LISTS goldens)
  file(STRINGS "${g}" lines REGEX "(\\.|::|->)[A-Za-z_]")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*(//|#line|#include|#error)")
      continue()
    endif()
    string(REGEX REPLACE "//.*$" "" line "${line}")        # comments
    string(REGEX REPLACE "\"[^\"]*\"" "" line "${line}")   # strings
    string(REGEX MATCHALL "(\\.|::|->)[A-Za-z_][A-Za-z_0-9]*" names "${line}")
    foreach(n IN LISTS names)
      string(REGEX REPLACE "^(\\.|::|->)" "" n "${n}")
      if(n MATCHES "^tile_" OR n MATCHES "^[0-9]" OR n MATCHES "_gpu(_stream)?$") # the file's own launchers
        continue()
      endif()
      list(FIND listed "\"${n}\"" found)
      if(found EQUAL -1)
        list(APPEND missing "${n} (${g})")
      endif()
    endforeach()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES missing)
if(missing)
  string(REPLACE ";" "\n  " missing "${missing}")
  message(FATAL_ERROR "names the generated code uses but build_names.c's generated_names lacks:\n  ${missing}")
endif()
list(LENGTH listed n)
message(STATUS "every member or qualified name of the goldens is among the ${n} refused as macro names")
