#===- cmake/PlumbHelpers.cmake - thin add_plumb_* helpers ----------------===//

# A Plumb library that links MLIR through the single libMLIR.so.
function(add_plumb_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  llvm_update_compile_flags(${name})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS})
  mlir_target_link_libraries(${name} PUBLIC MLIRIR MLIRFuncDialect
                             MLIRParser MLIRTransforms MLIRTransformUtils)
  target_link_libraries(${name} PUBLIC ${PLUMB_LLVM_LIBS})
endfunction()

# A Plumb command-line tool, placed in build/bin.
function(add_plumb_tool name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  llvm_update_compile_flags(${name})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS})
  mlir_target_link_libraries(${name} PRIVATE MLIRIR)
  target_link_libraries(${name} PRIVATE ${PLUMB_LLVM_LIBS})
endfunction()
