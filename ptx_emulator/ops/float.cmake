target_sources(barracuda_emu PRIVATE ${CMAKE_CURRENT_LIST_DIR}/float_ops.cpp ${CMAKE_CURRENT_LIST_DIR}/conversion_ops.cpp)
