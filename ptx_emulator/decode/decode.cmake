# decode/: PTX IR -> executable form, linking of a unit's modules, module
# variables, and the device memory arena. See decode/README.md.
target_sources(barracuda_emu PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/device_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_modules.cpp
  ${CMAKE_CURRENT_LIST_DIR}/function_decoder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/initializers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/module_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shared_layout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/special_registers.cpp)

barracuda_unit_test(emu_decode_tests
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/../tests/decode_memory_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/decode_function_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/decode_link_test.cpp
  LIBS barracuda_emu)

barracuda_fuzzer(emu_decode_fuzzer
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/../tests/decode_loader_fuzzer.cpp
  LIBS barracuda_emu)
