# Texture and surface objects (owner: memory): the object registry the
# runtime fills, fetch arithmetic (addressing, filtering, channel formats) and
# the tex/tld4/txq/suld/sust/suq handlers. Tests: emu_texture_tests.
target_sources(barracuda_emu PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/texture_objects.cpp
  ${CMAKE_CURRENT_LIST_DIR}/texture_sampling.cpp
  ${CMAKE_CURRENT_LIST_DIR}/texture_ops.cpp)

barracuda_unit_test(emu_texture_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/../tests/texture_sampling_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/texture_kernel_test.cpp
  LIBS barracuda_emu barracuda_ptx)
