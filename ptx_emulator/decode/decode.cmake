target_sources(barracuda_emu PRIVATE ${CMAKE_CURRENT_LIST_DIR}/device_modules.cpp)
