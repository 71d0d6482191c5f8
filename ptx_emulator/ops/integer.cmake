target_sources(barracuda_emu PRIVATE ${CMAKE_CURRENT_LIST_DIR}/integer_ops.cpp ${CMAKE_CURRENT_LIST_DIR}/bit_ops.cpp)
