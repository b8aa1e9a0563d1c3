# add_gpupoor_library(name sources...
#                     [DEPENDS targets...] [MLIR_LIBS libs...] [LINK_LIBS libs...])
#
# An add_mlir_library that links upstream MLIR component libraries through
# mlir_target_link_libraries, so that with GPUPOOR_LINK_MLIR_DYLIB the whole
# project links libMLIR.so once instead of mixing it with static copies
# (which would register every dialect twice).
function(add_gpupoor_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;MLIR_LIBS;LINK_LIBS" ${ARGN})
  add_mlir_library(${name}
    ${ARG_UNPARSED_ARGUMENTS}
    EXCLUDE_FROM_LIBMLIR
    DISABLE_INSTALL
    DEPENDS ${ARG_DEPENDS}
    LINK_LIBS PUBLIC ${ARG_LINK_LIBS}
    )
  if(ARG_MLIR_LIBS)
    mlir_target_link_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
  endif()
  # Consumers of the installed package (GPUPoorConfig.cmake) find the
  # headers through the targets; upstream's install rules (DISABLE_INSTALL
  # above) would export into MLIR's own target set instead of ours.
  target_include_directories(${name} INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  set_property(GLOBAL APPEND PROPERTY GPUPOOR_EXPORTED_LIBRARIES ${name})
endfunction()
