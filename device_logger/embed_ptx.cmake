# cmake -DINPUT=logger.ptx -DOUTPUT=logger_ptx.cpp -P embed_ptx.cmake
# Wraps the logger's PTX in a C++ raw string (device_logger/logger_ptx.h).
file(READ ${INPUT} _ptx)
file(WRITE ${OUTPUT} "// Generated from ${INPUT} by embed_ptx.cmake. Do not edit.\n"
  "#include \"device_logger/logger_ptx.h\"\n\n"
  "namespace barracuda::device_logger {\n"
  "namespace {\nconstexpr char kPtx[] = R\"BCDA_PTX(${_ptx})BCDA_PTX\";\n}  // namespace\n"
  "std::string_view LoggerPtx() { return std::string_view(kPtx, sizeof(kPtx) - 1); }\n"
  "}  // namespace barracuda::device_logger\n")
