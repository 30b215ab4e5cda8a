# kgate's CMake package, for building export libraries against an installed kgate:
#   find_package(kgate REQUIRED)
#   kgate_add_export(my_norm my_norm.c)        # libmy_norm.so, loaded as export:libmy_norm.so:ARM
# It defines
#   kgate::export      an interface target: the export ABI headers (kgate_export.h, <family>/abi.h)
#   kgate_add_export(NAME SOURCE...)  a shared library of those sources linked to kgate::export,
#                      every symbol hidden but kgate_export_table
#   kgate_EXECUTABLE   the installed kgate;  kgate_DATA_DIR  its data (cases/, examples/)
get_filename_component(_kgate_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(kgate_EXECUTABLE "${_kgate_prefix}/bin/kgate")
set(kgate_DATA_DIR "${_kgate_prefix}/share/kgate")
set(kgate_INCLUDE_DIR "${_kgate_prefix}/include/kgate")
if(NOT TARGET kgate::export)
  add_library(kgate::export INTERFACE IMPORTED)
  set_target_properties(kgate::export PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${kgate_INCLUDE_DIR}")
endif()
function(kgate_add_export name)
  add_library(${name} SHARED ${ARGN})
  target_link_libraries(${name} PRIVATE kgate::export)
  set_target_properties(${name} PROPERTIES C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden
                                           CUDA_VISIBILITY_PRESET hidden)
endfunction()
unset(_kgate_prefix)
