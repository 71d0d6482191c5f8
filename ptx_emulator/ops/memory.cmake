target_sources(barracuda_emu PRIVATE ${CMAKE_CURRENT_LIST_DIR}/memory_ops.cpp ${CMAKE_CURRENT_LIST_DIR}/warp_ops.cpp)
