# Fat-binary and ELF readers, the PTX-only fat-binary writer (ptx_rewriter/fatbin/),
# their tests, the real CUDA programs those tests read, and the fuzzer.
set(FATBIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/fatbin/decompress.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fatbin/fatbin_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fatbin/fatbin_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fatbin/elf_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fatbin/elf_fatbins.cpp)
target_sources(barracuda_ptx PRIVATE ${FATBIN_SOURCES})

list(APPEND PTX_REWRITER_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/tests/fatbin_reader_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/fatbin_writer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/fatbin_elf_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/fatbin_real_test.cpp)

# --- Real CUDA programs, built at test time by nvcc --------------------------
# Each is a tiny program compiled with the flags whose fat-binary layout the
# tests check. Their paths reach the tests through a generated header.
set(FATBIN_TEST_PROGRAM_DIR ${CMAKE_CURRENT_BINARY_DIR}/fatbin_test_programs)
set(_fb_data ${CMAKE_CURRENT_LIST_DIR}/tests/data/fatbin)
if(BARRACUDA_CUDA_TESTS)
  set(FATBIN_CUDA_TESTS_BOOL true)
  set(_fb_sm75 -gencode "arch=compute_75,code=[sm_75,compute_75]")
  set(_fb_programs "")
  # name; nvcc flags...; sources (relative to tests/data/fatbin) after SOURCES
  function(_fatbin_test_program name)
    cmake_parse_arguments(P "" "" "FLAGS;SOURCES" ${ARGN})
    set(out ${FATBIN_TEST_PROGRAM_DIR}/${name})
    list(TRANSFORM P_SOURCES PREPEND ${_fb_data}/)
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${FATBIN_TEST_PROGRAM_DIR}
      COMMAND ${NVCC_EXECUTABLE} ${P_FLAGS} ${P_SOURCES} -o ${out}
      DEPENDS ${P_SOURCES}
      COMMENT "nvcc: fat-binary test program ${name}"
      VERBATIM)
    set(_fb_programs ${_fb_programs} ${out} PARENT_SCOPE)
  endfunction()
  _fatbin_test_program(fb_zstd FLAGS -cudart shared ${_fb_sm75} -lineinfo SOURCES fb_kernel.cu)
  _fatbin_test_program(fb_lz4 FLAGS -cudart shared ${_fb_sm75} -lineinfo --compress-mode=speed
    SOURCES fb_kernel.cu)
  _fatbin_test_program(fb_none FLAGS -cudart shared ${_fb_sm75} -lineinfo --no-compress
    SOURCES fb_kernel.cu)
  _fatbin_test_program(fb_multi FLAGS -cudart shared ${_fb_sm75}
    -gencode "arch=compute_90,code=[sm_90,compute_90]" SOURCES fb_kernel.cu)
  _fatbin_test_program(fb_rdc FLAGS -cudart shared -rdc=true ${_fb_sm75}
    SOURCES fb_rdc_a.cu fb_rdc_b.cu)
  _fatbin_test_program(fb_static FLAGS -cudart static ${_fb_sm75} SOURCES fb_kernel.cu)
  # No flags at all: nvcc 13.0 defaults (-arch=sm_75 = code sm_75 + compute_75, static cudart).
  _fatbin_test_program(fb_default SOURCES fb_kernel.cu)
  _fatbin_test_program(fb_ptxonly FLAGS -cudart shared -arch=compute_75 SOURCES fb_kernel.cu)
  _fatbin_test_program(fb_nopie FLAGS -cudart shared ${_fb_sm75} -Xcompiler -fno-pie
    -Xlinker -no-pie SOURCES fb_kernel.cu)
  _fatbin_test_program(fb_elfonly FLAGS -cudart shared -gencode arch=compute_75,code=sm_75
    SOURCES fb_kernel.cu)
  _fatbin_test_program(libfb_shared.so FLAGS -cudart shared ${_fb_sm75} -shared -Xcompiler -fPIC
    SOURCES fb_library.cu)
  add_custom_target(fatbin_test_programs ALL DEPENDS ${_fb_programs})
  # The test binary is defined after this file is included: attach later.
  cmake_language(DEFER CALL add_dependencies ptx_rewriter_tests fatbin_test_programs)
else()
  set(FATBIN_CUDA_TESTS_BOOL false)
endif()
configure_file(${_fb_data}/fatbin_test_paths.h.in
  ${CMAKE_CURRENT_BINARY_DIR}/fatbin_generated/fatbin_test_paths.h @ONLY)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/tests/fatbin_real_test.cpp PROPERTIES
  INCLUDE_DIRECTORIES ${CMAKE_CURRENT_BINARY_DIR}/fatbin_generated)

# --- barracuda-ptx extract: exit codes and messages --------------------------
set(_fb_expect ${_fb_data}/expect_exit.cmake)
function(_fatbin_cli_test name expected_rc regex)
  add_test(NAME fatbin.extract.${name}
    COMMAND ${CMAKE_COMMAND} -DRC=${expected_rc} -DREGEX=${regex}
      "-DCMD=$<TARGET_FILE:barracuda-ptx>;extract;${ARGN}" -P ${_fb_expect})
  set_tests_properties(fatbin.extract.${name} PROPERTIES LABELS unit)
endfunction()
_fatbin_cli_test(missing 1 "cannot read" ${FATBIN_TEST_PROGRAM_DIR}/no_such_program)
_fatbin_cli_test(not_elf 1 "not an ELF file" ${_fb_data}/fb_kernel.cu)
_fatbin_cli_test(no_fatbin 1 "no CUDA fat binary" $<TARGET_FILE:barracuda-ptx>)
if(BARRACUDA_CUDA_TESTS)
  _fatbin_cli_test(list_zstd 0 "sm_75 +PTX 9\\.[0-9]+ +zstd" --list ${FATBIN_TEST_PROGRAM_DIR}/fb_zstd)
  _fatbin_cli_test(list_lz4 0 "sm_75 +PTX 9\\.[0-9]+ +lz4" --list ${FATBIN_TEST_PROGRAM_DIR}/fb_lz4)
  _fatbin_cli_test(list_rdc 0 "fb_rdc\\.2\\.1\\.sm_75\\.ptx" --list ${FATBIN_TEST_PROGRAM_DIR}/fb_rdc)
  _fatbin_cli_test(no_ptx 3 "code=\\[sm_XX,compute_XX\\]" ${FATBIN_TEST_PROGRAM_DIR}/fb_elfonly)
  _fatbin_cli_test(write 0 "fb_multi\\.1\\.3\\.sm_90\\.ptx" -o
    ${CMAKE_CURRENT_BINARY_DIR}/fatbin_extract_out ${FATBIN_TEST_PROGRAM_DIR}/fb_multi)
endif()

# --- Fuzzer --------------------------------------------------------------------
# The sources are compiled into the fuzzer itself so that they carry libFuzzer's
# coverage instrumentation (barracuda_ptx does not).
barracuda_fuzzer(fatbin_fuzzer
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/fuzz/fatbin_fuzzer.cpp ${FATBIN_SOURCES}
  LIBS absl::status absl::statusor absl::strings absl::flat_hash_map
       zstd::libzstd_shared PkgConfig::LZ4)
if(BARRACUDA_FUZZ)
  target_include_directories(fatbin_fuzzer PRIVATE ${PROJECT_SOURCE_DIR})
  set(_fb_corpus ${CMAKE_CURRENT_BINARY_DIR}/fatbin_fuzz_corpus)
  add_test(NAME fuzz.fatbin COMMAND sh -c "rm -rf '${_fb_corpus}' && cp -r '${CMAKE_CURRENT_LIST_DIR}/fuzz/corpus_fatbin' '${_fb_corpus}' && chmod -R u+w '${_fb_corpus}' && exec '$<TARGET_FILE:fatbin_fuzzer>' -max_total_time=30 -rss_limit_mb=2048 '${_fb_corpus}'")
  set_tests_properties(fuzz.fatbin PROPERTIES LABELS fuzz TIMEOUT 120)
endif()
