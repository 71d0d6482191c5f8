# Build time: the libraries and tools with many translation units precompile
# the standard and Abseil headers most of their files parse (test binaries
# precompile Catch2's header instead: BarracudaTesting.cmake). One PCH per
# target, built with that target's own flags, so that it is valid for g++ and
# for clang (which refuses a PCH built with other definitions or sanitizers).
# Measured (2026-11-30, 2 cores, the 54 files of barracuda_emu from scratch,
# PCH included): g++ 12 RelWithDebInfo -g1 163 -> 123 s; clang 19 Debug with
# ASan+UBSan (CI's second build) 153 -> 81 s. One file: instrument/
# logging_calls.cpp 12.4 -> 9.7 s, runtime/launch.cpp 8.3 -> 5.9 s of CPU. The
# header set itself takes ~7 s per target (a 110 MB .gch with g++ -g1, 20 MB
# .pch with clang), so targets with fewer files than BARRACUDA_PCH_MIN_SOURCES
# do without. In the full CI of that day, on a machine ~20% slower than the
# run before (the unchanged nvcc steps took 23% longer): the ASan build's C++
# files 1495 -> 1326 s of job time plus 120 s of PCH (wall 13.5 -> 12.7 min);
# the release build's library files 964 -> 950 s plus ~95 s of PCH.
option(BARRACUDA_PCH "Precompile common headers for targets with many C++ files" ON)
set(BARRACUDA_PCH_MIN_SOURCES 5 CACHE STRING "C++ files a target needs to get a precompiled header")

set(_barracuda_pch_headers
  <algorithm> <atomic> <cstdint> <cstring> <functional> <map> <memory> <mutex>
  <optional> <string> <string_view> <utility> <vector>
  "absl/container/flat_hash_map.h" "absl/status/status.h" "absl/status/statusor.h"
  "absl/strings/str_cat.h")

function(_barracuda_targets_in dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    _barracuda_targets_in(${sub} sub_targets)
    list(APPEND targets ${sub_targets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# The project's libraries and executables with at least `min_sources` C++ files
# (also used by UnityBuild.cmake).
function(_barracuda_compiled_targets min_sources out)
  _barracuda_targets_in(${PROJECT_SOURCE_DIR} targets)
  set(selected "")
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(sources ${t} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.cpp$")
    list(LENGTH sources n)
    if(NOT n LESS min_sources)
      list(APPEND selected ${t})
    endif()
  endforeach()
  set(${out} ${selected} PARENT_SCOPE)
endfunction()

function(_barracuda_apply_pch)
  if(NOT BARRACUDA_PCH)
    return()
  endif()
  _barracuda_compiled_targets(${BARRACUDA_PCH_MIN_SOURCES} targets)
  set(headers "")
  foreach(h ${_barracuda_pch_headers})
    list(APPEND headers "$<$<COMPILE_LANGUAGE:CXX>:${h}>")
  endforeach()
  foreach(t ${targets})
    # Test binaries have Catch2's PCH already.
    get_target_property(pch ${t} PRECOMPILE_HEADERS)
    if(NOT pch)
      target_precompile_headers(${t} PRIVATE ${headers})
    endif()
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _barracuda_apply_pch)
