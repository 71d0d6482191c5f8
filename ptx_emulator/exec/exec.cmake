target_sources(barracuda_emu PRIVATE ${CMAKE_CURRENT_LIST_DIR}/control_ops.cpp ${CMAKE_CURRENT_LIST_DIR}/launch.cpp)
