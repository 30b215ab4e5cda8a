# kgate_add_family(NAME <f> SOURCES <files> [CUDA_SOURCES <files>] [REFERENCE_SOURCES <files>]
#                  [CUDA_REFERENCE_SOURCES <files>] [EXPORT_SOURCES <files>])
#
# Builds kernels/<f>/ as the static library kgate_family_<f>. Paths are relative to
# kernels/<f>/ (SOURCES, CUDA_SOURCES) and to references/<f>/ (REFERENCE_SOURCES, the oracle).
# CUDA_SOURCES and CUDA_REFERENCE_SOURCES (a GPU oracle, under references/<f>/) compile only
# with the GPU backend (KGATE_HAVE_CUDA). Every *.cpp and *.cu file
# under either folder must be listed: an unlisted one stops the configure step, so a correctly
# named new file can never be silently left out of the build.
# The family is recorded (global property KGATE_FAMILIES) for kgate_write_family_registry().
#
# Every unit but family.cpp (registration and prose, never a subject) gets its dependency list
# from the compiler (kgate_write_source_digests): an arm's sources are the dependencies of the
# units family.cpp names for it plus those of the family's oracle (REFERENCE_SOURCES; with
# CUDA_REFERENCE_SOURCES for GPU arms).
#
# EXPORT_SOURCES (relative to kernels/<f>/, GPU backend only) build the shared library
# kgate_export_<f> (libkgate_export_<f>.so, not built by default): the family's arms behind
# harness/export/kgate_export.h, which `kgate export` builds in a build tree of its own. It
# compiles its own objects (position-independent, symbols hidden but the entry) with the same
# flags as the family, plus harness/gpu/check.cpp, and links only the shared CUDA runtime (the
# one kgate loads, so both share the process's primary context). KGATE_EXPORT_ARMS (cache,
# comma-separated arm names; empty = all) picks the arms its table carries.
function(kgate_add_family)
  cmake_parse_arguments(PARSE_ARGV 0 F "" "NAME" "SOURCES;CUDA_SOURCES;REFERENCE_SOURCES;CUDA_REFERENCE_SOURCES;EXPORT_SOURCES")
  if(NOT F_NAME)
    message(FATAL_ERROR "kgate_add_family: NAME is required")
  endif()
  if(F_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kgate_add_family(${F_NAME}): unknown arguments ${F_UNPARSED_ARGUMENTS}")
  endif()
  # A family copied from another folder must be renamed in its CMakeLists.txt too.
  get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  if(NOT folder STREQUAL F_NAME)
    message(FATAL_ERROR "kgate_add_family(${F_NAME}) in kernels/${folder}/: NAME must be the folder's name")
  endif()
  set(kdir ${PROJECT_SOURCE_DIR}/kernels/${F_NAME})
  set(rdir ${PROJECT_SOURCE_DIR}/references/${F_NAME})
  _kgate_require_listed(${F_NAME} ${kdir} "${F_SOURCES};${F_CUDA_SOURCES};${F_EXPORT_SOURCES}")
  _kgate_require_listed(${F_NAME} ${rdir} "${F_REFERENCE_SOURCES};${F_CUDA_REFERENCE_SOURCES}")

  set(srcs "")
  foreach(s IN LISTS F_SOURCES)
    list(APPEND srcs ${kdir}/${s})
  endforeach()
  foreach(s IN LISTS F_REFERENCE_SOURCES)
    list(APPEND srcs ${rdir}/${s})
  endforeach()
  if(KGATE_HAVE_CUDA)
    foreach(s IN LISTS F_CUDA_SOURCES)
      list(APPEND srcs ${kdir}/${s})
    endforeach()
    foreach(s IN LISTS F_CUDA_REFERENCE_SOURCES)
      list(APPEND srcs ${rdir}/${s})
    endforeach()
  endif()

  set(lib kgate_family_${F_NAME})
  set(units "")
  foreach(s IN LISTS F_SOURCES)
    if(NOT s STREQUAL "family.cpp")
      list(APPEND units "kernels/${F_NAME}/${s}|${F_NAME}|arm|${lib}")
    endif()
  endforeach()
  foreach(s IN LISTS F_REFERENCE_SOURCES)
    list(APPEND units "references/${F_NAME}/${s}|${F_NAME}|oracle|${lib}")
  endforeach()
  if(KGATE_HAVE_CUDA)
    foreach(s IN LISTS F_CUDA_SOURCES)
      list(APPEND units "kernels/${F_NAME}/${s}|${F_NAME}|arm|${lib}")
    endforeach()
    foreach(s IN LISTS F_CUDA_REFERENCE_SOURCES)
      list(APPEND units "references/${F_NAME}/${s}|${F_NAME}|gpu_oracle|${lib}")
    endforeach()
  endif()
  set_property(GLOBAL APPEND PROPERTY KGATE_UNITS ${units})
  add_library(${lib} STATIC ${srcs})
  target_include_directories(${lib} PUBLIC ${PROJECT_SOURCE_DIR})
  target_compile_options(${lib} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Winfinite-recursion>
    $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo --expt-relaxed-constexpr -Xptxas=-warn-spills>)
  target_link_libraries(${lib} PUBLIC kgate_core)
  if(KGATE_HAVE_CUDA)
    target_link_libraries(${lib} PUBLIC kgate_gpu)
    set_target_properties(${lib} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
  endif()
  set_property(GLOBAL APPEND PROPERTY KGATE_FAMILIES ${F_NAME})
  if(KGATE_HAVE_CUDA AND F_EXPORT_SOURCES)
    _kgate_add_export(${F_NAME} ${kdir} "${F_EXPORT_SOURCES}")
  endif()
endfunction()

set(KGATE_EXPORT_ARMS "" CACHE STRING "arms (comma-separated) the kgate_export_<family> libraries carry; empty = all")

function(_kgate_add_export family kdir sources)
  set(srcs ${PROJECT_SOURCE_DIR}/harness/gpu/check.cpp)
  foreach(s IN LISTS sources)
    list(APPEND srcs ${kdir}/${s})
  endforeach()
  set(lib kgate_export_${family})
  add_library(${lib} SHARED EXCLUDE_FROM_ALL ${srcs})
  target_include_directories(${lib} PRIVATE ${PROJECT_SOURCE_DIR} ${NCCL_INCLUDE_DIR})
  target_compile_definitions(${lib} PRIVATE KGATE_HAVE_CUDA=1 KGATE_EXPORT_ARMS="${KGATE_EXPORT_ARMS}")
  target_compile_options(${lib} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Winfinite-recursion>
    $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo --expt-relaxed-constexpr -Xptxas=-warn-spills>)
  target_link_libraries(${lib} PRIVATE nlohmann_json::nlohmann_json CUDA::cudart)
  set_target_properties(${lib} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF CUDA_RUNTIME_LIBRARY Shared
                        CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endfunction()

# FATAL_ERROR when a *.cpp or *.cu file under `dir` is not in `listed` (paths relative to dir).
function(_kgate_require_listed family dir listed)
  if(NOT IS_DIRECTORY ${dir})
    return()
  endif()
  file(GLOB_RECURSE present CONFIGURE_DEPENDS RELATIVE ${dir} ${dir}/*.cpp ${dir}/*.cu)
  foreach(f IN LISTS present)
    if(NOT f IN_LIST listed)
      message(FATAL_ERROR "kgate_add_family(${family}): ${dir}/${f} is not listed in kernels/${family}/CMakeLists.txt "
                          "(list it under SOURCES, CUDA_SOURCES or REFERENCE_SOURCES, or remove it)")
    endif()
  endforeach()
  foreach(f IN LISTS listed)
    if(NOT EXISTS ${dir}/${f})
      message(FATAL_ERROR "kgate_add_family(${family}): listed source ${dir}/${f} does not exist")
    endif()
  endforeach()
endfunction()

# Writes ${CMAKE_BINARY_DIR}/generated/families.cpp: kgate::register_bundled_families(Registry&)
# calling register_family_<f>(Registry&) of every family added so far, in the order added, and
# the library kgate_families that links them all.
function(kgate_write_family_registry)
  get_property(families GLOBAL PROPERTY KGATE_FAMILIES)
  set(decls "")
  set(calls "")
  set(libs "")
  foreach(f IN LISTS families)
    string(APPEND decls "void register_family_${f}(Registry& r);\n")
    string(APPEND calls "  register_family_${f}(r);\n")
    list(APPEND libs kgate_family_${f})
  endforeach()
  set(out ${CMAKE_BINARY_DIR}/generated/families.cpp)
  file(CONFIGURE OUTPUT ${out} @ONLY CONTENT
"// generated by cmake/kgate_family.cmake from the kgate_add_family() calls; do not edit
#include \"harness/core/registry.hpp\"

namespace kgate {

@decls@
void register_bundled_families(Registry& r) {
@calls@}

}  // namespace kgate
")
  add_library(kgate_families STATIC ${out})
  target_link_libraries(kgate_families PUBLIC ${libs})
endfunction()

# kgate_write_source_digests(OUT): the build steps that write OUT, the C++ tables of
# harness/core/artifacts.hpp. Each unit recorded by kgate_add_family gets a step that runs its
# target's compiler in dependency mode (-M) with the target's include directories and
# definitions, and keeps the files inside the source tree (scripts/cmake/source_digests.cmake,
# MODE deps) in <build>/unit_deps/<unit>.deps; a DEPFILE re-runs it when any header it reads
# changes (Ninja consumes the .d file, hence the separate list). The last step hashes every
# listed file and the protocol sources (KGATE_PROTOCOL_SOURCES, _CUDA, _EXPORT) into
# OUT; its own DEPFILE names every hashed file, so an edit of any of them re-hashes.
function(kgate_write_source_digests out)
  get_property(units GLOBAL PROPERTY KGATE_UNITS)
  set(script ${PROJECT_SOURCE_DIR}/scripts/cmake/source_digests.cmake)
  set(manifest "")
  set(lists "")
  foreach(u IN LISTS units)
    string(REPLACE "|" ";" f "${u}")
    list(GET f 0 rel)
    list(GET f 1 family)
    list(GET f 2 role)
    list(GET f 3 lib)
    set(list_file ${CMAKE_BINARY_DIR}/unit_deps/${rel}.deps)
    set(incs "$<REMOVE_DUPLICATES:$<TARGET_PROPERTY:${lib},INCLUDE_DIRECTORIES>>")
    set(defs "$<REMOVE_DUPLICATES:$<TARGET_PROPERTY:${lib},COMPILE_DEFINITIONS>>")
    if(rel MATCHES "\\.cu$")
      set(compiler ${CMAKE_CUDA_COMPILER} -x cu -std=c++20)
      foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
        if(arch MATCHES "^([0-9]+[a-z]?)(-real)?$")
          list(APPEND compiler --generate-code=arch=compute_${CMAKE_MATCH_1},code=[sm_${CMAKE_MATCH_1}])
        endif()
      endforeach()
    else()
      set(compiler ${CMAKE_CXX_COMPILER} ${CMAKE_CXX20_EXTENSION_COMPILE_OPTION})
    endif()
    add_custom_command(
      OUTPUT ${list_file}
      COMMAND ${compiler} "$<$<BOOL:${incs}>:-I$<JOIN:${incs},$<SEMICOLON>-I>>"
              "$<$<BOOL:${defs}>:-D$<JOIN:${defs},$<SEMICOLON>-D>>" -M -MT ${list_file} -MF ${list_file}.d ${PROJECT_SOURCE_DIR}/${rel}
      COMMAND ${CMAKE_COMMAND} -DMODE=deps -DROOT=${PROJECT_SOURCE_DIR} -DBINARY=${CMAKE_BINARY_DIR}
              -DUNIT=${rel} -DIN=${list_file}.d -DOUT=${list_file} -P ${script}
      DEPENDS ${PROJECT_SOURCE_DIR}/${rel} ${script}
      DEPFILE ${list_file}.d
      COMMENT "Dependencies of ${rel}" VERBATIM COMMAND_EXPAND_LISTS)
    string(APPEND manifest "${rel}|${family}|${role}|${list_file}\n")
    list(APPEND lists ${list_file})
  endforeach()
  set(protocol "")
  foreach(p IN LISTS KGATE_PROTOCOL_SOURCES)
    string(APPEND manifest "${p}||protocol|\n")
    list(APPEND protocol ${PROJECT_SOURCE_DIR}/${p})
  endforeach()
  foreach(p IN LISTS KGATE_PROTOCOL_SOURCES_CUDA)
    string(APPEND manifest "${p}|cuda|protocol|\n")
    list(APPEND protocol ${PROJECT_SOURCE_DIR}/${p})
  endforeach()
  foreach(p IN LISTS KGATE_PROTOCOL_SOURCES_EXPORT)
    string(APPEND manifest "${p}|export|protocol|\n")
    list(APPEND protocol ${PROJECT_SOURCE_DIR}/${p})
  endforeach()
  set(manifest_file ${CMAKE_BINARY_DIR}/unit_deps/manifest.txt)
  file(CONFIGURE OUTPUT ${manifest_file} CONTENT "${manifest}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DMODE=digests -DROOT=${PROJECT_SOURCE_DIR} -DMANIFEST=${manifest_file}
            -DOUT=${out} -DDEPFILE=${out}.d -P ${script}
    DEPENDS ${lists} ${protocol} ${manifest_file} ${script} ${PROJECT_SOURCE_DIR}/scripts/cmake/write_if_changed.cmake
    DEPFILE ${out}.d
    COMMENT "Hashing the sources receipts name" VERBATIM)
endfunction()
