# The installed CMake package: `cmake --install build --prefix P` puts the
# headers (with the generated .inc files), the libraries, gpupoor-opt, the
# plugin and P/lib/cmake/gpupoor/GPUPoorConfig.cmake with the exported
# targets GPUPoor::<library> and GPUPoor::GPUPoorAll (everything InitAll.h
# registers). A consumer:
#   find_package(GPUPoor REQUIRED CONFIG)
#   include_directories(${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
#   target_link_libraries(my-opt PRIVATE GPUPoor::GPUPoorAll)
# (test/Consumer builds one; docs/guide/Integration.md).
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(GPUPOOR_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gpupoor)
get_property(_gpupoor_libraries GLOBAL PROPERTY GPUPOOR_EXPORTED_LIBRARIES)
install(TARGETS ${_gpupoor_libraries} GPUPoorAll
  EXPORT GPUPoorTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The installed tool and plugin find libMLIR.so where the build found it
# (install strips the build tree's RPATH).
set_target_properties(gpupoor-opt PROPERTIES INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
install(TARGETS gpupoor-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET GPUPoorPlugin)
  set_target_properties(GPUPoorPlugin PROPERTIES INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
  install(TARGETS GPUPoorPlugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gpupoor
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/gpupoor
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc" PATTERN "CMakeFiles" EXCLUDE)
install(EXPORT GPUPoorTargets NAMESPACE GPUPoor::
  DESTINATION ${GPUPOOR_INSTALL_CMAKE_DIR})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/GPUPoorConfig.cmake.in
  ${PROJECT_BINARY_DIR}/GPUPoorConfig.cmake
  INSTALL_DESTINATION ${GPUPOOR_INSTALL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/GPUPoorConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/GPUPoorConfig.cmake
  ${PROJECT_BINARY_DIR}/GPUPoorConfigVersion.cmake
  DESTINATION ${GPUPOOR_INSTALL_CMAKE_DIR})
