# barracuda, the command-line tool (README.md). include()d from
# host_detector/CMakeLists.txt after daemon/daemon.cmake.
add_library(barracuda_cli STATIC
  ${CMAKE_CURRENT_LIST_DIR}/program_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/runtime_paths.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schedule_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/supervisor.cpp)
target_include_directories(barracuda_cli PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(barracuda_cli PUBLIC barracuda_ptx barracuda_static_cudart_core barracuda_transport nlohmann_json::nlohmann_json
  ${CMAKE_DL_LIBS})

# With the report writers, suppression files are parsed before the app runs.
if(TARGET barracuda_reports)
  target_link_libraries(barracuda_cli PUBLIC barracuda_reports)
  target_compile_definitions(barracuda_cli PUBLIC BARRACUDA_CLI_REPORT_WRITERS=1)
endif()

add_executable(barracuda ${CMAKE_CURRENT_LIST_DIR}/main.cpp)
target_compile_definitions(barracuda PRIVATE BARRACUDA_VERSION="${PROJECT_VERSION}")
target_link_libraries(barracuda PRIVATE barracuda_cli CLI11::CLI11)
add_dependencies(barracuda barracudad barracuda_static_cudart)

# A stand-in app for supervisor tests: attaches through the emulator's
# ShmRecordSink as the replacement libcudart would, emits a known racy stream,
# then exits / crashes / forks as told.
add_executable(barracuda_synthetic_app
  ${CMAKE_CURRENT_LIST_DIR}/tests/synthetic_app.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../daemon/tests/racy_stream.cpp
  ${PROJECT_SOURCE_DIR}/ptx_emulator/runtime/shm_sink.cpp)
target_link_libraries(barracuda_synthetic_app PRIVATE barracuda_transport barracuda_ptx)
set_target_properties(barracuda_synthetic_app PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/cli_tests)

barracuda_unit_test(cli_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/program_check_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/supervisor_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/schedule_plan_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/cli_binary_test.cpp
  LIBS barracuda_cli)
add_dependencies(cli_tests barracuda barracudad barracuda_synthetic_app)
target_compile_definitions(cli_tests PRIVATE
  BARRACUDA_CLI_PATH="$<TARGET_FILE:barracuda>"
  BARRACUDAD_PATH="$<TARGET_FILE:barracudad>"
  SYNTHETIC_APP_PATH="$<TARGET_FILE:barracuda_synthetic_app>")

# CUDA programs for the refusal tests: static cudart, no PTX, and a good build.
if(BARRACUDA_CUDA_TESTS)
  set(_cli_cu ${CMAKE_CURRENT_LIST_DIR}/tests/tiny_kernel.cu)
  set(_cli_out ${CMAKE_CURRENT_BINARY_DIR}/cli_tests)
  set(_flags_static_cudart -cudart static -gencode "arch=compute_75,code=[sm_75,compute_75]")
  set(_flags_no_ptx -cudart shared -gencode arch=compute_75,code=sm_75)
  set(_flags_good -cudart shared -gencode "arch=compute_75,code=[sm_75,compute_75]")
  set(_cli_programs "")
  foreach(vname static_cudart no_ptx good)
    add_custom_command(OUTPUT ${_cli_out}/tiny_${vname}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_cli_out}
      COMMAND ${NVCC_EXECUTABLE} ${_flags_${vname}} ${_cli_cu} -o ${_cli_out}/tiny_${vname}
      DEPENDS ${_cli_cu}
      COMMENT "nvcc tiny_kernel.cu -> tiny_${vname} (CLI refusal tests)" VERBATIM)
    list(APPEND _cli_programs ${_cli_out}/tiny_${vname})
  endforeach()
  # racy_then_crash: the crash test; same_value_flag: same-value warnings and
  # --ignore; wgmma_kernel, bad_registers: kernels the emulator cannot run
  # (unimplemented instructions, PTX its loader rejects), which barracuda must
  # call incomplete runs (exit 118); faulting_kernel: kernels that fault (a
  # null pointer, crossed barriers), which also make a run incomplete;
  # ticket_order: a race and an exit status that depend on the schedule
  # (--schedules); memory_errors: out-of-bounds, use-after-free, misaligned
  # and shared-window accesses (memcheck-style reports); stream_order: stream-order
  # races between kernels and async copies of two streams. wgmma (Hopper warpgroup MMA) only exists for sm_90a.
  set(_flags_wgmma_kernel -cudart shared -gencode "arch=compute_90a,code=[sm_90a,compute_90a]")
  # device_launch: dynamic parallelism (needs relocatable device code and the
  # device runtime), which the emulator refuses: an incomplete run.
  set(_flags_device_launch ${_flags_good} -rdc=true -lcudadevrt)
  # Host debug information: the stream-order reports name the host call's line.
  set(_flags_stream_order ${_flags_good} -g)
  # host_library: a CUDA host library (cuRAND) with its own copy of NVIDIA's
  # runtime, whose kernels cannot run on the emulator: an incomplete run.
  set(_cli_more_programs "")
  find_library(BARRACUDA_CURAND_LIBRARY curand HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64 NO_CACHE)
  if(BARRACUDA_CURAND_LIBRARY)
    set(_flags_host_library ${_flags_good} -lcurand)
    list(APPEND _cli_more_programs host_library)
  endif()
  foreach(_prog racy_then_crash same_value_flag wgmma_kernel bad_registers faulting_kernel ticket_order
          memory_errors stream_order device_launch ${_cli_more_programs})
    if(DEFINED _flags_${_prog})
      set(_flags ${_flags_${_prog}})
    else()
      set(_flags ${_flags_good})
    endif()
    add_custom_command(OUTPUT ${_cli_out}/${_prog}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_cli_out}
      COMMAND ${NVCC_EXECUTABLE} ${_flags} -lineinfo ${CMAKE_CURRENT_LIST_DIR}/tests/${_prog}.cu
        -o ${_cli_out}/${_prog}
      DEPENDS ${CMAKE_CURRENT_LIST_DIR}/tests/${_prog}.cu
      COMMENT "nvcc ${_prog}.cu (CLI end-to-end tests)" VERBATIM)
    list(APPEND _cli_programs ${_cli_out}/${_prog})
  endforeach()
  # -cudart static (nvcc's default): stripped (refused: no symbol table to find
  # the runtime by), and the bundled racy example and its fix built nvcc's
  # default way (taken over at start: static_cudart/).
  add_custom_command(OUTPUT ${_cli_out}/tiny_static_stripped
    COMMAND ${NVCC_EXECUTABLE} ${_flags_static_cudart} ${_cli_cu} -o ${_cli_out}/tiny_static_stripped
    COMMAND strip ${_cli_out}/tiny_static_stripped
    DEPENDS ${_cli_cu}
    COMMENT "nvcc tiny_kernel.cu -> tiny_static_stripped (CLI refusal tests)" VERBATIM)
  list(APPEND _cli_programs ${_cli_out}/tiny_static_stripped)
  add_custom_command(OUTPUT ${_cli_out}/static_fork_exec
    COMMAND ${NVCC_EXECUTABLE} -lineinfo -gencode "arch=compute_75,code=[sm_75,compute_75]"
      ${CMAKE_CURRENT_LIST_DIR}/tests/static_fork_exec.cu -o ${_cli_out}/static_fork_exec
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/tests/static_fork_exec.cu
    COMMENT "nvcc static_fork_exec.cu (static CUDA runtime, children)" VERBATIM)
  list(APPEND _cli_programs ${_cli_out}/static_fork_exec)
  foreach(_example racy_reduction racy_reduction_fixed)
    add_custom_command(OUTPUT ${_cli_out}/${_example}_static
      COMMAND ${NVCC_EXECUTABLE} -lineinfo -gencode "arch=compute_75,code=[sm_75,compute_75]"
        ${PROJECT_SOURCE_DIR}/examples/${_example}.cu -o ${_cli_out}/${_example}_static
      DEPENDS ${PROJECT_SOURCE_DIR}/examples/${_example}.cu
      COMMENT "nvcc ${_example}.cu -> ${_example}_static (static CUDA runtime)" VERBATIM)
    list(APPEND _cli_programs ${_cli_out}/${_example}_static)
  endforeach()
  # A program calling into a shared library that carries machine code only.
  add_custom_command(OUTPUT ${_cli_out}/libnoptx_library.so
    COMMAND ${NVCC_EXECUTABLE} -cudart shared -shared -Xcompiler -fPIC -gencode arch=compute_75,code=sm_75
      ${CMAKE_CURRENT_LIST_DIR}/tests/noptx_library.cu -o ${_cli_out}/libnoptx_library.so
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/tests/noptx_library.cu
    COMMENT "nvcc noptx_library.cu -> libnoptx_library.so (no PTX)" VERBATIM)
  add_custom_command(OUTPUT ${_cli_out}/uses_noptx_library
    COMMAND ${NVCC_EXECUTABLE} ${_flags_good} -lineinfo ${CMAKE_CURRENT_LIST_DIR}/tests/uses_noptx_library.cu
      -L${_cli_out} -lnoptx_library -Xlinker -rpath=${_cli_out} -o ${_cli_out}/uses_noptx_library
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/tests/uses_noptx_library.cu ${_cli_out}/libnoptx_library.so
    COMMENT "nvcc uses_noptx_library.cu (CLI end-to-end tests)" VERBATIM)
  list(APPEND _cli_programs ${_cli_out}/libnoptx_library.so ${_cli_out}/uses_noptx_library)
  # A plain host program whose CUDA code (with PTX) is all in a shared library.
  add_custom_command(OUTPUT ${_cli_out}/libptx_library.so
    COMMAND ${NVCC_EXECUTABLE} -cudart shared -shared -Xcompiler -fPIC -lineinfo
      -gencode "arch=compute_75,code=[sm_75,compute_75]"
      ${CMAKE_CURRENT_LIST_DIR}/tests/ptx_library.cu -o ${_cli_out}/libptx_library.so
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/tests/ptx_library.cu
    COMMENT "nvcc ptx_library.cu -> libptx_library.so" VERBATIM)
  add_custom_command(OUTPUT ${_cli_out}/plain_main_cuda_library
    COMMAND ${CMAKE_CXX_COMPILER} ${CMAKE_CURRENT_LIST_DIR}/tests/plain_main.cpp -L${_cli_out} -lptx_library
      -Wl,-rpath,${_cli_out} -o ${_cli_out}/plain_main_cuda_library
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/tests/plain_main.cpp ${_cli_out}/libptx_library.so
    COMMENT "c++ plain_main.cpp (CUDA code in a shared library)" VERBATIM)
  list(APPEND _cli_programs ${_cli_out}/libptx_library.so ${_cli_out}/plain_main_cuda_library)
  add_custom_target(cli_test_programs DEPENDS ${_cli_programs})
  add_dependencies(cli_tests cli_test_programs)
  target_compile_definitions(cli_tests PRIVATE BARRACUDA_CLI_CUDA_PROGRAMS="${_cli_out}")
  if(BARRACUDA_CURAND_LIBRARY)
    target_compile_definitions(cli_tests PRIVATE BARRACUDA_CLI_HOST_LIBRARY=1)
  endif()
endif()

# Every JSON / SARIF report the daemon writes in the [report-files] runs is
# validated against barracuda-report-v2 and the official SARIF 2.1.0 schema.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET barracuda_reports AND Python3_Interpreter_FOUND)
  add_test(NAME daemon_report_schemas
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/../reports/tests/validate_reports.py
      --tests $<TARGET_FILE:cli_tests>
      --out ${CMAKE_CURRENT_BINARY_DIR}/daemon_report_outputs
      --report-schema ${CMAKE_CURRENT_LIST_DIR}/../reports/schemas/barracuda-report-v2.schema.json
      --sarif-schema ${CMAKE_CURRENT_LIST_DIR}/../reports/schemas/sarif-schema-2.1.0.json)
  set_tests_properties(daemon_report_schemas PROPERTIES LABELS unit)
endif()

# End to end through the real emulator: the bundled example and its fixed twin
# (examples/) run under build/bin/barracuda with build/ptx_emulator/libcudart.so.13.
# ptx_emulator/ and examples/ are added after host_detector/, so this is
# decided at the end of the top-level directory.
function(_barracuda_cli_end_to_end)
  if(TARGET barracuda_cudart AND TARGET examples)
    add_dependencies(cli_tests barracuda_cudart examples)
    if(TARGET barracuda_gpu)
      add_dependencies(cli_tests barracuda_gpu)
    endif()
    target_compile_definitions(cli_tests PRIVATE BARRACUDA_E2E_EXAMPLES="${PROJECT_BINARY_DIR}/examples")
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _barracuda_cli_end_to_end)
