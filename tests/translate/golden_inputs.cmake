# golden_inputs.cmake — which files the golden tests translate: every
# tests/translate/golden/*.c, and the samples. Included by CMakeLists.txt and
# update_goldens.cmake, so both see the same list.

include_guard(GLOBAL)

set(TT_GOLDEN_SAMPLES vector_add.c bias_gelu.c gemm.c softmax.c layernorm.c normalize.c flash_attention.c)

# tt_golden_inputs(<out-list> <repository root>)
function(tt_golden_inputs out root)
  get_filename_component(root "${root}" ABSOLUTE)
  if(CMAKE_SCRIPT_MODE_FILE)
    file(GLOB inputs "${root}/tests/translate/golden/*.c")
  else()
    file(GLOB inputs CONFIGURE_DEPENDS "${root}/tests/translate/golden/*.c")
  endif()
  foreach(sample IN LISTS TT_GOLDEN_SAMPLES)
    list(APPEND inputs "${root}/samples/${sample}")
  endforeach()
  set(${out} "${inputs}" PARENT_SCOPE)
endfunction()
